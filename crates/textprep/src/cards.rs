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
        if held_near(page, card, header, MAX_CARD_BLOCKS).count() <= MAX_CARD_BLOCKS {
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

/// The blocks within `span` of block `index` (either side) that sit inside `element`: enough
/// to tell whether the element holds more than `span` blocks around `index` (an element's
/// blocks are contiguous in document order).
pub(crate) fn held_near(
    page: &ExtractedPage,
    element: u32,
    index: usize,
    span: usize,
) -> impl Iterator<Item = usize> + '_ {
    let to = (index + 1 + span).min(page.blocks.len());
    (index.saturating_sub(span)..to).filter(move |&i| page.is_inside(&page.blocks[i], element))
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
