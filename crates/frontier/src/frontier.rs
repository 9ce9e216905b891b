//! The embedded [`FrontierStore`] ([`Frontier`]): persistent and polite, in sled.
//!
//! # Storage (sled trees of the caller's [`sled::Db`], all named `frontier_*`)
//! | tree | key | value |
//! |---|---|---|
//! | `frontier_queue` | host `\0` sequence (u64 BE) | entry (JSON) |
//! | `frontier_in_flight` | lease id (u64 BE) | entry |
//! | `frontier_delayed` | due time (Unix ms, u64 BE) + unique id | entry waiting for a retry |
//! | `frontier_host_delay` | host | per-host delay in ms (robots Crawl-delay) |
//! | `frontier_meta` | counter name | u64 BE (`seen`, `queued`, `delayed`; `seen_*`: which files of the seen set are live) |
//!
//! The seen-URL set itself lives in files next to the db (see [`crate::seen`]).
//!
//! The seen set stores a 128-bit hash instead of the URL: 16 bytes a key whatever the URL
//! length, and at 10⁹ URLs the chance of any collision is ~10⁻²¹ (a collision would make a
//! URL look seen and never be fetched; at these odds that is no concern).
//!
//! Every change that touches several trees (offer: seen + queue + counters; lease: queue →
//! in-flight; complete/retry: in-flight → queue or delayed) is one sled transaction, so a crash
//! leaves each URL in exactly one place. On [`Frontier::open`], entries left in
//! `frontier_in_flight` (leased, never completed: the process died) go back to the front of
//! their host queue: `kill -9` loses no URL, at worst a URL is fetched twice. Writes reach disk
//! when sled flushes (every 500 ms by default) or at [`Frontier::flush`].
//!
//! # Memory
//! URLs live only in sled. In RAM: ~1.3 bytes per seen URL (the filters of [`crate::seen`]),
//! one small record per host with queued or in-flight URLs
//! (queue sequence, in-flight count, a `governor` limiter, pause) and a heap of host ready
//! times. Idle hosts are pruned.
//!
//! # Politeness
//! Each host has a minimum delay between request starts: the larger of
//! [`PolitenessConfig::min_delay`] and [`Frontier::set_host_delay`] (robots Crawl-delay),
//! enforced by a `governor` direct limiter per host (governor's keyed limiter has one quota
//! for all keys). The limiters run on a clock set to the `now` given to
//! [`Frontier::next_ready`], so decisions are reproducible from the caller's instants. Hosts
//! wait in a min-heap by ready time; among ready hosts the one waiting longest goes first
//! (round robin), so a slow or paused host never holds up the others.
//!
//! One `Frontier` per `Db`: it assumes it is the only writer of its trees.

use std::cmp::Reverse;
use std::collections::HashSet;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use sled::transaction::{
    ConflictableTransactionError, TransactionError, Transactional, TransactionalTree,
};
use sled::{IVec, Tree};

use crate::canonical::CanonicalUrl;
use crate::entry::{
    Completion, FrontierEntry, FrontierStats, HostOutcome, Lease, NextUrl, OfferOutcome,
};
use crate::error::FrontierError;
use crate::politeness::PolitenessConfig;
use crate::scheduler::{Clocks, HostState, HostStep, Scheduler};
use crate::seen::{META_WAL_LEN, SeenKey, SeenSetStats, SeenUrlSet};
use crate::store::FrontierStore;
use crate::stored_entry::StoredEntry;

const TREE_QUEUE: &str = "frontier_queue";
const TREE_IN_FLIGHT: &str = "frontier_in_flight";
const TREE_DELAYED: &str = "frontier_delayed";
const TREE_HOST_DELAY: &str = "frontier_host_delay";
const TREE_META: &str = "frontier_meta";

const COUNTER_SEEN: &[u8] = b"seen";
const COUNTER_QUEUED: &[u8] = b"queued";
const COUNTER_DELAYED: &[u8] = b"delayed";

/// Queue sequences start in the middle of the u64 range so entries can be put in front
/// (crash recovery, Retry-After) as well as at the back.
const FIRST_SEQ: u64 = 1 << 63;
/// Due retries moved back to their queues per call of `next_ready` (bounds the work per call).
const PROMOTE_BATCH: usize = 1024;
/// `next_ready` calls between two sweeps of idle hosts.
const PRUNE_EVERY: u32 = 1024;

impl From<TransactionError<FrontierError>> for FrontierError {
    fn from(error: TransactionError<FrontierError>) -> Self {
        match error {
            TransactionError::Abort(error) => error,
            TransactionError::Storage(error) => FrontierError::Storage(error),
        }
    }
}

type TxResult<T> = Result<T, ConflictableTransactionError<FrontierError>>;

/// The embedded [`FrontierStore`]: sled trees and the seen-set files. Thread-safe (`&self`
/// methods, one internal lock).
pub struct Frontier {
    db: sled::Db,
    seen: SeenUrlSet,
    queue: Tree,
    in_flight: Tree,
    delayed: Tree,
    host_delays: Tree,
    meta: Tree,
    config: PolitenessConfig,
    clocks: Clocks,
    inner: Mutex<Scheduler>,
}

impl std::fmt::Debug for Frontier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frontier")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn queue_prefix(host: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(host.len() + 9);
    key.extend_from_slice(host.as_bytes());
    key.push(0);
    key
}

fn queue_key(host: &str, seq: u64) -> Vec<u8> {
    let mut key = queue_prefix(host);
    key.extend_from_slice(&seq.to_be_bytes());
    key
}

fn seq_of_queue_key(key: &[u8]) -> Option<u64> {
    let tail: [u8; 8] = key.get(key.len().checked_sub(8)?..)?.try_into().ok()?;
    Some(u64::from_be_bytes(tail))
}

fn seen_key(url: &CanonicalUrl) -> SeenKey {
    xxhash_rust::xxh3::xxh3_128(url.as_str().as_bytes()).to_be_bytes()
}

fn read_u64(bytes: &[u8]) -> u64 {
    bytes.try_into().map(u64::from_be_bytes).unwrap_or(0)
}

fn add_to_counter(meta: &TransactionalTree, name: &[u8], delta: i64) -> TxResult<()> {
    let current = meta.get(name)?.map_or(0, |v| read_u64(&v));
    let updated = current.saturating_add_signed(delta);
    meta.insert(name, &updated.to_be_bytes())?;
    Ok(())
}

impl Frontier {
    /// Opens (or creates) the frontier trees in `db` and puts every URL left in flight by a
    /// previous process back at the front of its host queue.
    ///
    /// `seen_dir` holds the files of the seen-URL set (see [`crate::seen`]); a crawl uses
    /// `OUT/state/seen/`. It must belong to this `db`: sled records which of its files are live.
    pub fn open(
        db: &sled::Db,
        seen_dir: impl AsRef<std::path::Path>,
        politeness: PolitenessConfig,
    ) -> Result<Frontier, FrontierError> {
        let meta = db.open_tree(TREE_META)?;
        let frontier = Frontier {
            seen: SeenUrlSet::open(db, meta.clone(), seen_dir.as_ref())?,
            queue: db.open_tree(TREE_QUEUE)?,
            in_flight: db.open_tree(TREE_IN_FLIGHT)?,
            delayed: db.open_tree(TREE_DELAYED)?,
            host_delays: db.open_tree(TREE_HOST_DELAY)?,
            meta,
            db: db.clone(),
            config: PolitenessConfig {
                per_host_concurrency: politeness.per_host_concurrency.max(1),
                global_concurrency: politeness.global_concurrency.max(1),
                max_attempts: politeness.max_attempts.max(1),
                ..politeness
            },
            clocks: Clocks::new(),
            inner: Mutex::new(Scheduler::default()),
        };
        let now = Instant::now();
        {
            let mut inner = frontier.lock();
            frontier.recover_in_flight(&mut inner, now)?;
            frontier.load_hosts(&mut inner, now)?;
        }
        Ok(frontier)
    }

    fn lock(&self) -> MutexGuard<'_, Scheduler> {
        // Every mutation of Inner completes before sled is called or is idempotent, so the
        // state behind a poisoned lock is still usable.
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Leased-but-never-completed entries go back to the front of their queues, in their
    /// original order (newest lease first to the front, so the oldest ends up first).
    fn recover_in_flight(&self, inner: &mut Scheduler, now: Instant) -> Result<(), FrontierError> {
        let leftovers: Vec<(IVec, IVec)> = self.in_flight.iter().rev().collect::<Result<_, _>>()?;
        if !leftovers.is_empty() {
            tracing::info!(count = leftovers.len(), "requeueing URLs left in flight");
        }
        for (key, value) in leftovers {
            let entry = match StoredEntry::decode(&value) {
                Ok(entry) => entry,
                Err(error) => {
                    tracing::warn!(%error, "dropping undecodable in-flight record");
                    self.in_flight.remove(&key)?;
                    continue;
                }
            };
            let host = entry.url.host().to_string();
            self.ensure_host(inner, &host, now)?;
            let queue_key = self.front_queue_key(inner, &host)?;
            (&self.in_flight, &self.queue, &self.meta).transaction(
                |(in_flight, queue, meta)| {
                    in_flight.remove(&key)?;
                    queue.insert(queue_key.as_slice(), &value)?;
                    add_to_counter(meta, COUNTER_QUEUED, 1)?;
                    Ok(())
                },
            )?;
            if let Some(state) = inner.hosts.get_mut(&host) {
                state.has_queued = true;
            }
        }
        Ok(())
    }

    /// Finds every host with queued URLs by skipping from host to host (one seek per host,
    /// not a scan of all URLs) and makes it ready now.
    fn load_hosts(&self, inner: &mut Scheduler, now: Instant) -> Result<(), FrontierError> {
        let mut cursor: Vec<u8> = Vec::new();
        while let Some((key, _)) = self.queue.range(cursor.as_slice()..).next().transpose()? {
            let Some(separator) = key.iter().position(|&b| b == 0) else {
                tracing::warn!("dropping queue key without host separator");
                self.queue.remove(&key)?;
                continue;
            };
            let host = String::from_utf8_lossy(&key[..separator]).into_owned();
            self.ensure_host(inner, &host, now)?;
            if let Some(state) = inner.hosts.get_mut(&host) {
                state.has_queued = true;
            }
            inner.schedule(&host, now);
            cursor = key[..separator].to_vec();
            cursor.push(1); // first key after every "host\0..." key
        }
        Ok(())
    }

    /// Creates the host's bookkeeping if missing (delay from the stored override, queue
    /// sequence from the last stored key).
    fn ensure_host(
        &self,
        inner: &mut Scheduler,
        host: &str,
        now: Instant,
    ) -> Result<(), FrontierError> {
        if inner.hosts.contains_key(host) {
            return Ok(());
        }
        let stored_delay = self
            .host_delays
            .get(host.as_bytes())?
            .map(|v| Duration::from_millis(read_u64(&v)));
        let delay = stored_delay.map_or(self.config.min_delay, |d| d.max(self.config.min_delay));
        let prefix = queue_prefix(host);
        let last = self.queue.scan_prefix(&prefix).next_back().transpose()?;
        let next_back_seq = last
            .and_then(|(key, _)| seq_of_queue_key(&key))
            .map_or(FIRST_SEQ, |seq| seq.saturating_add(1));
        let state = HostState {
            next_back_seq,
            has_queued: false,
            in_flight: 0,
            delay,
            limiter: self.clocks.new_limiter(delay, None, now),
            last_request: None,
            paused_until: None,
            scheduled: false,
        };
        inner.hosts.insert(host.to_string(), state);
        Ok(())
    }

    /// Key in front of the host's first queued entry (or at the back of an empty queue).
    fn front_queue_key(&self, inner: &mut Scheduler, host: &str) -> Result<Vec<u8>, FrontierError> {
        let first = self
            .queue
            .scan_prefix(queue_prefix(host))
            .next()
            .transpose()?;
        match first.and_then(|(key, _)| seq_of_queue_key(&key)) {
            Some(seq) => Ok(queue_key(host, seq.saturating_sub(1))),
            None => self.back_queue_key(inner, host),
        }
    }

    fn back_queue_key(&self, inner: &mut Scheduler, host: &str) -> Result<Vec<u8>, FrontierError> {
        let state = inner
            .hosts
            .get_mut(host)
            .ok_or_else(|| FrontierError::Corrupt(format!("no state for host {host}")))?;
        let seq = state.next_back_seq;
        state.next_back_seq = seq.saturating_add(1);
        Ok(queue_key(host, seq))
    }

    /// Moves the first decodable entry of the host queue to the in-flight tree.
    /// Returns the lease and whether more entries remain.
    fn lease_front(&self, host: &str) -> Result<Option<(Lease, bool)>, FrontierError> {
        let prefix = queue_prefix(host);
        loop {
            let mut entries = self.queue.scan_prefix(&prefix);
            let Some((key, value)) = entries.next().transpose()? else {
                return Ok(None);
            };
            let more = entries.next().transpose()?.is_some();
            drop(entries);
            let entry = match StoredEntry::decode(&value) {
                Ok(entry) => entry,
                Err(error) => {
                    tracing::warn!(%error, host, "dropping undecodable queue entry");
                    (&self.queue, &self.meta).transaction(|(queue, meta)| {
                        queue.remove(&key)?;
                        add_to_counter(meta, COUNTER_QUEUED, -1)
                    })?;
                    continue;
                }
            };
            let lease_id = self.db.generate_id()?;
            (&self.queue, &self.in_flight, &self.meta).transaction(
                |(queue, in_flight, meta)| {
                    queue.remove(&key)?;
                    in_flight.insert(&lease_id.to_be_bytes(), &value)?;
                    add_to_counter(meta, COUNTER_QUEUED, -1)
                },
            )?;
            return Ok(Some((entry.into_lease(lease_id), more)));
        }
    }

    /// Moves one delayed retry to the back of its host's queue, in one transaction.
    fn requeue_delayed(
        &self,
        inner: &mut Scheduler,
        host: &str,
        key: &IVec,
        value: &IVec,
    ) -> Result<(), FrontierError> {
        let queue_key = self.back_queue_key(inner, host)?;
        (&self.delayed, &self.queue, &self.meta).transaction(|(delayed, queue, meta)| {
            delayed.remove(key)?;
            queue.insert(queue_key.as_slice(), value)?;
            add_to_counter(meta, COUNTER_DELAYED, -1)?;
            add_to_counter(meta, COUNTER_QUEUED, 1)
        })?;
        if let Some(state) = inner.hosts.get_mut(host) {
            state.has_queued = true;
        }
        Ok(())
    }

    /// Moves retries whose backoff has passed back to the back of their host queues.
    fn promote_due_retries(
        &self,
        inner: &mut Scheduler,
        now: Instant,
    ) -> Result<(), FrontierError> {
        let end = self
            .clocks
            .timebase
            .unix_ms(now)
            .saturating_add(1)
            .to_be_bytes();
        let due: Vec<(IVec, IVec)> = self
            .delayed
            .range(..end.as_slice())
            .take(PROMOTE_BATCH)
            .collect::<Result<_, _>>()?;
        for (key, value) in due {
            let host = match StoredEntry::decode(&value) {
                Ok(entry) => entry.url.host().to_string(),
                Err(error) => {
                    tracing::warn!(%error, "dropping undecodable retry entry");
                    (&self.delayed, &self.meta).transaction(|(delayed, meta)| {
                        delayed.remove(&key)?;
                        add_to_counter(meta, COUNTER_DELAYED, -1)
                    })?;
                    continue;
                }
            };
            self.ensure_host(inner, &host, now)?;
            self.requeue_delayed(inner, &host, &key, &value)?;
            inner.schedule_if_eligible(&host, now, self.config.per_host_concurrency);
        }
        Ok(())
    }

    /// Moves a leased entry back into the host queue under `queue_key`.
    fn requeue_in_flight(
        &self,
        lease_key: &[u8; 8],
        queue_key: &[u8],
        value: &[u8],
    ) -> Result<(), FrontierError> {
        (&self.in_flight, &self.queue, &self.meta).transaction(|(in_flight, queue, meta)| {
            in_flight.remove(lease_key)?;
            queue.insert(queue_key, value)?;
            add_to_counter(meta, COUNTER_QUEUED, 1)
        })?;
        Ok(())
    }

    /// Tiers and RAM of the seen-URL set (see [`crate::seen`]).
    pub fn seen_set_stats(&self) -> SeenSetStats {
        self.seen.stats()
    }

    /// How many URLs the seen set's recent tier (one sled key each) holds before they are
    /// compacted into a sorted run; default [`crate::DEFAULT_RECENT_LIMIT`]. Smaller values
    /// compact more often (tests use them to exercise compaction).
    pub fn set_recent_seen_limit(&self, limit: u64) {
        self.seen.set_recent_limit(limit);
    }
}

impl FrontierStore for Frontier {
    /// [`FrontierStore::offer`] for many URLs (the links of one page) in one transaction; the
    /// outcomes are in input order. Duplicates within the batch count as seen.
    fn offer_all(&self, entries: Vec<FrontierEntry>) -> Result<Vec<OfferOutcome>, FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        let mut outcomes = Vec::new();
        let mut batch_keys: HashSet<SeenKey> = HashSet::new();
        let mut writes: Vec<([u8; 16], Vec<u8>, Vec<u8>)> = Vec::new();
        let mut hosts: Vec<String> = Vec::new();
        for entry in entries {
            let key = seen_key(&entry.url);
            // Checked outside the transaction: we are the only writer (see module doc).
            if batch_keys.contains(&key) || self.seen.contains(&key)? {
                outcomes.push(OfferOutcome::AlreadySeen);
                continue;
            }
            let host = entry.url.host().to_string();
            self.ensure_host(&mut inner, &host, now)?;
            let queue_key = self.back_queue_key(&mut inner, &host)?;
            writes.push((key, queue_key, StoredEntry::new(entry, 0).encode()));
            batch_keys.insert(key);
            if hosts.last() != Some(&host) {
                hosts.push(host);
            }
            outcomes.push(OfferOutcome::Enqueued);
        }
        if writes.is_empty() {
            return Ok(outcomes);
        }
        let count = i64::try_from(writes.len()).unwrap_or(i64::MAX);
        let keys: Vec<SeenKey> = writes.iter().map(|(key, _, _)| *key).collect();
        // The keys go to the seen set's file first; the transaction records how far it is valid.
        let seen_len = self.seen.stage(&keys)?;
        (&self.queue, &self.meta).transaction(|(queue, meta)| {
            for (_, queue_key, value) in &writes {
                queue.insert(queue_key.as_slice(), value.as_slice())?;
            }
            add_to_counter(meta, COUNTER_SEEN, count)?;
            add_to_counter(meta, COUNTER_QUEUED, count)?;
            meta.insert(META_WAL_LEN, &seen_len.to_be_bytes())?;
            Ok(())
        })?;
        self.seen.committed(&keys, seen_len)?;
        let per_host = self.config.per_host_concurrency;
        for host in hosts {
            if let Some(state) = inner.hosts.get_mut(&host) {
                state.has_queued = true;
            }
            inner.schedule_if_eligible(&host, now, per_host);
        }
        Ok(outcomes)
    }

    /// Whether the URL was ever offered (queued, leased, fetched or given up).
    fn contains(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
        self.seen.contains(&seen_key(url))
    }

    /// Marks a URL as seen without queueing it (e.g. the target of a redirect the fetcher
    /// already followed). Returns whether it was new.
    fn mark_seen(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
        let _inner = self.lock();
        let key = seen_key(url);
        if self.seen.contains(&key)? {
            return Ok(false);
        }
        let seen_len = self.seen.stage(&[key])?;
        self.meta.transaction(|meta| {
            add_to_counter(meta, COUNTER_SEEN, 1)?;
            meta.insert(META_WAL_LEN, &seen_len.to_be_bytes())?;
            Ok(())
        })?;
        self.seen.committed(&[key], seen_len)?;
        Ok(true)
    }

    /// The next URL whose host allows a request at `now`, moved to the in-flight tree.
    fn next_ready(&self, now: Instant) -> Result<NextUrl, FrontierError> {
        let mut inner = self.lock();
        self.promote_due_retries(&mut inner, now)?;
        inner.calls_since_prune += 1;
        if inner.calls_since_prune >= PRUNE_EVERY {
            inner.calls_since_prune = 0;
            inner.prune_idle_hosts(now);
        }
        if inner.in_flight >= self.config.global_concurrency {
            return Ok(NextUrl::Busy);
        }
        let per_host = self.config.per_host_concurrency;
        while inner.heap.peek().is_some_and(|top| top.0.ready_at <= now) {
            let Some(Reverse(item)) = inner.heap.pop() else {
                break;
            };
            let host = item.host;
            match inner.host_step(&host, now, per_host, &self.clocks) {
                HostStep::Skip => continue,
                HostStep::WaitUntil(at) => {
                    inner.schedule(&host, at);
                    continue;
                }
                HostStep::Lease => {}
            }
            let leased = match self.lease_front(&host) {
                Ok(leased) => leased,
                Err(error) => {
                    // Keep the host reachable for the next call.
                    inner.schedule(&host, now);
                    return Err(error);
                }
            };
            let Some(state) = inner.hosts.get_mut(&host) else {
                continue;
            };
            let Some((lease, more)) = leased else {
                state.has_queued = false;
                continue;
            };
            state.in_flight += 1;
            state.has_queued = more;
            let reschedule = more && state.in_flight < per_host;
            let next_at = now + state.delay;
            inner.in_flight += 1;
            if reschedule {
                inner.schedule(&host, next_at);
            }
            return Ok(NextUrl::Ready(lease));
        }
        let next_host = inner.heap.peek().map(|top| top.0.ready_at);
        let next_retry = self.delayed.first()?.map(|(key, _)| {
            self.clocks
                .timebase
                .instant_of_unix_ms(read_u64(&key[..key.len().min(8)]))
        });
        let wake = match (next_host, next_retry) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(at) = wake {
            return Ok(NextUrl::WaitUntil(at));
        }
        let given_up = &inner.given_up;
        if inner
            .hosts
            .iter()
            .any(|(host, s)| s.has_queued && !given_up.contains(host))
        {
            Ok(NextUrl::Busy)
        } else {
            Ok(NextUrl::Empty)
        }
    }

    /// Gives a lease back with the outcome of its fetch.
    fn complete(&self, lease: Lease, outcome: HostOutcome) -> Result<Completion, FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        let lease_key = lease.id().to_be_bytes();
        if !self.in_flight.contains_key(lease_key)? {
            return Err(FrontierError::UnknownLease(lease.id()));
        }
        let host = lease.host().to_string();
        self.ensure_host(&mut inner, &host, now)?;
        inner.in_flight = inner.in_flight.saturating_sub(1);
        if let Some(state) = inner.hosts.get_mut(&host) {
            state.in_flight = state.in_flight.saturating_sub(1);
        }
        let attempts = lease.attempt.saturating_add(1);
        // Whatever a fetch of a given-up host says (other than done), its URL waits for the
        // next run.
        let outcome = match outcome {
            HostOutcome::Done | HostOutcome::Failed => outcome,
            _ if inner.given_up.contains(&host) => HostOutcome::HostGivenUp,
            _ => outcome,
        };
        let completion = match outcome {
            HostOutcome::Done | HostOutcome::Failed => {
                self.in_flight.remove(lease_key)?;
                Completion::Finished
            }
            HostOutcome::HostGivenUp => {
                let value = StoredEntry::new(lease.entry, 0).encode();
                let queue_key = self.front_queue_key(&mut inner, &host)?;
                self.requeue_in_flight(&lease_key, &queue_key, &value)?;
                if let Some(state) = inner.hosts.get_mut(&host) {
                    state.has_queued = true;
                }
                Completion::Parked
            }
            HostOutcome::HostFailure {
                count_try: true, ..
            } if attempts >= self.config.max_attempts => {
                self.in_flight.remove(lease_key)?;
                if let HostOutcome::HostFailure { pause, .. } = outcome {
                    inner.pause(&host, now, pause, self.config.max_retry_after);
                }
                Completion::GaveUp { attempts }
            }
            HostOutcome::HostFailure { pause, count_try } => {
                let not_before = inner.pause(&host, now, pause, self.config.max_retry_after);
                let tries = if count_try { attempts } else { lease.attempt };
                let value = StoredEntry::new(lease.entry, tries).encode();
                let queue_key = self.back_queue_key(&mut inner, &host)?;
                self.requeue_in_flight(&lease_key, &queue_key, &value)?;
                if let Some(state) = inner.hosts.get_mut(&host) {
                    state.has_queued = true;
                }
                Completion::Requeued {
                    attempt: tries,
                    not_before,
                }
            }
            HostOutcome::Retry | HostOutcome::RetryAfter(_)
                if attempts >= self.config.max_attempts =>
            {
                self.in_flight.remove(lease_key)?;
                if let HostOutcome::RetryAfter(pause) = outcome {
                    inner.pause(&host, now, pause, self.config.max_retry_after);
                }
                Completion::GaveUp { attempts }
            }
            HostOutcome::RetryAfter(pause) => {
                let not_before = inner.pause(&host, now, pause, self.config.max_retry_after);
                let value = StoredEntry::new(lease.entry, attempts).encode();
                let queue_key = self.front_queue_key(&mut inner, &host)?;
                (&self.in_flight, &self.queue, &self.meta).transaction(
                    |(in_flight, queue, meta)| {
                        in_flight.remove(&lease_key)?;
                        queue.insert(queue_key.as_slice(), value.as_slice())?;
                        add_to_counter(meta, COUNTER_QUEUED, 1)
                    },
                )?;
                if let Some(state) = inner.hosts.get_mut(&host) {
                    state.has_queued = true;
                }
                Completion::Requeued {
                    attempt: attempts,
                    not_before,
                }
            }
            HostOutcome::Retry => {
                let backoff = self.config.backoff(attempts);
                let not_before = now + backoff;
                let mut delayed_key = self
                    .clocks
                    .timebase
                    .unix_ms(not_before)
                    .to_be_bytes()
                    .to_vec();
                delayed_key.extend_from_slice(&self.db.generate_id()?.to_be_bytes());
                let value = StoredEntry::new(lease.entry, attempts).encode();
                (&self.in_flight, &self.delayed, &self.meta).transaction(
                    |(in_flight, delayed, meta)| {
                        in_flight.remove(&lease_key)?;
                        delayed.insert(delayed_key.as_slice(), value.as_slice())?;
                        add_to_counter(meta, COUNTER_DELAYED, 1)
                    },
                )?;
                Completion::Requeued {
                    attempt: attempts,
                    not_before,
                }
            }
        };
        inner.schedule_if_eligible(&host, now, self.config.per_host_concurrency);
        Ok(completion)
    }

    /// Gives a host up for the life of this `Frontier` (one run): it is never scheduled again,
    /// its queued URLs and the URLs waiting for a retry stay on disk (moved to its queue), and
    /// leases still in flight go back to its queue when completed. A `Frontier` opened later
    /// (the next run) schedules the host again. Returns whether the host was not given up yet.
    fn give_up_host(&self, host: &str) -> Result<bool, FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        if !inner.given_up.insert(host.to_string()) {
            return Ok(false);
        }
        // Its place in the ready heap (e.g. at the end of a pause) would keep the run waiting.
        inner.heap.retain(|scheduled| scheduled.0.host != host);
        if let Some(state) = inner.hosts.get_mut(host) {
            state.scheduled = false;
        }
        // Retries of the host would otherwise keep the run waiting for their backoff.
        let mut waiting: Vec<(IVec, IVec)> = Vec::new();
        for item in self.delayed.iter() {
            let (key, value) = item?;
            if StoredEntry::decode(&value).is_ok_and(|entry| entry.url.host() == host) {
                waiting.push((key, value));
            }
        }
        if !waiting.is_empty() {
            self.ensure_host(&mut inner, host, now)?;
        }
        for (key, value) in waiting {
            self.requeue_delayed(&mut inner, host, &key, &value)?;
        }
        Ok(true)
    }

    /// Whether [`FrontierStore::give_up_host`] was called for the host in this run.
    fn is_given_up(&self, host: &str) -> bool {
        self.lock().given_up.contains(host)
    }

    /// Pauses a host (no request starts before `now + pause`), e.g. while its robots.txt is
    /// unreachable. Pauses live in memory only.
    fn pause_host(&self, host: &str, pause: Duration) -> Result<Instant, FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        self.ensure_host(&mut inner, host, now)?;
        Ok(inner.pause(host, now, pause, self.config.max_retry_after))
    }

    /// Sets the host's delay between requests (robots Crawl-delay); the effective delay is
    /// never below [`PolitenessConfig::min_delay`]. Stored, so it survives pruning and restarts.
    fn set_host_delay(&self, host: &str, delay: Duration) -> Result<(), FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        let effective = delay.max(self.config.min_delay);
        if effective > self.config.min_delay {
            let millis = u64::try_from(effective.as_millis()).unwrap_or(u64::MAX);
            self.host_delays
                .insert(host.as_bytes(), &millis.to_be_bytes())?;
        } else {
            self.host_delays.remove(host.as_bytes())?;
        }
        self.ensure_host(&mut inner, host, now)?;
        if let Some(state) = inner.hosts.get_mut(host)
            && state.delay != effective
        {
            state.limiter = self.clocks.new_limiter(effective, state.last_request, now);
            state.delay = effective;
        }
        Ok(())
    }

    /// The host's effective delay between requests.
    fn host_delay(&self, host: &str) -> Result<Duration, FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        self.ensure_host(&mut inner, host, now)?;
        Ok(inner
            .hosts
            .get(host)
            .map_or(self.config.min_delay, |s| s.delay))
    }

    /// Writes everything to disk (call at checkpoints). Returns the bytes flushed.
    fn flush(&self) -> Result<(), FrontierError> {
        self.db.flush()?;
        Ok(())
    }

    /// Current counts.
    fn stats(&self) -> Result<FrontierStats, FrontierError> {
        let inner = self.lock();
        let counter = |name: &[u8]| -> Result<u64, FrontierError> {
            Ok(self.meta.get(name)?.map_or(0, |v| read_u64(&v)))
        };
        Ok(FrontierStats {
            queued: counter(COUNTER_QUEUED)?,
            in_flight: u64::from(inner.in_flight),
            delayed: counter(COUNTER_DELAYED)?,
            seen: counter(COUNTER_SEEN)?,
            hosts: inner.hosts.values().filter(|s| s.has_queued).count(),
            tracked_hosts: inner.hosts.len(),
        })
    }

    /// The politeness settings in force.
    fn config(&self) -> &PolitenessConfig {
        &self.config
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontier_is_shareable_between_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Frontier>();
        assert_send_sync::<crate::RobotsCache>();
    }

    #[test]
    fn queue_keys_sort_by_host_then_sequence() {
        let a1 = queue_key("a.example", FIRST_SEQ);
        let a0 = queue_key("a.example", FIRST_SEQ - 1);
        let a_port = queue_key("a.example:8080", 0);
        assert!(a0 < a1);
        assert!(
            a1 < a_port,
            "a host's keys never interleave with a longer host's"
        );
        assert_eq!(seq_of_queue_key(&a1), Some(FIRST_SEQ));
        assert!(a_port.starts_with(&queue_prefix("a.example:8080")));
        assert!(!a_port.starts_with(&queue_prefix("a.example")));
    }
}
