//! robots.txt (RFC 9309) parsing and matching.
#![no_main]

use dedupcrawl_frontier::{RobotsConfig, RobotsPolicy};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
