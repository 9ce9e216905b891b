//! What a host's pages teach about where its content lives: the extractor's votes per block
//! path, and the view of a page they give.

use rustc_hash::FxHashMap;

use crate::extract::{ExtractedPage, TextBlock};

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
