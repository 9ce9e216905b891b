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

use dedupcrawl_sketch::{BlockSketch, CopyFinder};
use rustc_hash::FxHashSet;

use crate::record::StoredDocument;

/// Normalized tokens of content without a counterpart that make a page distinct from another
/// page of its host: about 25 words, a short paragraph.
pub const DISTINCT_CONTENT_TOKENS: u32 = 12;

/// A main-content block with at least this many normalized tokens (about 25 words) is
/// substantial: it gets a sketch, so an edited copy of it on another page of the host is still
/// its counterpart (see [`missing_tokens`]); a shorter one is matched by its key alone.
pub const SUBSTANTIAL_BLOCK_TOKENS: u16 = 12;

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
///
/// Each stored block is the counterpart of one block at most (see
/// [`CopyFinder::claim_copy_of`]): a block the stored page has by key takes its own sketch
/// there first.
pub fn missing_tokens(units: &[ContentUnit], stored: &StoredDocument) -> u32 {
    let (by_key, rest): (Vec<&ContentUnit>, Vec<&ContentUnit>) = units
        .iter()
        .partition(|unit| stored.blocks.binary_search(&unit.key).is_ok());
    let mut claimed = vec![false; stored.block_sketches.len()];
    for sketch in by_key.iter().filter_map(|unit| unit.sketch) {
        if let Some(i) = stored
            .block_sketches
            .iter()
            .position(|other| *other == sketch)
        {
            claimed[i] = true;
        }
    }
    rest.iter()
        .filter(|unit| {
            unit.sketch.is_none_or(|sketch| {
                let counterpart = stored
                    .block_sketches
                    .iter()
                    .enumerate()
                    .position(|(i, other)| !claimed[i] && sketch.is_counterpart(other));
                if let Some(i) = counterpart {
                    claimed[i] = true;
                }
                counterpart.is_none()
            })
        })
        .map(|unit| u32::from(unit.tokens))
        .sum()
}

/// Tokens in substantial own blocks a page needs before its blocks are compared with another
/// page's ([`block_overlap`]): below this, one block more or less swings the shares too far.
pub const MIN_COMPARED_TOKENS: u32 = 3 * DISTINCT_CONTENT_TOKENS;
/// Substantial own blocks each page needs for [`block_overlap`].
pub const MIN_COMPARED_BLOCKS: usize = 3;

/// How two pages' own content overlaps block by block, each direction on its own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlockOverlap {
    /// Share of the page's substantial own-content tokens whose block the stored page has too.
    pub page_in_stored: f64,
    /// Share of the stored page's substantial own blocks that the page has too.
    pub stored_in_page: f64,
}

impl BlockOverlap {
    /// The resemblance the overlap vouches for: the smaller direction.
    pub fn resemblance(&self) -> f64 {
        self.stored_in_page.min(self.page_in_stored)
    }
}

/// The block-level overlap of a page (`units`: its own content) with a stored page; `None`
/// when either page has fewer than [`MIN_COMPARED_BLOCKS`] substantial blocks (those with a
/// sketch) or the page less than [`MIN_COMPARED_TOKENS`] in them.
///
/// Why beside the shingle estimate: a copy on another host (a mirror in its own template, a
/// syndicated article) keeps the paragraphs and loses or gains whole blocks — a byline in
/// another format, an inserted note, its own links. Each such block also kills the shingles
/// that crossed into its neighbours, and the link tokens of two hosts never match, so the
/// estimate of two such copies falls well below their text's resemblance; counting blocks
/// that the other page has too does not depend on block boundaries or links. Only substantial
/// blocks decide whether two pages are compared at all (a heading, a one-line description
/// recurs across pages that are otherwise apart: rustdoc's constant lists); a block is had by
/// the other page when it has the same key or a sketch that [`BlockSketch::is_copy`] matches,
/// stricter than the own-content check's counterpart because here a match claims a copy.
pub fn block_overlap(units: &[ContentUnit], stored: &StoredDocument) -> Option<BlockOverlap> {
    let substantial: Vec<(&ContentUnit, &BlockSketch)> = units
        .iter()
        .filter_map(|unit| unit.sketch.as_ref().map(|sketch| (unit, sketch)))
        .collect();
    let total: u32 = substantial
        .iter()
        .map(|(unit, _)| u32::from(unit.tokens))
        .sum();
    if substantial.len() < MIN_COMPARED_BLOCKS
        || stored.block_sketches.len() < MIN_COMPARED_BLOCKS
        || total < MIN_COMPARED_TOKENS
    {
        return None;
    }
    // Both sides count substantial blocks only: a copy on another host comes with short
    // blocks of its own (a title set otherwise, a "reprinted from" credit, a comments header)
    // that its template puts there, not its text.
    // Each block of one page vouches for one block of the other at most (see
    // `CopyFinder::claim_copy_of`).
    let mut theirs = CopyFinder::new(&stored.block_sketches);
    let (by_key, by_sketch): (Vec<_>, Vec<_>) = substantial
        .iter()
        .partition(|(unit, _)| stored.blocks.binary_search(&unit.key).is_ok());
    for (_, sketch) in &by_key {
        theirs.claim_copy_of(sketch);
    }
    let found: u32 = by_key
        .iter()
        .map(|(unit, _)| u32::from(unit.tokens))
        .chain(
            by_sketch
                .iter()
                .filter(|(_, sketch)| theirs.claim_copy_of(sketch))
                .map(|(unit, _)| u32::from(unit.tokens)),
        )
        .sum();
    let my_sketches: Vec<BlockSketch> = substantial.iter().map(|(_, sketch)| **sketch).collect();
    let mut mine = CopyFinder::new(&my_sketches);
    let stored_found = stored
        .block_sketches
        .iter()
        .filter(|sketch| mine.claim_copy_of(sketch))
        .count();
    Some(BlockOverlap {
        page_in_stored: f64::from(found) / f64::from(total),
        stored_in_page: stored_found as f64 / stored.block_sketches.len() as f64,
    })
}

/// Share of a short part's own-content tokens (`units`) whose block a page of its host has
/// (same key, or for a substantial block a copy by sketch); `None` under
/// [`MIN_COMPARED_TOKENS`]. A missing block costs its tokens and `crossing` more (a shingle
/// size less one): its shingles, and those that cross into its neighbours, are not in the
/// other page either, and the shingles are what the other estimates and the truth count (a
/// function page whose heading, alias note and declaration are not in the type's page that
/// documents the same method is 0.66 inside it by shingles, 0.92 by tokens alone). Two
/// neighbours of the part (`sequence`: its own blocks in page order) that the page has but not
/// side by side cost `crossing` too (see [`pairs_apart`]).
///
/// Why beside [`block_overlap`]: a chapter of one paragraph, a heading and an example (Rust by
/// Example, an error-index entry) has fewer than [`MIN_COMPARED_BLOCKS`] substantial blocks
/// and too few shingles for a sample, yet all of it is in the book's one-page edition. Only
/// for a clearly larger page of the same host, whose template is told apart (the caller's
/// rule), so a page that shares a few blocks with a sibling is not inside it.
pub fn part_tokens_in(
    units: &[ContentUnit],
    sequence: &[u64],
    stored: &StoredDocument,
    crossing: u32,
) -> Option<PartTokens> {
    let total: u32 = units.iter().map(|unit| u32::from(unit.tokens)).sum();
    if total < MIN_COMPARED_TOKENS {
        return None;
    }
    // Each block of the page vouches for one block of the part at most (see
    // `CopyFinder::claim_copy_of`); a block it has by key takes its own sketch there first.
    let mut theirs = CopyFinder::new(&stored.block_sketches);
    let (by_key, rest): (Vec<&ContentUnit>, Vec<&ContentUnit>) = units
        .iter()
        .partition(|unit| stored.blocks.binary_search(&unit.key).is_ok());
    for sketch in by_key.iter().filter_map(|unit| unit.sketch) {
        theirs.claim_copy_of(&sketch);
    }
    let missing = rest
        .iter()
        .filter(|unit| {
            unit.sketch
                .is_none_or(|sketch| !theirs.claim_copy_of(&sketch))
        })
        .map(|unit| u32::from(unit.tokens) + crossing)
        .sum::<u32>();
    let found: FxHashSet<u64> = by_key.iter().map(|unit| unit.key).collect();
    let apart = pairs_apart(sequence, &found, &stored.own_blocks, &stored.own_pairs) * crossing;
    Some(PartTokens {
        total,
        missing,
        apart,
    })
}

/// A part's own tokens against a larger page ([`part_tokens_in`], [`stored_part_tokens_in`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartTokens {
    /// The part's own tokens.
    pub total: u32,
    /// Tokens of its blocks the page lacks, each with the shingles crossing out of it.
    pub missing: u32,
    /// Tokens of the shingles crossing between neighbours the page has apart.
    pub apart: u32,
}

impl PartTokens {
    /// Share of the part inside the page.
    pub fn share(&self) -> f64 {
        f64::from(self.total.saturating_sub(self.missing + self.apart)) / f64::from(self.total)
    }
}

/// How far apart two blocks of a larger page may sit and still count as a part's neighbours:
/// side by side, or with one or two blocks between them (a block that was template for one of
/// the two pages and not yet for the other, or a subhead the larger page puts between two
/// parts' paragraphs).
pub const PAIR_SKIPS: usize = 3;

/// Keys of the pairs of a page's own blocks (`sequence`, in page order) that sit side by side
/// (`skip` 0) or with `skip` blocks between them, sorted and distinct.
pub fn adjacent_pairs(sequence: &[u64], skip: usize) -> Vec<u64> {
    let mut pairs: Vec<u64> = sequence
        .windows(skip + 2)
        .map(|window| pair_key(window[0], window[skip + 1]))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

fn pair_key(first: u64, second: u64) -> u64 {
    (first.rotate_left(23) ^ second).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// Distinct pairs of neighbours in a part (`sequence`, its own blocks in page order), of the
/// blocks that are `found` in a larger page and its own content there (`theirs`: keys of its
/// own blocks, sorted), that do not sit side by side there, or with up to [`PAIR_SKIPS`] − 1
/// blocks between (`their_pairs`: [`StoredDocument::own_pairs`]).
///
/// Why: the shingles that cross from one block into the next are the part's too, and a part
/// whose blocks are all in a page, each somewhere else, is not inside it. A Javadoc package
/// summary's class names and one-line descriptions are all on `class-use/Object.html`, which
/// lists every class of the platform (true containment 0.63, by tokens alone 1.0); a Doxygen
/// per-kind member index (variables starting with f) is the all-members index's entries with
/// others between them (0.37 by shingles).
fn pairs_apart(
    sequence: &[u64],
    found: &FxHashSet<u64>,
    theirs: &[crate::record::OwnBlock],
    their_pairs: &[Vec<u64>; PAIR_SKIPS],
) -> u32 {
    let compared: Vec<u64> = sequence
        .iter()
        .copied()
        .filter(|key| {
            found.contains(key) && theirs.binary_search_by_key(key, |block| block.key).is_ok()
        })
        .collect();
    let mut apart: Vec<u64> = compared
        .windows(2)
        .map(|pair| pair_key(pair[0], pair[1]))
        .filter(|key| {
            their_pairs
                .iter()
                .all(|pairs| pairs.binary_search(key).is_err())
        })
        .collect();
    apart.sort_unstable();
    apart.dedup();
    apart.len() as u32
}

/// Share of a stored short part's own-content tokens (`own_blocks`) whose key is among a
/// page's block keys (`within`): [`part_tokens_in`] the other way round, for a part indexed
/// before the page that holds it. A missing block costs `crossing` more here too, and so does
/// each pair of the part's neighbours (`own_pairs`) that the page does not have side by side or
/// with up to [`PAIR_SKIPS`] − 1 blocks between (`within_pairs`), beyond the two pairs of each block that is missing
/// or not the page's own content (`within_own`); `None` under [`MIN_COMPARED_TOKENS`].
pub fn stored_part_tokens_in(
    own_blocks: &[crate::record::OwnBlock],
    own_pairs: &[u64],
    within: &FxHashSet<u64>,
    within_own: &FxHashSet<u64>,
    within_pairs: &FxHashSet<u64>,
    crossing: u32,
) -> Option<PartTokens> {
    let total: u32 = own_blocks.iter().map(|block| u32::from(block.tokens)).sum();
    if total < MIN_COMPARED_TOKENS {
        return None;
    }
    let (mut missing, mut unpaired) = (0u32, 0u32);
    for block in own_blocks {
        if !within.contains(&block.key) {
            missing += u32::from(block.tokens) + crossing;
            unpaired += 1;
        } else if !within_own.contains(&block.key) {
            unpaired += 1;
        }
    }
    let broken = own_pairs
        .iter()
        .filter(|pair| !within_pairs.contains(pair))
        .count() as u32;
    let apart = broken.saturating_sub(2 * unpaired) * crossing;
    Some(PartTokens {
        total,
        missing,
        apart,
    })
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
            own_blocks: Vec::new(),
            block_sketches,
            own_pairs: Default::default(),
            name_tokens: Vec::new(),
        }
    }

    /// A larger page whose own blocks are `sequence`, in that order.
    fn larger_page(sequence: &[u64]) -> StoredDocument {
        let mut page = stored(sequence.to_vec(), Vec::new());
        page.blocks.sort_unstable();
        page.blocks.dedup();
        page.own_blocks = page
            .blocks
            .iter()
            .map(|&key| crate::record::OwnBlock { key, tokens: 4 })
            .collect();
        page.own_pairs = std::array::from_fn(|skip| adjacent_pairs(sequence, skip));
        page
    }

    /// A part's blocks all found in a larger page count as inside it where they sit side by
    /// side there (a chapter in its book's one-page edition), not where each is somewhere
    /// else (a package summary's class descriptions on the page that lists every class).
    #[test]
    fn a_part_is_inside_where_its_blocks_sit_side_by_side() {
        let part: Vec<u64> = (1..=12).collect();
        let units: Vec<ContentUnit> = part
            .iter()
            .map(|&key| ContentUnit {
                key,
                tokens: 4,
                sketch: None,
            })
            .collect();
        // The chapter among others, and with a heading of the edition's own inside it.
        let mut edition: Vec<u64> = (100..110).collect();
        edition.extend(1..=6);
        edition.push(500);
        edition.extend(7..=12);
        edition.extend(200..210);
        let inside = part_tokens_in(&units, &part, &larger_page(&edition), 4)
            .expect("compared")
            .share();
        assert_eq!(inside, 1.0);
        // Each block of the part three blocks from the next: 11 pairs apart, 4 tokens each.
        let scattered: Vec<u64> = part
            .iter()
            .flat_map(|&key| [key, 1_000 + key, 2_000 + key, 3_000 + key])
            .collect();
        let inside = part_tokens_in(&units, &part, &larger_page(&scattered), 4)
            .expect("compared")
            .share();
        assert_eq!(inside, (48.0 - 44.0) / 48.0);
        // The other way round: the part stored, the larger page checked after it.
        let stored_part = larger_page(&part);
        let keys = |sequence: &[u64]| sequence.iter().copied().collect::<FxHashSet<u64>>();
        let pairs = |sequence: &[u64]| -> FxHashSet<u64> {
            (0..PAIR_SKIPS)
                .flat_map(|skip| adjacent_pairs(sequence, skip))
                .collect()
        };
        let around = |sequence: &[u64]| {
            stored_part_tokens_in(
                &stored_part.own_blocks,
                &stored_part.own_pairs[0],
                &keys(sequence),
                &keys(sequence),
                &pairs(sequence),
                4,
            )
            .expect("compared")
            .share()
        };
        assert_eq!(around(&edition), 1.0);
        assert_eq!(around(&scattered), (48.0 - 44.0) / 48.0);
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

    fn paragraph(seed: u64) -> Vec<u64> {
        (0..30).map(|i| seed * 1_000 + i).collect()
    }

    fn units_of(paragraphs: &[Vec<u64>]) -> (Vec<ContentUnit>, Vec<BlockSketch>) {
        let sketches: Vec<BlockSketch> = paragraphs.iter().map(|p| BlockSketch::of(p)).collect();
        let units = paragraphs
            .iter()
            .zip(&sketches)
            .map(|(p, sketch)| ContentUnit {
                key: p[0],
                tokens: p.len() as u16,
                sketch: Some(*sketch),
            })
            .collect();
        (units, sketches)
    }

    #[test]
    fn block_overlap_counts_each_direction() {
        let original: Vec<Vec<u64>> = (1..=5).map(paragraph).collect();
        let (_, original_sketches) = units_of(&original);
        let stored_original = stored(original.iter().map(|p| p[0]).collect(), original_sketches);
        // A copy with one paragraph added: all of the original is in it, 5 of its 6 blocks
        // are in the original.
        let mut copy = original.clone();
        copy.insert(2, paragraph(99));
        let (units, _) = units_of(&copy);
        let overlap = block_overlap(&units, &stored_original).expect("compared");
        assert!((overlap.page_in_stored - 5.0 / 6.0).abs() < 1e-9);
        assert_eq!(overlap.stored_in_page, 1.0);
        assert!((overlap.resemblance() - 5.0 / 6.0).abs() < 1e-9);
        // An unrelated page: nothing in common.
        let (units, _) = units_of(&(10..=14).map(paragraph).collect::<Vec<_>>());
        let overlap = block_overlap(&units, &stored_original).expect("compared");
        assert_eq!(overlap.page_in_stored, 0.0);
        assert_eq!(overlap.stored_in_page, 0.0);
        // Too few substantial blocks to compare.
        let (units, _) = units_of(&[paragraph(1), paragraph(2)]);
        assert_eq!(block_overlap(&units, &stored_original), None);
    }

    /// A Doxygen member list against its class's page: each of the list's entries is a
    /// member's name and "defined in" the class's long name, so each is a copy (by sketch) of
    /// the page's one title block. One block of the page vouches for one entry, not all.
    #[test]
    fn one_block_vouches_for_one_of_its_copies() {
        let class_name: Vec<u64> = (0..16).collect();
        let entry = |member: u64| -> Vec<u64> {
            let mut tokens = vec![member, 900];
            tokens.extend(&class_name);
            tokens
        };
        let (units, _) = units_of(&(1..=6).map(|m| entry(10_000 + m)).collect::<Vec<_>>());
        let title = BlockSketch::of(&class_name);
        assert!(
            units
                .iter()
                .all(|u| u.sketch.is_some_and(|s| s.is_copy(&title)))
        );
        let class_page = stored(
            vec![1, 2, 3],
            vec![
                title,
                BlockSketch::of(&paragraph(7)),
                BlockSketch::of(&paragraph(8)),
            ],
        );
        let sequence: Vec<u64> = units.iter().map(|unit| unit.key).collect();
        let inside = part_tokens_in(&units, &sequence, &class_page, 4)
            .expect("compared")
            .share();
        // One entry of six (18 tokens each, 22 with the crossing) is found.
        assert!(
            (inside - (108.0 - 5.0 * 22.0_f64).max(0.0) / 108.0).abs() < 1e-9,
            "{inside}"
        );
        let overlap = block_overlap(&units, &class_page).expect("compared");
        assert!((overlap.page_in_stored - 1.0 / 6.0).abs() < 1e-9);
        assert!((overlap.stored_in_page - 1.0 / 3.0).abs() < 1e-9);
        // The own-content check, the same way: one entry has its counterpart, five lack one.
        assert_eq!(missing_tokens(&units, &class_page), 5 * 18);
    }
}
