//! robots.txt (RFC 9309) parsing and matching.
//!
//! The check of one input, shared by the fuzz target `fuzz_targets/robots.rs` and the corpus
//! replay test (crates/crawler/tests/fuzz_corpus.rs).

use dedupcrawl_frontier::{RobotsConfig, RobotsPolicy};

/// One input: panics (a failed check) when the code under test misbehaves on it.
pub fn check(data: &[u8]) {
    let config = RobotsConfig::default();
    let policy = RobotsPolicy::from_fetch_with(200, data, "dedupcrawl", &config);
    let _ = policy.crawl_delay();
    let _ = policy.sitemaps();
    let _ = policy.was_truncated();
    // Paths taken from the input itself, so rules and the paths they match meet.
    let text = String::from_utf8_lossy(data);
    for line in text.lines().take(64) {
        let path = line.split_once(':').map_or(line, |(_, value)| value).trim();
        let _ = policy.allows_path(path);
        let _ = policy.allows_path(&format!("/{path}"));
    }
    let _ = policy.allows_path("/");
}
