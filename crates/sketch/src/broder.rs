//! Broder's sketches: bottom-s (`MIN_s`) and the `MOD_m` sample.

use crate::{intersection_size, mix64};

/// `MIN_s(F(A))`: the `s` smallest values of a permutation of the shingle set.
///
/// Resemblance is estimated as |MIN_s(F(A) ∪ F(B)) ∩ F(A) ∩ F(B)| / |MIN_s(F(A) ∪ F(B))|,
/// computable from the two sketches alone because MIN_s(A ∪ B) = MIN_s(MIN_s(A) ∪ MIN_s(B)).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct BottomSketch {
    pub s: usize,
    /// Sorted ascending, at most `s` values.
    pub values: Vec<u64>,
}

impl BottomSketch {
    /// Sketch of a shingle set under the fixed random permutation `mix64`.
    pub fn from_shingles(shingles: &[u64], s: usize) -> Self {
        Self::from_ranks(shingles.iter().map(|&h| mix64(h)), s)
    }

    /// Sketch of values that are already permuted ranks (used by the seed examples).
    pub fn from_ranks(ranks: impl IntoIterator<Item = u64>, s: usize) -> Self {
        let mut values: Vec<u64> = ranks.into_iter().collect();
        values.sort_unstable();
        values.dedup();
        values.truncate(s);
        BottomSketch { s, values }
    }

    /// MIN_s(MIN_s(A) ∪ MIN_s(B)) = MIN_s(A ∪ B).
    pub fn union(&self, other: &BottomSketch) -> BottomSketch {
        BottomSketch::from_ranks(
            self.values.iter().chain(&other.values).copied(),
            self.s.min(other.s),
        )
    }

    /// Broder's resemblance estimate.
    pub fn resemblance(&self, other: &BottomSketch) -> f64 {
        let union = self.union(other);
        if union.values.is_empty() {
            return 1.0;
        }
        let in_both = union
            .values
            .iter()
            .filter(|v| {
                self.values.binary_search(v).is_ok() && other.values.binary_search(v).is_ok()
            })
            .count();
        in_both as f64 / union.values.len() as f64
    }
}

/// Super-shingles: hashes of every `w` consecutive values of a sorted sketch. Two documents
/// sharing a super-shingle almost surely share a long run of their sketches.
pub fn super_shingles(sorted_sketch: &[u64], w: usize) -> Vec<u64> {
    let w = w.clamp(1, sorted_sketch.len().max(1));
    let mut out: Vec<u64> = sorted_sketch
        .windows(w)
        .map(|run| run.iter().fold(w as u64, |h, &v| mix64(h ^ v)))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// `MOD_m(F(A))`: the shingles whose hash is 0 mod m, m a power of two.
///
/// Unlike MIN_s this sample grows with the document, which makes containment estimable:
/// if A ⊂ B then V(A) ⊂ V(B) at the same modulus. The modulus is chosen from the document
/// length so |V| stays in 50..100 (past [`MOD_SAMPLE_MAX_MODULUS`], |V| ≈ n/64); samples at
/// modulus 2m derive from those at m (keep the
/// values that are also 0 mod 2m), so two documents compare at the larger of their moduli.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ModSample {
    /// Power of two.
    pub modulus: u64,
    /// Sorted ascending.
    pub values: Vec<u64>,
}

/// Target lower bound of |V|: the modulus is the largest power of two with n/m ≥ this.
pub const MOD_SAMPLE_MIN: usize = 50;

/// Largest modulus: a document of more than `MOD_SAMPLE_MIN` × this shingles (about 3,200)
/// keeps one shingle in 64 and its sample grows with it. Why: two documents compare at the
/// larger modulus, and a part of a large page (a chapter of a book's one-page version: 2,000
/// shingles in 300,000) had one or two values left there, too few to say it is inside; at 64
/// it keeps all of its own sample from 3,200 shingles on, and 16 values from 1,000.
pub const MOD_SAMPLE_MAX_MODULUS: u64 = 64;

impl ModSample {
    /// Sample of a sorted, deduplicated shingle set with the length-chosen modulus (at most
    /// [`MOD_SAMPLE_MAX_MODULUS`]).
    pub fn from_shingles(shingles: &[u64]) -> Self {
        let ratio = (shingles.len() / MOD_SAMPLE_MIN).max(1) as u64;
        // Largest power of two ≤ ratio.
        let modulus = (1u64 << (63 - ratio.leading_zeros())).min(MOD_SAMPLE_MAX_MODULUS);
        Self::with_modulus(shingles, modulus)
    }

    /// Sample at a given power-of-two modulus.
    pub fn with_modulus(shingles: &[u64], modulus: u64) -> Self {
        let modulus = modulus.max(1).next_power_of_two();
        let mask = modulus - 1;
        let mut values: Vec<u64> = shingles.iter().copied().filter(|h| h & mask == 0).collect();
        values.sort_unstable();
        values.dedup();
        ModSample { modulus, values }
    }

    /// The sample with each value cut to its low `bits` bits (for compact storage). Divisibility
    /// by any modulus up to 2^`bits` is unchanged, so [`ModSample::at_modulus`] still derives
    /// the same samples; two different shingles now agree by chance with probability
    /// 2^-(`bits` - log2 m).
    pub fn low_bits(&self, bits: u32) -> ModSample {
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let mut values: Vec<u64> = self.values.iter().map(|v| v & mask).collect();
        values.sort_unstable();
        values.dedup();
        ModSample {
            modulus: self.modulus,
            values,
        }
    }

    /// V at a larger power-of-two modulus, derived from this sample.
    pub fn at_modulus(&self, modulus: u64) -> ModSample {
        if modulus <= self.modulus {
            return self.clone();
        }
        Self::with_modulus(&self.values, modulus)
    }

    fn common(a: &ModSample, b: &ModSample) -> (ModSample, ModSample) {
        let modulus = a.modulus.max(b.modulus);
        (a.at_modulus(modulus), b.at_modulus(modulus))
    }

    /// |V(A)∩V(B)| / |V(A)∪V(B)| at the common modulus.
    pub fn resemblance(&self, other: &ModSample) -> f64 {
        let (a, b) = Self::common(self, other);
        crate::jaccard(&a.values, &b.values)
    }

    /// |V(A)∩V(B)| / |V(A)|: the estimated share of this document contained in `other`.
    pub fn containment_in(&self, other: &ModSample) -> f64 {
        let (a, b) = Self::common(self, other);
        if a.values.is_empty() {
            return 0.0;
        }
        intersection_size(&a.values, &b.values) as f64 / a.values.len() as f64
    }
}
