//! Shingles, digests and similarity sketches for duplicate detection (Broder 1997/2000).
//!
//! * [`shingle_set`]: the set of 64-bit hashes of every `w` consecutive tokens.
//! * [`PayloadDigest`] (SHA-1, WARC `sha1:BASE32`) and [`TokenDigest`] (128-bit XXH3 of the
//!   normalized token stream) for exact duplicates.
//! * [`MinHasher`]: MinHash signatures by one-permutation hashing with optimal densification
//!   (Shrivastava 2017): one hash per shingle instead of `k`, same estimator as classic
//!   k-permutation MinHash ([`classic_minhash`] is kept as the reference).
//! * [`BottomSketch`] (`MIN_s`) and [`ModSample`] (`MOD_m`, which also estimates containment).
//! * [`HashBloomFilter`]: a Bloom filter for keys that are hashes already;
//!   [`BlockedBloomFilter`]: one whose probes of a key stay in one cache line.
//! * [`LshParams`]: bands × rows chosen for a threshold by minimising weighted false-positive
//!   and false-negative areas under the S-curve `1-(1-s^r)^b`; [`SuperShingleParams`]: Broder's
//!   super-shingles (candidates share at least m of s groups), chosen the same way.
//!
//! ```
//! use dedupcrawl_sketch::{shingle_set, jaccard, MinHasher, LshParams};
//!
//! let a: Vec<u64> = (0..400).collect();            // token hashes of document A
//! let mut b = a.clone();
//! b[200] = 9_999;                                  // one token changed
//! let (sa, sb) = (shingle_set(&a, 5), shingle_set(&b, 5));
//! let exact = jaccard(&sa, &sb);
//! let hasher = MinHasher::new(128);
//! let estimate = hasher.signature(&sa).unwrap().similarity(&hasher.signature(&sb).unwrap());
//! assert!((exact - estimate).abs() < 0.1);
//! let lsh = LshParams::optimal(128, 0.8, 0.5, 0.5);
//! assert!(lsh.bands * lsh.rows <= 128);
//! ```

mod block_sketch;
mod blocked_bloom;
mod bloom;
mod broder;
mod digest;
mod lsh;
mod minhash;
mod shingle;
mod super_shingle_params;

pub use block_sketch::{BLOCK_SKETCH_VALUES, BlockSketch, CopyFinder};
pub use blocked_bloom::BlockedBloomFilter;
pub use bloom::HashBloomFilter;
pub use broder::{BottomSketch, MOD_SAMPLE_MAX_MODULUS, MOD_SAMPLE_MIN, ModSample, super_shingles};
pub use digest::{PayloadDigest, TokenDigest};
pub use lsh::{LshParams, candidate_probability};
pub use minhash::{MinHashSignature, MinHasher, classic_minhash};
pub use shingle::{containment, intersection_size, jaccard, shingle_sequence, shingle_set};
pub use super_shingle_params::{
    MAX_OPTIMAL_MIN_SHARED, SuperShingleParams, super_shingle_probability,
};

/// SplitMix64 finalizer: a fast bijective mixer, so mixed values of distinct inputs stay
/// distinct and look uniformly random.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
