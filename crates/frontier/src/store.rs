//! The storage seam of the frontier: [`FrontierStore`], with the embedded backend
//! [`crate::Frontier`] (sled and the seen-set files) and, for several workers on one crawl,
//! a PostgreSQL backend to come.

use std::time::{Duration, Instant};

use crate::canonical::CanonicalUrl;
use crate::entry::{
    Completion, FrontierEntry, FrontierStats, HostOutcome, Lease, NextUrl, OfferOutcome,
};
use crate::error::FrontierError;
use crate::politeness::PolitenessConfig;

/// The crawl's frontier: the seen-URL set, per-host FIFO queues, per-host politeness state and
/// leases of URLs being fetched. Thread-safe; every method takes `&self`. Methods are
/// synchronous, like the dedup index's, the storage calls the engine already makes from its
/// tasks (a backend on a network store runs its queries on a runtime of its own).
///
/// # Contract (every backend; the shared behaviour suite checks it)
/// * **Seen once.** [`offer`](FrontierStore::offer) enqueues a URL only if it was never
///   offered nor [marked seen](FrontierStore::mark_seen) before; the seen set and the queue
///   change together (atomically) or not at all. Duplicates within one
///   [`offer_all`](FrontierStore::offer_all) count as seen. The seen set is never emptied: a
///   fetched, failed or given-up URL stays seen.
/// * **Order.** Each host's queue is FIFO in offer order; a URL requeued after
///   [`HostOutcome::RetryAfter`] or [`HostOutcome::HostGivenUp`] goes to the front of its
///   host's queue, after [`HostOutcome::HostFailure`] to the back, after
///   [`HostOutcome::Retry`] to the back once its backoff
///   ([`PolitenessConfig::backoff`]) has passed. Among hosts that may go, the one waiting
///   longest goes first (round robin).
/// * **Politeness.** [`next_ready`](FrontierStore::next_ready) hands out a URL of a host only
///   when the host's delay (the larger of [`PolitenessConfig::min_delay`] and
///   [`set_host_delay`](FrontierStore::set_host_delay)) has passed since its last request
///   start, its pause ([`pause_host`](FrontierStore::pause_host), Retry-After) is over, it has
///   fewer than `per_host_concurrency` leases out and the store fewer than
///   `global_concurrency`. Time is the caller's `now`.
/// * **Leases.** A handed-out URL is *leased*: it is in no queue and counts as in flight until
///   [`complete`](FrontierStore::complete) gives it back with the fetch's outcome; completing
///   an unknown or already completed lease is [`FrontierError::UnknownLease`]. A lease says
///   whether a lease of its URL was handed out before since the URL was queued
///   ([`Lease::leased_before`]): `false` only on the first one; `true` after the URL was
///   requeued or delayed by `complete`, and after its lease came back from a crash or expiry
///   (a backend may say `true` when it cannot tell, never `false`).
/// * **Durability and crashes.** What a call reported is durable after
///   [`flush`](FrontierStore::flush) (a backend may be durable earlier). After a crash (kill
///   -9) a store reopened on the same state holds every URL it held at the last durable point
///   in exactly one place (queued, waiting for a retry, or finished); URLs that were leased and
///   not completed go back to the front of their host queues: no URL is lost, at worst one is
///   fetched twice. Per-host delays set by [`set_host_delay`](FrontierStore::set_host_delay)
///   survive restarts; pauses and given-up hosts last for the life of the store (one run).
pub trait FrontierStore: Send + Sync {
    /// Enqueues each URL unless it was ever seen; the outcomes are in input order.
    fn offer_all(&self, entries: Vec<FrontierEntry>) -> Result<Vec<OfferOutcome>, FrontierError>;

    /// [`offer_all`](FrontierStore::offer_all) for one URL.
    fn offer(&self, entry: FrontierEntry) -> Result<OfferOutcome, FrontierError> {
        let outcomes = self.offer_all(vec![entry])?;
        Ok(outcomes
            .first()
            .copied()
            .unwrap_or(OfferOutcome::AlreadySeen))
    }

    /// Enqueues each URL again whether it was seen or not: a recrawl round visits the URLs
    /// earlier rounds fetched (the seen set still keeps links already known from being
    /// enqueued by [`offer`](FrontierStore::offer)). The caller offers a URL again at most once
    /// per round; an URL never seen joins the seen set.
    fn offer_again(&self, entries: Vec<FrontierEntry>) -> Result<(), FrontierError>;

    /// Whether the URL was ever offered or marked seen.
    fn contains(&self, url: &CanonicalUrl) -> Result<bool, FrontierError>;

    /// Marks a URL as seen without queueing it (e.g. the target of a redirect the fetcher
    /// already followed). Returns whether it was new.
    fn mark_seen(&self, url: &CanonicalUrl) -> Result<bool, FrontierError>;

    /// [`mark_seen`](FrontierStore::mark_seen) for each URL (a page's out-of-scope links), in
    /// one round trip where the backend has them: whether each was new, in order (a URL
    /// twice in the batch is new the first time only).
    fn mark_all_seen(&self, urls: &[CanonicalUrl]) -> Result<Vec<bool>, FrontierError>;

    /// [`offer_all`](FrontierStore::offer_all) of `entries`, then
    /// [`mark_all_seen`](FrontierStore::mark_all_seen) of `seen_only` (a page's in-scope and
    /// out-of-scope links), in one round trip where the backend has them.
    fn offer_and_mark_seen(
        &self,
        entries: Vec<FrontierEntry>,
        seen_only: &[CanonicalUrl],
    ) -> Result<(Vec<OfferOutcome>, Vec<bool>), FrontierError> {
        let offered = self.offer_all(entries)?;
        Ok((offered, self.mark_all_seen(seen_only)?))
    }

    /// The next URL whose host allows a request at `now`, leased to the caller; or when to ask
    /// again.
    fn next_ready(&self, now: Instant) -> Result<NextUrl, FrontierError>;

    /// Gives a lease back with the outcome of its fetch.
    fn complete(&self, lease: Lease, outcome: HostOutcome) -> Result<Completion, FrontierError>;

    /// Gives a host up for the life of this store (one run): never scheduled again; its queued
    /// URLs and those waiting for a retry stay queued for the next run, and its leases still
    /// out go back to its queue when completed. Returns whether it was not given up yet.
    fn give_up_host(&self, host: &str) -> Result<bool, FrontierError>;

    /// Whether [`give_up_host`](FrontierStore::give_up_host) was called for the host.
    fn is_given_up(&self, host: &str) -> bool;

    /// No request to the host starts before `now + pause` (capped by
    /// [`PolitenessConfig::max_retry_after`]); returns the end of the pause.
    fn pause_host(&self, host: &str, pause: Duration) -> Result<Instant, FrontierError>;

    /// Sets the host's delay between requests (robots Crawl-delay); the effective delay is
    /// never below [`PolitenessConfig::min_delay`].
    fn set_host_delay(&self, host: &str, delay: Duration) -> Result<(), FrontierError>;

    /// The host's effective delay between requests.
    fn host_delay(&self, host: &str) -> Result<Duration, FrontierError>;

    /// Makes everything reported so far durable.
    fn flush(&self) -> Result<(), FrontierError>;

    /// Current counts.
    fn stats(&self) -> Result<FrontierStats, FrontierError>;

    /// The politeness settings in force.
    fn config(&self) -> &PolitenessConfig;
}
