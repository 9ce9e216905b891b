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

/// A block that starts with a label in capitals ("ADVERTISEMENT Buy…"): a label set in the
/// same line as its text.
fn labelled_inline(block: &TextBlock) -> bool {
    let Some((first, rest)) = block.text.split_once(' ') else {
        return false;
    };
    block.words <= MAX_AD_WORDS
        && !rest.is_empty()
        && first.len() >= 8
        && first.chars().all(|c| c.is_uppercase())
        && is_label(first)
}

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
    }
}
