//! The text a soft-404 check compares, and the rule that tells a soft 404 from a real page of
//! the same template.
//!
//! A page is reduced to its blocks (every visible block, not only main content: a not-found
//! page often has no content block at all) as normalized token hashes, leaving out the words
//! of its own URL and every token with a digit: a not-found page echoes the requested path
//! and often a time or a request id, which differ between the probe and the page.
//!
//! The rule: the page resembles the probe answer (word 3-shingle resemblance at least
//! `crawl.soft_404_resemblance`) **and** has no substantial block ([`NOVEL_BLOCK_WORDS`]
//! words or more) that the probe answer lacks (less than [`NOVEL_BLOCK_CONTAINMENT`] of the
//! block's shingles in the probe answer). The second half is what keeps a heavy-template
//! shop's products: thousands of template words make their whole-page resemblance with a
//! not-found page of the same template high, but each has its own 30-80-word description.

use std::collections::HashSet;

use dedupcrawl_sketch::{containment, jaccard, shingle_set};
use dedupcrawl_textprep::{PreparedPage, TextPrep, View, hash_token};

/// Words per shingle.
const SHINGLE_WORDS: usize = 3;
/// A block of at least this many words is substantial: a page with one the probe answer lacks
/// is a page of its own (a product description, an article), not a not-found page.
pub(crate) const NOVEL_BLOCK_WORDS: u32 = 20;
/// A block is one the probe answer lacks when less than this share of its shingles is in the
/// probe answer (a not-found sentence that echoes the path keeps most of its shingles).
pub(crate) const NOVEL_BLOCK_CONTAINMENT: f64 = 0.5;

/// One block of a page: its whitespace words and its kept token hashes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MaskedBlock {
    pub(crate) words: u32,
    pub(crate) tokens: Vec<u64>,
}

/// The hashes of the normalized words of a URL's path and query (what a not-found page
/// echoes).
pub(crate) fn url_words(prep: &TextPrep, page: &PreparedPage, url: &url::Url) -> HashSet<u64> {
    let mut text = url.path().to_string();
    if let Some(query) = url.query() {
        text.push(' ');
        text.push_str(query);
    }
    prep.normalizer()
        .tokens(&text, page.language)
        .iter()
        .map(|token| hash_token(token))
        .collect()
}

/// Every visible block of `page` as [`MaskedBlock`]s, the tokens whose hash is in `masked`
/// and the tokens with a digit left out.
pub(crate) fn masked_blocks(
    prep: &TextPrep,
    page: &PreparedPage,
    masked: &HashSet<u64>,
) -> Vec<MaskedBlock> {
    prep.view_blocks(page, View::FullPage, &|_| false)
        .map(|block| MaskedBlock {
            words: block.words,
            tokens: prep
                .normalizer()
                .tokens(&block.text, page.language)
                .iter()
                .filter(|token| !token.chars().any(|c| c.is_ascii_digit()))
                .map(|token| hash_token(token))
                .filter(|hash| !masked.contains(hash))
                .collect(),
        })
        .collect()
}

/// How a page compares with one probe answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Comparison {
    /// Word 3-shingle resemblance of the two (masked) texts.
    pub(crate) resemblance: f64,
    /// Words of the largest substantial block of the page the probe answer lacks, if any.
    pub(crate) novel_block_words: Option<u32>,
}

impl Comparison {
    /// Whether the page is a soft 404 by this comparison.
    pub(crate) fn is_soft_404(&self, min_resemblance: f64) -> bool {
        self.resemblance >= min_resemblance && self.novel_block_words.is_none()
    }
}

/// Compares a page's blocks with a probe answer's. `page_url_words` are also left out of the
/// probe answer, so that a word of the page's path that the template uses too counts the same
/// on both sides. `None` when either text is empty: an empty page says nothing.
pub(crate) fn compare(
    page: &[MaskedBlock],
    probe: &[Vec<u64>],
    page_url_words: &HashSet<u64>,
) -> Option<Comparison> {
    let page_tokens: Vec<u64> = page.iter().flat_map(|b| b.tokens.iter().copied()).collect();
    let probe_tokens: Vec<u64> = probe
        .iter()
        .flatten()
        .copied()
        .filter(|hash| !page_url_words.contains(hash))
        .collect();
    if page_tokens.is_empty() || probe_tokens.is_empty() {
        return None;
    }
    let page_shingles = shingle_set(&page_tokens, SHINGLE_WORDS);
    let probe_shingles = shingle_set(&probe_tokens, SHINGLE_WORDS);
    let novel_block_words = page
        .iter()
        .filter(|block| block.words >= NOVEL_BLOCK_WORDS && !block.tokens.is_empty())
        .filter(|block| {
            containment(&shingle_set(&block.tokens, SHINGLE_WORDS), &probe_shingles)
                < NOVEL_BLOCK_CONTAINMENT
        })
        .map(|block| block.words)
        .max();
    Some(Comparison {
        resemblance: jaccard(&page_shingles, &probe_shingles),
        novel_block_words,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(main: &str) -> String {
        let chrome = "<header><nav><a href=/>Home</a> <a href=/shop>Shop</a></nav></header>";
        // Heavy template: 300 distinct made-up words of shared prose.
        let word = |n: usize| {
            let letter = |k: usize| char::from(b'a' + (k % 26) as u8);
            format!("vo{}{}{}", letter(n / 676), letter(n / 26), letter(n))
        };
        let policy: String = (0..20)
            .map(|i| {
                let sentence: Vec<String> = (0..15).map(|j| word(i * 15 + j)).collect();
                format!("<p>{}.</p>", sentence.join(" "))
            })
            .collect();
        format!(
            "<html lang=en><body>{chrome}<main>{main}{policy}</main>\
             <footer><p>Tallow and Twine, makers of small useful things.</p></footer></body></html>"
        )
    }

    fn not_found(path: &str, time: &str) -> String {
        template(&format!(
            "<h1>Page not found</h1><p>Sorry, the page {path} you asked for could not be found \
             on this shop; check the address or go back to the catalogue and search for the \
             product you wanted.</p><p>Generated {time}</p>"
        ))
    }

    fn blocks_of(html: &str, url: &str) -> (Vec<MaskedBlock>, HashSet<u64>) {
        let prep = TextPrep::default();
        let page = prep.prepare(html);
        let url = url::Url::parse(url).unwrap();
        let words = url_words(&prep, &page, &url);
        (masked_blocks(&prep, &page, &words), words)
    }

    fn compare_pages(page: (&str, &str), probe: (&str, &str)) -> Comparison {
        let (page_blocks, page_words) = blocks_of(page.0, page.1);
        let (probe_blocks, _) = blocks_of(probe.0, probe.1);
        let probe: Vec<Vec<u64>> = probe_blocks.into_iter().map(|b| b.tokens).collect();
        compare(&page_blocks, &probe, &page_words).unwrap()
    }

    const PROBE: &str = "http://shop.example/3fa9c0e17b2d4c5a8e9f0a1b";

    #[test]
    fn a_not_found_page_echoing_another_path_and_time_is_a_soft_404() {
        let probe = not_found("/3fa9c0e17b2d4c5a8e9f0a1b", "2026-11-25T16:05:51Z");
        let page = not_found("/discontinued/lantern-wick", "2026-11-25T16:07:02Z");
        let comparison = compare_pages(
            (&page, "http://shop.example/discontinued/lantern-wick"),
            (&probe, PROBE),
        );
        assert_eq!(comparison.novel_block_words, None);
        assert!(comparison.resemblance > 0.99, "{comparison:?}");
        assert!(comparison.is_soft_404(0.9));
    }

    #[test]
    fn a_product_of_the_same_template_with_its_own_description_is_not() {
        let probe = not_found("/3fa9c0e17b2d4c5a8e9f0a1b", "2026-11-25T16:05:51Z");
        let product = template(
            "<h1>Beeswax lantern</h1><p>A small lantern of pressed copper that holds one \
             beeswax candle, hangs from a hook or stands on a shelf, and throws a warm \
             patterned light across a room; the glass chimney lifts off for cleaning.</p>",
        );
        let comparison =
            compare_pages((&product, "http://shop.example/product/7"), (&probe, PROBE));
        assert!(
            comparison.resemblance > 0.7,
            "template-heavy: {comparison:?}"
        );
        assert!(comparison.novel_block_words.is_some(), "{comparison:?}");
        assert!(!comparison.is_soft_404(0.7));
    }

    #[test]
    fn a_different_page_does_not_resemble() {
        let probe = not_found("/3fa9c0e17b2d4c5a8e9f0a1b", "2026-11-25T16:05:51Z");
        let listing = "<html><body><ul><li><a href=/a>Lantern</a></li><li><a href=/b>Wick \
                       trimmer</a></li></ul></body></html>";
        let comparison = compare_pages((listing, "http://shop.example/"), (&probe, PROBE));
        assert!(comparison.resemblance < 0.2, "{comparison:?}");
        assert!(!comparison.is_soft_404(0.9));
    }

    #[test]
    fn empty_text_is_never_compared() {
        let (empty, words) = blocks_of("<html><body></body></html>", "http://a.example/x");
        assert_eq!(compare(&empty, &[vec![1, 2, 3]], &words), None);
    }
}
