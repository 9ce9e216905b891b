//! Advertisements inside a page's text, found by the label that marks them ("Advertisement",
//! "Sponsored", "Anzeige"): the label and the text beside it in the smallest element holding
//! both, when that element holds no more than an advertisement.
//!
//! Sites fill such slots per request, so two fetches of one article differ by them. Class
//! names do not help on their own (`alert-secondary`, obfuscated names), while the label is
//! what readers are shown (and in many countries what the law asks for).
//!
//! ```
//! use dedupcrawl_textprep::{ad_blocks, extract};
//!
//! let html = "<article><p>First paragraph.</p>\
//!     <div class=x><div>Advertisement</div>Buy the best shoes today.</div>\
//!     <p>Second paragraph.</p></article>";
//! let page = extract(html);
//! assert_eq!(ad_blocks(&page), [false, true, true, false]);
//! ```

use crate::extract::{ExtractedPage, TextBlock};

/// Labels of advertisements, lowercase.
const LABELS: [&str; 14] = [
    "advertisement",
    "advertisements",
    "advertising",
    "ad",
    "sponsored",
    "sponsored content",
    "promoted",
    "paid content",
    "anzeige",
    "werbung",
    "publicité",
    "publicidad",
    "pubblicità",
    "reklama",
];
/// Blocks an advertisement's element holds at most (label, text, a link line).
const MAX_AD_BLOCKS: usize = 3;
/// An advertisement's text has at most this many words.
const MAX_AD_WORDS: u32 = 80;

/// For each block of `page`, whether it is an advertisement or its label.
pub fn ad_blocks(page: &ExtractedPage) -> Vec<bool> {
    let blocks = &page.blocks;
    let mut ads = vec![false; blocks.len()];
    for (index, block) in blocks.iter().enumerate() {
        if labelled_inline(block) {
            ads[index] = true;
            continue;
        }
        if !is_label(&block.text) {
            continue;
        }
        let Some(next) = blocks.get(index + 1) else {
            continue;
        };
        if next.words > MAX_AD_WORDS {
            continue;
        }
        let Some(slot) = crate::cards::common_element(page, block, next) else {
            continue;
        };
        // The slot holds the label first and no more than an advertisement.
        let held: Vec<usize> = crate::cards::held_near(page, slot, index, MAX_AD_BLOCKS).collect();
        if held.len() <= MAX_AD_BLOCKS && held.first() == Some(&index) {
            for i in held {
                ads[i] = true;
            }
        }
    }
    ads
}

fn is_label(text: &str) -> bool {
    let text = text.trim().trim_end_matches(':').trim();
    text.len() <= 20 && LABELS.iter().any(|label| text.eq_ignore_ascii_case(label))
}

/// A block that starts with a label in capitals ("ADVERTISEMENT Buy…"), or with a label glued
/// to the advertisement's first word ("AdvertisementBuy…"): a label set in the same line as
/// its text, or in an inline element of its own (`<span>Advertisement</span>Buy…`, which the
/// site's stylesheet sets apart and the text does not).
fn labelled_inline(block: &TextBlock) -> bool {
    if block.words > MAX_AD_WORDS {
        return false;
    }
    if glued_label(&block.text) {
        return true;
    }
    let Some((first, rest)) = block.text.split_once(' ') else {
        return false;
    };
    !rest.is_empty()
        && first.len() >= 8
        && first.chars().all(|c| c.is_uppercase())
        && is_label(first)
}

/// Whether `text` starts with a label of 8 characters or more followed at once by a capital
/// letter or a dash, bar, middle dot or bullet ("Advertisement- Even…", from
/// `<span>Advertisement</span>- Even…`). Prose does not glue a word to the next one; short
/// labels ("Ad") are left out, as words begin with them ("AdBlock"); a comma or a full stop
/// after the label is prose ("Advertisement, in the modern sense, …").
fn glued_label(text: &str) -> bool {
    LABELS
        .iter()
        .filter(|label| label.chars().count() >= 8)
        .any(|label| {
            text.get(..label.len())
                .is_some_and(|start| start.eq_ignore_ascii_case(label))
                && text[label.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_uppercase() || GLUE.contains(&c))
        })
}

/// Marks that set a label apart from the text glued to it.
const GLUE: [char; 6] = ['-', '\u{2013}', '\u{2014}', '|', '\u{b7}', '\u{2022}'];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract;

    #[test]
    fn a_section_titled_advertising_and_prose_starting_with_it_are_not_ads() {
        // "Advertising" as a heading of a section with more than an ad's blocks.
        let html = "<section><h2>Advertising</h2><p>One.</p><p>Two.</p><p>Three.</p></section>";
        assert_eq!(ad_blocks(&extract(html)), [false; 4]);
        let inline = "<p>ADVERTISEMENT Buy shoes.</p><p>Advertising is old.</p>";
        assert_eq!(ad_blocks(&extract(inline)), [true, false]);
        // A label glued to its text by a dash is an ad; by a comma, prose.
        let glued = "<p><span>Advertisement</span>- Buy shoes.</p>\
                     <p>Advertisement, in the modern sense, is old.</p>";
        assert_eq!(ad_blocks(&extract(glued)), [true, false]);
    }

    #[test]
    fn a_label_in_an_inline_element_of_its_own_marks_an_ad() {
        let html = "<p>First paragraph of the article.</p>\
            <div class=x><span class=y>Advertisement</span>Buy the best shoes today.</div>\
            <div><span>SPONSORED</span>Cheap flights to anywhere.</div>\
            <p>AdBlock Plus is a browser extension.</p>\
            <p>Advertisementsare glued in this typo.</p>";
        let page = extract(html);
        assert_eq!(
            page.blocks[1].text,
            "AdvertisementBuy the best shoes today."
        );
        assert_eq!(ad_blocks(&page), [false, true, true, false, false]);
    }
}
