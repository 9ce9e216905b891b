//! [`PendingBlockCounts`]: template block counts an index handle has counted and not written
//! to PostgreSQL yet.
//!
//! Why: writing an original's counts with one statement a page (the host's row and one row per
//! block) was the server's second most expensive statement (benches/workers), and most of its
//! rows were the same template blocks updated page after page. Counts are evidence, not
//! decisions, so a handle keeps them for up to [`FLUSH_PAGES`] originals or [`FLUSH_AFTER`]
//! and writes each (host, block) once with the sum. Its own reads add what it keeps, so a
//! single worker sees exactly the counts it would have seen with the write per page; another
//! worker sees them at most a flush later. A killed worker loses what it kept: its template is
//! learnt that many pages later.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Originals a handle counts before it writes their counts.
pub(super) const FLUSH_PAGES: u32 = 64;
/// How long a handle keeps counts at most (checked when it counts the next original).
pub(super) const FLUSH_AFTER: Duration = Duration::from_secs(1);

/// The counts kept; see the module documentation.
#[derive(Debug, Default)]
pub(super) struct PendingBlockCounts {
    /// Host → its originals and block counts since the last write. Sorted, so the rows of a
    /// write are locked in one order by every worker (no deadlock between two writes).
    hosts: BTreeMap<String, PendingHost>,
    /// Originals kept.
    pages: u32,
    /// When the first of them was counted.
    since: Option<Instant>,
}

#[derive(Debug, Default)]
struct PendingHost {
    pages: u32,
    blocks: BTreeMap<i64, u32>,
}

/// One write's rows, as the arrays of its statement (host rows, then block rows in
/// (host, fingerprint) order).
#[derive(Debug, Default, PartialEq)]
pub(super) struct PendingRows {
    pub hosts: Vec<String>,
    pub host_pages: Vec<i32>,
    pub block_hosts: Vec<String>,
    pub block_fingerprints: Vec<i64>,
    pub block_pages: Vec<i32>,
}

impl PendingRows {
    pub fn is_empty(&self) -> bool {
        self.hosts.is_empty()
    }
}

fn as_count(pages: u32) -> i32 {
    i32::try_from(pages).unwrap_or(i32::MAX)
}

impl PendingBlockCounts {
    /// Counts one original of `host` with these (distinct) block fingerprints.
    pub fn add(&mut self, host: &str, blocks: &[i64]) {
        if !self.hosts.contains_key(host) {
            self.hosts.insert(host.to_string(), PendingHost::default());
        }
        if let Some(pending) = self.hosts.get_mut(host) {
            pending.pages = pending.pages.saturating_add(1);
            for &block in blocks {
                let count = pending.blocks.entry(block).or_default();
                *count = count.saturating_add(1);
            }
        }
        self.pages = self.pages.saturating_add(1);
        self.since.get_or_insert_with(Instant::now);
    }

    /// Whether the counts kept should be written now.
    pub fn due(&self, now: Instant) -> bool {
        self.pages >= FLUSH_PAGES
            || self
                .since
                .is_some_and(|since| now.duration_since(since) >= FLUSH_AFTER)
    }

    /// Originals of `host` kept.
    pub fn host_pages(&self, host: &str) -> u32 {
        self.hosts.get(host).map_or(0, |pending| pending.pages)
    }

    /// Originals of `host` kept that carry `block`.
    pub fn block_pages(&self, host: &str, block: i64) -> u32 {
        self.hosts
            .get(host)
            .and_then(|pending| pending.blocks.get(&block))
            .copied()
            .unwrap_or(0)
    }

    /// The rows of everything kept, which is forgotten (a failed write puts it back with
    /// [`restore`](Self::restore)).
    pub fn take(&mut self) -> PendingRows {
        let mut rows = PendingRows::default();
        for (host, pending) in std::mem::take(&mut self.hosts) {
            for (fingerprint, pages) in pending.blocks {
                rows.block_hosts.push(host.clone());
                rows.block_fingerprints.push(fingerprint);
                rows.block_pages.push(as_count(pages));
            }
            rows.hosts.push(host);
            rows.host_pages.push(as_count(pending.pages));
        }
        self.pages = 0;
        self.since = None;
        rows
    }

    /// Keeps again the rows of a write that failed (they are written with the next one).
    pub fn restore(&mut self, rows: PendingRows) {
        let mut originals = 0u32;
        for (host, pages) in rows.hosts.into_iter().zip(rows.host_pages) {
            let pages = u32::try_from(pages).unwrap_or(0);
            originals = originals.saturating_add(pages);
            let pending = self.hosts.entry(host).or_default();
            pending.pages = pending.pages.saturating_add(pages);
        }
        let blocks = rows
            .block_hosts
            .into_iter()
            .zip(rows.block_fingerprints)
            .zip(rows.block_pages);
        for ((host, fingerprint), pages) in blocks {
            let count = self
                .hosts
                .entry(host)
                .or_default()
                .blocks
                .entry(fingerprint)
                .or_default();
            *count = count.saturating_add(u32::try_from(pages).unwrap_or(0));
        }
        self.pages = self.pages.saturating_add(originals);
        self.since.get_or_insert_with(Instant::now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_per_host_and_block_and_writes_them_in_order() {
        let mut pending = PendingBlockCounts::default();
        pending.add("b.org", &[7, 9]);
        pending.add("a.org", &[3]);
        pending.add("b.org", &[7]);
        assert_eq!(pending.block_pages("b.org", 7), 2);
        assert_eq!(pending.block_pages("b.org", 9), 1);
        assert_eq!(pending.block_pages("a.org", 7), 0);
        assert_eq!(pending.host_pages("b.org"), 2);
        assert_eq!(pending.host_pages("c.org"), 0);
        let rows = pending.take();
        assert_eq!(
            rows,
            PendingRows {
                hosts: vec!["a.org".into(), "b.org".into()],
                host_pages: vec![1, 2],
                block_hosts: vec!["a.org".into(), "b.org".into(), "b.org".into()],
                block_fingerprints: vec![3, 7, 9],
                block_pages: vec![1, 2, 1],
            }
        );
        assert!(pending.take().is_empty());
        assert_eq!(pending.host_pages("b.org"), 0);
    }

    #[test]
    fn is_due_after_enough_pages_or_time_and_a_failed_write_comes_back() {
        let mut pending = PendingBlockCounts::default();
        let start = Instant::now();
        assert!(!pending.due(start));
        pending.add("a.org", &[1]);
        assert!(!pending.due(Instant::now()));
        assert!(pending.due(Instant::now() + FLUSH_AFTER));
        for _ in 1..FLUSH_PAGES {
            pending.add("a.org", &[1]);
        }
        assert!(pending.due(Instant::now()));
        let rows = pending.take();
        assert!(!pending.due(Instant::now() + FLUSH_AFTER));
        pending.add("a.org", &[2]);
        pending.restore(rows);
        assert_eq!(pending.host_pages("a.org"), FLUSH_PAGES + 1);
        assert_eq!(pending.block_pages("a.org", 1), FLUSH_PAGES);
        assert_eq!(pending.block_pages("a.org", 2), 1);
        assert!(pending.due(Instant::now()));
    }
}
