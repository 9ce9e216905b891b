//! LSH banding parameters and band keys.

use xxhash_rust::xxh3::xxh3_64_with_seed;

use crate::MinHashSignature;

/// Probability that two documents of resemblance `s` share at least one band:
/// 1 - (1 - s^r)^b.
pub fn candidate_probability(s: f64, bands: usize, rows: usize) -> f64 {
    1.0 - (1.0 - s.powi(rows as i32)).powi(bands as i32)
}

/// `bands` × `rows` of a MinHash signature used as LSH buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LshParams {
    pub bands: usize,
    pub rows: usize,
}

pub(crate) fn integrate(f: impl Fn(f64) -> f64, from: f64, to: f64) -> f64 {
    // Simpson's rule; the S-curve is smooth, 256 intervals are plenty.
    const STEPS: usize = 256;
    if to <= from {
        return 0.0;
    }
    let h = (to - from) / STEPS as f64;
    let mut sum = f(from) + f(to);
    for i in 1..STEPS {
        let x = from + i as f64 * h;
        sum += if i % 2 == 1 { 4.0 } else { 2.0 } * f(x);
    }
    sum * h / 3.0
}

impl LshParams {
    /// Chooses b × r ≤ k minimising `fp_weight`·(area under the S-curve below `threshold`) +
    /// `fn_weight`·(area above the curve past `threshold`). A larger `fn_weight` favours
    /// recall (more candidates, all verified afterwards).
    pub fn optimal(k: usize, threshold: f64, fp_weight: f64, fn_weight: f64) -> LshParams {
        let k = k.max(1);
        let mut best = (f64::INFINITY, LshParams { bands: 1, rows: k });
        for bands in 1..=k {
            for rows in 1..=(k / bands) {
                let fp = integrate(|s| candidate_probability(s, bands, rows), 0.0, threshold);
                let fnr = integrate(
                    |s| 1.0 - candidate_probability(s, bands, rows),
                    threshold,
                    1.0,
                );
                let error = fp_weight * fp + fn_weight * fnr;
                if error < best.0 {
                    best = (error, LshParams { bands, rows });
                }
            }
        }
        best.1
    }

    /// P(candidate | resemblance s) for these parameters.
    pub fn candidate_probability(&self, s: f64) -> f64 {
        candidate_probability(s, self.bands, self.rows)
    }

    /// One 64-bit key per band (the band index is part of the key).
    pub fn band_keys(&self, signature: &MinHashSignature) -> Vec<u64> {
        let mut keys = Vec::with_capacity(self.bands);
        let mut bytes = Vec::with_capacity(self.rows * 4);
        for band in 0..self.bands {
            let start = band * self.rows;
            let Some(values) = signature.0.get(start..start + self.rows) else {
                break;
            };
            bytes.clear();
            for v in values {
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            keys.push(xxh3_64_with_seed(&bytes, band as u64));
        }
        keys
    }
}
