//! The page-level main-content decision (rs-trafilatura's verdict mapped onto our blocks), as
//! `extract`, `compare` and `export --view main` and a host's first pages in a crawl use it.
//!
//! The check of one input, shared by the fuzz target `fuzz_targets/html_main_content.rs` and the corpus
//! replay test (crates/crawler/tests/fuzz_corpus.rs).

use dedupcrawl_textprep::{TextPrep, TextPrepConfig, View};
use std::sync::LazyLock;

static PREP: LazyLock<TextPrep> = LazyLock::new(|| TextPrep::new(TextPrepConfig::default()));

/// One input: panics (a failed check) when the code under test misbehaves on it.
pub fn check(data: &[u8]) {
    let html = String::from_utf8_lossy(data);
    let prep = &*PREP;
    let page = prep.prepare_alone(&html, Some("https://example.org/dir/page.html"));
    let content = page
        .content
        .as_ref()
        .expect("prepare_alone decides the main content");
    assert_eq!(
        content.mask.len(),
        page.extracted.blocks.len(),
        "one main-content flag per block"
    );
    let _ = prep.token_hashes(&page, View::MainContent, &|_| false);
}
