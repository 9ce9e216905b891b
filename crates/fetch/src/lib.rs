//! One HTTP(S) fetch for the dedupcrawl engine, done carefully.
//!
//! A [`Fetcher`] wraps one pooled reqwest client and performs a single `GET` per
//! [`Fetcher::fetch`]. It leaves scheduling, politeness and retries to the engine and gives it
//! what it needs to decide:
//!
//! - **redirects are not followed**: a 3xx comes back with
//!   [`FetchedResponse::redirect_target`] (the `Location` resolved against the request URL),
//!   so every hop goes through the frontier's scope and robots checks;
//! - **conditional GET** with [`FetchRequest::conditional`] and
//!   [`FetchedResponse::validators`] (`ETag`, `Last-Modified`), so recrawls get 304s;
//! - **limits**: the body is streamed and never held past
//!   [`FetchConfig::max_body_bytes`] (counted after decoding gzip/deflate/br), either
//!   truncated or refused ([`OversizePolicy`]); connect, read (per chunk) and total timeouts;
//! - **what the archive needs**: status line, response headers as received (in order),
//!   the request head that was sent, remote address, start time, and whether the body was
//!   decoded or truncated;
//! - **classification**: [`FetchError::is_retryable`], [`classify_status`] and
//!   [`retry_after`] for backoff;
//! - **text**: [`decode_text`] picks the character encoding from BOM, `Content-Type`,
//!   `<meta>` prescan, then a default (see [`charset`] for the default chosen and why).
//!
//! # Example
//!
//! ```no_run
//! use std::time::Duration;
//! use dedupcrawl_fetch::{FetchConfig, FetchRequest, Fetcher, StatusClass, decode_text};
//!
//! # async fn run() -> Result<(), dedupcrawl_fetch::FetchError> {
//! let fetcher = Fetcher::new(FetchConfig {
//!     max_body_bytes: 2 * 1024 * 1024,
//!     read_timeout: Duration::from_secs(10),
//!     ..FetchConfig::default()
//! })?;
//! let response = fetcher.fetch(FetchRequest::parse("https://example.com/")?).await?;
//! match response.status_class() {
//!     StatusClass::Success if response.is_html() => {
//!         let page = decode_text(&response);
//!         println!("{} chars, {}", page.text.len(), page.encoding.name());
//!     }
//!     StatusClass::Redirect => println!("next hop: {:?}", response.redirect_target()),
//!     other => println!("{other:?}"),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Building a fetcher needs no network:
//!
//! ```
//! use dedupcrawl_fetch::{FetchConfig, Fetcher, OversizePolicy};
//!
//! let fetcher = Fetcher::new(FetchConfig {
//!     oversize_policy: OversizePolicy::Skip,
//!     ..FetchConfig::default()
//! })
//! .expect("default config is valid");
//! assert!(fetcher.config().user_agent.starts_with("dedupcrawl/"));
//! ```
//!
//! # Headers as received
//!
//! hyper parses responses into a `HeaderMap`: field names arrive **lowercased**, and repeated
//! fields of one name (e.g. two `Set-Cookie`) are grouped at the position of the first one.
//! Otherwise the order is the server's. Content decoding is done in this crate rather than
//! by reqwest, because reqwest would remove `Content-Encoding` and `Content-Length`.

pub mod charset;

mod body;
mod config;
mod error;
mod fetcher;
mod resolve;
mod response;
mod status;

pub use body::decode_content_encoding;
pub use charset::{DecodedText, EncodingSource, decode_bytes, decode_text};
pub use config::{DEFAULT_USER_AGENT, FetchConfig, OversizePolicy};
pub use error::{BoxError, FetchError, TimeoutPhase};
pub use fetcher::{BasicCredentials, FetchRequest, Fetcher};
pub use resolve::NotInTable;
pub use response::{FetchedResponse, HeaderField, HttpVersion, RequestHead, Validators};
pub use status::{StatusClass, classify_status, parse_retry_after, retry_after};

/// Re-exported so callers can name encodings without depending on encoding_rs.
pub use encoding_rs::Encoding;
/// Re-exported: [`FetchRequest::url`] and [`FetchedResponse::url`] are `url::Url`.
pub use url::Url;
