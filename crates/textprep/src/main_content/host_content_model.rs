//! What a host's pages teach about where its content lives: the extractor's votes per block
//! path, and the view of a page they give.

use rustc_hash::FxHashMap;

use crate::extract::{ExtractedPage, TextBlock};

/// A block's keys in a host model: its path, and its shape as the fallback. Prose, blocks
/// mostly of links and blocks of links alone at the same place are told apart: the extractor
/// keeps prose and drops a list of links there, and keeps rustdoc's version label "1.0.0
/// (const: unstable) · Source§" (mostly links) while it drops a bare "Source§" beside it
/// (`tests/link_classes.rs`). Paths and shapes share one table, so a shape's key is moved.
fn model_keys(block: &TextBlock) -> [u64; 2] {
    let links = link_class(block);
    [
        block.path ^ links,
        block.shape ^ links ^ 0x5bd1_e995_5bd1_e995,
    ]
}

/// Which of prose (0), mostly links or links alone a block is, as the bits its keys carry.
fn link_class(block: &TextBlock) -> u64 {
    if block.link_chars >= block.chars {
        0x6a09_e667_f3bc_c909
    } else if block.link_density() > 0.5 {
        0x9e37_79b9_7f4a_7c15
    } else {
        0
    }
}

/// A block's text key: its text at its path. The place counts too: a story's paragraph is
/// also the teaser the extractor drops from a listing, where it sits elsewhere.
fn text_key(block: &TextBlock) -> u64 {
    let [path, _] = model_keys(block);
    (block.fingerprint ^ 0x2545_f491_4f6c_dd1d)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .rotate_left(29)
        ^ path
}

/// Votes the extractor cast for one path (or shape, or text) of a host.
#[derive(Debug, Clone, Copy, Default)]
struct PathVotes {
    content_chars: u64,
    other_chars: u64,
    /// Pages the votes came from, and the last of them (its number in the model's count).
    pages: u32,
    last_page: u32,
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

/// What the votes on a path (or shape) say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathKnown {
    /// No votes.
    Unknown,
    /// Kept (or dropped) at least [`CLEAR_SHARE`] of the time.
    Clear(bool),
    /// Seen both ways: a block's text decides when the extractor dropped it each time it
    /// saw it there ([`HostContentModel::learn_cold_start`]).
    Mixed,
}

impl PathKnown {
    fn clear(self) -> Option<bool> {
        match self {
            PathKnown::Clear(verdict) => Some(verdict),
            _ => None,
        }
    }
}

/// A path's verdict in the model's view, settled the first time it is asked: one verdict, or
/// (a mixed path) each block's text verdict and this one for texts without one.
#[derive(Debug, Clone, Copy)]
enum SettledPath {
    Clear(bool),
    Mixed(bool),
}

/// The extractor's verdicts on one block text of a host: on how many cold-start pages it
/// was seen, and kept.
#[derive(Debug, Clone, Copy, Default)]
struct TextVotes {
    pages: u32,
    kept: u32,
}

/// Cold-start pages a text must have been seen on, judged alike each time, before its
/// verdict counts: a text seen once says nothing of how the extractor treats it (a random
/// "trending" teaser the extractor kept once is not content on the next page).
const TEXT_MIN_PAGES: u32 = 2;

/// Words a block needs for its text to be judged as a text: a label ("Home", "Sport") is one
/// at many places in many roles; a sentence is one thing.
const TEXT_MIN_WORDS: u32 = 5;

/// What a host's pages teach about where its content lives.
#[derive(Debug, Clone, Default)]
pub struct HostContentModel {
    paths: FxHashMap<u64, PathVotes>,
    /// The extractor's verdicts per block text on the host's cold-start pages (see
    /// [`learn_cold_start`](Self::learn_cold_start)).
    texts: FxHashMap<u64, TextVotes>,
    /// The verdict each block key got the first time the model's view needed it, kept for the
    /// rest of the run (see [`view`](Self::view)).
    settled: FxHashMap<u64, SettledPath>,
    pages_learnt: u32,
}

/// Pages a path of prose must have been judged on before the view settles it by its votes
/// ([`HostContentModel::view`]); before, it is settled by its shape. The extractor judges prose
/// by the page around it (it drops a short notice under a long page and keeps the same notice
/// on a page it is most of), so one page's verdict says little of the place, and a settled
/// verdict lasts the run. A block mostly of links it judges alike wherever it is (a bar of
/// links is dropped on every page): one page's verdict stands.
const PATH_MIN_PAGES: u32 = 2;

/// A path whose text the extractor kept at least this share of the time is content; at most
/// `1 - CLEAR_SHARE`, boilerplate; in between the path is mixed and the model has no answer.
const CLEAR_SHARE: f64 = 0.8;

/// Share of a page's text at paths a host's model has never seen from which the page is of
/// another template than the host's first pages (see [`HostContentModel::view`]): most of it.
/// A page of the host's own template with a few new paths (a section only some pages have)
/// fills them from their shapes.
const NEW_TEMPLATE_SHARE: f64 = 0.5;

/// Agreement (F1 over the characters kept) at which the model's mask predicts the extractor's
/// verdict on a cold-start page: the agreement issue 17 asks of the model after the cold start.
const PREDICTED_F1: f64 = 0.97;

impl HostContentModel {
    /// Records the extractor's verdict on one page.
    pub fn learn(&mut self, page: &ExtractedPage, mask: &[bool]) {
        let page_number = self.pages_learnt + 1;
        for (block, &content) in page.blocks.iter().zip(mask) {
            for key in model_keys(block) {
                let votes = self.paths.entry(key).or_default();
                if votes.last_page != page_number {
                    votes.last_page = page_number;
                    votes.pages += 1;
                }
                if content {
                    votes.content_chars += u64::from(block.chars);
                } else {
                    votes.other_chars += u64::from(block.chars);
                }
            }
        }
        self.pages_learnt += 1;
    }

    /// [`learn`](Self::learn) a cold-start page, and the verdict on each of its block texts.
    ///
    /// Why texts: a template repeats text the extractor judges by the text, not by the
    /// place. rustdoc puts a type's own method docs and the boilerplate docs of its trait
    /// implementations ("Tests for `!=`…", "Performs the `-` operation.") at one path; the
    /// extractor keeps the first and drops the second, so the path is mixed and the model kept
    /// both (std: model and extractor agreed at F1 0.922). At a mixed path, a text of 5 words
    /// or more that the extractor dropped there on each of 2 cold-start pages or more is
    /// dropped again. Only dropped: texts it kept
    /// were tried too, and a listing's sidebar teasers, kept on the listings of the cold start,
    /// then stayed in every story's view (issue 10's unseen seeds: a story merged with its home
    /// page). Texts are learnt on cold-start pages only, so they are settled once the host is
    /// warm (see [`view`](Self::view)).
    pub fn learn_cold_start(&mut self, page: &ExtractedPage, mask: &[bool]) {
        let mut seen_here = rustc_hash::FxHashSet::default();
        for (block, &content) in page.blocks.iter().zip(mask) {
            let key = text_key(block);
            if !seen_here.insert(key) {
                // Counted once a page (rustdoc repeats "Read more" teasers within a page).
                continue;
            }
            let votes = self.texts.entry(key).or_default();
            votes.pages += 1;
            votes.kept += u32::from(content);
        }
        self.learn(page, mask);
    }

    /// The verdict the extractor gave a block's text on the cold-start pages, when it gave
    /// one: the same on each of [`TEXT_MIN_PAGES`] pages or more.
    fn text_verdict(&self, block: &TextBlock) -> Option<bool> {
        if block.words < TEXT_MIN_WORDS {
            return None;
        }
        let votes = self.texts.get(&text_key(block))?;
        (votes.pages >= TEXT_MIN_PAGES && votes.kept == 0).then_some(false)
    }

    /// What the model knows of a block: its path's votes; at a path seen both ways, its text's
    /// ([`text_verdict`](Self::text_verdict)); else its shape's.
    fn verdict(&self, block: &TextBlock) -> Option<bool> {
        let [path, shape] = model_keys(block);
        match self.path_votes(path) {
            PathKnown::Clear(verdict) => Some(verdict),
            PathKnown::Mixed => self
                .text_verdict(block)
                .or_else(|| self.path_votes(shape).clear()),
            PathKnown::Unknown => self.path_votes(shape).clear(),
        }
    }

    /// What the votes on a block's path say when its verdict is settled for the run: a prose
    /// path judged on fewer than [`PATH_MIN_PAGES`] pages is not known yet.
    fn settling_votes(&self, block: &TextBlock, path: u64) -> PathKnown {
        let prose = link_class(block) == 0;
        match self.paths.get(&path) {
            Some(votes) if prose && votes.pages < PATH_MIN_PAGES => PathKnown::Unknown,
            _ => self.path_votes(path),
        }
    }

    /// What the votes on one key (a path or a shape) say.
    fn path_votes(&self, key: u64) -> PathKnown {
        let Some(votes) = self.paths.get(&key) else {
            return PathKnown::Unknown;
        };
        let share = votes.content_share();
        if share >= CLEAR_SHARE {
            PathKnown::Clear(true)
        } else if share <= 1.0 - CLEAR_SHARE {
            PathKnown::Clear(false)
        } else {
            PathKnown::Mixed
        }
    }

    /// Whether the model, as it stands, predicts the extractor's `verdict` on `page`: it knows
    /// the page (see [`predict`](Self::predict)) and its mask agrees with the verdict to
    /// [`PREDICTED_F1`] over the characters kept.
    pub(super) fn predicts(
        &self,
        page: &ExtractedPage,
        verdict: &[bool],
        max_unknown_share: f64,
    ) -> bool {
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
    /// the mixed band), and the dedup would see them differ. Since a settled verdict lasts, a
    /// prose path judged on fewer than [`PATH_MIN_PAGES`] pages is settled by its shape.
    ///
    /// A page with more than [`NEW_TEMPLATE_SHARE`] of its text at paths the model has neither
    /// votes nor a settled verdict for is of a template the host's first pages did not show:
    /// its unknown paths take `fallback`, not their shape. Why: a shape is element names
    /// alone, and one generator's shapes match another's. GHC's documentation serves Haddock
    /// API pages and a Sphinx user's guide under one host; the guide came after the extractor
    /// budget was spent on the API pages, and the view of 28 of its chapters was their
    /// sidebar's table of contents, kept by the Haddock pages' shapes (2026-11-28; there the
    /// main-landmark rule of the extraction was enough, `tests/new_template.rs` shows this
    /// one).
    pub fn view(
        &mut self,
        page: &ExtractedPage,
        fallback: &dyn Fn(&TextBlock) -> bool,
    ) -> Vec<bool> {
        let (mut unknown_chars, mut total_chars) = (0u64, 0u64);
        for block in &page.blocks {
            let [path, _] = model_keys(block);
            total_chars += u64::from(block.chars);
            if !self.settled.contains_key(&path) && self.path_votes(path) == PathKnown::Unknown {
                unknown_chars += u64::from(block.chars);
            }
        }
        let departs = unknown_chars as f64 > NEW_TEMPLATE_SHARE * total_chars as f64;
        page.blocks
            .iter()
            .map(|block| {
                let [path, shape] = model_keys(block);
                let settled = match self.settled.get(&path) {
                    Some(&settled) => settled,
                    None => {
                        let settled = match self.settling_votes(block, path) {
                            PathKnown::Clear(verdict) => SettledPath::Clear(verdict),
                            PathKnown::Unknown if departs => SettledPath::Clear(fallback(block)),
                            known => {
                                let rest = self
                                    .path_votes(shape)
                                    .clear()
                                    .unwrap_or_else(|| fallback(block));
                                if known == PathKnown::Mixed {
                                    SettledPath::Mixed(rest)
                                } else {
                                    SettledPath::Clear(rest)
                                }
                            }
                        };
                        self.settled.insert(path, settled);
                        settled
                    }
                };
                match settled {
                    SettledPath::Clear(verdict) => verdict,
                    // Texts are learnt in the cold start only: settled too.
                    SettledPath::Mixed(rest) => self.text_verdict(block).unwrap_or(rest),
                }
            })
            .collect()
    }
}
