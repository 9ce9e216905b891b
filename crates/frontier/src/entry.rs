//! What goes in and out of a [`FrontierStore`]: entries, leases, outcomes, counts.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::canonical::CanonicalUrl;
#[cfg(doc)]
use crate::{FrontierStore, PolitenessConfig};

/// How a URL came to the frontier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    Seed,
    Link,
    Redirect,
    Sitemap,
    /// A `<script src>` file, fetched to read the page URLs written in it.
    Script,
    /// A page URL written in a script (inline or a script file).
    ScriptLink,
}

/// A URL offered to the frontier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrontierEntry {
    pub url: CanonicalUrl,
    /// Links from a seed (seed = 0).
    pub depth: u32,
    /// The page (or sitemap) the URL was found on.
    pub via: Option<String>,
    pub kind: EntryKind,
    /// Redirects followed to reach this URL (the engine bounds them).
    pub redirect_hops: u8,
    /// Duplicates in a row whose new links led here (0 for a link of a new page): a chain of
    /// duplicates whose links are followed stops at the engine's bound.
    #[serde(default)]
    pub duplicate_hops: u8,
}

impl FrontierEntry {
    /// A seed: depth 0, no referrer.
    pub fn seed(url: CanonicalUrl) -> FrontierEntry {
        FrontierEntry {
            url,
            depth: 0,
            via: None,
            kind: EntryKind::Seed,
            redirect_hops: 0,
            duplicate_hops: 0,
        }
    }

    /// A link found on `via` at `depth`.
    pub fn link(url: CanonicalUrl, depth: u32, via: impl Into<String>) -> FrontierEntry {
        FrontierEntry {
            url,
            depth,
            via: Some(via.into()),
            kind: EntryKind::Link,
            redirect_hops: 0,
            duplicate_hops: 0,
        }
    }
}

/// Result of [`FrontierStore::offer`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OfferOutcome {
    /// Never seen before: now queued.
    Enqueued,
    /// Already in the seen set (queued, fetched or given up): ignored.
    AlreadySeen,
}

/// A URL handed out for fetching; give it back with [`FrontierStore::complete`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    id: u64,
    /// The entry as offered.
    pub entry: FrontierEntry,
    /// Failed tries before this one (0 on the first try).
    pub attempt: u8,
    /// A lease of this URL was handed out before this one since the URL was queued (by
    /// [`FrontierStore::offer`] or [`FrontierStore::offer_again`]): it was requeued or
    /// delayed after a fetch, or its lease came back after a crash or its expiry, so a fetch
    /// of it may have happened. `false`: this is the URL's first lease since it was queued,
    /// nobody fetched it since (what the caller's own records say of it then comes from
    /// before it was queued).
    pub leased_before: bool,
}

impl Lease {
    /// A lease as a backend hands it out: `id` names it to the backend until completed.
    pub(crate) fn new(id: u64, entry: FrontierEntry, attempt: u8, leased_before: bool) -> Lease {
        Lease {
            id,
            entry,
            attempt,
            leased_before,
        }
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn url(&self) -> &CanonicalUrl {
        &self.entry.url
    }

    /// `host[:port]` of the URL.
    pub fn host(&self) -> &str {
        self.entry.url.host()
    }
}

/// What [`FrontierStore::next_ready`] has for the caller.
#[derive(Debug)]
pub enum NextUrl {
    /// Fetch this now.
    Ready(Lease),
    /// Nothing may be fetched before this instant (politeness delay, pause or retry backoff).
    WaitUntil(Instant),
    /// URLs are queued but every host that has some is at its concurrency limit, or the
    /// global limit is reached: call again after a [`FrontierStore::complete`].
    Busy,
    /// Nothing queued or waiting for a retry. In-flight fetches may still add links.
    Empty,
}

/// How a fetch of a leased URL ended, as far as the frontier cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostOutcome {
    /// Fetched (whatever the page turned out to be).
    Done,
    /// Failed for good (4xx, too large, robots disallowed ...): not retried.
    Failed,
    /// Transient failure (timeout, connection reset, 5xx without Retry-After): retried after
    /// an exponential backoff, up to [`PolitenessConfig::max_attempts`] tries.
    Retry,
    /// 429/503 with Retry-After: the host is paused at least this long (capped by
    /// [`PolitenessConfig::max_retry_after`]) and the URL goes back to the front of its queue
    /// (counted as a try).
    RetryAfter(Duration),
    /// The host, not the URL, failed (refused, timed out, TLS, robots.txt unreachable): the
    /// host is paused this long (capped by [`PolitenessConfig::max_retry_after`]) and the URL
    /// goes to the back of its host queue, so the host's other URLs go first. `count_try`:
    /// whether it counts as a try of the URL (false when the URL was never requested, e.g.
    /// robots.txt failed); at [`PolitenessConfig::max_attempts`] counted tries it is given up.
    HostFailure { pause: Duration, count_try: bool },
    /// The host is given up for this run ([`FrontierStore::give_up_host`]): the URL goes back to the
    /// front of its queue with its tries reset, for the next run.
    HostGivenUp,
}

/// What [`FrontierStore::complete`] did with the URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// Removed from the frontier.
    Finished,
    /// Queued again; not fetched before `not_before`. `attempt` = failed tries so far.
    Requeued { attempt: u8, not_before: Instant },
    /// Tried `attempts` times: removed (the caller logs the error).
    GaveUp { attempts: u8 },
    /// Its host is given up for this run: back in the host queue for the next run.
    Parked,
}

/// Counts for progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct FrontierStats {
    /// URLs waiting in host queues.
    pub queued: u64,
    /// URLs leased and not completed.
    pub in_flight: u64,
    /// URLs waiting for a retry backoff.
    pub delayed: u64,
    /// Distinct URLs ever offered.
    pub seen: u64,
    /// Hosts with queued URLs.
    pub hosts: usize,
    /// Hosts with bookkeeping in RAM (queued, in flight, paused or recently fetched).
    pub tracked_hosts: usize,
}
