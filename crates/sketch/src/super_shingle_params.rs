//! Broder's super-shingles over a MinHash signature: the `k` values are cut into `count`
//! groups of `rows` consecutive values, each group hashed into one super-shingle (the same
//! keys as LSH bands: [`LshParams::band_keys`]), and two documents are candidates when they
//! share at least `min_shared` of them. LSH banding is the case `min_shared = 1`. Asking for
//! two or more shared groups makes the S-curve steeper: fewer candidates far below the
//! threshold for the same recall near it (Broder 2000 used 6 groups of 14 of 84 values and
//! two shared; "megashingles", hashes of pairs of super-shingles, find the same pairs with one
//! lookup each and are not implemented).
//!
//! ```
//! use dedupcrawl_sketch::SuperShingleParams;
//!
//! let params = SuperShingleParams::optimal(128, 0.8, 0.05, 0.95);
//! assert!(params.min_shared >= 2);
//! assert!(params.candidate_probability(0.9) > 0.99);
//! assert!(params.candidate_probability(0.5) < 0.02);
//! ```

use crate::lsh::{LshParams, integrate};

/// Super-shingle settings: `count` groups of `rows` values, `min_shared` shared to be
/// candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SuperShingleParams {
    pub count: usize,
    pub rows: usize,
    pub min_shared: usize,
}

/// Largest `min_shared` [`SuperShingleParams::optimal`] considers.
pub const MAX_OPTIMAL_MIN_SHARED: usize = 4;

/// P(at least `min_shared` of `count` super-shingles of `rows` values agree | resemblance s):
/// the upper tail of Binomial(count, s^rows).
pub fn super_shingle_probability(s: f64, count: usize, rows: usize, min_shared: usize) -> f64 {
    let p = s.powi(rows as i32);
    // 1 − P(fewer than min_shared agree); C(count, j) built up term by term.
    let mut below = 0.0;
    let mut choose = 1.0;
    for j in 0..min_shared.min(count + 1) {
        below += choose * p.powi(j as i32) * (1.0 - p).powi((count - j) as i32);
        choose = choose * (count - j) as f64 / (j + 1) as f64;
    }
    (1.0 - below).clamp(0.0, 1.0)
}

impl SuperShingleParams {
    /// Chooses count × rows ≤ k and 2 ≤ min_shared ≤ [`MAX_OPTIMAL_MIN_SHARED`] minimising
    /// `fp_weight`·(area under the S-curve below `threshold`) + `fn_weight`·(area above it past
    /// `threshold`), the criterion [`LshParams::optimal`] uses.
    pub fn optimal(k: usize, threshold: f64, fp_weight: f64, fn_weight: f64) -> Self {
        let k = k.max(2);
        let mut best = (
            f64::INFINITY,
            SuperShingleParams {
                count: 2,
                rows: k / 2,
                min_shared: 2,
            },
        );
        for count in 2..=k {
            for rows in 1..=(k / count) {
                for min_shared in 2..=MAX_OPTIMAL_MIN_SHARED.min(count) {
                    let params = SuperShingleParams {
                        count,
                        rows,
                        min_shared,
                    };
                    let fp = integrate(|s| params.candidate_probability(s), 0.0, threshold);
                    let fnr = integrate(|s| 1.0 - params.candidate_probability(s), threshold, 1.0);
                    let error = fp_weight * fp + fn_weight * fnr;
                    if error < best.0 {
                        best = (error, params);
                    }
                }
            }
        }
        best.1
    }

    /// P(candidate | resemblance s) for these settings.
    pub fn candidate_probability(&self, s: f64) -> f64 {
        super_shingle_probability(s, self.count, self.rows, self.min_shared)
    }

    /// The groups as LSH bands: their keys are the super-shingles.
    pub fn groups(&self) -> LshParams {
        LshParams {
            bands: self.count,
            rows: self.rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_shared_group_is_lsh_and_the_optimum_is_steeper() {
        for s in [0.3, 0.6, 0.8, 0.95] {
            let lsh = crate::candidate_probability(s, 16, 8);
            assert!((super_shingle_probability(s, 16, 8, 1) - lsh).abs() < 1e-12);
        }
        let params = SuperShingleParams::optimal(128, 0.8, 0.05, 0.95);
        let lsh = LshParams::optimal(128, 0.8, 0.05, 0.95);
        assert!(params.count * params.rows <= 128, "{params:?}");
        // Near the threshold as likely a candidate; far below it much less.
        assert!(params.candidate_probability(0.8) > 0.9, "{params:?}");
        assert!(params.candidate_probability(0.5) < lsh.candidate_probability(0.5) / 4.0);
    }
}
