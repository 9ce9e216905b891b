//! What a frontier backend stores: the narrow interface the polite scheduling
//! ([`crate::PoliteFrontier`]) works over. Each backend makes every call atomic on its own
//! (a sled transaction, a PostgreSQL transaction); the scheduling calls it with its lock held.

use std::time::Duration;

use crate::canonical::CanonicalUrl;
use crate::entry::{FrontierEntry, Lease, OfferOutcome};
use crate::error::FrontierError;

/// Which end of its host queue an entry goes back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueEnd {
    Front,
    Back,
}

/// Counts a backend keeps.
#[derive(Debug, Clone, Copy, Default)]
pub struct StoredCounts {
    pub queued: u64,
    pub delayed: u64,
    pub seen: u64,
}

/// How far apart a host's requests must be: a storage shared by several workers enforces it
/// across all of them (one process's storage leaves it to the in-memory schedule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostSpacing {
    /// Least time between two request starts to the host.
    pub delay: Duration,
    /// Most leases of the host out at once.
    pub per_host: u32,
}

/// What [`QueueStorage::lease_front`] found.
#[derive(Debug)]
pub enum FrontLease {
    /// The host queue's first entry, leased, and whether more remain queued.
    Leased { lease: Lease, more: bool },
    /// Nothing queued for the host.
    Empty,
    /// Another worker sharing the storage used the host's turn (or holds its concurrency, or
    /// a Retry-After pause): ask again after this long.
    NotBefore(Duration),
}

/// What other workers of a shared crawl left to do, as one worker sees it.
#[derive(Debug, Clone, Default)]
pub struct SharedWork {
    /// Hosts with queued URLs, whoever queued them (in byte order of their names).
    pub queued_hosts: Vec<String>,
    /// Whether URLs are leased to other live workers: their fetches may still add links.
    pub leased_elsewhere: bool,
}

/// The queues, the seen set, leases, retries and host delays of one frontier.
pub trait QueueStorage: Send + Sync {
    /// At open: entries this worker leased and never completed (a crashed process) go back to
    /// the front of their host queues, the oldest lease first in the queue. Returns the hosts
    /// with queued URLs, in byte order of their names.
    fn recover(&self) -> Result<Vec<String>, FrontierError>;
    /// Enqueues at the back of its host queue each entry whose URL was never seen (duplicates
    /// within the batch count as seen), and adds it to the seen set, atomically.
    fn offer(&self, entries: Vec<FrontierEntry>) -> Result<Vec<OfferOutcome>, FrontierError>;
    /// Enqueues every entry at the back of its host queue, seen or not (a recrawl round visits
    /// known URLs again); unseen URLs join the seen set, atomically with their entries.
    fn offer_again(&self, entries: Vec<FrontierEntry>) -> Result<(), FrontierError>;
    fn contains(&self, url: &CanonicalUrl) -> Result<bool, FrontierError>;
    /// Adds the URL to the seen set; whether it was new.
    fn mark_seen(&self, url: &CanonicalUrl) -> Result<bool, FrontierError>;
    /// [`mark_seen`](QueueStorage::mark_seen) of each URL, in order (a backend with round
    /// trips does them in one).
    fn mark_all_seen(&self, urls: &[CanonicalUrl]) -> Result<Vec<bool>, FrontierError> {
        urls.iter().map(|url| self.mark_seen(url)).collect()
    }
    /// [`offer`](QueueStorage::offer) then [`mark_all_seen`](QueueStorage::mark_all_seen) (a
    /// backend with round trips does them in one).
    fn offer_and_mark_seen(
        &self,
        entries: Vec<FrontierEntry>,
        seen_only: &[CanonicalUrl],
    ) -> Result<(Vec<OfferOutcome>, Vec<bool>), FrontierError> {
        let offered = self.offer(entries)?;
        Ok((offered, self.mark_all_seen(seen_only)?))
    }
    /// Leases the first entry of the host queue if `spacing` allows a request to the host now
    /// across every worker sharing the storage; the next request start is then at least
    /// `spacing.delay` later for all of them.
    fn lease_front(&self, host: &str, spacing: HostSpacing) -> Result<FrontLease, FrontierError>;
    /// Holds every worker sharing the storage back from the host for `pause` from now (a
    /// Retry-After or a host failure). One process's storage: the in-memory schedule already
    /// does, nothing to store.
    fn pause_host(&self, _host: &str, _pause: Duration) -> Result<(), FrontierError> {
        Ok(())
    }
    /// Called on every scheduling step; a shared storage renews this worker's leases now and
    /// then and puts expired leases of other (dead) workers back in their host queues,
    /// returning those hosts. One process's storage has nothing to renew.
    fn keep_alive(&self) -> Result<Vec<String>, FrontierError> {
        Ok(Vec::new())
    }
    /// Whether the lease is out (not completed).
    fn is_leased(&self, lease_id: u64) -> Result<bool, FrontierError>;
    /// Ends a lease: the URL is done.
    fn finish(&self, lease_id: u64) -> Result<(), FrontierError>;
    /// Ends a lease: the entry (with `attempts` failed tries) goes back to its host queue.
    fn requeue(
        &self,
        lease_id: u64,
        entry: FrontierEntry,
        attempts: u8,
        end: QueueEnd,
    ) -> Result<(), FrontierError>;
    /// Ends a lease: the entry waits until `due_unix_ms`, then rejoins the back of its queue.
    fn delay(
        &self,
        lease_id: u64,
        entry: FrontierEntry,
        attempts: u8,
        due_unix_ms: u64,
    ) -> Result<(), FrontierError>;
    /// Moves up to `limit` waiting entries due at `now_unix_ms` to the back of their queues;
    /// their hosts, one per entry, in due order.
    fn promote_due(&self, now_unix_ms: u64, limit: usize) -> Result<Vec<String>, FrontierError>;
    /// When the next waiting entry is due.
    fn first_due(&self) -> Result<Option<u64>, FrontierError>;
    /// Moves every waiting entry of the host to the back of its queue; how many.
    fn release_delayed_of_host(&self, host: &str) -> Result<usize, FrontierError>;
    /// The host's stored delay (set above the minimum).
    fn stored_host_delay(&self, host: &str) -> Result<Option<Duration>, FrontierError>;
    /// Stores the host's delay, or forgets it (`None`).
    fn set_stored_host_delay(
        &self,
        host: &str,
        delay: Option<Duration>,
    ) -> Result<(), FrontierError>;
    fn counts(&self) -> Result<StoredCounts, FrontierError>;
    fn flush(&self) -> Result<(), FrontierError>;
    /// The work other workers sharing this storage made (asked when this worker has nothing
    /// left of its own). A storage of one process shares with nobody: the default says so.
    fn shared_work(&self) -> Result<SharedWork, FrontierError> {
        Ok(SharedWork::default())
    }
}
