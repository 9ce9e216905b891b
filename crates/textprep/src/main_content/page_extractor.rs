//! The page on its own: rs-trafilatura's main text, mapped back onto our blocks.

use std::ops::Range;

use super::content_mask::{ContentMask, ContentSource};
use super::kept_text::{KeptText, word_hashes};
use crate::extract::{BlockKind, ExtractedPage, TextBlock};

/// A page's main content from the page alone (no host evidence): the extractor's verdict,
/// else (it kept nothing, or code alone beside far more prose: [`keeps_code_alone`]) the
/// blocks `fallback` keeps.
pub fn decide_alone(
    html: &str,
    url: Option<&str>,
    page: &ExtractedPage,
    fallback: &dyn Fn(&TextBlock) -> bool,
) -> ContentMask {
    match PageExtractor.mask(html, url, page) {
        Some(mask) if !keeps_code_alone(page, &mask, fallback) => ContentMask {
            mask,
            source: ContentSource::PageExtractor,
        },
        _ => ContentMask {
            mask: page.blocks.iter().map(fallback).collect(),
            source: ContentSource::PageRules,
        },
    }
}

/// Share of the extractor's kept text in code blocks at which its verdict is "code alone".
const CODE_ALONE_SHARE: f64 = 0.9;
/// Times more prose than the extractor's kept code that the per-page rules must find for
/// [`keeps_code_alone`].
const PROSE_BESIDE_CODE: u64 = 4;

/// Whether the extractor kept a code listing alone (at least [`CODE_ALONE_SHARE`] of its
/// text) on a page where `fallback` (the per-page rules) finds [`PROSE_BESIDE_CODE`] times as
/// much prose that it dropped: the extractor took the wrong element, not a page whose content
/// is code (a source listing, a gist: little prose beside it).
///
/// Why: rs-trafilatura returned the one `main.cf` listing (1,426 characters) of the Debian
/// Administrator's Handbook's 100 KB "Network services" chapter, in every language, so the
/// English, French, German, Portuguese and Japanese chapters were "exact duplicates" of each
/// other and four of them were lost. On WCXB dev and ScrapingHub no page is like that: of the
/// 8 where the extractor's text is half code or more, the rules find at most as much text as
/// it kept (2026-11-28), so their scores do not move.
fn keeps_code_alone(
    page: &ExtractedPage,
    mask: &[bool],
    fallback: &dyn Fn(&TextBlock) -> bool,
) -> bool {
    let (mut kept, mut kept_code, mut prose_dropped) = (0u64, 0u64, 0u64);
    for (block, &keep) in page.blocks.iter().zip(mask) {
        let chars = u64::from(block.chars);
        let code = block.kind == BlockKind::Preformatted;
        if keep {
            kept += chars;
            kept_code += if code { chars } else { 0 };
        } else if !code && fallback(block) {
            prose_dropped += chars;
        }
    }
    kept > 0
        && kept_code as f64 >= CODE_ALONE_SHARE * kept as f64
        && prose_dropped >= PROSE_BESIDE_CODE * kept
}

/// Misnested formatting elements a page may have and still go to the extractor
/// ([`ExtractedPage::misnested_formatting`]); no page of WCXB dev, ScrapingHub or the Rust docs
/// sample comes near it (`crates/bench/tests/extraction_floor.rs`).
pub const MAX_MISNESTED_FORMATTING: u64 = 1_000;

/// The page-level extractor: rs-trafilatura's verdict mapped onto our blocks.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageExtractor;

/// Largest page [`MainContent::decide_with_fallback`] (the crawl's path) gives to the
/// page-level extractor, bytes (15 of the Rust docs' pages are larger: source listings and
/// the reference on one page; the host's model or the per-page rules decide them).
pub(super) const EXTRACTOR_MAX_BYTES: usize = 2 * 1024 * 1024;

impl PageExtractor {
    /// The extractor's main text of the page (empty when it finds none).
    pub fn text(&self, html: &str, url: Option<&str>) -> String {
        let options = rs_trafilatura::Options {
            url: url.map(str::to_string),
            ..rs_trafilatura::Options::default()
        };
        // The extractor may fail on input it cannot make sense of; that is "no main content
        // found", not an error of the page.
        let html = crate::attribute_flood::cut_attribute_floods(html);
        rs_trafilatura::extract_with_options(&html, &options)
            .map(|result| result.content_text)
            .unwrap_or_default()
    }

    /// Which of `page`'s blocks carry the extractor's main text. `None` when it kept nothing.
    /// A link flood (a page with links past the extraction cap,
    /// [`ExtractedPage::links_left_out`]) is not given to the extractor: its DOM of every
    /// link would cost far more than the page (about 800 MB for 500,000 links, measured by
    /// `crates/cli/tests/link_flood_rss.rs`); the caller's fallback decides such a page. Nor
    /// is a page nested deeper than 512 elements ([`ExtractedPage::elements_too_deep`]): the extractor walks its DOM recursively, and
    /// 50,000 nested tables overflowed the stack (the process aborts), 100,000 nested lists or
    /// 200,000 nested `<div>`s took minutes (`tests/deep_pages.rs`). Nor is a page of more
    /// than [`MAX_MISNESTED_FORMATTING`] misnested formatting elements
    /// ([`ExtractedPage::misnested_formatting`]: 100,000 `<b><i>x</b>y</i>` took 30 s and
    /// 600 MB).
    pub fn mask(&self, html: &str, url: Option<&str>, page: &ExtractedPage) -> Option<Vec<bool>> {
        if page.links_left_out > 0
            || page.elements_too_deep > 0
            || page.misnested_formatting > MAX_MISNESTED_FORMATTING
        {
            return None;
        }
        let text = self.text(html, url);
        let mut kept = KeptText::new(&text);
        if kept.is_empty() {
            return None;
        }
        let mut mask = claimed_blocks(&page.blocks, &mut kept);
        if !mask.iter().any(|&m| m) {
            return None;
        }
        complete_in_region(page, &mut mask);
        Some(mask)
    }
}

/// Which of `blocks` claim a part of the extractor's text ([`KeptText::claim`]).
///
/// Each occurrence of the extractor's text goes to one block, so who claims first matters:
/// whole matches before partial ones, content before page chrome. Claimed in page order, a
/// block *like* the kept one took its text first ("Immutably borrows from an owned value", six
/// of its seven word pairs in the kept "Mutably borrows …"; the sidebar's "Trait
/// Implementations" link before the section heading), and the verdict changed from one page of
/// a template to the next with the order of its blocks (rustdoc). A table's cells are one block
/// each here and one row per line in the extractor's text: a cell of one word ("30%",
/// "$175,000") never stands as a line of its own there, so a run of cells is claimed as a whole
/// first, cell by cell after every other block.
fn claimed_blocks(blocks: &[TextBlock], kept: &mut KeptText) -> Vec<bool> {
    let is_cell = |b: &TextBlock| b.kind == BlockKind::TableCell;
    let mut units: Vec<Range<usize>> = Vec::new();
    let mut cells: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    while start < blocks.len() {
        let run = blocks[start..].iter().take_while(|b| is_cell(b)).count();
        let end = start + run.max(1);
        if run >= 2 {
            cells.extend((start..end).map(|i| i..i + 1));
        }
        units.push(start..end);
        start = end;
    }
    // Each unit's words, hashed once: a unit is tried at up to four stages.
    let block_words: Vec<Vec<u64>> = blocks.iter().map(|b| word_hashes(&b.text)).collect();
    let words_of = |unit: &Range<usize>| -> Vec<u64> { block_words[unit.clone()].concat() };
    let unit_words: Vec<Vec<u64>> = units.iter().map(words_of).collect();
    let cell_words: Vec<Vec<u64>> = cells.iter().map(words_of).collect();
    let mut mask = vec![false; blocks.len()];
    // (share of word pairs, page chrome): whole matches first, content before chrome.
    let stages = [
        (1.0, false),
        (1.0, true),
        (CLAIM_SHARE, false),
        (CLAIM_SHARE, true),
    ];
    // A block that ends in a link, as its text before that link: tried after every whole
    // block (see [`link_free_head`]). Outside page chrome, and of 3 words or more: a head of
    // one or two ("Posted by" of "Posted by admin") is found in almost any text.
    let head_words: Vec<Vec<u64>> = units
        .iter()
        .map(|unit| {
            let block = &blocks[unit.start];
            (unit.len() == 1 && !block.in_chrome)
                .then(|| link_free_head(block))
                .flatten()
                .map(word_hashes)
                .filter(|head| head.len() >= HEAD_MIN_WORDS)
                .unwrap_or_default()
        })
        .collect();
    for (units, words) in [
        (&units, &unit_words),
        (&cells, &cell_words),
        (&units, &head_words),
    ] {
        for (share, in_chrome) in stages {
            for (unit, words) in units.iter().zip(words) {
                let first = &blocks[unit.start];
                if mask[unit.start] || first.in_chrome != in_chrome {
                    continue;
                }
                // A word or two of page chrome (a menu item: "Rust" of a theme menu, "Any" of a
                // sidebar) is found as a line of almost any text; chrome's headings and
                // sentences are matched as any block.
                let menu_item = unit.len() == 1
                    && first.in_chrome
                    && first.kind != BlockKind::Heading
                    && first.word_count() <= 2;
                // A unit with no words to try (no head) claims nothing.
                if !menu_item && kept.claim(words, share) {
                    mask[unit.clone()].iter_mut().for_each(|keep| *keep = true);
                }
            }
        }
    }
    mask
}

/// The text of a block that ends in a link before that link, when there is text before it:
/// extractors drop a trailing link from text they keep (rs-trafilatura keeps rustdoc's version
/// label "1.0.0 · Source" as "1.0.0 ·"), and a short block then lacks the share of its word
/// pairs that [`KeptText::claim`] asks, while a longer one ("1.14.0 (const: unstable) ·
/// Source") has it: one page of a template kept its labels and the next dropped them.
fn link_free_head(block: &TextBlock) -> Option<&str> {
    let tail = block.link_tail_bytes as usize;
    if tail == 0 || tail >= block.text.len() {
        return None;
    }
    block.text.get(..block.text.len() - tail)
}

/// Words (as [`word_hashes`] cuts them: "1.0.0 ·" is three) the text of a block before its
/// trailing link needs to be claimed on its own.
const HEAD_MIN_WORDS: usize = 3;

/// Share of the extractor's kept text that the element holding a page's content region holds.
const REGION_SHARE: f64 = 0.8;

/// Completes the extractor's verdict within the region its kept text comes from (the deepest
/// element holding [`REGION_SHARE`] of it: an article's body, rustdoc's `#main-content`,
/// mdBook's `<main>`): the headings and code blocks there are kept too.
///
/// Why: the extractor judges a short block on its own, and drops or keeps a heading from one
/// page to the next of the same template (mdBook's `<h2><a href="#x">Comments</a></h2>` on one
/// chapter stub, not on the next; rustdoc's `impl Send for Vars` headers, all links). A
/// heading is what tells two pages of one template apart, so two distinct stubs came out as
/// copies. Code blocks alike: it keeps a rustdoc item's declaration and examples on one page
/// and drops them on the next, so the host model learnt from those verdicts disagreed with it
/// (std: word F1 0.874 between the two, 0.922 with code completed; against rustdoc's own
/// content element the extractor went from 0.753 to 0.801). On the human-labelled benchmarks
/// completing code changes nothing (WCXB dev 0.852, ScrapingHub 0.951, every page type within
/// 0.001), while completing paragraphs too cost ScrapingHub 0.004 and every other block kind
/// WCXB 0.011 (2026-11-27, `benches/extraction/run`).
fn complete_in_region(page: &ExtractedPage, mask: &mut [bool]) {
    let parents = &page.element_parents;
    let mut kept = vec![0u64; parents.len()];
    let mut total = 0u64;
    for (block, _) in page
        .blocks
        .iter()
        .zip(mask.iter())
        .filter(|(_, keep)| **keep)
    {
        let chars = u64::from(block.chars);
        total += chars;
        let mut element = block.parent;
        while let Some(count) = kept.get_mut(element as usize) {
            *count += chars;
            element = parents[element as usize];
        }
    }
    // The elements holding more than half of the kept text form one chain from the top; its
    // deepest (highest number: children come after parents) is the region.
    let needed = (REGION_SHARE * total as f64).ceil() as u64;
    let Some(region) = kept.iter().rposition(|&count| total > 0 && count >= needed) else {
        return;
    };
    let region = region as u32;
    for (keep, block) in mask.iter_mut().zip(&page.blocks) {
        let inside = !*keep && page.is_inside(block, region);
        let completed = matches!(block.kind, BlockKind::Heading | BlockKind::Preformatted);
        if inside && completed && !block.in_chrome {
            *keep = true;
        }
    }
}

/// Share of a block's word pairs the extractor's text must hold for the block to be kept.
const CLAIM_SHARE: f64 = 0.75;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract;

    /// The blocks of `html` that claim `extractor_text`, by their text.
    fn claimed(html: &str, extractor_text: &str) -> Vec<String> {
        let page = extract(html);
        let claimed = ContentMask {
            mask: claimed_blocks(&page.blocks, &mut KeptText::new(extractor_text)),
            source: ContentSource::PageExtractor,
        };
        claimed
            .blocks(&page)
            .map(|block| block.text.clone())
            .collect()
    }

    #[test]
    fn a_whole_match_claims_before_a_block_like_it() {
        let html = "<html><body><main>\
            <p>Immutably borrows from an owned value. Read more</p>\
            <p>Mutably borrows from an owned value. Read more</p></main></body></html>";
        assert_eq!(
            claimed(html, "Mutably borrows from an owned value. Read more"),
            ["Mutably borrows from an owned value. Read more"]
        );
    }

    /// rs-trafilatura keeps rustdoc's version label "1.0.0 · Source" as "1.0.0 ·": the label
    /// is kept without its trailing link, as a longer label whose share of word pairs is
    /// enough with the link ("1.14.0 (const: unstable) · Source") always was. A block that is
    /// only a link has nothing left and stays out, and a head of two words ("Posted by") is
    /// too little to find.
    #[test]
    fn a_block_is_claimed_without_its_trailing_link() {
        let html = "<html><body><main><p>1.0.0 · <a href=\"/src\">Source</a></p>\
            <p>1.14.0 (const: unstable) · <a href=\"/src\">Source</a></p>\
            <p><a href=\"/src\">Source</a></p><p>Posted by <a href=\"/u\">admin</a></p>\
            </main></body></html>";
        assert_eq!(
            claimed(
                html,
                "1.0.0 ·\n1.14.0 (const: unstable ) ·\nSourcery\nPosted by the river"
            ),
            ["1.0.0 · Source", "1.14.0 (const: unstable) · Source"]
        );
    }

    #[test]
    fn content_claims_before_page_chrome() {
        let html = "<html><body><nav class=\"sidebar\"><h3>Trait Implementations</h3></nav>\
            <main><h2>Trait Implementations</h2><p>Formats the value using the given \
            formatter.</p></main></body></html>";
        let page = extract(html);
        let mut kept =
            KeptText::new("Trait Implementations\nFormats the value using the given formatter.");
        let mask = claimed_blocks(&page.blocks, &mut kept);
        let heading = |in_chrome: bool| {
            page.blocks
                .iter()
                .position(|b| b.text == "Trait Implementations" && b.in_chrome == in_chrome)
                .expect("the heading is a block")
        };
        assert!(mask[heading(false)], "the section heading is kept");
        assert!(!mask[heading(true)], "the sidebar's heading is not");
    }
}
