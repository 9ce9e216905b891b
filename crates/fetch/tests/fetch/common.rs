//! Test servers on 127.0.0.1: an axum app, and raw TCP servers for broken responses.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use dedupcrawl_fetch::{FetchConfig, Fetcher};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// Serves `app` on 127.0.0.1 (any port) for the rest of the test; returns the base URL.
pub async fn serve(app: Router) -> String {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        axum::serve(listener, app).await.expect("axum server");
    });
    format!("http://{addr}")
}

/// Accepts connections on 127.0.0.1; for each, reads the request head and answers with
/// `response` bytes, then closes the connection.
pub async fn serve_raw(response: &'static [u8]) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                let _ = socket.write_all(response).await;
                let _ = socket.flush().await;
                // Dropping the socket closes the connection mid-body.
            });
        }
    });
    addr
}

/// A fetcher with test-sized timeouts and no proxy from the environment.
pub fn fetcher() -> Fetcher {
    fetcher_with(|_| {})
}

pub fn fetcher_with(adjust: impl FnOnce(&mut FetchConfig)) -> Fetcher {
    let mut config = FetchConfig {
        connect_timeout: Duration::from_secs(2),
        read_timeout: Duration::from_secs(2),
        total_timeout: Duration::from_secs(5),
        use_env_proxy: false,
        ..FetchConfig::default()
    };
    adjust(&mut config);
    Fetcher::new(config).expect("valid config")
}
