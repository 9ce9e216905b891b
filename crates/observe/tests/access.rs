//! The token rule on a real socket: a non-loopback address needs a token; with a token set,
//! requests without it get 401, with it (header or query) 200.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use dedupcrawl_observe::{AccessToken, Dashboard, ServeError};

/// Status code of `GET path` with extra header lines, over plain HTTP/1.1.
fn status(address: SocketAddr, path: &str, headers: &str) -> u16 {
    let mut stream = TcpStream::connect(address).expect("connect");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n{headers}\r\n"
    )
    .expect("send");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("read");
    response
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {response}"))
}

#[test]
fn a_non_loopback_address_needs_a_token() {
    let anywhere: SocketAddr = "0.0.0.0:8700".parse().unwrap();
    assert!(matches!(
        AccessToken::for_address(anywhere, None),
        Err(ServeError::TokenRequired(_))
    ));
    assert!(matches!(
        AccessToken::for_address(anywhere, Some(String::new())),
        Err(ServeError::TokenRequired(_))
    ));
    assert!(AccessToken::for_address(anywhere, Some("s3cret".into())).is_ok());
    assert!(AccessToken::for_address("127.0.0.1:8700".parse().unwrap(), None).is_ok());
    assert!(AccessToken::for_address("[::1]:8700".parse().unwrap(), None).is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_request_is_checked_against_the_token() {
    let mut dashboard = Dashboard::new();
    dashboard.add_crawl("test", false);
    let (listener, token) =
        dedupcrawl_observe::bind("127.0.0.1:0".parse().unwrap(), Some("s3cret".into()))
            .await
            .expect("bind");
    let address = listener.local_addr().expect("address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(dedupcrawl_observe::serve(
        listener,
        dashboard.router(token),
        async move {
            let _ = stopped.await;
        },
    ));
    let codes = tokio::task::spawn_blocking(move || {
        let mut codes = Vec::new();
        for path in [
            "/",
            "/dashboard.js",
            "/api/state",
            "/api/crawls",
            "/metrics",
        ] {
            codes.push((path, "none", status(address, path, "")));
            codes.push((
                path,
                "wrong",
                status(address, path, "Authorization: Bearer s3cre7\r\n"),
            ));
            codes.push((
                path,
                "header",
                status(address, path, "Authorization: Bearer s3cret\r\n"),
            ));
            codes.push((
                path,
                "query",
                status(address, &format!("{path}?token=s3cret"), ""),
            ));
        }
        codes
    })
    .await
    .expect("requests");
    let _ = stop.send(());
    server.await.expect("server task").expect("server ran");
    for (path, how, code) in codes {
        let expected = if how == "none" || how == "wrong" {
            401
        } else {
            200
        };
        assert_eq!(code, expected, "{path} with token {how}");
    }
}
