//! A page's own content: the main-content text it has that another page lacks.
//!
//! Two pages of one host that share a heavy template (a shop's policy and review prose under
//! every product, rustdoc's trait documentation under every iterator type) resemble each other
//! at 0.8–0.95 although each has content of its own: a product description, a type's name,
//! summary and impl headers. Until the host's template is learnt (counted on enough pages) the
//! resemblance alone cannot tell them from copies, so a same-host candidate is also checked
//! block by block: the page's non-template content blocks that have no counterpart in the
//! candidate are counted, in normalized tokens, and [`DISTINCT_CONTENT_TOKENS`] or more make
//! the page distinct, however alike the rest. A copy with per-request noise (a timestamp, a
//! view counter: numbers are not tokens, so such lines match; a box of links: link blocks are
//! left out, the link tokens weigh them) or a calendar day (a date in the heading) stays a copy.

use dedupcrawl_sketch::BlockSketch;

use crate::record::StoredDocument;

/// Normalized tokens of content without a counterpart that make a page distinct from another
/// page of its host: about 25 words, a short paragraph.
pub const DISTINCT_CONTENT_TOKENS: u32 = 12;

/// One content block of a page as the own-content check sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentUnit {
    /// The block's key: a hash of its normalized tokens (the key block counts use, and what a
    /// stored page lists in [`StoredDocument::blocks`]).
    pub key: u64,
    /// Normalized tokens in the block.
    pub tokens: u16,
    /// For a substantial block, its sketch: an edited paragraph (another key) still finds its
    /// counterpart among the stored page's [`StoredDocument::block_sketches`].
    pub sketch: Option<BlockSketch>,
}

/// Normalized tokens of `units` (a page's non-template content blocks) with no counterpart in
/// `stored`: neither the same block (key) nor, for a substantial block, a sketched one.
pub fn missing_tokens(units: &[ContentUnit], stored: &StoredDocument) -> u32 {
    units
        .iter()
        .filter(|unit| stored.blocks.binary_search(&unit.key).is_err())
        .filter(|unit| {
            unit.sketch.is_none_or(|sketch| {
                !stored
                    .block_sketches
                    .iter()
                    .any(|other| sketch.is_counterpart(other))
            })
        })
        .map(|unit| u32::from(unit.tokens))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use dedupcrawl_sketch::PayloadDigest;

    fn stored(blocks: Vec<u64>, block_sketches: Vec<BlockSketch>) -> StoredDocument {
        StoredDocument {
            id: 1,
            name: "a".into(),
            host: "h".into(),
            payload: PayloadDigest::of(b"a"),
            tokens: None,
            signature: None,
            mod_sample: None,
            small_shingles: None,
            link: None,
            blocks,
            block_sketches,
        }
    }

    #[test]
    fn short_blocks_add_up_and_sketched_blocks_find_edited_counterparts() {
        let paragraph: Vec<u64> = (0..40).collect();
        let mut edited = paragraph.clone();
        edited[7] = 999;
        let other = stored(vec![10, 20, 30], vec![BlockSketch::of(&paragraph)]);
        let unit = |key, tokens| ContentUnit {
            key,
            tokens,
            sketch: None,
        };
        // Known blocks are not missing; unknown short ones add up.
        assert_eq!(missing_tokens(&[unit(10, 5), unit(20, 7)], &other), 0);
        assert_eq!(missing_tokens(&[unit(11, 5), unit(21, 7)], &other), 12);
        // An edited paragraph (new key) has its counterpart by sketch; an unrelated one not.
        let edited_unit = ContentUnit {
            key: 77,
            tokens: 40,
            sketch: Some(BlockSketch::of(&edited)),
        };
        let unrelated = ContentUnit {
            key: 78,
            tokens: 40,
            sketch: Some(BlockSketch::of(&(500..540).collect::<Vec<u64>>())),
        };
        assert_eq!(missing_tokens(&[edited_unit], &other), 0);
        assert_eq!(missing_tokens(&[unrelated], &other), 40);
    }
}
