//! [`FinishedLeases`]: leases this worker finished (their URLs are done) whose rows are not
//! deleted yet.
//!
//! Why: ending a lease was one DELETE, one round trip a page, and the engine's main loop
//! waited for it. The rows now go with the next `frontier_lease` call (its `p_finished`),
//! which deletes them before it counts the host's live leases; when no lease call comes for
//! [`FLUSH_AFTER`] or [`FLUSH_AT`] of them are kept, or before a read of other workers'
//! leases (`shared_work`), at `flush` and when the store goes, they are deleted on their own.
//!
//! What this changes for other workers and after a crash: a finished lease's row stays leased
//! (by a live worker) for at most about [`FLUSH_AFTER`] longer, so for that long it counts
//! against the host's concurrency in other workers' lease calls. The contract allows it: a
//! finished lease is durable after `flush`. A worker killed before the rows were deleted left
//! them as its leases, which come back to their host queues (at its restart, or when they
//! expire): the engine reads such a URL's state before fetching it and does not fetch a URL
//! this round already fetched (its revisit state), as after a kill between a page's end and
//! its DELETE before.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Finished leases kept at most before they are deleted on their own.
pub(super) const FLUSH_AT: usize = 64;
/// How long the first finished lease kept waits at most for a lease call.
pub(super) const FLUSH_AFTER: Duration = Duration::from_millis(100);

/// See the module documentation.
#[derive(Debug, Default)]
pub(super) struct FinishedLeases {
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    ids: Vec<i64>,
    /// When the first of `ids` was kept.
    since: Option<Instant>,
}

impl FinishedLeases {
    /// Keeps `lease_id`; returns whether the kept ones are due for a delete of their own.
    pub(super) fn keep(&self, lease_id: i64) -> bool {
        let mut kept = self.lock();
        kept.ids.push(lease_id);
        let since = *kept.since.get_or_insert_with(Instant::now);
        kept.ids.len() >= FLUSH_AT || since.elapsed() >= FLUSH_AFTER
    }

    /// Whether leases are kept since [`FLUSH_AFTER`] or longer.
    pub(super) fn overdue(&self) -> bool {
        self.lock()
            .since
            .is_some_and(|since| since.elapsed() >= FLUSH_AFTER)
    }

    /// The kept ids (a copy: they stay kept until [`deleted`](Self::deleted) says so, so a
    /// call that fails sends them again).
    pub(super) fn ids(&self) -> Vec<i64> {
        self.lock().ids.clone()
    }

    /// The rows of `ids` (a copy from [`ids`](Self::ids)) were deleted.
    pub(super) fn deleted(&self, ids: &[i64]) {
        if ids.is_empty() {
            return;
        }
        let mut kept = self.lock();
        kept.ids.retain(|id| !ids.contains(id));
        if kept.ids.is_empty() {
            kept.since = None;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        // Each change is one push or one retain: consistent through a panic elsewhere.
        self.kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_until_deleted_and_due_at_the_batch_size() {
        let finished = FinishedLeases::default();
        for id in 0..(FLUSH_AT as i64 - 1) {
            assert!(!finished.keep(id));
        }
        let sent = finished.ids();
        assert!(finished.keep(1000));
        finished.deleted(&sent);
        assert_eq!(finished.ids(), vec![1000]);
        finished.deleted(&[1000]);
        assert!(finished.ids().is_empty());
        assert!(!finished.overdue());
    }
}
