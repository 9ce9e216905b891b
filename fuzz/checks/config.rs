//! Crawl configuration: TOML parsing, validation and everything derived from it before a crawl.
//!
//! The check of one input, shared by the fuzz target `fuzz_targets/config.rs` and the corpus
//! replay test (crates/crawler/tests/fuzz_corpus.rs).

use dedupcrawl_crawler::CrawlConfig;

/// One input: panics (a failed check) when the code under test misbehaves on it.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(config) = CrawlConfig::from_toml_str(text) else {
        return;
    };
    // What the engine does with a loaded config before the first fetch.
    if config.validate().is_err() {
        return;
    }
    let Ok(sites) = config.sites() else {
        return;
    };
    let _ = config.fetch_config();
    let _ = config.politeness(&sites);
    let _ = config.index_dedup_settings(&sites);
}
