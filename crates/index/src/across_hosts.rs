//! Comparisons of a page with an original of another host: by their substantial blocks
//! ([`Mechanism::BlocksAcrossHosts`](crate::Mechanism::BlocksAcrossHosts)) and as a reprint
//! ([`REPRINT_DRIFT`]); and, on one host, whether a record has blocks of its own a page lacks
//! (the own-content veto of `contains`). Used by the decision's containment search.

use rustc_hash::FxHashSet;

use crate::DocumentFingerprint;
use crate::own_content::OWN_CONTENT_TOKENS;
use crate::record::StoredDocument;

/// Own-content blocks with at least this many tokens are substantial: what two copies of an
/// article on two hosts share whole, where their templates put other short lines (a byline,
/// a credit, a comment count, a "read the original" line) around them.
pub const SUBSTANTIAL_BLOCK_TOKENS: u16 = 12;

/// How much of two pages' substantial own blocks (by key, weighed by tokens) each has of the
/// other's.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BlockShares {
    pub page_in_original: f64,
    pub original_in_page: f64,
}

/// [`BlockShares`] of a page (its own content, and the keys of all its main-content blocks)
/// and a record; `None` when either has no substantial block.
pub(crate) fn block_shares(
    doc: &DocumentFingerprint,
    page_blocks: &FxHashSet<u64>,
    stored: &StoredDocument,
) -> Option<BlockShares> {
    let share = |blocks: &mut dyn Iterator<Item = (u64, u16)>, has: &dyn Fn(u64) -> bool| {
        let (mut had, mut all) = (0u64, 0u64);
        for (key, tokens) in blocks.filter(|&(_, tokens)| tokens >= SUBSTANTIAL_BLOCK_TOKENS) {
            all += u64::from(tokens);
            had += if has(key) { u64::from(tokens) } else { 0 };
        }
        (all > 0).then(|| had as f64 / all as f64)
    };
    let page_in_original = share(
        &mut doc.own_content.iter().map(|unit| (unit.key, unit.tokens)),
        &|key| stored.blocks.binary_search(&key).is_ok(),
    )?;
    let original_in_page = share(
        &mut stored
            .own_blocks
            .iter()
            .map(|block| (block.key, block.tokens)),
        &|key| page_blocks.contains(&key),
    )?;
    Some(BlockShares {
        page_in_original,
        original_in_page,
    })
}

/// How far under the near-duplicate threshold a page of another host may resemble an
/// original it holds (at the containment threshold or more) and still be its copy: a
/// reprint with a credit line and an editor's note of its own, a mirror in another template
/// with its byline, comment count and "read the original" line, resembles its original at
/// 0.7–0.8 while holding all of it. A page that adds more than that is a page of its own that
/// quotes the other (archived, listing it in `contains`).
pub const REPRINT_DRIFT: f64 = 0.1;

/// Whether a record of the page's host has own-content blocks the page lacks (by key) of
/// [`OWN_CONTENT_TOKENS`] tokens or more: then the page does not hold it, however many of its
/// shingles it has (a sibling whose heading, summary and description are its own). The
/// own-content veto the other way round, on what a record keeps: its own blocks and their
/// token counts.
pub(crate) fn has_blocks_of_its_own(stored: &StoredDocument, page_blocks: &FxHashSet<u64>) -> bool {
    let missing: u32 = stored
        .own_blocks
        .iter()
        .filter(|block| !page_blocks.contains(&block.key))
        .map(|block| u32::from(block.tokens))
        .sum();
    missing >= OWN_CONTENT_TOKENS
}
