//! The page-level main-content decision (rs-trafilatura's verdict mapped onto our blocks), as
//! `extract`, `compare` and `export --view main` and a host's first pages in a crawl use it.
#![no_main]

use dedupcrawl_textprep::{TextPrep, TextPrepConfig, View};
use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;

static PREP: LazyLock<TextPrep> = LazyLock::new(|| TextPrep::new(TextPrepConfig::default()));

fuzz_target!(|data: &[u8]| {
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
});
