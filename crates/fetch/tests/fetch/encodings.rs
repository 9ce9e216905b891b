//! Content codings (gzip, deflate, br) and character encodings.

use std::io::Write;

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use dedupcrawl_fetch::{Encoding, EncodingSource, FetchRequest, FetchedResponse, decode_text};
use flate2::Compression;

use crate::common::{fetcher, serve};

const TEXT: &str = "<!doctype html><p>Compressed café, compressed café, compressed café.</p>";

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(data).unwrap();
    encoder.finish().unwrap()
}

fn brotli(data: &[u8]) -> Vec<u8> {
    let mut encoder = brotli::CompressorWriter::new(Vec::new(), 4096, 5, 22);
    encoder.write_all(data).unwrap();
    encoder.into_inner()
}

fn encoded(coding: &'static str, body: Vec<u8>) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_ENCODING, coding),
        ],
        body,
    )
}

fn with_type(content_type: &'static str, body: Vec<u8>) -> impl IntoResponse {
    ([(header::CONTENT_TYPE, content_type)], body)
}

fn app() -> Router {
    let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("日本語のページ");
    let mut shift_jis_page =
        b"<html><head><meta charset=\"Shift_JIS\"><title>t</title></head><body>".to_vec();
    shift_jis_page.extend_from_slice(&sjis);
    let mut bom_page = b"\xef\xbb\xbf".to_vec();
    bom_page.extend_from_slice("<p>café 日本語</p>".as_bytes());
    Router::new()
        .route("/gzip", get(|| async { encoded("gzip", gzip(TEXT.as_bytes())) }))
        .route("/deflate", get(|| async { encoded("deflate", zlib(TEXT.as_bytes())) }))
        .route("/br", get(|| async { encoded("br", brotli(TEXT.as_bytes())) }))
        .route(
            "/cp1252",
            get(|| async { with_type("text/html; charset=windows-1252", b"<p>caf\xe9 \x80 \x93ok\x94</p>".to_vec()) }),
        )
        .route(
            "/latin1",
            get(|| async { with_type("text/html; charset=ISO-8859-1", b"<p>caf\xe9 na\xefve</p>".to_vec()) }),
        )
        .route("/sjis", get(move || async move { with_type("text/html", shift_jis_page) }))
        .route("/bom", get(move || async move { with_type("text/html; charset=windows-1252", bom_page) }))
        .route(
            "/http-equiv",
            get(|| async {
                with_type(
                    "text/html",
                    b"<!-- <meta charset=koi8-r> --><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"><p>caf\xe9"
                        .to_vec(),
                )
            }),
        )
        .route("/undeclared-utf8", get(|| async { with_type("text/html", "<p>café</p>".as_bytes().to_vec()) }))
        .route("/undeclared-legacy", get(|| async { with_type("text/html", b"<p>caf\xe9</p>".to_vec()) }))
}

async fn get_page(base: &str, path: &str) -> FetchedResponse {
    fetcher()
        .fetch(FetchRequest::parse(&format!("{base}{path}")).unwrap())
        .await
        .unwrap()
}

#[tokio::test]
async fn compressed_bodies_are_decoded() {
    let base = serve(app()).await;
    for (path, coding) in [("/gzip", "gzip"), ("/deflate", "deflate"), ("/br", "br")] {
        let response = get_page(&base, path).await;
        assert_eq!(response.status, 200);
        assert_eq!(&response.body[..], TEXT.as_bytes(), "{path}");
        assert!(response.content_was_decoded, "{path}");
        assert!(!response.body_truncated);
        // The headers still say what came over the wire.
        assert_eq!(
            response.header("content-encoding"),
            Some(coding.as_bytes()),
            "{path}"
        );
        let stored = String::from_utf8(response.http1_head_for_stored_body()).unwrap();
        assert!(
            stored.contains(&format!("x-archive-orig-content-encoding: {coding}\r\n")),
            "{stored}"
        );
        assert!(!stored.contains("\r\ncontent-encoding"), "{stored}");
        assert_eq!(decode_text(&response).text, TEXT);
    }
}

async fn decoded(base: &str, path: &str) -> (String, &'static Encoding, EncodingSource) {
    let decoded = decode_text(&get_page(base, path).await);
    (decoded.text, decoded.encoding, decoded.source)
}

#[tokio::test]
async fn charsets_decode_exactly() {
    let base = serve(app()).await;
    use EncodingSource::*;
    use encoding_rs::{SHIFT_JIS, UTF_8, WINDOWS_1252};

    assert_eq!(
        decoded(&base, "/cp1252").await,
        ("<p>café € “ok”</p>".to_owned(), WINDOWS_1252, Header)
    );
    // ISO-8859-1 is windows-1252 per WHATWG.
    assert_eq!(
        decoded(&base, "/latin1").await,
        ("<p>café naïve</p>".to_owned(), WINDOWS_1252, Header)
    );
    let (text, encoding, source) = decoded(&base, "/sjis").await;
    assert_eq!((encoding, source), (SHIFT_JIS, Meta));
    assert!(text.ends_with("<body>日本語のページ"), "{text}");
    // The BOM wins over the header and is stripped.
    assert_eq!(
        decoded(&base, "/bom").await,
        ("<p>café 日本語</p>".to_owned(), UTF_8, Bom)
    );
    let (text, encoding, source) = decoded(&base, "/http-equiv").await;
    assert_eq!((encoding, source), (WINDOWS_1252, Meta));
    assert!(text.ends_with("<p>café"));
    // Documented default: valid UTF-8 is UTF-8, anything else windows-1252.
    assert_eq!(
        decoded(&base, "/undeclared-utf8").await,
        ("<p>café</p>".to_owned(), UTF_8, ValidUtf8)
    );
    assert_eq!(
        decoded(&base, "/undeclared-legacy").await,
        ("<p>café</p>".to_owned(), WINDOWS_1252, Default)
    );
}
