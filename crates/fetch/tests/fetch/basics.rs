//! Plain pages, headers, request head, redirects, status classes, conditional GET.

use std::time::{Duration, SystemTime};

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use dedupcrawl_fetch::{
    DEFAULT_USER_AGENT, FetchRequest, HttpVersion, StatusClass, Validators, classify_status,
    retry_after,
};

use crate::common::{fetcher, serve};

const PAGE: &str = "<!doctype html><title>Hello</title><p>Hello, world</p>";

async fn html_page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::HeaderName::from_static("x-zulu"), "1"),
            (header::HeaderName::from_static("x-alpha"), "2"),
            (header::HeaderName::from_static("x-mike"), "3"),
        ],
        PAGE,
    )
        .into_response()
}

/// Answers with the request head it received, one `name: value` per line.
async fn echo_request(headers: HeaderMap) -> String {
    headers
        .iter()
        .map(|(n, v)| format!("{}: {}\n", n, v.to_str().unwrap_or("?")))
        .collect()
}

fn app() -> Router {
    Router::new()
        .route("/page", get(html_page))
        .route("/echo", get(echo_request))
        .route(
            "/data.json",
            get(|| async { ([(header::CONTENT_TYPE, "application/json")], "{\"a\":1}") }),
        )
        .route(
            "/redirect/{code}",
            get(|Path(code): Path<u16>| async move {
                let status = StatusCode::from_u16(code).unwrap_or(StatusCode::FOUND);
                (status, [(header::LOCATION, "../target/page?x=1")]).into_response()
            }),
        )
        .route(
            "/too-many",
            get(|| async { (StatusCode::TOO_MANY_REQUESTS, [(header::RETRY_AFTER, "3")]) }),
        )
        .route(
            "/too-many-date",
            get(|| async {
                let at = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(120));
                (StatusCode::TOO_MANY_REQUESTS, [(header::RETRY_AFTER, at)])
            }),
        )
        .route(
            "/unavailable",
            get(|| async {
                (
                    StatusCode::SERVICE_UNAVAILABLE,
                    [(header::RETRY_AFTER, "soon")],
                )
            }),
        )
        .route("/missing", get(|| async { StatusCode::NOT_FOUND }))
        .route("/versioned", get(versioned))
}

const ETAG: &str = "\"v1\"";
const LAST_MODIFIED: &str = "Wed, 21 Oct 2015 07:28:00 GMT";

async fn versioned(headers: HeaderMap) -> Response {
    if headers
        .get(header::IF_NONE_MATCH)
        .is_some_and(|v| v == ETAG)
    {
        // Servers often keep Content-Encoding on a 304: there is no body to decode.
        let headers = [(header::ETAG, ETAG), (header::CONTENT_ENCODING, "gzip")];
        return (StatusCode::NOT_MODIFIED, headers).into_response();
    }
    (
        [
            (header::ETAG, ETAG),
            (header::LAST_MODIFIED, LAST_MODIFIED),
            (header::CONTENT_TYPE, "text/html"),
        ],
        PAGE,
    )
        .into_response()
}

#[tokio::test]
async fn plain_html_page() {
    let base = serve(app()).await;
    let url = format!("{base}/page");
    let response = fetcher()
        .fetch(FetchRequest::parse(&url).unwrap())
        .await
        .unwrap();

    assert_eq!(response.status, 200);
    assert_eq!(response.reason, "OK");
    assert_eq!(response.version, HttpVersion::Http11);
    assert_eq!(response.status_class(), StatusClass::Success);
    assert_eq!(&response.body[..], PAGE.as_bytes());
    assert!(!response.body_truncated);
    assert!(!response.content_was_decoded);
    assert_eq!(response.content_type().as_deref(), Some("text/html"));
    assert!(response.is_html());
    assert_eq!(response.url.as_str(), url);
    let remote = response.remote_addr.expect("remote addr");
    assert!(remote.ip().is_loopback(), "{remote}");
    assert_eq!(remote.to_string(), base.trim_start_matches("http://"));
    assert!(response.elapsed < Duration::from_secs(2));

    // Header fields in the order the server sent them (names lowercased by hyper).
    let names: Vec<&str> = response.headers.iter().map(|(n, _)| n.as_str()).collect();
    let position = |name: &str| names.iter().position(|n| *n == name).expect(name);
    assert!(position("x-zulu") < position("x-alpha"), "{names:?}");
    assert!(position("x-alpha") < position("x-mike"), "{names:?}");
    assert_eq!(response.header("X-Alpha"), Some(&b"2"[..]));
    assert_eq!(
        response.header_str("content-length"),
        Some(PAGE.len().to_string().as_str())
    );

    let head = String::from_utf8(response.http1_head()).unwrap();
    assert!(
        head.starts_with("HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\n"),
        "{head}"
    );
    assert!(head.ends_with("\r\n\r\n"));
}

#[tokio::test]
async fn request_head_is_what_the_server_received() {
    let base = serve(app()).await;
    let fetcher =
        crate::common::fetcher_with(|c| c.accept_languages = vec!["en".into(), "fr;q=0.5".into()]);
    let response = fetcher
        .fetch(FetchRequest::parse(&format!("{base}/echo?q=1&r=%20")).unwrap())
        .await
        .unwrap();

    let request = &response.request;
    assert_eq!(request.method, "GET");
    assert_eq!(request.target, "/echo?q=1&r=%20");
    assert_eq!(request.version, HttpVersion::Http11);
    let sent: String = request
        .headers
        .iter()
        .map(|(n, v)| format!("{}: {}\n", n, String::from_utf8_lossy(v)))
        .collect();
    // Same fields, same order, as the server saw them.
    assert_eq!(sent, String::from_utf8_lossy(&response.body));
    assert!(
        sent.starts_with(&format!("user-agent: {DEFAULT_USER_AGENT}\n")),
        "{sent}"
    );
    assert!(sent.contains("accept-language: en, fr;q=0.5\n"), "{sent}");
    assert!(
        sent.contains("accept-encoding: gzip, deflate, br\n"),
        "{sent}"
    );
    assert!(
        sent.contains(&format!("host: {}\n", base.trim_start_matches("http://"))),
        "{sent}"
    );

    let bytes = String::from_utf8(request.to_http1_bytes()).unwrap();
    assert!(
        bytes.starts_with("GET /echo?q=1&r=%20 HTTP/1.1\r\nuser-agent: dedupcrawl/0.1"),
        "{bytes}"
    );
}

#[tokio::test]
async fn non_html_is_not_html() {
    let base = serve(app()).await;
    let response = fetcher()
        .fetch(FetchRequest::parse(&format!("{base}/data.json")).unwrap())
        .await
        .unwrap();
    assert_eq!(response.content_type().as_deref(), Some("application/json"));
    assert!(!response.is_html());
}

#[tokio::test]
async fn redirects_are_returned_not_followed() {
    let base = serve(app()).await;
    let fetcher = fetcher();
    for code in [301u16, 302, 303, 307, 308] {
        let url = format!("{base}/redirect/{code}");
        let response = fetcher
            .fetch(FetchRequest::parse(&url).unwrap())
            .await
            .unwrap();
        assert_eq!(response.status, code);
        assert_eq!(response.status_class(), StatusClass::Redirect);
        let target = response.redirect_target().expect("Location");
        assert_eq!(target.as_str(), format!("{base}/target/page?x=1"), "{code}");
    }
    let ok = fetcher
        .fetch(FetchRequest::parse(&format!("{base}/page")).unwrap())
        .await
        .unwrap();
    assert_eq!(ok.redirect_target(), None);
}

#[tokio::test]
async fn retry_later_statuses() {
    let base = serve(app()).await;
    let fetcher = fetcher();
    let now = SystemTime::now();

    let delta = fetcher
        .fetch(FetchRequest::parse(&format!("{base}/too-many")).unwrap())
        .await
        .unwrap();
    assert_eq!(delta.status, 429);
    assert_eq!(delta.status_class(), StatusClass::RetryLater);
    assert_eq!(retry_after(&delta, now), Some(Duration::from_secs(3)));

    let dated = fetcher
        .fetch(FetchRequest::parse(&format!("{base}/too-many-date")).unwrap())
        .await
        .unwrap();
    let wait = retry_after(&dated, now).expect("HTTP-date Retry-After");
    assert!(
        wait > Duration::from_secs(100) && wait <= Duration::from_secs(121),
        "{wait:?}"
    );

    let unavailable = fetcher
        .fetch(FetchRequest::parse(&format!("{base}/unavailable")).unwrap())
        .await
        .unwrap();
    assert_eq!(unavailable.status, 503);
    assert_eq!(unavailable.status_class(), StatusClass::RetryLater);
    assert_eq!(retry_after(&unavailable, now), None, "garbage Retry-After");

    let missing = fetcher
        .fetch(FetchRequest::parse(&format!("{base}/missing")).unwrap())
        .await
        .unwrap();
    assert_eq!(missing.status_class(), StatusClass::ClientError);
    assert_eq!(classify_status(500), StatusClass::ServerError);
}

#[tokio::test]
async fn conditional_get_gets_304() {
    let base = serve(app()).await;
    let fetcher = fetcher();
    let url = format!("{base}/versioned");

    let first = fetcher
        .fetch(FetchRequest::parse(&url).unwrap())
        .await
        .unwrap();
    assert_eq!(first.status, 200);
    let validators = first.validators();
    assert_eq!(
        validators,
        Validators {
            etag: Some(ETAG.to_owned()),
            last_modified: Some(LAST_MODIFIED.to_owned())
        }
    );

    let again = fetcher
        .fetch(FetchRequest::parse(&url).unwrap().conditional(&validators))
        .await
        .unwrap();
    assert_eq!(again.status, 304);
    assert_eq!(again.status_class(), StatusClass::NotModified);
    assert!(again.body.is_empty());
    assert!(!again.content_was_decoded);
    let sent = |name: &str| {
        again
            .request
            .headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
    };
    assert_eq!(sent("if-none-match").as_deref(), Some(ETAG));
    assert_eq!(sent("if-modified-since").as_deref(), Some(LAST_MODIFIED));
}
