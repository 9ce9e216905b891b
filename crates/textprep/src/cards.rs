//! Cards: a short header block and the text under it, alone in the smallest element holding
//! both, repeated at one place of a page — the shape of a "trending" box (a linked title and a
//! teaser, [`crate::teaser_blocks`]) and of reader comments (a name and date, then the
//! comment, [`crate::comment_blocks`]).

use rustc_hash::FxHashMap;

use crate::extract::{ExtractedPage, NO_ELEMENT, TextBlock};

/// A card's text: at most this much link text and this many words.
const TEXT_LINK_DENSITY: f32 = 0.5;
const TEXT_MAX_WORDS: u32 = 120;
/// Blocks a card holds at most: header, text and a byline or date.
const MAX_CARD_BLOCKS: usize = 3;

/// One card: its header block and its text block (indexes into the page's blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Card {
    pub(crate) header: usize,
    pub(crate) text: usize,
}

/// The cards of `page` whose header `is_header` accepts, at places (the text's
/// [`TextBlock::path`]) with at least `min_cards` of them.
pub(crate) fn cards(
    page: &ExtractedPage,
    min_cards: usize,
    is_header: &dyn Fn(&TextBlock) -> bool,
) -> Vec<Card> {
    let blocks = &page.blocks;
    let mut by_place: FxHashMap<u64, Vec<Card>> = FxHashMap::default();
    for (header, pair) in blocks.windows(2).enumerate() {
        let (first, text) = (&pair[0], &pair[1]);
        if text.link_density() > TEXT_LINK_DENSITY
            || text.words == 0
            || text.words > TEXT_MAX_WORDS
            || !is_header(first)
        {
            continue;
        }
        let Some(card) = common_element(page, first, text) else {
            continue;
        };
        // The card's element holds no more than a card: a definition list or an article
        // whose heading links somewhere holds many blocks.
        let from = header.saturating_sub(MAX_CARD_BLOCKS);
        let to = (header + 1 + MAX_CARD_BLOCKS).min(blocks.len());
        let held = blocks[from..to]
            .iter()
            .filter(|block| page.is_inside(block, card))
            .count();
        if held <= MAX_CARD_BLOCKS {
            by_place.entry(text.path).or_default().push(Card {
                header,
                text: header + 1,
            });
        }
    }
    let mut found: Vec<Card> = by_place
        .into_values()
        .filter(|cards| cards.len() >= min_cards)
        .flatten()
        .collect();
    found.sort_unstable_by_key(|card| card.header);
    found
}

/// The innermost element holding both blocks, if any.
pub(crate) fn common_element(page: &ExtractedPage, a: &TextBlock, b: &TextBlock) -> Option<u32> {
    let mut element = b.parent;
    while element != NO_ELEMENT {
        if page.is_inside(a, element) {
            return Some(element);
        }
        element = page
            .element_parents
            .get(element as usize)
            .copied()
            .unwrap_or(NO_ELEMENT);
    }
    None
}
