//! Per-host counts of content blocks over the index's original documents: how many of a host's
//! pages carry a block (nav, footer, cookie banner: template) and how many pages the host has.
//! The text pipeline reads them to learn a host's template.
//!
//! Held in memory and rebuilt from the document records (each original lists its block
//! fingerprints) when the index opens. Most blocks are on one page only (the paragraphs of an
//! article), so a block's first sighting only sets bits in a Bloom filter (10 bits); a block
//! seen again gets an exact counter. A false positive of the filter counts a block's first page
//! twice, 1 % of the time: a block needs several pages to become template, so that is noise.
//!
//! Why not sled keys, as before: one random key per block per page is the access pattern sled
//! 0.34 handles worst (it keeps per-page state in RAM whatever its cache, see the seen-URL set),
//! and it cost ~1.5 KB a page on disk on the Rust docs.
//!
//! ```
//! # use dedupcrawl_index::block_counts::BlockCounts;
//! let mut counts = BlockCounts::default();
//! counts.add_page("example.org", &[7, 9]);
//! counts.add_page("example.org", &[7]);
//! assert_eq!(counts.count("example.org", 7), 2);
//! assert_eq!(counts.count("example.org", 9), 1);
//! assert_eq!(counts.count("other.org", 7), 0);
//! assert_eq!(counts.host_pages("example.org"), 2);
//! ```

use dedupcrawl_sketch::{HashBloomFilter, mix64};
use rustc_hash::FxHashMap;
use xxhash_rust::xxh3::xxh3_64;

/// Counts saturate here.
pub const COUNT_CAP: u32 = 1_000_000;
/// Keys the first Bloom filter is sized for; each further one is twice the previous.
const FIRST_FILTER_KEYS: u64 = 1 << 16;

/// The counts; see the module documentation.
#[derive(Default)]
pub struct BlockCounts {
    /// Blocks seen once (probably): filters of growing size, the last one being filled.
    seen_once: Vec<(HashBloomFilter, u64)>,
    /// Blocks seen on two pages or more → pages.
    repeated: FxHashMap<u64, u32>,
    /// Host hash → pages.
    host_pages: FxHashMap<u64, u32>,
}

fn host_hash(host: &str) -> u64 {
    xxh3_64(host.as_bytes())
}

/// One 128-bit key per (host, block): two independent 64-bit halves for the Bloom filter's
/// double hashing; the map uses the low half.
fn block_key(host: u64, block: u64) -> u128 {
    let low = mix64(host ^ mix64(block));
    u128::from(mix64(low ^ 0x5851_F42D_4C95_7F2D)) << 64 | u128::from(low)
}

impl BlockCounts {
    /// Counts one page of `host` with these (distinct) block fingerprints.
    pub fn add_page(&mut self, host: &str, blocks: &[u64]) {
        let host = host_hash(host);
        let pages = self.host_pages.entry(host).or_default();
        *pages = (*pages + 1).min(COUNT_CAP);
        for &block in blocks {
            let key = block_key(host, block);
            if let Some(count) = self.repeated.get_mut(&(key as u64)) {
                *count = (*count + 1).min(COUNT_CAP);
            } else if self.seen_once.iter().any(|(f, _)| f.may_contain(key)) {
                self.repeated.insert(key as u64, 2);
            } else {
                self.remember_once(key);
            }
        }
    }

    fn remember_once(&mut self, key: u128) {
        let full = self
            .seen_once
            .last()
            .is_none_or(|(filter, keys)| *keys >= filter_capacity(filter));
        if full {
            let capacity = self
                .seen_once
                .last()
                .map_or(FIRST_FILTER_KEYS, |(f, _)| filter_capacity(f) * 2);
            self.seen_once
                .push((HashBloomFilter::for_keys(capacity), 0));
        }
        if let Some((filter, keys)) = self.seen_once.last_mut() {
            filter.insert(key);
            *keys += 1;
        }
    }

    /// Pages of `host` that carry `block`.
    pub fn count(&self, host: &str, block: u64) -> u32 {
        let key = block_key(host_hash(host), block);
        match self.repeated.get(&(key as u64)) {
            Some(&count) => count,
            None => u32::from(self.seen_once.iter().any(|(f, _)| f.may_contain(key))),
        }
    }

    /// Pages counted for `host`.
    pub fn host_pages(&self, host: &str) -> u32 {
        self.host_pages.get(&host_hash(host)).copied().unwrap_or(0)
    }

    /// Heap bytes held (approximately).
    pub fn memory_bytes(&self) -> usize {
        self.seen_once
            .iter()
            .map(|(f, _)| f.memory_bytes())
            .sum::<usize>()
            + (self.repeated.capacity() + self.host_pages.capacity()) * 13
    }
}

/// Keys a filter holds before the next one starts (10 bits a key).
fn filter_capacity(filter: &HashBloomFilter) -> u64 {
    filter.memory_bytes() as u64 * 8 / 10
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_exact_for_repeated_blocks_and_filters_grow() {
        let mut counts = BlockCounts::default();
        // 300,000 blocks on one page each: several filters, all counted once.
        for page in 0..3_000u64 {
            let blocks: Vec<u64> = (0..100).map(|b| page * 1_000 + b).collect();
            counts.add_page("a.org", &blocks);
        }
        assert!(counts.seen_once.len() >= 3, "{}", counts.seen_once.len());
        let once = (0..3_000u64)
            .flat_map(|page| (0..100).map(move |b| page * 1_000 + b))
            .filter(|&block| counts.count("a.org", block) == 1)
            .count();
        // Bloom false positives turn ≈ 1 % of first sightings into a count of 2.
        assert!(once > 290_000, "{once}");
        // A template block on every page is counted exactly.
        for _ in 0..50 {
            counts.add_page("b.org", &[42, 43]);
        }
        assert_eq!(counts.count("b.org", 42), 50);
        assert_eq!(counts.host_pages("b.org"), 50);
        assert_eq!(counts.host_pages("a.org"), 3_000);
        assert_eq!(counts.count("b.org", 7), 0);
        // Under 1 MB for 300,000 distinct blocks (sled took ~75 bytes each on disk).
        assert!(counts.memory_bytes() < 1 << 20, "{}", counts.memory_bytes());
    }
}
