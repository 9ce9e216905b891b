//! Containment postings under a page's own blocks, beside its sampled shingles.
//!
//! A page is posted (and probes) under the most divisible values of its MOD_m sample
//! ([`crate::sample_postings::posted_samples`]): a part of a one-page edition shares about one value
//! in 64 of its shingles with the edition, so a part under about 128 shingles (a Rust by
//! Example chapter of one paragraph and one example, an error-index entry) shares none, and
//! neither finds the other. Its blocks are whole in the edition, though: a short or a long
//! original (see `posts_blocks`) is also posted under the keys of its own-content blocks
//! (non-template, no link lists, at least [`MIN_POSTED_BLOCK_TOKENS`] tokens), and such a
//! page probes its own. The keys are hashes
//! of a block's normalized tokens; the top bit is set so that they never equal a sampled
//! shingle (the index keeps those to 32 bits).

use dedupcrawl_sketch::ModSample;

use crate::record::{OwnBlock, StoredDocument};
use crate::sample_postings::{containment_candidates, posted_samples};
use crate::{ContentUnit, DocumentFingerprint};

/// Blocks of fewer normalized tokens are not posted: a one- or two-word heading ("Examples",
/// "See also") recurs across a host's pages without being template, and would rank every page
/// that has it as a candidate of every other.
pub(crate) const MIN_POSTED_BLOCK_TOKENS: u16 = 3;

/// Own blocks a page is posted under (and probes) at most: the smallest keys, so an edition
/// and its parts keep the same ones. An edition of hundreds of chapters stays under it (not
/// measured per page); a hostile page of 65,536 distinct paragraphs would otherwise rank the
/// postings of every one.
pub(crate) const MAX_POSTED_BLOCKS: usize = 8192;

/// Own blocks that count as one sampled shingle towards the candidates a page checks (see
/// [`ContainmentProbes::candidates`]).
const BLOCKS_PER_CANDIDATE_SAMPLE: usize = 4;

/// Set in a block's posting value: sampled shingles are held to 32 bits.
const BLOCK_POSTING_BIT: u64 = 1 << 63;

/// The posting value of a block key.
fn block_posting_value(key: u64) -> u64 {
    key | BLOCK_POSTING_BIT
}

/// The values an original is posted under: its posted samples, then its own blocks' values
/// (ascending). A cluster member posts none.
pub(crate) fn record_posting_values(record: &StoredDocument) -> Vec<u64> {
    if record.link.is_some() {
        return Vec::new();
    }
    let Some(sample) = &record.mod_sample else {
        return Vec::new();
    };
    let mut values = posted_samples(sample);
    if posts_blocks(sample) {
        values.extend(posted_blocks(&record.own_blocks));
    }
    values
}

/// Shingles under which a page is short: its sample at modulus 64 has fewer than 16 values,
/// too few to find or measure it inside another page, so its blocks must.
const SHORT_PAGE_SHINGLES: u64 = 1024;
/// Shingles from which a page is long enough to hold short pages by the dozen (a one-page
/// edition).
const LONG_PAGE_SHINGLES: u64 = 4096;

/// Whether a page with this MOD_m sample is posted under (and probes) its blocks: a short
/// page, which its sample cannot find, and a long one, which holds short ones. A page in
/// between neither posts nor probes them, either way round (so which of two pages comes
/// first never decides whether they meet): most pages of a documentation site are in
/// between, and each posted block is a row written in PostgreSQL.
fn posts_blocks(sample: &ModSample) -> bool {
    let shingles = sample.values.len() as u64 * sample.modulus;
    !(SHORT_PAGE_SHINGLES..LONG_PAGE_SHINGLES).contains(&shingles)
}

/// What a page probes for containment candidates, and how many of them it checks.
pub(crate) struct ContainmentProbes {
    /// What it would be posted under as an original.
    pub values: Vec<u64>,
    /// Candidates checked at most ([`containment_candidates`]): its sampled shingles count
    /// whole, its own blocks one in [`BLOCKS_PER_CANDIDATE_SAMPLE`]. A short part's edition
    /// has all of its blocks and ranks first, but an edition needs a candidate per part it
    /// holds; counting every block would add, for a page of a few hundred blocks, pages that
    /// share a few of them (rustdoc's method docs on sibling types) and hold neither way, each
    /// a record read and compared (13 unseen Rust-docs books: parts recall 0.694 counting
    /// samples alone, 0.738 at one in 4, the same decisions counting every block).
    pub candidates: usize,
}

/// The containment probes of a page, `sample` being its MOD_m sample as the index keeps it.
pub(crate) fn containment_probes(
    doc: &DocumentFingerprint,
    sample: &ModSample,
) -> ContainmentProbes {
    let mut values = posted_samples(sample);
    let samples = values.len();
    if posts_blocks(sample) {
        values.extend(posted_blocks(&own_blocks_of(&doc.own_content)));
    }
    let blocks = values.len() - samples;
    ContainmentProbes {
        values,
        candidates: containment_candidates(samples + blocks / BLOCKS_PER_CANDIDATE_SAMPLE),
    }
}

/// A page's own blocks as a record keeps them: sorted by key, each key once.
pub(crate) fn own_blocks_of(units: &[ContentUnit]) -> Vec<OwnBlock> {
    let mut blocks: Vec<OwnBlock> = units
        .iter()
        .map(|unit| OwnBlock {
            key: unit.key,
            tokens: unit.tokens,
        })
        .collect();
    blocks.sort_unstable_by_key(|block| block.key);
    blocks.dedup_by_key(|block| block.key);
    blocks
}

fn posted_blocks(blocks: &[OwnBlock]) -> impl Iterator<Item = u64> + '_ {
    blocks
        .iter()
        .filter(|block| block.tokens >= MIN_POSTED_BLOCK_TOKENS)
        .take(MAX_POSTED_BLOCKS)
        .map(|block| block_posting_value(block.key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_values_never_meet_sampled_shingles_and_short_blocks_are_not_posted() {
        let blocks = own_blocks_of(&[
            ContentUnit { key: 5, tokens: 2 },
            ContentUnit { key: 9, tokens: 7 },
            ContentUnit { key: 9, tokens: 7 },
        ]);
        assert_eq!(blocks.len(), 2);
        let values: Vec<u64> = posted_blocks(&blocks).collect();
        assert_eq!(values, vec![9 | BLOCK_POSTING_BIT]);
        assert!(values.iter().all(|&v| v > u64::from(u32::MAX)));
    }
}
