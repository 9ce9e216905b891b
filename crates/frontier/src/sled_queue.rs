//! The embedded frontier storage ([`SledQueue`]) and [`Frontier`], the embedded
//! [`crate::FrontierStore`]: sled trees of the caller's db and the seen-set files.
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
//! when sled flushes (every 500 ms by default) or at a flush.
//!
//! # Memory
//! URLs live only in sled. In RAM: ~1.3 bytes per seen URL (the filters of [`crate::seen`]),
//! and the schedule of [`crate::PoliteFrontier`] (one small record per host with queued or
//! in-flight URLs, a heap of host ready times; idle hosts are pruned).
//!
//! One `Frontier` per `Db`: it assumes it is the only writer of its trees.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use sled::transaction::{
    ConflictableTransactionError, TransactionError, Transactional, TransactionalTree,
};
use sled::{IVec, Tree};

use crate::canonical::CanonicalUrl;
use crate::entry::{FrontierEntry, OfferOutcome};
use crate::error::FrontierError;
use crate::polite_frontier::PoliteFrontier;
use crate::politeness::PolitenessConfig;
use crate::queue_storage::{FrontLease, HostSpacing, QueueEnd, QueueStorage, StoredCounts};
use crate::seen::{META_WAL_LEN, SeenKey, SeenSetStats, SeenUrlSet, seen_key};
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

/// The embedded [`crate::FrontierStore`]: polite scheduling over sled.
pub type Frontier = PoliteFrontier<SledQueue>;

impl From<TransactionError<FrontierError>> for FrontierError {
    fn from(error: TransactionError<FrontierError>) -> Self {
        match error {
            TransactionError::Abort(error) => error,
            TransactionError::Storage(error) => FrontierError::Storage(error),
        }
    }
}

type TxResult<T> = Result<T, ConflictableTransactionError<FrontierError>>;

/// The frontier's sled trees and seen-set files.
pub struct SledQueue {
    db: sled::Db,
    seen: SeenUrlSet,
    queue: Tree,
    in_flight: Tree,
    delayed: Tree,
    host_delays: Tree,
    meta: Tree,
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
        let storage = SledQueue {
            seen: SeenUrlSet::open(db, meta.clone(), seen_dir.as_ref())?,
            queue: db.open_tree(TREE_QUEUE)?,
            in_flight: db.open_tree(TREE_IN_FLIGHT)?,
            delayed: db.open_tree(TREE_DELAYED)?,
            host_delays: db.open_tree(TREE_HOST_DELAY)?,
            meta,
            db: db.clone(),
        };
        PoliteFrontier::over(storage, politeness)
    }

    /// Tiers and RAM of the seen-URL set (see [`crate::seen`]).
    pub fn seen_set_stats(&self) -> SeenSetStats {
        self.storage.seen.stats()
    }

    /// How many URLs the seen set's recent tier holds before they are compacted into a sorted
    /// run; default [`crate::DEFAULT_RECENT_LIMIT`]. Smaller values compact more often (tests
    /// use them to exercise compaction).
    pub fn set_recent_seen_limit(&self, limit: u64) {
        self.storage.seen.set_recent_limit(limit);
    }
}

impl SledQueue {
    /// Key in front of the host's first queued entry (or at the back of an empty queue).
    fn front_queue_key(&self, host: &str) -> Result<Vec<u8>, FrontierError> {
        let first = self
            .queue
            .scan_prefix(queue_prefix(host))
            .next()
            .transpose()?;
        match first.and_then(|(key, _)| seq_of_queue_key(&key)) {
            Some(seq) => Ok(queue_key(host, seq.saturating_sub(1))),
            None => self.back_queue_key(host),
        }
    }

    /// Sequence after the host's last queued entry.
    fn next_back_seq(&self, host: &str) -> Result<u64, FrontierError> {
        let last = self
            .queue
            .scan_prefix(queue_prefix(host))
            .next_back()
            .transpose()?;
        Ok(last
            .and_then(|(key, _)| seq_of_queue_key(&key))
            .map_or(FIRST_SEQ, |seq| seq.saturating_add(1)))
    }

    fn back_queue_key(&self, host: &str) -> Result<Vec<u8>, FrontierError> {
        Ok(queue_key(host, self.next_back_seq(host)?))
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

    /// Moves one delayed retry to the back of its host's queue, in one transaction.
    fn requeue_delayed(&self, host: &str, key: &IVec, value: &IVec) -> Result<(), FrontierError> {
        let queue_key = self.back_queue_key(host)?;
        (&self.delayed, &self.queue, &self.meta).transaction(|(delayed, queue, meta)| {
            delayed.remove(key)?;
            queue.insert(queue_key.as_slice(), value)?;
            add_to_counter(meta, COUNTER_DELAYED, -1)?;
            add_to_counter(meta, COUNTER_QUEUED, 1)
        })?;
        Ok(())
    }

    /// Leased-but-never-completed entries go back to the front of their queues, in their
    /// original order (newest lease first to the front, so the oldest ends up first).
    fn recover_in_flight(&self) -> Result<(), FrontierError> {
        let leftovers: Vec<(IVec, IVec)> = self.in_flight.iter().rev().collect::<Result<_, _>>()?;
        if !leftovers.is_empty() {
            tracing::info!(count = leftovers.len(), "requeueing URLs left in flight");
        }
        for (key, value) in leftovers {
            let mut entry = match StoredEntry::decode(&value) {
                Ok(entry) => entry,
                Err(error) => {
                    tracing::warn!(%error, "dropping undecodable in-flight record");
                    self.in_flight.remove(&key)?;
                    continue;
                }
            };
            let queue_key = self.front_queue_key(entry.url.host())?;
            // Its fetch may have happened ([`crate::Lease::leased_before`]).
            entry.leased_before = true;
            let value = entry.encode();
            (&self.in_flight, &self.queue, &self.meta).transaction(
                |(in_flight, queue, meta)| {
                    in_flight.remove(&key)?;
                    queue.insert(queue_key.as_slice(), value.as_slice())?;
                    add_to_counter(meta, COUNTER_QUEUED, 1)?;
                    Ok(())
                },
            )?;
        }
        Ok(())
    }
}

impl QueueStorage for SledQueue {
    fn recover(&self) -> Result<Vec<String>, FrontierError> {
        self.recover_in_flight()?;
        // Every host with queued URLs, by skipping from host to host (one seek per host, not
        // a scan of all URLs).
        let mut hosts = Vec::new();
        let mut cursor: Vec<u8> = Vec::new();
        while let Some((key, _)) = self.queue.range(cursor.as_slice()..).next().transpose()? {
            let Some(separator) = key.iter().position(|&b| b == 0) else {
                tracing::warn!("dropping queue key without host separator");
                self.queue.remove(&key)?;
                continue;
            };
            hosts.push(String::from_utf8_lossy(&key[..separator]).into_owned());
            cursor = key[..separator].to_vec();
            cursor.push(1); // first key after every "host\0..." key
        }
        Ok(hosts)
    }

    fn offer(&self, entries: Vec<FrontierEntry>) -> Result<Vec<OfferOutcome>, FrontierError> {
        let mut outcomes = Vec::new();
        let mut batch_keys: HashSet<SeenKey> = HashSet::new();
        let mut writes: Vec<([u8; 16], Vec<u8>, Vec<u8>)> = Vec::new();
        let mut next_seqs: HashMap<String, u64> = HashMap::new();
        for entry in entries {
            let key = seen_key(&entry.url);
            // Checked outside the transaction: we are the only writer (see module doc).
            if batch_keys.contains(&key) || self.seen.contains(&key)? {
                outcomes.push(OfferOutcome::AlreadySeen);
                continue;
            }
            let host = entry.url.host().to_string();
            let seq = match next_seqs.get_mut(&host) {
                Some(seq) => seq,
                None => next_seqs
                    .entry(host.clone())
                    .or_insert(self.next_back_seq(&host)?),
            };
            let queue_key = queue_key(&host, *seq);
            *seq = seq.saturating_add(1);
            writes.push((key, queue_key, StoredEntry::new(entry, 0).encode()));
            batch_keys.insert(key);
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
        Ok(outcomes)
    }

    fn offer_again(&self, entries: Vec<FrontierEntry>) -> Result<(), FrontierError> {
        let mut unseen = Vec::new();
        let mut writes: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        let mut next_seqs: HashMap<String, u64> = HashMap::new();
        for entry in entries {
            if !self.seen.contains(&seen_key(&entry.url))? {
                unseen.push(entry);
                continue;
            }
            let host = entry.url.host().to_string();
            let seq = match next_seqs.get_mut(&host) {
                Some(seq) => seq,
                None => next_seqs
                    .entry(host.clone())
                    .or_insert(self.next_back_seq(&host)?),
            };
            let queue_key = queue_key(&host, *seq);
            *seq = seq.saturating_add(1);
            writes.push((queue_key, StoredEntry::new(entry, 0).encode()));
        }
        if !unseen.is_empty() {
            self.offer(unseen)?;
        }
        if writes.is_empty() {
            return Ok(());
        }
        let count = i64::try_from(writes.len()).unwrap_or(i64::MAX);
        (&self.queue, &self.meta).transaction(|(queue, meta)| {
            for (queue_key, value) in &writes {
                queue.insert(queue_key.as_slice(), value.as_slice())?;
            }
            add_to_counter(meta, COUNTER_QUEUED, count)?;
            Ok(())
        })?;
        Ok(())
    }

    fn contains(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
        self.seen.contains(&seen_key(url))
    }

    fn mark_seen(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
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

    /// Moves the first decodable entry of the host queue to the in-flight tree.
    /// One process uses the store: the in-memory schedule already spaced the host.
    fn lease_front(&self, host: &str, _spacing: HostSpacing) -> Result<FrontLease, FrontierError> {
        let prefix = queue_prefix(host);
        loop {
            let mut entries = self.queue.scan_prefix(&prefix);
            let Some((key, value)) = entries.next().transpose()? else {
                return Ok(FrontLease::Empty);
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
            return Ok(FrontLease::Leased {
                lease: entry.into_lease(lease_id),
                more,
            });
        }
    }

    fn is_leased(&self, lease_id: u64) -> Result<bool, FrontierError> {
        Ok(self.in_flight.contains_key(lease_id.to_be_bytes())?)
    }

    fn finish(&self, lease_id: u64) -> Result<(), FrontierError> {
        self.in_flight.remove(lease_id.to_be_bytes())?;
        Ok(())
    }

    fn requeue(
        &self,
        lease_id: u64,
        entry: FrontierEntry,
        attempts: u8,
        end: QueueEnd,
    ) -> Result<(), FrontierError> {
        let host = entry.url.host().to_string();
        let value = StoredEntry::after_lease(entry, attempts).encode();
        let queue_key = match end {
            QueueEnd::Front => self.front_queue_key(&host)?,
            QueueEnd::Back => self.back_queue_key(&host)?,
        };
        self.requeue_in_flight(&lease_id.to_be_bytes(), &queue_key, &value)
    }

    fn delay(
        &self,
        lease_id: u64,
        entry: FrontierEntry,
        attempts: u8,
        due_unix_ms: u64,
    ) -> Result<(), FrontierError> {
        let lease_key = lease_id.to_be_bytes();
        let mut delayed_key = due_unix_ms.to_be_bytes().to_vec();
        delayed_key.extend_from_slice(&self.db.generate_id()?.to_be_bytes());
        let value = StoredEntry::after_lease(entry, attempts).encode();
        (&self.in_flight, &self.delayed, &self.meta).transaction(
            |(in_flight, delayed, meta)| {
                in_flight.remove(&lease_key)?;
                delayed.insert(delayed_key.as_slice(), value.as_slice())?;
                add_to_counter(meta, COUNTER_DELAYED, 1)
            },
        )?;
        Ok(())
    }

    fn promote_due(&self, now_unix_ms: u64, limit: usize) -> Result<Vec<String>, FrontierError> {
        let end = now_unix_ms.saturating_add(1).to_be_bytes();
        let due: Vec<(IVec, IVec)> = self
            .delayed
            .range(..end.as_slice())
            .take(limit)
            .collect::<Result<_, _>>()?;
        let mut hosts = Vec::new();
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
            self.requeue_delayed(&host, &key, &value)?;
            hosts.push(host);
        }
        Ok(hosts)
    }

    fn first_due(&self) -> Result<Option<u64>, FrontierError> {
        Ok(self
            .delayed
            .first()?
            .map(|(key, _)| read_u64(&key[..key.len().min(8)])))
    }

    fn release_delayed_of_host(&self, host: &str) -> Result<usize, FrontierError> {
        let mut waiting: Vec<(IVec, IVec)> = Vec::new();
        for item in self.delayed.iter() {
            let (key, value) = item?;
            if StoredEntry::decode(&value).is_ok_and(|entry| entry.url.host() == host) {
                waiting.push((key, value));
            }
        }
        for (key, value) in &waiting {
            self.requeue_delayed(host, key, value)?;
        }
        Ok(waiting.len())
    }

    fn stored_host_delay(&self, host: &str) -> Result<Option<Duration>, FrontierError> {
        Ok(self
            .host_delays
            .get(host.as_bytes())?
            .map(|v| Duration::from_millis(read_u64(&v))))
    }

    fn set_stored_host_delay(
        &self,
        host: &str,
        delay: Option<Duration>,
    ) -> Result<(), FrontierError> {
        match delay {
            Some(delay) => {
                let millis = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX);
                self.host_delays
                    .insert(host.as_bytes(), &millis.to_be_bytes())?;
            }
            None => {
                self.host_delays.remove(host.as_bytes())?;
            }
        }
        Ok(())
    }

    fn counts(&self) -> Result<StoredCounts, FrontierError> {
        let counter = |name: &[u8]| -> Result<u64, FrontierError> {
            Ok(self.meta.get(name)?.map_or(0, |v| read_u64(&v)))
        };
        Ok(StoredCounts {
            queued: counter(COUNTER_QUEUED)?,
            delayed: counter(COUNTER_DELAYED)?,
            seen: counter(COUNTER_SEEN)?,
        })
    }

    fn flush(&self) -> Result<(), FrontierError> {
        self.db.flush()?;
        Ok(())
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
