//! What the compared text leaves out of an article's main content: teasers, comments,
//! labelled ads, and the headlines of a per-request card box (see [`inserts_left_out`]).

/// What sits in an article's main content without being the article — the teasers of a
/// "trending" box, reader comments, labelled advertisements ([`dedupcrawl_textprep`]'s
/// `teaser_blocks`, `comment_blocks`, `ad_blocks`) — among the main-content blocks
/// (`in_main`), left out of the compared text: all of them when the rest of the main content
/// has at least their words (a majority), none on a page that is mostly
/// such blocks (a listing's teasers, a forum thread's comments are what it is). The teasers'
/// linked titles are marked to go with them, which the caller decides once it knows the
/// host's template.
pub(crate) fn inserts_left_out(
    page: &dedupcrawl_textprep::ExtractedPage,
    in_main: &[bool],
) -> Inserts {
    use dedupcrawl_textprep::TeaserPart;
    let teasers = dedupcrawl_textprep::teaser_blocks(page);
    let comments = dedupcrawl_textprep::comment_blocks(page);
    let ads = dedupcrawl_textprep::ad_blocks(page);
    let mut left_out = vec![false; page.blocks.len()];
    let (mut insert_words, mut other_words) = (0u64, 0u64);
    for (index, block) in page.blocks.iter().enumerate() {
        if !in_main[index] {
            continue;
        }
        left_out[index] =
            teasers[index] == Some(TeaserPart::Caption) || comments[index] || ads[index];
        if left_out[index] {
            insert_words += u64::from(block.words);
        } else {
            other_words += u64::from(block.words);
        }
    }
    if other_words < insert_words {
        return Inserts {
            left_out: vec![false; page.blocks.len()],
            card_titles: vec![false; page.blocks.len()],
            words: 0,
        };
    }
    let card_titles = page
        .blocks
        .iter()
        .enumerate()
        .map(|(index, block)| {
            in_main[index]
                && teasers[index] == Some(TeaserPart::Title)
                && block.words >= HEADLINE_WORDS
        })
        .collect();
    Inserts {
        left_out,
        card_titles,
        words: insert_words,
    }
}

/// Words of a card title that is a headline (another page's title: "Top 10: Trends in Cloud
/// Computing"), which may leave the compared text with its caption. A title of one or two
/// words beside a caption is a name — an API item, a grammar rule, rustdoc's "Source" link —
/// and such lists are what a reference page is: a one-page edition that dropped them would
/// no longer hold its chapters block for block.
const HEADLINE_WORDS: u32 = 3;

/// Boxes of cards an article may carry ("Related", "Trending now") whose titles leave its
/// compared text. A page with its cards in more places is made of them: a language
/// reference's one-page edition shows a grammar rule (a linked line and its caption) in
/// dozens of places, and its chapters must still find their blocks side by side in it.
pub(crate) const MAX_CARD_BOXES: usize = 2;

/// Blocks between two cards of one box (a card is its title, its caption and perhaps a
/// date line).
const CARD_SPAN: usize = 3;

/// In how many boxes the card titles at these block indexes (ascending) sit: runs of titles at
/// most [`CARD_SPAN`] blocks apart.
pub(crate) fn card_boxes(titles: &[usize]) -> usize {
    match titles.first() {
        None => 0,
        Some(_) => {
            1 + titles
                .windows(2)
                .filter(|w| w[1] - w[0] > CARD_SPAN)
                .count()
        }
    }
}

/// The blocks [`inserts_left_out`] takes out of a page's compared text.
#[derive(Default)]
pub(crate) struct Inserts {
    /// Per block of the page: left out (the inserts; their links stay, as the cards' titles
    /// do until the host's template is known and the article outweighs its card box).
    pub(crate) left_out: Vec<bool>,
    /// Per block: the linked title of a card whose caption is left out, when it is a headline
    /// ([`HEADLINE_WORDS`]).
    pub(crate) card_titles: Vec<bool>,
    /// Words of the blocks left out.
    pub(crate) words: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An article of `article_words` words in paragraphs of ten, then reader comments: a
    /// dateline and a comment of `comment_words` words each.
    fn article_with_comments(
        article_words: usize,
        comments: usize,
        comment_words: usize,
    ) -> String {
        let words = |n: usize, word: &str| vec![word; n].join(" ");
        let mut html = String::from("<main><article>");
        for _ in 0..article_words / 10 {
            html.push_str(&format!("<p>{}.</p>", words(10, "story")));
        }
        html.push_str("</article><section>");
        for day in 0..comments {
            html.push_str(&format!(
                "<div><h6>Ann Lee · August {}, 2024</h6><p>{}.</p></div>",
                day + 1,
                words(comment_words, "reply")
            ));
        }
        html.push_str("</section></main>");
        html
    }

    #[test]
    fn card_titles_in_one_run_are_one_box_and_apart_are_several() {
        // A card is a title and a caption, maybe a date: titles 2-3 blocks apart.
        assert_eq!(card_boxes(&[]), 0);
        assert_eq!(card_boxes(&[10, 12, 15, 17]), 1);
        assert_eq!(card_boxes(&[10, 12, 14, 40, 42, 44]), 2);
        // A manual's grammar rules between its paragraphs: a box per chapter, too many for an
        // article's boxes.
        assert_eq!(card_boxes(&[5, 7, 20, 22, 35, 37]), 3);
        assert!(card_boxes(&[5, 7, 20, 22, 35, 37]) > MAX_CARD_BOXES);
    }

    fn left_out_words(html: &str) -> (u32, u32) {
        let page = dedupcrawl_textprep::extract(html);
        let in_main = vec![true; page.blocks.len()];
        let left_out = inserts_left_out(&page, &in_main).left_out;
        let mut out = (0, 0);
        for (block, left) in page.blocks.iter().zip(left_out) {
            if left {
                out.0 += block.words;
            } else {
                out.1 += block.words;
            }
        }
        out
    }

    #[test]
    fn comments_are_left_out_of_an_article_that_outweighs_them_and_kept_on_a_thread() {
        // Article 150 words, comments 4 × (a dateline of about 6 words + 25) = about 124: a
        // majority of article, but less than twice the comments.
        let (left, kept) = left_out_words(&article_with_comments(150, 4, 25));
        assert_eq!(kept, 150, "only the article is compared");
        assert!(
            (100..150).contains(&left),
            "comments left out: {left} words"
        );
        // A thread: a short first post under many replies keeps every block.
        let (left, kept) = left_out_words(&article_with_comments(30, 6, 25));
        assert_eq!(left, 0, "a thread's replies are what it is");
        assert!(kept > 6 * 25 + 30);
    }
}
