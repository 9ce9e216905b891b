//! Settings of a [`Fetcher`](crate::Fetcher).

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

/// What to do with a body larger than [`FetchConfig::max_body_bytes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum OversizePolicy {
    /// Keep the first `max_body_bytes` bytes and set `body_truncated` (the page is still
    /// parsed and archived, as most crawlers do).
    #[default]
    Truncate,
    /// Fail with [`FetchError::BodyTooLarge`](crate::FetchError::BodyTooLarge); when the
    /// server announces a larger `Content-Length` no body byte is read.
    Skip,
}

/// Settings shared by every fetch of one [`Fetcher`](crate::Fetcher).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchConfig {
    /// Sent as `User-Agent`; name the crawler and a contact URL.
    pub user_agent: String,
    /// Sent as `Accept`.
    pub accept: String,
    /// Language ranges sent as `Accept-Language`, joined with ", " (may carry `;q=`).
    /// Empty: the header is not sent and servers pick their default language.
    pub accept_languages: Vec<String>,
    /// Limit for TCP connect plus TLS handshake.
    pub connect_timeout: Duration,
    /// Limit for waiting on data: the response head must come within
    /// `connect_timeout + read_timeout` of the start, and body chunks at most this far apart.
    pub read_timeout: Duration,
    /// Limit for the whole fetch, body included.
    pub total_timeout: Duration,
    /// Most body bytes kept, counted after content decoding (so a gzip bomb is cut short).
    pub max_body_bytes: u64,
    /// What to do when the body is larger than `max_body_bytes`.
    pub oversize_policy: OversizePolicy,
    /// Honour `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY` from the environment.
    pub use_env_proxy: bool,
    /// Names resolved to these addresses without DNS (as curl's `--resolve`); the port is
    /// the URL's.
    pub resolve: BTreeMap<String, IpAddr>,
    /// Resolve only the names of [`resolve`](Self::resolve) (IP literals need none): any
    /// other name fails as "name does not resolve" and no DNS query is sent.
    pub resolve_only: bool,
}

/// `User-Agent` of [`FetchConfig::default`].
pub const DEFAULT_USER_AGENT: &str = "dedupcrawl/0.1 (+https://example.invalid/dedupcrawl)";

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            user_agent: DEFAULT_USER_AGENT.to_owned(),
            accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8".to_owned(),
            accept_languages: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            total_timeout: Duration::from_secs(60),
            max_body_bytes: 10 * 1024 * 1024,
            oversize_policy: OversizePolicy::Truncate,
            use_env_proxy: true,
            resolve: BTreeMap::new(),
            resolve_only: false,
        }
    }
}
