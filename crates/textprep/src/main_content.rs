//! Which blocks of a page are its main content.
//!
//! Two deciders share one answer format, a mask over [`ExtractedPage::blocks`]:
//! * [`PageExtractor`]: the page on its own. It runs rs-trafilatura (chosen by measurement on
//!   WCXB and the ScrapingHub benchmark, see `benches/extraction`) and marks each of our
//!   blocks whose words the extractor kept. Mapping its verdict back onto our blocks (instead
//!   of using its text) keeps one kind of text for every page, whoever decided it.
//! * [`HostContentModel`]: what the extractor's verdicts on a host's first pages teach about
//!   *where* that host keeps its content ([`TextBlock::path`]). Later pages of the host are cut
//!   by that model for the cost of a hash lookup per block; a page with too much text at paths
//!   the model does not know, or knows as mixed, goes back to the extractor.
//!
//! [`MainContent`] ties them together per host and is what the dedup pipeline, `extract` and
//! `export --view main` call.
//!
//! ```
//! use dedupcrawl_textprep::{MainContent, MainContentConfig, extract};
//!
//! let html = r#"<html><body><nav><a href="/">Home</a> <a href="/about">About us</a></nav>
//! <article><h1>Roses in winter</h1><p>Roses need little care in winter: cut them back,
//! cover the roots with mulch and wait for the spring, when the first shoots come.</p>
//! <p>Water them only when the soil is dry, and never when frost is forecast for the night.</p>
//! </article><footer>Copyright 2026 The Garden Site. All rights reserved.</footer></body></html>"#;
//! let page = extract(html);
//! let main = MainContent::new(MainContentConfig::default());
//! let decided = main.decide("example.org", html, Some("https://example.org/roses"), &page);
//! let kept: Vec<&str> = page.blocks.iter().zip(&decided.mask)
//!     .filter(|(_, keep)| **keep).map(|(b, _)| b.text.as_str()).collect();
//! assert!(kept.iter().any(|t| t.starts_with("Roses need little care")));
//! assert!(!kept.contains(&"Home"));
//! ```

use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;

use crate::extract::{BlockKind, ExtractedPage, TextBlock};

/// Settings of the main-content decision (config `[dedup.text.main_content]`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MainContentConfig {
    /// Pages of a host decided by the page-level extractor before the host's model is used, at
    /// most (see `warm_after_predicted_pages`).
    pub cold_start_pages: u32,
    /// The cold start ends early once the host's model, asked before it learns each cold-start
    /// page, predicted the extractor's verdict on this many pages in a row (0 = never early).
    /// The extractor costs ten to sixteen times our own extraction, and a crawl of a site list
    /// meets many small hosts: on a host with one regular template the model predicts the
    /// extractor from its second page on, and 20 cold pages would be most of such a host.
    pub warm_after_predicted_pages: u32,
    /// A page whose text at paths the model does not know (or knows as sometimes content,
    /// sometimes not) exceeds this share goes to the page-level extractor.
    pub max_unknown_share: f64,
    /// Every this many pages of a host, one goes to the extractor even when the model knows
    /// it, so a host whose template drifts is re-learnt (0 = never).
    pub recheck_every: u32,
    /// Hosts whose models are kept; the least recently used one goes first.
    pub max_hosts: usize,
    /// After the cold start, the share of a host's HTML bytes the extractor may see at most
    /// (departures and rechecks); past it a departing page is cut by the model, which keeps
    /// the blocks it does not know (outside page chrome). Counted in bytes, not pages: the
    /// extractor's cost grows with the page, and the pages that depart are often the largest.
    pub max_extractor_share: f64,
}

/// HTML bytes the extractor sees on any warm host before `max_extractor_share` applies.
const EXTRACTOR_BUDGET_SLACK_BYTES: f64 = 256.0 * 1024.0;

impl Default for MainContentConfig {
    fn default() -> Self {
        MainContentConfig {
            cold_start_pages: 20,
            warm_after_predicted_pages: 5,
            max_unknown_share: 0.1,
            recheck_every: 100,
            max_hosts: 10_000,
            max_extractor_share: 0.01,
        }
    }
}

/// A page's main content from the page alone (no host evidence): the extractor's verdict,
/// else (it kept nothing) the blocks `fallback` keeps.
pub fn decide_alone(
    html: &str,
    url: Option<&str>,
    page: &ExtractedPage,
    fallback: &dyn Fn(&TextBlock) -> bool,
) -> ContentMask {
    match PageExtractor.mask(html, url, page) {
        Some(mask) => ContentMask {
            mask,
            source: ContentSource::PageExtractor,
        },
        None => ContentMask {
            mask: page.blocks.iter().map(fallback).collect(),
            source: ContentSource::PageRules,
        },
    }
}

/// Who decided a page's main content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContentSource {
    /// The page-level extractor (a host's first pages, or a page the model did not know).
    PageExtractor,
    /// The host's learnt model.
    HostModel,
    /// The extractor found nothing: the blocks that pass the per-page rules.
    PageRules,
}

/// A page's main content: one flag per block of [`ExtractedPage::blocks`].
#[derive(Debug, Clone, PartialEq)]
pub struct ContentMask {
    pub mask: Vec<bool>,
    pub source: ContentSource,
}

impl ContentMask {
    /// The kept blocks of `page`.
    pub fn blocks<'a>(&'a self, page: &'a ExtractedPage) -> impl Iterator<Item = &'a TextBlock> {
        page.blocks
            .iter()
            .zip(&self.mask)
            .filter(|(_, keep)| **keep)
            .map(|(block, _)| block)
    }

    /// The kept text, one block per line.
    pub fn text(&self, page: &ExtractedPage) -> String {
        let mut out = String::new();
        for block in self.blocks(page) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&block.text);
        }
        out
    }
}

/// The page-level extractor: rs-trafilatura's verdict mapped onto our blocks.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageExtractor;

/// Largest page [`MainContent::decide_with_fallback`] (the crawl's path) gives to the
/// page-level extractor, bytes (15 of the Rust docs' pages are larger: source listings and
/// the reference on one page; the host's model or the per-page rules decide them).
pub const EXTRACTOR_MAX_BYTES: usize = 2 * 1024 * 1024;

impl PageExtractor {
    /// The extractor's main text of the page (empty when it finds none).
    pub fn text(&self, html: &str, url: Option<&str>) -> String {
        let options = rs_trafilatura::Options {
            url: url.map(str::to_string),
            ..rs_trafilatura::Options::default()
        };
        // The extractor may fail on input it cannot make sense of; that is "no main content
        // found", not an error of the page.
        rs_trafilatura::extract_with_options(html, &options)
            .map(|result| result.content_text)
            .unwrap_or_default()
    }

    /// Which of `page`'s blocks carry the extractor's main text. `None` when it kept nothing.
    /// A link flood (a page with links past the extraction cap,
    /// [`ExtractedPage::links_left_out`]) is not given to the extractor: its DOM of every
    /// link would cost far more than the page (about 800 MB for 500,000 links, measured by
    /// `crates/cli/tests/link_flood_rss.rs`); the caller's fallback decides such a page.
    pub fn mask(&self, html: &str, url: Option<&str>, page: &ExtractedPage) -> Option<Vec<bool>> {
        if page.links_left_out > 0 {
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
    let text_of = |unit: &Range<usize>| -> String {
        let texts: Vec<&str> = blocks[unit.clone()]
            .iter()
            .map(|b| b.text.as_str())
            .collect();
        texts.join(" ")
    };
    let mut mask = vec![false; blocks.len()];
    for units in [&units, &cells] {
        for share in [1.0, CLAIM_SHARE] {
            for in_chrome in [false, true] {
                for unit in units.iter() {
                    let first = &blocks[unit.start];
                    if mask[unit.start] || first.in_chrome != in_chrome {
                        continue;
                    }
                    // A word or two of page chrome (a menu item: "Rust" of a theme menu, "Any"
                    // of a sidebar) is found as a line of almost any text; chrome's headings
                    // and sentences are matched as any block.
                    let menu_item = unit.len() == 1
                        && first.in_chrome
                        && first.kind != BlockKind::Heading
                        && first.word_count() <= 2;
                    if !menu_item && kept.claim(&text_of(unit), share) {
                        mask[unit.clone()].iter_mut().for_each(|keep| *keep = true);
                    }
                }
            }
        }
    }
    mask
}

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

/// The extractor's output as counted word pairs and lines, to test our blocks against. Each
/// occurrence is used up by the block that claims it, so a page that repeats its article (an
/// AMP copy, a print version in a hidden element, a teaser of the lead paragraph) keeps one
/// copy, as the extractor did.
struct KeptText {
    pairs: FxHashMap<u64, u32>,
    lines: FxHashMap<u64, u32>,
}

impl KeptText {
    fn new(text: &str) -> Self {
        let mut pairs = FxHashMap::default();
        let mut lines = FxHashMap::default();
        let mut previous_line_end = None;
        for line in text.lines() {
            let words = word_hashes(line);
            let (Some(&first), Some(&last)) = (words.first(), words.last()) else {
                continue;
            };
            *lines.entry(sequence_hash(&words)).or_insert(0) += 1;
            // Pairs across line ends too: the extractor and we may cut blocks at other places.
            if let Some(end) = previous_line_end {
                *pairs.entry(pair_hash(end, first)).or_insert(0) += 1;
            }
            for pair in words.windows(2) {
                *pairs.entry(pair_hash(pair[0], pair[1])).or_insert(0) += 1;
            }
            previous_line_end = Some(last);
        }
        KeptText { pairs, lines }
    }

    fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Whether the extractor kept `block`, using up what it matched. A block is kept when
    /// `share` of its word pairs are in the extractor's text; a block of one or two words (a
    /// heading, a label) only when it stands as a line of its own there or (two words) as a
    /// pair, since a single word of a menu ("Home") is found in almost any text.
    fn claim(&mut self, block: &str, share: f64) -> bool {
        let words = word_hashes(block);
        if words.len() <= 2 {
            if let Some(&first) = words.first()
                && take(&mut self.lines, sequence_hash(&words))
            {
                if let Some(&second) = words.get(1) {
                    take(&mut self.pairs, pair_hash(first, second));
                }
                return true;
            }
            return words.len() == 2 && take(&mut self.pairs, pair_hash(words[0], words[1]));
        }
        let pairs: Vec<u64> = words.windows(2).map(|w| pair_hash(w[0], w[1])).collect();
        let found = pairs
            .iter()
            .filter(|p| self.pairs.get(p).is_some_and(|&n| n > 0))
            .count();
        if (found as f64) < share * pairs.len() as f64 {
            return false;
        }
        for pair in pairs {
            take(&mut self.pairs, pair);
        }
        take(&mut self.lines, sequence_hash(&words));
        true
    }
}

/// Uses up one occurrence of `key`; false when none is left.
fn take(counts: &mut FxHashMap<u64, u32>, key: u64) -> bool {
    match counts.get_mut(&key) {
        Some(n) if *n > 0 => {
            *n -= 1;
            true
        }
        _ => false,
    }
}

/// The words of `text` as the extractor's text and our blocks are matched: runs of letters and
/// digits, lowercased, also cut where a lowercase letter meets an uppercase one. Finer than
/// UAX #29 words on purpose, so both sides cut alike: the extractor re-spaces code
/// (`document.title` comes out as `document. title`) and numbers, and it puts a space between
/// adjacent inline elements that a browser (and our text) runs together
/// (`<span>Coleman</span><span>Skydome Tent</span>` is `ColemanSkydome Tent` here).
fn word_hashes(text: &str) -> Vec<u64> {
    let mut out = Vec::new();
    let mut lowered = String::new();
    let mut previous_lowercase = false;
    for c in text.chars() {
        let alphanumeric = c.is_alphanumeric();
        if !lowered.is_empty() && (!alphanumeric || (previous_lowercase && c.is_uppercase())) {
            out.push(xxhash_rust::xxh3::xxh3_64(lowered.as_bytes()));
            lowered.clear();
        }
        if alphanumeric {
            lowered.extend(c.to_lowercase());
        }
        previous_lowercase = c.is_lowercase();
    }
    if !lowered.is_empty() {
        out.push(xxhash_rust::xxh3::xxh3_64(lowered.as_bytes()));
    }
    out
}

fn pair_hash(a: u64, b: u64) -> u64 {
    a.rotate_left(17) ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn sequence_hash(words: &[u64]) -> u64 {
    words
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &w| pair_hash(h, w))
}

/// A block's keys in a host model: its path, and its shape as the fallback. Mostly-link blocks
/// (a list of links) and prose at the same place are told apart: the extractor keeps the one
/// and drops the other. Paths and shapes share one table, so a shape's key is moved.
fn model_keys(block: &TextBlock) -> [u64; 2] {
    let links = if block.link_density() > 0.5 {
        0x9e37_79b9_7f4a_7c15
    } else {
        0
    };
    [
        block.path ^ links,
        block.shape ^ links ^ 0x5bd1_e995_5bd1_e995,
    ]
}

/// Votes the extractor cast for one path (or shape) of a host.
#[derive(Debug, Clone, Copy, Default)]
struct PathVotes {
    content_chars: u64,
    other_chars: u64,
}

impl PathVotes {
    fn content_share(&self) -> f64 {
        let total = self.content_chars + self.other_chars;
        if total == 0 {
            0.0
        } else {
            self.content_chars as f64 / total as f64
        }
    }
}

/// What a host's pages teach about where its content lives.
#[derive(Debug, Clone, Default)]
pub struct HostContentModel {
    paths: FxHashMap<u64, PathVotes>,
    /// The verdict each block key got the first time the model's view needed it, kept for the
    /// rest of the run (see [`view`](Self::view)).
    settled: FxHashMap<u64, bool>,
    pages_learnt: u32,
    /// Cold-start pages in a row whose extractor verdict the model predicted before learning it.
    predicted_in_a_row: u32,
    pages_seen: u32,
    /// HTML bytes of the pages seen past the cold start, and of those the extractor saw.
    warm_bytes_seen: u64,
    warm_bytes_extracted: u64,
}

/// A path whose text the extractor kept at least this share of the time is content; at most
/// `1 - CLEAR_SHARE`, boilerplate; in between the path is mixed and the model has no answer.
const CLEAR_SHARE: f64 = 0.8;

/// Agreement (F1 over the characters kept) at which the model's mask predicts the extractor's
/// verdict on a cold-start page: the agreement issue 17 asks of the model after the cold start.
const PREDICTED_F1: f64 = 0.97;

impl HostContentModel {
    /// Records the extractor's verdict on one page.
    pub fn learn(&mut self, page: &ExtractedPage, mask: &[bool]) {
        for (block, &content) in page.blocks.iter().zip(mask) {
            for key in model_keys(block) {
                let votes = self.paths.entry(key).or_default();
                if content {
                    votes.content_chars += u64::from(block.chars);
                } else {
                    votes.other_chars += u64::from(block.chars);
                }
            }
        }
        self.pages_learnt += 1;
    }

    /// What the model knows of a block: its path's votes, else (a path not seen, or seen
    /// both ways) its shape's.
    fn verdict(&self, block: &TextBlock) -> Option<bool> {
        let share = |key: u64| self.paths.get(&key).map(PathVotes::content_share);
        let [path, shape] = model_keys(block);
        let clear = |key: u64| {
            let share = share(key)?;
            if share >= CLEAR_SHARE {
                Some(true)
            } else if share <= 1.0 - CLEAR_SHARE {
                Some(false)
            } else {
                None
            }
        };
        clear(path).or_else(|| clear(shape))
    }

    /// Whether the model, as it stands, predicts the extractor's `verdict` on `page`: it knows
    /// the page (see [`predict`](Self::predict)) and its mask agrees with the verdict to
    /// [`PREDICTED_F1`] over the characters kept.
    fn predicts(&self, page: &ExtractedPage, verdict: &[bool], max_unknown_share: f64) -> bool {
        let Some(mask) = self.predict(page, max_unknown_share) else {
            return false;
        };
        let (mut both, mut model, mut extractor) = (0u64, 0u64, 0u64);
        for ((block, &by_model), &by_extractor) in page.blocks.iter().zip(&mask).zip(verdict) {
            let chars = u64::from(block.chars);
            both += chars * u64::from(by_model && by_extractor);
            model += chars * u64::from(by_model);
            extractor += chars * u64::from(by_extractor);
        }
        2.0 * both as f64 >= PREDICTED_F1 * (model + extractor) as f64
    }

    /// Pages whose verdicts the model learnt from.
    pub fn pages_learnt(&self) -> u32 {
        self.pages_learnt
    }

    /// The model's mask for a page, or `None` when more than `max_unknown_share` of the page's
    /// text sits at paths it does not know or knows as mixed (the page departs from the
    /// model), or when the model would keep nothing.
    pub fn predict(&self, page: &ExtractedPage, max_unknown_share: f64) -> Option<Vec<bool>> {
        let mut unknown_chars = 0u64;
        let mut total_chars = 0u64;
        let mask: Vec<bool> = page
            .blocks
            .iter()
            .map(|block| {
                total_chars += u64::from(block.chars);
                self.verdict(block).unwrap_or_else(|| {
                    unknown_chars += u64::from(block.chars);
                    false
                })
            })
            .collect();
        let unknown_share = unknown_chars as f64 / total_chars.max(1) as f64;
        (unknown_share <= max_unknown_share && mask.iter().any(|&m| m)).then_some(mask)
    }

    /// The model's mask with the blocks it does not know decided by `fallback`: for a page
    /// that departs from the model when the host's extractor budget is spent.
    pub fn predict_filled(
        &self,
        page: &ExtractedPage,
        fallback: &dyn Fn(&TextBlock) -> bool,
    ) -> Vec<bool> {
        page.blocks
            .iter()
            .map(|block| self.verdict(block).unwrap_or_else(|| fallback(block)))
            .collect()
    }

    /// The view of a page past the cold start: [`predict_filled`](Self::predict_filled), with
    /// each block key's verdict settled the first time it is asked and kept from then on. The
    /// votes go on moving as the model learns; a verdict that followed them would give two
    /// copies of a page fetched an hour apart different text (a path drifting into or out of
    /// the mixed band), and the dedup would see them differ.
    pub fn view(
        &mut self,
        page: &ExtractedPage,
        fallback: &dyn Fn(&TextBlock) -> bool,
    ) -> Vec<bool> {
        page.blocks
            .iter()
            .map(|block| {
                let [path, _] = model_keys(block);
                if let Some(&settled) = self.settled.get(&path) {
                    return settled;
                }
                let verdict = self.verdict(block).unwrap_or_else(|| fallback(block));
                self.settled.insert(path, verdict);
                verdict
            })
            .collect()
    }
}

/// How a page of a host is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    /// One of the host's first pages (up to `cold_start_pages`, fewer once the model predicts
    /// the extractor): the extractor's view, learnt.
    ColdStart,
    /// A recheck or a departure within the extractor budget: learnt, then the model's view.
    Extractor,
    /// The model's view.
    Model,
}

/// The main-content decision for every host of a crawl: the page-level extractor on a host's
/// first pages and on pages its model does not know, the host's model on the others.
///
/// The models are a cache of the extractor's verdicts, not crawl state: after a restart a host
/// starts cold again (how closely a model follows the extractor is measured in
/// `tests/host_model.rs`).
#[derive(Debug, Default)]
pub struct MainContent {
    config: MainContentConfig,
    hosts: Mutex<HostModels>,
    /// Pages and HTML bytes given to the page-level extractor by [`decide_with_fallback`]
    /// (Self::decide_with_fallback), for benchmarks and metrics.
    extractor_pages: AtomicU64,
    extractor_bytes: AtomicU64,
}

/// What the page-level extractor saw: see [`MainContent::extractor_use`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExtractorUse {
    pub pages: u64,
    pub html_bytes: u64,
}

#[derive(Debug, Default)]
struct HostModels {
    models: FxHashMap<String, (HostContentModel, u64)>,
    clock: u64,
}

impl MainContent {
    pub fn new(config: MainContentConfig) -> Self {
        MainContent {
            config,
            hosts: Mutex::new(HostModels::default()),
            extractor_pages: AtomicU64::new(0),
            extractor_bytes: AtomicU64::new(0),
        }
    }

    pub fn config(&self) -> &MainContentConfig {
        &self.config
    }

    /// Pages and bytes the page-level extractor has seen through the host route so far.
    pub fn extractor_use(&self) -> ExtractorUse {
        ExtractorUse {
            pages: self.extractor_pages.load(Ordering::Relaxed),
            html_bytes: self.extractor_bytes.load(Ordering::Relaxed),
        }
    }

    /// The page on its own (no host evidence): see [`decide_alone`].
    pub fn decide_alone(
        &self,
        html: &str,
        url: Option<&str>,
        page: &ExtractedPage,
        fallback: &dyn Fn(&TextBlock) -> bool,
    ) -> ContentMask {
        decide_alone(html, url, page, fallback)
    }

    /// The page as one of its host's: the host's model when it knows the page, else the
    /// extractor (whose verdict the model then learns).
    pub fn decide(
        &self,
        host: &str,
        html: &str,
        url: Option<&str>,
        page: &ExtractedPage,
    ) -> ContentMask {
        self.decide_with_fallback(host, html, url, page, &|_| false)
    }

    /// [`decide`](Self::decide), with the blocks kept when the extractor finds nothing.
    pub fn decide_with_fallback(
        &self,
        host: &str,
        html: &str,
        url: Option<&str>,
        page: &ExtractedPage,
        fallback: &dyn Fn(&TextBlock) -> bool,
    ) -> ContentMask {
        let route = self.route(host, html.len(), page);
        if route == Route::Model
            && let Some(mask) = self.model_view(host, page)
        {
            return mask;
        }
        if html.len() > EXTRACTOR_MAX_BYTES {
            // In a crawl a page over the bound never meets the extractor: its DOM costs about
            // 100 times the page (1 GB for a 10 MB body, crates/crawler/tests/hostile_servers.rs).
            return self.model_view(host, page).unwrap_or_else(|| ContentMask {
                mask: page.blocks.iter().map(fallback).collect(),
                source: ContentSource::PageRules,
            });
        }
        self.extractor_pages.fetch_add(1, Ordering::Relaxed);
        self.extractor_bytes
            .fetch_add(html.len() as u64, Ordering::Relaxed);
        let decided = decide_alone(html, url, page, fallback);
        if decided.source != ContentSource::PageExtractor {
            return decided;
        }
        let mut hosts = self.lock();
        let model = hosts.model_mut(host, self.config.max_hosts);
        if route == Route::ColdStart {
            let predicted = model.predicts(page, &decided.mask, self.config.max_unknown_share);
            model.predicted_in_a_row = if predicted {
                model.predicted_in_a_row + 1
            } else {
                0
            };
        }
        model.learn(page, &decided.mask);
        if route == Route::ColdStart {
            return decided;
        }
        drop(hosts);
        // A warm host's pages all take the model's view, the extractor (on a recheck or a
        // departure) only teaching the model first: two copies of a page must get the same
        // text whichever route each took, else the dedup sees them differ by whatever the
        // model and the extractor disagree on.
        self.model_view(host, page).unwrap_or(decided)
    }

    /// Which way a page of `host` (`html_bytes` long) goes: counts it as seen.
    fn route(&self, host: &str, html_bytes: usize, page: &ExtractedPage) -> Route {
        let mut hosts = self.lock();
        let model = hosts.model_mut(host, self.config.max_hosts);
        model.pages_seen += 1;
        let warm_early = self.config.warm_after_predicted_pages > 0
            && model.predicted_in_a_row >= self.config.warm_after_predicted_pages;
        if model.pages_learnt < self.config.cold_start_pages && !warm_early {
            return Route::ColdStart;
        }
        let html_bytes = html_bytes as u64;
        model.warm_bytes_seen += html_bytes;
        let recheck = self.config.recheck_every;
        let is_recheck = recheck > 0 && model.pages_seen.is_multiple_of(recheck);
        if !is_recheck && model.predict(page, self.config.max_unknown_share).is_some() {
            return Route::Model;
        }
        // A recheck or a page that departs from the model. The extractor costs ten times our
        // own extraction, so after the cold start it sees at most `max_extractor_share` of a
        // host's bytes; past that the model answers, keeping what it does not know.
        let budget = self.config.max_extractor_share * model.warm_bytes_seen as f64
            + EXTRACTOR_BUDGET_SLACK_BYTES;
        if (model.warm_bytes_extracted + html_bytes) as f64 > budget {
            return Route::Model;
        }
        model.warm_bytes_extracted += html_bytes;
        Route::Extractor
    }

    /// The host model's view of a page: blocks it does not know are kept unless they sit in
    /// page chrome (keeping text errs toward "distinct", the safe side for a crawler; measured
    /// on rustdoc pages, keeping agrees better with the extractor than the per-page rules do).
    /// `None` when it would keep nothing.
    fn model_view(&self, host: &str, page: &ExtractedPage) -> Option<ContentMask> {
        let mut hosts = self.lock();
        let model = hosts.model_mut(host, self.config.max_hosts);
        let mask = model.view(page, &|block| !block.in_chrome);
        mask.iter().any(|&keep| keep).then_some(ContentMask {
            mask,
            source: ContentSource::HostModel,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HostModels> {
        // A panic elsewhere while holding the lock leaves only a cache behind: keep using it.
        self.hosts.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl HostModels {
    fn model_mut(&mut self, host: &str, max_hosts: usize) -> &mut HostContentModel {
        self.clock += 1;
        let clock = self.clock;
        if !self.models.contains_key(host) && self.models.len() >= max_hosts.max(1) {
            let oldest = self
                .models
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(name, _)| name.clone());
            if let Some(oldest) = oldest {
                self.models.remove(&oldest);
            }
        }
        let entry = self
            .models
            .entry(host.to_string())
            .or_insert_with(|| (HostContentModel::default(), clock));
        entry.1 = clock;
        &mut entry.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract;

    /// The blocks of `html` that claim `extractor_text`, by their text.
    fn claimed(html: &str, extractor_text: &str) -> Vec<String> {
        let page = extract(html);
        let mut kept = KeptText::new(extractor_text);
        let mask = claimed_blocks(&page.blocks, &mut kept);
        page.blocks
            .iter()
            .zip(mask)
            .filter(|(_, keep)| *keep)
            .map(|(block, _)| block.text.clone())
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
