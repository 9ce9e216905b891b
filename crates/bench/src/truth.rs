//! The token sets the accuracy benchmark takes as truth, computed independently of the code
//! under test: the same token *definition* as the dedup (README, "How duplicates are
//! decided"), but other code for every step.
//!
//! * Text: the `full` view is the text of a `scraper` DOM walk
//!   ([`dedupcrawl_textprep::extract_text_with_dom`], the reference walk the extractor is
//!   tested against); the `main` view is rs-trafilatura's text of the page on its own, called
//!   directly (not our mapping of its verdict onto blocks, not the host models).
//! * Tokens: `unicode-segmentation` words with at least one letter, lowercased; pure numbers
//!   dropped; NLTK English stop words out and Porter2 stems for alphabetic words only
//!   (`stop-words` and `rust-stemmers` called here, not through the normalizer).
//! * Links: one token per distinct `<a href>` target outside `nav`, `header`, `footer` and
//!   `aside`, found by `scraper`, resolved against the page's path (`url`) and written as
//!   path and query, appended in sorted order.

use std::collections::BTreeSet;

use unicode_segmentation::UnicodeSegmentation;

/// Token hashes of `text` by the token definition.
pub fn tokens(text: &str) -> Vec<u64> {
    thread_local! {
        static STEMMER: rust_stemmers::Stemmer =
            rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
    }
    let stop_words: std::collections::HashSet<&str> = stop_words::lookup("en")
        .unwrap_or(&[])
        .iter()
        .copied()
        .collect();
    let mut out = Vec::new();
    for word in text.unicode_words() {
        if !word.chars().any(char::is_alphabetic) {
            continue;
        }
        let lower = word.to_lowercase().replace('\u{2019}', "'");
        let lower = lower.trim_matches('\'');
        let identifier = lower.chars().any(|c| c.is_numeric() || c == '_');
        let token = if identifier {
            lower.to_string()
        } else if stop_words.contains(lower) {
            continue;
        } else {
            STEMMER.with(|s| s.stem(lower).into_owned())
        };
        if !token.is_empty() {
            out.push(xxhash_rust::xxh3::xxh3_64(token.as_bytes()));
        }
    }
    out
}

/// Link tokens of a page at `page_path` (its path on its site, e.g. `/std/index.html`):
/// distinct targets outside the page chrome, resolved, sorted.
pub fn link_tokens(html: &str, page_path: &str) -> Vec<u64> {
    let Ok(base) = url::Url::parse("file:///").and_then(|root| root.join(page_path)) else {
        return Vec::new();
    };
    let document = scraper::Html::parse_document(html);
    let Ok(anchors) = scraper::Selector::parse("a[href]") else {
        return Vec::new();
    };
    let mut targets = BTreeSet::new();
    for anchor in document.select(&anchors) {
        let in_chrome = anchor.ancestors().any(|a| {
            a.value()
                .as_element()
                .is_some_and(|e| matches!(e.name(), "nav" | "header" | "footer" | "aside" | "menu"))
        });
        let href = anchor.value().attr("href").unwrap_or("").trim();
        let href = href.split('#').next().unwrap_or("");
        let lower = href.to_ascii_lowercase();
        if in_chrome
            || href.is_empty()
            || ["javascript:", "mailto:", "tel:"]
                .iter()
                .any(|p| lower.starts_with(p))
        {
            continue;
        }
        let Ok(target) = base.join(href) else {
            continue;
        };
        let target = match target.query() {
            Some(query) => format!("{}?{query}", target.path()),
            None => target.path().to_string(),
        };
        targets.insert(xxhash_rust::xxh3::xxh3_64(
            format!("link {target}").as_bytes(),
        ));
    }
    targets.into_iter().collect()
}

/// The `main` view's text: rs-trafilatura's, the page on its own (empty when it finds none).
pub fn main_text(html: &str) -> String {
    rs_trafilatura::extract(html)
        .map(|r| r.content_text)
        .unwrap_or_default()
}
