//! A page's main content as a mask over its blocks, and who decided it.

use crate::extract::{ExtractedPage, TextBlock};

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
