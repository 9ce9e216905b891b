//! The `--token` option shared by `crawl --serve` and `serve`, and the URL printed at start.

use std::net::SocketAddr;

/// Environment variable read when `--token` is not given.
pub const TOKEN_VARIABLE: &str = "DEDUPCRAWL_TOKEN";

#[derive(Debug, Clone, clap::Args)]
pub struct TokenArg {
    /// Token every dashboard request must carry (`Authorization: Bearer T` or `?token=T`);
    /// required to listen on a non-loopback address. Default: env DEDUPCRAWL_TOKEN.
    #[arg(long, value_name = "T")]
    pub token: Option<String>,
}

impl TokenArg {
    pub fn resolve(&self) -> Option<String> {
        self.token
            .clone()
            .or_else(|| std::env::var(TOKEN_VARIABLE).ok())
            .filter(|token| !token.is_empty())
    }
}

/// The dashboard's address for the log (without the token: logs are often shared).
pub fn dashboard_url(address: SocketAddr) -> String {
    format!("http://{address}/ (metrics at http://{address}/metrics)")
}
