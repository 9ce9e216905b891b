//! How much two crawls overlap, estimated by sampling (Bharat & Broder, "A technique for
//! measuring the relative size and overlap of public Web search engines", 1998).
//!
//! A uniform sample of each index's originals (its distinct pages) is checked in the other
//! index with the same decision a crawl makes (exact, near duplicate or contained: *content*,
//! not URLs), read-only. With `p_ab` the share of A's sample found in B and `p_ba` the
//! reverse, `|A ∩ B| ≈ p_ab·|A| ≈ p_ba·|B|`, so `|A| / |B| ≈ p_ba / p_ab`.
//!
//! ```no_run
//! # fn demo(a: &dyn dedupcrawl_index::DedupIndex, b: &dyn dedupcrawl_index::DedupIndex)
//! # -> Result<(), dedupcrawl_index::IndexError> {
//! use dedupcrawl_index::{OverlapOptions, estimate_overlap};
//! let estimate = estimate_overlap(a, b, &OverlapOptions { sample: 500, seed: 7 })?;
//! println!("{:.0} % of A is in B", 100.0 * estimate.a_in_b);
//! # Ok(()) }
//! ```

use crate::record::StoredDocument;
use crate::{DedupIndex, DocumentFingerprint, DocumentId, IndexError};

/// How many pages of each crawl to sample, and the random seed (the same seed gives the
/// same sample of the same indexes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverlapOptions {
    pub sample: usize,
    pub seed: u64,
}

/// The estimate. Intervals are 95 % normal-approximation intervals with the finite
/// population correction (a sample of every page has width zero).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct OverlapEstimate {
    /// Share of A's distinct pages found in B.
    pub a_in_b: f64,
    pub a_in_b_ci95: [f64; 2],
    /// Share of B's distinct pages found in A.
    pub b_in_a: f64,
    pub b_in_a_ci95: [f64; 2],
    /// `|A| / |B|` estimated from the two shares alone (`None` when a share is 0: no
    /// overlap, nothing to relate the sizes by).
    pub size_ratio: Option<f64>,
    pub size_ratio_ci95: Option<[f64; 2]>,
    pub sampled_a: usize,
    pub sampled_b: usize,
    /// Distinct pages (originals) each index holds.
    pub documents_a: u64,
    pub documents_b: u64,
    /// `|A ∪ B|` estimated as `|A| + |B| − |A ∩ B|`, the intersection being the mean of
    /// `a_in_b·|A|` and `b_in_a·|B|`.
    pub union: f64,
}

/// Estimates the overlap of the crawls indexed in `a` and `b`.
pub fn estimate_overlap(
    a: &dyn DedupIndex,
    b: &dyn DedupIndex,
    options: &OverlapOptions,
) -> Result<OverlapEstimate, IndexError> {
    let mut random = SplitMix64(options.seed);
    let side_a = sample_side(a, b, options.sample, &mut random)?;
    let side_b = sample_side(b, a, options.sample, &mut random)?;
    let (p_ab, var_ab) = side_a.share_and_variance();
    let (p_ba, var_ba) = side_b.share_and_variance();
    let (size_ratio, size_ratio_ci95) = if p_ab > 0.0 && p_ba > 0.0 {
        let ratio = p_ba / p_ab;
        // Delta method on log(p_ba) − log(p_ab), the two samples independent.
        let spread = 1.96 * (var_ab / (p_ab * p_ab) + var_ba / (p_ba * p_ba)).sqrt();
        (
            Some(ratio),
            Some([ratio * (-spread).exp(), ratio * spread.exp()]),
        )
    } else {
        (None, None)
    };
    let (documents_a, documents_b) = (side_a.population, side_b.population);
    let intersection = (p_ab * documents_a as f64 + p_ba * documents_b as f64) / 2.0;
    Ok(OverlapEstimate {
        a_in_b: p_ab,
        a_in_b_ci95: interval(p_ab, var_ab),
        b_in_a: p_ba,
        b_in_a_ci95: interval(p_ba, var_ba),
        size_ratio,
        size_ratio_ci95,
        sampled_a: side_a.sampled,
        sampled_b: side_b.sampled,
        documents_a,
        documents_b,
        union: documents_a as f64 + documents_b as f64 - intersection,
    })
}

fn interval(share: f64, variance: f64) -> [f64; 2] {
    let spread = 1.96 * variance.sqrt();
    [(share - spread).max(0.0), (share + spread).min(1.0)]
}

/// One direction: a sample of `from`'s originals checked in `into`.
struct SampledSide {
    population: u64,
    sampled: usize,
    found: usize,
}

impl SampledSide {
    fn share_and_variance(&self) -> (f64, f64) {
        if self.sampled == 0 {
            return (0.0, 0.0);
        }
        let (n, population) = (self.sampled as f64, self.population as f64);
        let share = self.found as f64 / n;
        let correction = if population > 1.0 {
            ((population - n) / (population - 1.0)).max(0.0)
        } else {
            0.0
        };
        (share, share * (1.0 - share) / n * correction)
    }
}

fn sample_side(
    from: &dyn DedupIndex,
    into: &dyn DedupIndex,
    sample: usize,
    random: &mut SplitMix64,
) -> Result<SampledSide, IndexError> {
    let stats = from.stats()?;
    // Ids in a random order (Fisher–Yates), read until enough originals: a uniform sample
    // without replacement of the originals, whatever the removed ids and cluster members
    // between them.
    let mut ids: Vec<DocumentId> = (0..stats.id_bound).collect();
    let (mut sampled, mut found) = (0, 0);
    for position in 0..ids.len() {
        if sampled == sample {
            break;
        }
        let pick = position + random.below(ids.len() - position);
        ids.swap(position, pick);
        let Some(document) = from.document(ids[position])? else {
            continue;
        };
        if document.link.is_some() {
            continue;
        }
        sampled += 1;
        found += usize::from(!into.lookup(&as_fingerprint(document))?.is_new());
    }
    Ok(SampledSide {
        population: stats.documents,
        sampled,
        found,
    })
}

/// A stored document as the fingerprint it was recorded from.
fn as_fingerprint(document: StoredDocument) -> DocumentFingerprint {
    let shingles = document.shingle_set();
    DocumentFingerprint {
        name: document.name,
        host: document.host,
        payload: document.payload,
        tokens: document.tokens,
        signature: document.signature,
        mod_sample: document.mod_sample,
        own_shingles: vec![document.sequence.clone()],
        shingles,
        compared_text: Vec::new(),
        link_targets: document.link_targets,
        block_fingerprints: document.blocks,
        own_content: document
            .own_blocks
            .iter()
            .map(|block| crate::ContentUnit {
                key: block.key,
                tokens: block.tokens,
            })
            .collect(),
        template_known: true,
        prose_tokens: document.prose_tokens,
        sequence: document.sequence,
        block_spans: document.block_spans,
        threshold: None,
    }
}

/// A small seeded generator (SplitMix64): the sample must be reproducible from `--seed`
/// across runs and versions, which a general-purpose crate's default generator does not
/// promise, and this needs nothing more.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (`bound` > 0), by rejection so no value is favoured.
    fn below(&mut self, bound: usize) -> usize {
        let bound = bound as u64;
        let zone = u64::MAX - u64::MAX % bound;
        loop {
            let value = self.next();
            if value < zone {
                return (value % bound) as usize;
            }
        }
    }
}
