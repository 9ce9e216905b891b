//! Which sampled shingles of a page are posted for containment, and how many documents
//! sharing them are checked: the containment postings of both backends.

use dedupcrawl_sketch::ModSample;

/// Documents checked for containment per document at most: those posted under the most of its
/// posted samples.
pub(crate) const CONTAINMENT_CANDIDATES: usize = 16;
/// Documents checked for containment per document at most: a one-page edition of a book of
/// hundreds of chapters (Rust by Example's and its translations', the error index's 500
/// entries) holds them all.
const MAX_CONTAINMENT_CANDIDATES: usize = 1024;
/// Sampled shingles posted (and probed) per document for containment.
pub(crate) const POSTED_SAMPLES: usize = 16;
/// A sampled shingle divisible by 2^this is posted (and probed) by every document, beyond its
/// [`POSTED_SAMPLES`] most divisible ones (see [`posted_samples`]).
const ALWAYS_POSTED_BITS: u32 = 6;
/// Sampled shingles a document posts (and probes) at most.
const MAX_POSTED_SAMPLES: usize = 8192;

/// The sampled shingles of a MOD_m sample that are posted and probed: the [`POSTED_SAMPLES`]
/// most divisible ones, and every one divisible by 2^[`ALWAYS_POSTED_BITS`] (at most
/// [`MAX_POSTED_SAMPLES`]), most divisible first.
///
/// Why the second set: a part probes its own most divisible shingles, which a long page holds
/// but, posting only its 16 most divisible, did not post (a chapter of 2,000 shingles probes
/// values divisible by about 2^7, a book of 300,000 posted values divisible by 2^14): the Rust
/// book's `print.html` was found by none of its chapters. 2^6 is the largest MOD_m modulus
/// ([`dedupcrawl_sketch::MOD_SAMPLE_MAX_MODULUS`]), so a long page posts its whole sample
/// (n / 64 values) and a part of n shingles has about n / 64 of them among its probes: parts
/// of 128 shingles and more find the long page, and it finds them. At 2^8 (n / 256) parts
/// recall was 0.71 on the Rust docs' four tuned books and crates and 0.29 on the other 13;
/// at 2^6 0.85 and 0.49, with the same precision and an index of the same size (2026-11-27,
/// `bench-accuracy`). A page under 1,024 shingles posts what it did.
pub(crate) fn posted_samples(sample: &ModSample) -> Vec<u64> {
    let mut values = sample.values.clone();
    values.sort_by_key(|v| (std::cmp::Reverse(v.trailing_zeros()), *v));
    let always = values
        .iter()
        .take_while(|v| v.trailing_zeros() >= ALWAYS_POSTED_BITS)
        .count();
    values.truncate(always.clamp(POSTED_SAMPLES, MAX_POSTED_SAMPLES));
    values
}

/// Documents checked for containment for a document that probes `posted` samples: one per
/// two of them (a part of the page has one or more), at least [`CONTAINMENT_CANDIDATES`], at
/// most [`MAX_CONTAINMENT_CANDIDATES`].
pub(crate) fn containment_candidates(posted: usize) -> usize {
    (posted / 2).clamp(CONTAINMENT_CANDIDATES, MAX_CONTAINMENT_CANDIDATES)
}
