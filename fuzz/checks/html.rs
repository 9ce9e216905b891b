//! HTML → text blocks, links and token views (textprep), and the crawler's link resolution:
//! what every fetched page goes through. The page-level main-content extractor has its own
//! target (`html_main_content`): it is ~100× slower per input and would starve this one.
//!
//! The check of one input, shared by the fuzz target `fuzz_targets/html.rs` and the corpus
//! replay test (crates/crawler/tests/fuzz_corpus.rs).

use dedupcrawl_frontier::{CanonicalUrl, CanonicalizationRules};
use dedupcrawl_textprep::{TextPrep, TextPrepConfig, View};
use std::sync::LazyLock;
use url::Url;

/// Built once: its stop-word lists and stemmers are set up per process in the crawler too.
static PREP: LazyLock<TextPrep> = LazyLock::new(|| {
    TextPrep::new(TextPrepConfig {
        max_links: Some(1_000),
        ..TextPrepConfig::default()
    })
});

/// One input: panics (a failed check) when the code under test misbehaves on it.
pub fn check(data: &[u8]) {
    let html = String::from_utf8_lossy(data);
    let prep = &*PREP;
    let page = prep.prepare(&html);
    let blocks = page.extracted.blocks.len();
    for link in &page.extracted.links {
        assert!(
            link.block as usize <= blocks,
            "a link points past the blocks"
        );
    }
    for view in [View::MainContent, View::FullPage] {
        let _ = prep.token_hashes(&page, view, &|_| false);
        let _ = prep.view_text(&page, view, &|fingerprint| fingerprint % 2 == 0);
    }
    // Links resolved as the crawler does: against <base href> when it parses, else the page.
    let page_url = Url::parse("https://example.org/dir/page.html").expect("a valid constant");
    let base = page
        .extracted
        .base_href
        .as_deref()
        .and_then(|href| page_url.join(href).ok())
        .unwrap_or(page_url);
    let rules = CanonicalizationRules::default();
    for link in &page.extracted.links {
        if let Ok(target) = CanonicalUrl::parse(&link.href, Some(&base), &rules) {
            let again = CanonicalUrl::parse(target.as_str(), None, &rules)
                .expect("a canonical URL parses again");
            assert_eq!(
                again.as_str(),
                target.as_str(),
                "canonical form is not idempotent"
            );
        }
    }
}
