//! MinHash by one-permutation hashing (OPH) with optimal densification.
//!
//! Classic MinHash hashes every shingle `k` times. OPH hashes each shingle once: the mixed
//! hash picks one of `k` bins (multiply-shift on the high bits) and competes for that bin's
//! minimum (on the low 32 bits). Bins left empty (documents with few shingles) borrow the value
//! of a non-empty bin chosen by a per-bin probe sequence that every document shares (optimal
//! densification, Shrivastava ICML 2017), which keeps the estimator unbiased. The estimator is
//! the usual one: the share of equal positions. Because bins sample without replacement its
//! variance is at most classic MinHash's (lower for sets of a few hundred shingles).
//! Values are 32 bits: 512 bytes per signature at k = 128; a chance collision (2^-32) is far
//! below the estimator's own noise.

use crate::mix64;

/// A MinHash signature: `k` 32-bit values.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MinHashSignature(pub Vec<u32>);

impl MinHashSignature {
    /// Estimated resemblance: the share of positions where the two signatures agree.
    /// Signatures of different lengths compare on their common prefix.
    pub fn similarity(&self, other: &MinHashSignature) -> f64 {
        let n = self.0.len().min(other.0.len());
        if n == 0 {
            return 0.0;
        }
        let equal = self.0.iter().zip(&other.0).filter(|(a, b)| a == b).count();
        equal as f64 / n as f64
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Little-endian bytes (4 per value), for storage.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.0.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// Inverse of [`to_bytes`](Self::to_bytes); `None` when the length is not a multiple of 4.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        if !bytes.len().is_multiple_of(4) {
            return None;
        }
        Some(MinHashSignature(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ))
    }
}

const DENSIFY_SEED: u64 = 0x6A09_E667_F3BC_C908;

/// Computes OPH MinHash signatures of `k` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinHasher {
    k: usize,
    seed: u64,
}

impl MinHasher {
    /// `k` is clamped to 1..=4096.
    pub fn new(k: usize) -> Self {
        Self::with_seed(k, 0x243F_6A88_85A3_08D3)
    }

    pub fn with_seed(k: usize, seed: u64) -> Self {
        MinHasher {
            k: k.clamp(1, 4096),
            seed,
        }
    }

    pub fn k(&self) -> usize {
        self.k
    }

    /// Signature of a set of shingle hashes (duplicates are harmless); `None` when empty.
    pub fn signature(&self, shingles: &[u64]) -> Option<MinHashSignature> {
        if shingles.is_empty() {
            return None;
        }
        let k = self.k;
        let mut values = vec![u32::MAX; k];
        let mut filled = vec![false; k];
        for &shingle in shingles {
            let z = mix64(shingle ^ self.seed);
            let bin = ((z as u128 * k as u128) >> 64) as usize;
            let value = z as u32;
            if !filled[bin] || value < values[bin] {
                values[bin] = value;
                filled[bin] = true;
            }
        }
        let original = filled.clone();
        for bin in 0..k {
            if original[bin] {
                continue;
            }
            // Probe bins in a sequence fixed by (bin, attempt) alone, so two documents that
            // both lack this bin borrow from the same place whenever they can.
            let mut attempt: u64 = 0;
            loop {
                let z = mix64(DENSIFY_SEED ^ ((bin as u64) << 32) ^ attempt);
                let donor = ((z as u128 * k as u128) >> 64) as usize;
                if original[donor] {
                    values[bin] = values[donor];
                    break;
                }
                attempt += 1;
            }
        }
        Some(MinHashSignature(values))
    }
}

/// Classic k-permutation MinHash (k independent mixes per shingle). O(n·k): the reference the
/// OPH estimator is checked against, not for production use.
pub fn classic_minhash(shingles: &[u64], k: usize, seed: u64) -> Option<MinHashSignature> {
    if shingles.is_empty() {
        return None;
    }
    let values = (0..k as u64)
        .map(|i| {
            let permutation_seed = mix64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            shingles
                .iter()
                .map(|&s| mix64(s ^ permutation_seed) as u32)
                .min()
                .unwrap_or(u32::MAX)
        })
        .collect();
    Some(MinHashSignature(values))
}
