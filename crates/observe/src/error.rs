//! Errors of the dashboard server.

use std::net::SocketAddr;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(
        "{0} is not a loopback address: serving there needs a token (--token or DEDUPCRAWL_TOKEN)"
    )]
    TokenRequired(SocketAddr),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error("dashboard server failed: {0}")]
    Serve(std::io::Error),
}
