//! What the compared text leaves out of an article's main content: teasers, comments and
//! labelled ads (see [`inserts_left_out`]).

/// What sits in an article's main content without being it — the captions of a "trending"
/// box's teasers, reader comments, labelled advertisements ([`dedupcrawl_textprep`]'s
/// `teaser_blocks`, `comment_blocks`, `ad_blocks`) — among the main-content blocks
/// (`in_main`): per block, left out of the compared text. All of them when the rest of the
/// main content has at least their words (a majority), none on a page that is mostly such
/// blocks (a listing's teasers, a forum thread's comments are what it is).
pub(crate) fn inserts_left_out(
    page: &dedupcrawl_textprep::ExtractedPage,
    in_main: &[bool],
) -> Vec<bool> {
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
        return vec![false; page.blocks.len()];
    }
    left_out
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

    fn left_out_words(html: &str) -> (u32, u32) {
        let page = dedupcrawl_textprep::extract(html);
        let in_main = vec![true; page.blocks.len()];
        let left_out = inserts_left_out(&page, &in_main);
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
