//! Limits, timeouts and broken servers.

use std::convert::Infallible;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use dedupcrawl_fetch::{FetchError, FetchRequest, OversizePolicy, TimeoutPhase, Url};
use futures_util::stream;

use crate::common::{fetcher, fetcher_with, serve, serve_raw};

const MIB: u64 = 1024 * 1024;
const HUGE: usize = 20 * 1024 * 1024;
const CHUNK: usize = 64 * 1024;

/// 20 MB in 64 KiB chunks, produced as the client reads.
fn huge_stream() -> Body {
    let chunks = stream::iter(
        (0..HUGE / CHUNK)
            .map(|i| Ok::<_, Infallible>(Bytes::from(vec![b'a' + (i % 26) as u8; CHUNK]))),
    );
    Body::from_stream(chunks)
}

/// Chunks separated by `pause`: `count` of them.
fn paced_stream(count: usize, pause: Duration) -> Body {
    let chunks = stream::unfold(0usize, move |i| async move {
        if i == count {
            return None;
        }
        if i > 0 {
            tokio::time::sleep(pause).await;
        }
        Some((
            Ok::<_, Infallible>(Bytes::from_static(b"<p>tick</p>\n")),
            i + 1,
        ))
    });
    Body::from_stream(chunks)
}

fn app() -> Router {
    Router::new()
        .route(
            "/huge-length",
            get(|| async {
                Response::builder()
                    .header(header::CONTENT_TYPE, "text/html")
                    .header(header::CONTENT_LENGTH, HUGE.to_string())
                    .body(huge_stream())
                    .unwrap()
            }),
        )
        .route(
            "/huge-chunked",
            get(|| async {
                ([(header::CONTENT_TYPE, "text/html")], huge_stream()).into_response()
            }),
        )
        .route(
            "/slow-head",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(3)).await;
                "late"
            }),
        )
        .route(
            "/slow-body",
            get(|| async { paced_stream(2, Duration::from_secs(3)) }),
        )
        .route(
            "/trickle",
            get(|| async { paced_stream(100, Duration::from_millis(50)) }),
        )
}

async fn fetch_with(
    policy: OversizePolicy,
    url: &str,
) -> Result<dedupcrawl_fetch::FetchedResponse, FetchError> {
    let fetcher = fetcher_with(|c| {
        c.max_body_bytes = MIB;
        c.oversize_policy = policy;
    });
    fetcher.fetch(FetchRequest::parse(url).unwrap()).await
}

#[tokio::test]
async fn huge_body_truncated_at_limit() {
    let base = serve(app()).await;
    for path in ["/huge-length", "/huge-chunked"] {
        let response = fetch_with(OversizePolicy::Truncate, &format!("{base}{path}"))
            .await
            .unwrap();
        assert_eq!(response.body.len() as u64, MIB, "{path}");
        assert!(response.body_truncated, "{path}");
        assert_eq!(response.body[0], b'a');
        if path == "/huge-length" {
            assert_eq!(
                response.header_str("content-length"),
                Some(HUGE.to_string().as_str())
            );
        } else {
            assert_eq!(response.header_str("transfer-encoding"), Some("chunked"));
        }
        let stored = String::from_utf8(response.http1_head_for_stored_body()).unwrap();
        assert!(
            !stored.contains("\r\ncontent-length") && !stored.contains("\r\ntransfer-encoding"),
            "{stored}"
        );
    }
}

#[tokio::test]
async fn huge_body_skipped() {
    let base = serve(app()).await;
    let err = fetch_with(OversizePolicy::Skip, &format!("{base}/huge-length"))
        .await
        .unwrap_err();
    match &err {
        FetchError::BodyTooLarge {
            limit,
            content_length,
            ..
        } => {
            assert_eq!((*limit, *content_length), (MIB, Some(HUGE as u64)));
        }
        other => panic!("expected BodyTooLarge, got {other:?}"),
    }
    assert!(!err.is_retryable());
    assert!(err.to_string().contains("max_body_bytes"), "{err}");

    let err = fetch_with(OversizePolicy::Skip, &format!("{base}/huge-chunked"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            FetchError::BodyTooLarge {
                content_length: None,
                ..
            }
        ),
        "{err:?}"
    );
}

fn quick_fetcher(read: u64, total: u64) -> dedupcrawl_fetch::Fetcher {
    fetcher_with(|c| {
        c.connect_timeout = Duration::from_millis(300);
        c.read_timeout = Duration::from_millis(read);
        c.total_timeout = Duration::from_millis(total);
    })
}

async fn expect_timeout(fetcher: &dedupcrawl_fetch::Fetcher, url: String, phase: TimeoutPhase) {
    let start = Instant::now();
    let err = fetcher
        .fetch(FetchRequest::parse(&url).unwrap())
        .await
        .unwrap_err();
    assert!(
        start.elapsed() < Duration::from_millis(1500),
        "{:?}",
        start.elapsed()
    );
    match &err {
        FetchError::Timeout { phase: got, .. } => assert_eq!(*got, phase, "{url}"),
        other => panic!("expected timeout for {url}, got {other:?}"),
    }
    assert!(err.is_retryable());
    assert!(err.to_string().contains(&url), "{err}");
}

#[tokio::test]
async fn slow_servers_time_out() {
    let base = serve(app()).await;
    let fetcher = quick_fetcher(300, 5_000);
    expect_timeout(
        &fetcher,
        format!("{base}/slow-head"),
        TimeoutPhase::ResponseHead,
    )
    .await;
    expect_timeout(&fetcher, format!("{base}/slow-body"), TimeoutPhase::Body).await;
    // Every chunk is in time, but the whole takes 5 s.
    let fetcher = quick_fetcher(1_000, 300);
    expect_timeout(&fetcher, format!("{base}/trickle"), TimeoutPhase::Total).await;
}

#[tokio::test]
async fn connection_closed_mid_body_is_retryable() {
    let addr = serve_raw(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1000\r\n\r\n<p>only part of the body").await;
    let err = fetcher()
        .fetch(FetchRequest::parse(&format!("http://{addr}/")).unwrap())
        .await
        .unwrap_err();
    match &err {
        FetchError::BrokenBody { received_bytes, .. } => assert_eq!(*received_bytes, 24),
        other => panic!("expected BrokenBody, got {other:?}"),
    }
    assert!(err.is_retryable());
}

#[tokio::test]
async fn bad_chunked_encoding_is_broken_body() {
    let addr = serve_raw(
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nZZ\r\nnot a chunk",
    )
    .await;
    let err = fetcher()
        .fetch(FetchRequest::parse(&format!("http://{addr}/")).unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::BrokenBody { .. }), "{err:?}");
    assert!(err.is_retryable());
}

#[tokio::test]
async fn garbage_response_is_protocol_error() {
    let addr = serve_raw(b"THIS IS NOT HTTP\r\n\r\n").await;
    let err = fetcher()
        .fetch(FetchRequest::parse(&format!("http://{addr}/")).unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Protocol { .. }), "{err:?}");
}

#[tokio::test]
async fn corrupt_gzip_is_a_decoding_error() {
    let addr = serve_raw(
        b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 10\r\n\r\nnot gzip!!",
    )
    .await;
    let err = fetcher()
        .fetch(FetchRequest::parse(&format!("http://{addr}/")).unwrap())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            FetchError::ContentDecoding {
                encoding: "gzip",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn connection_refused_is_retryable_connect_error() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let err = fetcher()
        .fetch(FetchRequest::parse(&format!("http://{addr}/")).unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Connect { .. }), "{err:?}");
    assert!(err.is_retryable());
    assert!(err.to_string().to_lowercase().contains("refused"), "{err}");
}

#[tokio::test]
async fn tls_to_a_plain_http_port_is_a_tls_error() {
    let base = serve(app()).await;
    let url = base.replace("http://", "https://") + "/";
    let err = fetcher()
        .fetch(FetchRequest::parse(&url).unwrap())
        .await
        .unwrap_err();
    assert!(matches!(err, FetchError::Tls { .. }), "{err:?}");
    assert!(!err.is_retryable());
}

#[tokio::test]
async fn only_http_and_https_are_fetched() {
    for url in [
        "ftp://example.invalid/file",
        "file:///etc/passwd",
        "mailto:someone@example.invalid",
    ] {
        let err = fetcher()
            .fetch(FetchRequest::new(Url::parse(url).unwrap()))
            .await
            .unwrap_err();
        assert!(
            matches!(err, FetchError::UnsupportedScheme { .. }),
            "{err:?}"
        );
        assert!(!err.is_retryable());
    }
    let err = FetchRequest::parse("http://").unwrap_err();
    assert!(matches!(err, FetchError::InvalidUrl { .. }), "{err:?}");
}

#[tokio::test]
async fn invalid_validator_is_rejected_before_sending() {
    let mut request = FetchRequest::parse("http://127.0.0.1:9/").unwrap();
    request.if_none_match = Some("\"v1\"\r\nX-Injected: 1".to_owned());
    let err = fetcher().fetch(request).await.unwrap_err();
    assert!(
        matches!(
            err,
            FetchError::InvalidRequestHeader {
                name: "If-None-Match",
                ..
            }
        ),
        "{err:?}"
    );
}
