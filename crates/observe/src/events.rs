//! What the engine tells the observer: one decision, one fetch, a host pause, the gauges.
//! Plain borrowed data, so the engine builds them without allocating.

use std::time::Duration;

/// One crawl-log line.
#[derive(Debug, Clone)]
pub struct DecisionEvent<'a> {
    /// RFC 3339 time of the decision.
    pub ts: &'a str,
    pub url: &'a str,
    /// `archived`, `exact_duplicate`, ... (the crawl log's names).
    pub decision: &'static str,
    pub status: Option<u16>,
    /// Payload bytes received.
    pub bytes: Option<u64>,
    /// True for the duplicate decisions (their bytes count as saved).
    pub duplicate: bool,
    /// True for a recrawled page archived again as a new version (`previous_digest`).
    pub changed: bool,
    pub duplicate_of: Option<&'a str>,
    pub similarity: Option<f64>,
    /// The mechanism that decided (the crawl log's `reason.mechanism`), on lines with a reason.
    pub mechanism: Option<&'a str>,
    pub note: Option<&'a str>,
    pub error: Option<&'a str>,
}

/// One fetch attempt (retries included).
#[derive(Debug, Clone)]
pub struct FetchEvent<'a> {
    pub host: &'a str,
    pub duration: Duration,
    /// Status and payload bytes; `None` when no complete response arrived.
    pub response: Option<(u16, u64)>,
    /// The host's delay between requests: its next request is allowed this long after now.
    pub host_delay: Duration,
}

/// Why a host pauses beyond its delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PauseReason {
    /// The server sent `Retry-After` (429/503).
    RetryAfter,
    /// Connection-level failures: exponential backoff.
    Backoff,
    /// Given up for this run.
    GivenUp,
}

impl PauseReason {
    pub fn as_str(self) -> &'static str {
        match self {
            PauseReason::RetryAfter => "retry-after",
            PauseReason::Backoff => "backoff",
            PauseReason::GivenUp => "given up",
        }
    }
}

/// Sizes sampled about once a second.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gauges {
    pub queued: u64,
    pub in_flight: u64,
    /// None: not known (the index did not answer, or a crawl read from disk has not ended).
    pub index_documents: Option<u64>,
    pub warc_bytes: u64,
    /// The URL rules' figures (None: `crawl.url_rules` is off, or not known yet).
    pub url_rules: Option<dedupcrawl_urlrules::RuleFigures>,
}
