//! Teasers: the text of a card in a list of cards that each link to another page ("Trending
//! now", "Related articles", "You may also like") — a linked title and a sentence or two of
//! the page it links to.
//!
//! Such a box is often inside the main column, so extractors keep it, and many sites fill it
//! per request (trending, random, personalised). Its text then describes *other* pages and
//! changes from one fetch of a page to the next: two fetches of one article look like two
//! pages. The dedup leaves teasers out of an article's compared text (`dedupcrawl-pipeline`),
//! and their linked titles too once it can tell the article's words from the host's template,
//! while a page that is mostly such cards (a listing, a hub) keeps them.
//!
//! ```
//! use dedupcrawl_textprep::{TeaserPart, extract, teaser_blocks};
//!
//! let card = |n: u32| format!(
//!     r#"<div class="card"><div class="t"><a href="/a{n}">Story {n} title here</a></div>
//!        <div class="s">The first sentence of story {n}, as a teaser.</div></div>"#);
//! let html = format!(
//!     "<main><p>The article itself.</p><div class=box>{}{}{}</div></main>",
//!     card(1), card(2), card(3));
//! let page = extract(&html);
//! let teasers = teaser_blocks(&page);
//! let texts = |part| -> Vec<&str> { page.blocks.iter().zip(&teasers)
//!     .filter(|(_, t)| **t == Some(part)).map(|(b, _)| b.text.as_str()).collect() };
//! assert_eq!(texts(TeaserPart::Caption).len(), 3);
//! assert!(texts(TeaserPart::Caption)[0].starts_with("The first sentence of story 1"));
//! assert_eq!(texts(TeaserPart::Title), ["Story 1 title here", "Story 2 title here", "Story 3 title here"]);
//! ```

use crate::extract::{ExtractedPage, TextBlock};

/// A card's title: a block at least this much link text.
const TITLE_LINK_DENSITY: f32 = 0.8;
/// Cards at the same place of the page that make a list (one card is a link and a caption).
const MIN_CARDS: usize = 3;

/// A block's part in a teaser card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TeaserPart {
    /// The card's linked title.
    Title,
    /// The text under the title: the teaser itself.
    Caption,
}

/// For each block of `page`, its part in a teaser card, if it is in one: a small card is a
/// linked title and a caption, three or more such cards at one place of the page.
pub fn teaser_blocks(page: &ExtractedPage) -> Vec<Option<TeaserPart>> {
    let mut teasers = vec![None; page.blocks.len()];
    for card in crate::cards::cards(page, MIN_CARDS, &|title: &TextBlock| {
        title.link_density() >= TITLE_LINK_DENSITY
    }) {
        teasers[card.header] = Some(TeaserPart::Title);
        teasers[card.text] = Some(TeaserPart::Caption);
    }
    teasers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract;

    fn teaser_texts(html: &str) -> Vec<String> {
        let page = extract(html);
        let teasers = teaser_blocks(&page);
        page.blocks
            .iter()
            .zip(teasers)
            .filter(|(_, teaser)| *teaser == Some(TeaserPart::Caption))
            .map(|(block, _)| block.text.clone())
            .collect()
    }

    #[test]
    fn a_list_of_cards_is_teasers_and_an_article_is_not() {
        let card = |n: u32| {
            format!(
                "<li><h3><a href=\"/s{n}\">Story number {n}</a></h3><p>Teaser of story {n}.</p>\
                 <span>3 May</span></li>"
            )
        };
        let html = format!(
            "<article><h1>Title</h1><p>First paragraph of the article.</p>\
             <p>Second paragraph, <a href=\"/x\">with a link</a> inside.</p></article>\
             <ul>{}{}{}</ul>",
            card(1),
            card(2),
            card(3)
        );
        assert_eq!(
            teaser_texts(&html),
            [
                "Teaser of story 1.",
                "Teaser of story 2.",
                "Teaser of story 3."
            ]
        );
    }

    #[test]
    fn two_cards_or_a_link_followed_by_prose_are_not_a_list() {
        let two = "<div><div><a href=\"/a\">A title</a><p>Teaser a.</p></div>\
                   <div><a href=\"/b\">B title</a><p>Teaser b.</p></div></div>";
        assert!(teaser_texts(two).is_empty());
        // Links followed by paragraphs in one container (a definition list, a text with a
        // linked heading): the smallest element holding both holds more than a card.
        let list = "<dl><dt><a href=\"/a\">a</a></dt><dd>Does a.</dd><dt><a href=\"/b\">b</a></dt>\
                    <dd>Does b.</dd><dt><a href=\"/c\">c</a></dt><dd>Does c.</dd></dl>";
        assert!(teaser_texts(list).is_empty());
    }
}
