//! Reader comments: cards ([`crate::cards`]) whose header is a dateline — a name and a date,
//! "2 days ago" — two or more at one place of a page.
//!
//! The comments under an article are not the article: a copy of it on another site, or the
//! same article a day later, has other comments or none. The dedup leaves them out of an
//! article's compared text (`dedupcrawl-pipeline`); a page that is mostly comments (a forum
//! thread) keeps them.
//!
//! ```
//! use dedupcrawl_textprep::{comment_blocks, extract};
//!
//! let comment = |who: &str, day: u32, text: &str| format!(
//!     "<li><div class=meta>{who} · 2025-08-{day:02}</div><div class=body>{text}</div></li>");
//! let html = format!(
//!     "<article><p>The article.</p></article><ol>{}{}</ol>",
//!     comment("Ann Lee", 17, "Great piece, thanks."),
//!     comment("Bo Park", 18, "I disagree with the second point."));
//! let page = extract(&html);
//! let comments = comment_blocks(&page);
//! assert_eq!(comments, [false, true, true, true, true]);
//! ```

use crate::extract::{ExtractedPage, TextBlock};

/// Comments at one place of a page that make a comment section.
const MIN_COMMENTS: usize = 2;
/// A dateline has at most this many words.
const DATELINE_MAX_WORDS: u32 = 10;

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// For each block of `page`, whether it belongs to a reader comment (its dateline or text).
pub fn comment_blocks(page: &ExtractedPage) -> Vec<bool> {
    let mut comments = vec![false; page.blocks.len()];
    for card in crate::cards::cards(page, MIN_COMMENTS, &is_dateline) {
        comments[card.header] = true;
        comments[card.text] = true;
    }
    comments
}

/// A short line with a date or an age in it: a year (1990–2099), a month's name beside a
/// number, or "ago".
fn is_dateline(block: &TextBlock) -> bool {
    if block.words == 0 || block.words > DATELINE_MAX_WORDS {
        return false;
    }
    // One pass, no allocation: this runs on most short blocks of every page.
    let (mut year, mut ago, mut month, mut number) = (false, false, false, false);
    for word in block.text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        if word.bytes().all(|b| b.is_ascii_digit()) {
            number = true;
            year |= word.len() == 4 && word.parse::<u32>().is_ok_and(|y| (1990..2100).contains(&y));
        } else if word.eq_ignore_ascii_case("ago") {
            ago = true;
        } else if word.len() <= 9 {
            month |= word
                .get(..3)
                .is_some_and(|start| MONTHS.iter().any(|m| start.eq_ignore_ascii_case(m)));
        }
    }
    year || ago || (month && number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::BlockKind;

    #[test]
    fn datelines_have_a_date_or_an_age() {
        for text in [
            "Lionel Castellano · 2025-08-17",
            "Ann, 3 May",
            "posted 2 hours ago",
            "March 4, 2024 at 10:12",
        ] {
            assert!(
                is_dateline(&TextBlock::new(text, BlockKind::Other)),
                "{text}"
            );
        }
        for text in [
            "impl From<u8> for u32",
            "pub fn len(&self) -> usize",
            "Mayhem in 12 acts and a very long title that goes on",
        ] {
            assert!(
                !is_dateline(&TextBlock::new(text, BlockKind::Other)),
                "{text}"
            );
        }
    }
}
