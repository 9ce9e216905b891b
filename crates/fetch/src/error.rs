//! Why a fetch failed, classified so the engine can decide whether to retry.

use std::error::Error as StdError;
use std::fmt;
use std::time::Duration;

use url::Url;

/// A boxed error kept as the `source` of a [`FetchError`].
pub type BoxError = Box<dyn StdError + Send + Sync + 'static>;

/// The part of a fetch that ran out of time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeoutPhase {
    /// TCP connect (and TLS handshake) took longer than `connect_timeout`.
    Connect,
    /// No response head arrived within `connect_timeout + read_timeout` of starting the
    /// request (reqwest does not tell when the connection was made).
    ResponseHead,
    /// No body bytes arrived for `read_timeout` between two chunks.
    Body,
    /// The whole fetch took longer than `total_timeout`.
    Total,
}

impl fmt::Display for TimeoutPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeoutPhase::Connect => "connect",
            TimeoutPhase::ResponseHead => "response head",
            TimeoutPhase::Body => "body read",
            TimeoutPhase::Total => "total",
        })
    }
}

/// Why a fetch failed. Every variant but the configuration ones names the URL (as text, to
/// keep the error small); [`FetchError::is_retryable`] tells the
/// engine whether trying the same URL again later can help.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// The URL cannot be requested (no host, or not representable as an HTTP request target).
    #[error("invalid URL `{url}`: {reason}")]
    InvalidUrl { url: String, reason: String },

    /// Only `http` and `https` URLs are ever fetched.
    #[error("cannot fetch {url}: scheme `{scheme}` is not supported (only http and https are)")]
    UnsupportedScheme { url: String, scheme: String },

    /// A request header value given by the caller (validator, user agent...) is not a valid
    /// HTTP header value (e.g. it contains a line break).
    #[error("cannot fetch {url}: invalid value for request header `{name}`: {reason}")]
    InvalidRequestHeader {
        url: String,
        name: &'static str,
        reason: String,
    },

    /// DNS lookup failed, the connection was refused or reset while connecting.
    #[error("could not connect to {url}: {reason}")]
    Connect {
        url: String,
        reason: String,
        #[source]
        source: BoxError,
    },

    /// TLS handshake or certificate verification failed.
    #[error(
        "TLS failure talking to {url}: {reason} (bad or expired certificate, or the server \
         does not speak TLS on this port)"
    )]
    Tls {
        url: String,
        reason: String,
        #[source]
        source: BoxError,
    },

    /// A time limit of [`FetchConfig`](crate::FetchConfig) ran out.
    #[error("{}", timeout_message(url, *phase, *limit))]
    Timeout {
        url: String,
        phase: TimeoutPhase,
        /// The limit that ran out.
        limit: Duration,
    },

    /// The server's response head was malformed, or the connection closed before one arrived.
    #[error("HTTP protocol error from {url}: {reason}")]
    Protocol {
        url: String,
        reason: String,
        #[source]
        source: BoxError,
    },

    /// The connection broke while the body was read (reset, closed before `Content-Length`
    /// bytes, bad chunked encoding).
    #[error(
        "connection broke while reading the body of {url} after {received_bytes} bytes: {reason}"
    )]
    BrokenBody {
        url: String,
        /// Body bytes (as sent on the wire) received before the break.
        received_bytes: u64,
        reason: String,
        #[source]
        source: BoxError,
    },

    /// The body was sent with a `Content-Encoding` but is not valid in that encoding.
    #[error("the {encoding}-encoded body of {url} is corrupt: {source}")]
    ContentDecoding {
        url: String,
        encoding: &'static str,
        #[source]
        source: std::io::Error,
    },

    /// The (decoded) body is larger than `max_body_bytes` under [`OversizePolicy::Skip`](crate::OversizePolicy::Skip).
    #[error(
        "body of {url} is larger than the limit of {limit} bytes{}; raise `max_body_bytes` \
         or use `OversizePolicy::Truncate` to keep the first {limit} bytes",
        content_length.map(|n| format!(" (Content-Length: {n})")).unwrap_or_default()
    )]
    BodyTooLarge {
        url: String,
        limit: u64,
        /// The announced `Content-Length`, when the server sent one.
        content_length: Option<u64>,
    },

    /// [`FetchConfig`](crate::FetchConfig) has a value that cannot work.
    #[error("invalid fetch configuration: {reason}")]
    InvalidConfig { reason: String },

    /// The HTTP client could not be built (e.g. no TLS backend available).
    #[error("could not build the HTTP client: {reason}")]
    ClientBuild {
        reason: String,
        #[source]
        source: BoxError,
    },
}

impl FetchError {
    /// True when the same request may succeed later: connection failures, timeouts, broken
    /// connections. False for problems that repeat on every try (bad URL, unsupported scheme,
    /// body over the limit, TLS/certificate failures, corrupt content encoding, bad config).
    pub fn is_retryable(&self) -> bool {
        match self {
            FetchError::Connect { .. }
            | FetchError::Timeout { .. }
            | FetchError::Protocol { .. }
            | FetchError::BrokenBody { .. } => true,
            FetchError::InvalidUrl { .. }
            | FetchError::UnsupportedScheme { .. }
            | FetchError::InvalidRequestHeader { .. }
            | FetchError::Tls { .. }
            | FetchError::ContentDecoding { .. }
            | FetchError::BodyTooLarge { .. }
            | FetchError::InvalidConfig { .. }
            | FetchError::ClientBuild { .. } => false,
        }
    }

    /// What the failure says about the *host*, when it is a connection-level failure
    /// (refused, reset, DNS, TLS, connect/read/total timeouts, connection closed before a
    /// response head): a short phrase such as `connection refused`, to follow "host
    /// unreachable: ". `None` when the failure is about this URL or this response (bad URL,
    /// a body cut short after the head, body over the limit, corrupt content encoding) or the
    /// configuration.
    pub fn host_failure(&self) -> Option<String> {
        match self {
            FetchError::Connect { reason, .. } => Some(connect_failure(reason)),
            FetchError::Tls { reason, .. } => Some(format!("TLS handshake failed ({reason})")),
            FetchError::Timeout { phase, limit, .. } => Some(match phase {
                TimeoutPhase::Connect => format!("no connection within {}", seconds(*limit)),
                TimeoutPhase::ResponseHead => format!("no response within {}", seconds(*limit)),
                TimeoutPhase::Body => format!("body stalled for {}", seconds(*limit)),
                TimeoutPhase::Total => {
                    format!("fetch not done within total_timeout ({})", seconds(*limit))
                }
            }),
            FetchError::Protocol { reason, .. } => {
                Some(format!("connection closed or broken response ({reason})"))
            }
            // The host answered (the response head came): the break is this response's.
            FetchError::BrokenBody { .. }
            | FetchError::InvalidUrl { .. }
            | FetchError::UnsupportedScheme { .. }
            | FetchError::InvalidRequestHeader { .. }
            | FetchError::ContentDecoding { .. }
            | FetchError::BodyTooLarge { .. }
            | FetchError::InvalidConfig { .. }
            | FetchError::ClientBuild { .. } => None,
        }
    }

    /// True when the host sent a response head before the failure (a body cut short or
    /// broken): the host is up, whatever became of this response.
    pub fn host_answered(&self) -> bool {
        matches!(self, FetchError::BrokenBody { .. })
    }

    /// The URL the failed fetch was for, when the error concerns one.
    pub fn url(&self) -> Option<&str> {
        match self {
            FetchError::InvalidUrl { url, .. }
            | FetchError::UnsupportedScheme { url, .. }
            | FetchError::InvalidRequestHeader { url, .. }
            | FetchError::Connect { url, .. }
            | FetchError::Tls { url, .. }
            | FetchError::Timeout { url, .. }
            | FetchError::Protocol { url, .. }
            | FetchError::BrokenBody { url, .. }
            | FetchError::ContentDecoding { url, .. }
            | FetchError::BodyTooLarge { url, .. } => Some(url),
            FetchError::InvalidConfig { .. } | FetchError::ClientBuild { .. } => None,
        }
    }
}

/// "connection refused" rather than "Connection refused (os error 111)".
fn connect_failure(reason: &str) -> String {
    let lower = reason.to_ascii_lowercase();
    if lower.contains("refused") {
        "connection refused".to_owned()
    } else if lower.contains("reset") {
        "connection reset".to_owned()
    } else if lower.starts_with("name does not resolve") {
        reason.to_owned()
    } else if lower.contains("dns") || lower.contains("lookup") || lower.contains("resolve") {
        format!("name does not resolve ({reason})")
    } else {
        format!("cannot connect ({reason})")
    }
}

/// `2 s`, `1.5 s`.
fn seconds(limit: Duration) -> String {
    format!("{} s", (limit.as_secs_f64() * 10.0).round() / 10.0)
}

fn timeout_message(url: &str, phase: TimeoutPhase, limit: Duration) -> String {
    match phase {
        TimeoutPhase::Connect => format!(
            "timed out connecting to {url} after {limit:?}: the host is down, filtered or far \
             away; raise `connect_timeout` for slow networks"
        ),
        TimeoutPhase::ResponseHead => format!(
            "timed out waiting for the response head of {url} after {limit:?}; raise \
             `read_timeout` for slow servers"
        ),
        TimeoutPhase::Body => format!(
            "timed out reading the body of {url}: no data for {limit:?}; raise `read_timeout` \
             for slow servers"
        ),
        TimeoutPhase::Total => format!(
            "fetch of {url} took longer than the total limit of {limit:?}; raise \
             `total_timeout` for large or slow pages"
        ),
    }
}

/// Classifies an error from reqwest's `send`/`execute` (before any body byte was read).
pub(crate) fn classify_send_error(
    url: &Url,
    err: reqwest::Error,
    connect_limit: Duration,
) -> FetchError {
    let reason = innermost_message(&err);
    if is_tls_error(&err) {
        return FetchError::Tls {
            url: url.to_string(),
            reason,
            source: Box::new(err),
        };
    }
    if err.is_connect() {
        if err.is_timeout() {
            return FetchError::Timeout {
                url: url.to_string(),
                phase: TimeoutPhase::Connect,
                limit: connect_limit,
            };
        }
        return FetchError::Connect {
            url: url.to_string(),
            reason,
            source: Box::new(err),
        };
    }
    if err.is_builder() {
        return FetchError::InvalidUrl {
            url: url.to_string(),
            reason,
        };
    }
    FetchError::Protocol {
        url: url.to_string(),
        reason,
        source: Box::new(err),
    }
}

/// Classifies an error that happened while the body was streamed.
pub(crate) fn classify_body_error(
    url: &Url,
    err: reqwest::Error,
    received_bytes: u64,
) -> FetchError {
    let reason = innermost_message(&err);
    FetchError::BrokenBody {
        url: url.to_string(),
        received_bytes,
        reason,
        source: Box::new(err),
    }
}

/// Errors found along the `source` chain, including what an `io::Error` wraps (its
/// `source()` skips the wrapped error itself, so it is looked at explicitly).
fn error_chain<'a>(err: &'a (dyn StdError + 'static)) -> Vec<&'a (dyn StdError + 'static)> {
    let mut chain = Vec::new();
    let mut current = Some(err);
    while let Some(e) = current {
        chain.push(e);
        let wrapped: Option<&'a (dyn StdError + 'static)> = e
            .downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .map(|inner| inner as &(dyn StdError + 'static));
        current = wrapped.or_else(|| e.source());
        if chain.len() > 32 {
            break;
        }
    }
    chain
}

fn is_tls_error(err: &reqwest::Error) -> bool {
    error_chain(err)
        .iter()
        .any(|e| e.downcast_ref::<rustls::Error>().is_some())
}

/// The most specific message of the chain ("Connection refused (os error 111)"), which says
/// more than reqwest's outer "error sending request".
fn innermost_message(err: &reqwest::Error) -> String {
    error_chain(err)
        .last()
        .map(|e| e.to_string())
        .unwrap_or_else(|| err.to_string())
}
