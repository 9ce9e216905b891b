//! A Bloom filter over keys that are already uniform hashes (URL hashes, shingle or block
//! fingerprints mixed with [`mix64`](crate::mix64)).
//!
//! Probe positions come from the key itself: double hashing over its two 64-bit halves,
//! mapped onto the bit range by multiply-shift. Why hand-written: the Bloom crates hash every
//! key again (SipHash or xxh3 over its bytes), which is wasted work on keys that are hashes
//! already, and their sizing APIs differ from what the callers need (a fixed number of bits a
//! key).
//!
//! ```
//! use dedupcrawl_sketch::HashBloomFilter;
//!
//! let mut filter = HashBloomFilter::for_keys(1_000);
//! filter.insert(0x1234_5678_9abc_def0_0fed_cba9_8765_4321);
//! assert!(filter.may_contain(0x1234_5678_9abc_def0_0fed_cba9_8765_4321));
//! ```

/// Bits per expected key: about 1 % false positives with [`HashBloomFilter::PROBES`] probes.
const BITS_PER_KEY: u64 = 10;

/// A fixed-size Bloom filter for uniform 128-bit keys.
#[derive(Debug, Clone)]
pub struct HashBloomFilter {
    words: Vec<u64>,
    bits: u64,
}

impl HashBloomFilter {
    /// Probes per key.
    pub const PROBES: u64 = 7;

    /// A filter for about `count` keys (10 bits a key).
    pub fn for_keys(count: u64) -> HashBloomFilter {
        let bits = (count.max(1) * BITS_PER_KEY).max(64);
        HashBloomFilter {
            words: vec![0; bits.div_ceil(64) as usize],
            bits,
        }
    }

    pub fn insert(&mut self, key: u128) {
        for bit in positions(self.bits, key) {
            self.words[(bit / 64) as usize] |= 1 << (bit % 64);
        }
    }

    /// `false`: the key was never inserted; `true`: it probably was.
    pub fn may_contain(&self, key: u128) -> bool {
        positions(self.bits, key)
            .all(|bit| self.words[(bit / 64) as usize] & (1 << (bit % 64)) != 0)
    }

    /// Heap bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.words.len() * 8
    }
}

fn positions(bits: u64, key: u128) -> impl Iterator<Item = u64> {
    let low = key as u64;
    let high = (key >> 64) as u64 | 1;
    (0..HashBloomFilter::PROBES).map(move |i| {
        let hash = low.wrapping_add(i.wrapping_mul(high));
        ((u128::from(hash) * u128::from(bits)) >> 64) as u64
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u64) -> u128 {
        u128::from(crate::mix64(i)) << 64 | u128::from(crate::mix64(i ^ 0xABCD))
    }

    #[test]
    fn false_positive_rate_is_near_one_percent() {
        let mut filter = HashBloomFilter::for_keys(100_000);
        for i in 0..100_000 {
            filter.insert(key(i));
        }
        assert!((0..100_000).all(|i| filter.may_contain(key(i))));
        let false_positives = (100_000..300_000)
            .filter(|&i| filter.may_contain(key(i)))
            .count();
        let rate = false_positives as f64 / 200_000.0;
        assert!(rate < 0.015, "false-positive rate {rate}");
        assert_eq!(filter.memory_bytes(), 125_000);
    }
}
