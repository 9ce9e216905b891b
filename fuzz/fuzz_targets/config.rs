//! Crawl configuration: TOML parsing, validation and everything derived from it before a crawl.
#![no_main]

use dedupcrawl_crawler::CrawlConfig;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
