//! Sitemap XML, text and gzip sitemaps.
//!
//! The check of one input, shared by the fuzz target `fuzz_targets/sitemap.rs` and the corpus
//! replay test (crates/crawler/tests/fuzz_corpus.rs).

use dedupcrawl_frontier::{SitemapLimits, parse_sitemap_with};

/// One input: panics (a failed check) when the code under test misbehaves on it.
pub fn check(data: &[u8]) {
    // Small limits so the limit paths (too many URLs, too many bytes, gzip over the limit)
    // are reached by small inputs too.
    for limits in [
        SitemapLimits {
            max_urls: 50_000,
            max_bytes: 4 * 1024 * 1024,
        },
        SitemapLimits {
            max_urls: 3,
            max_bytes: 512,
        },
    ] {
        if let Ok(sitemap) = parse_sitemap_with(data, &limits) {
            assert!(sitemap.urls.len() <= limits.max_urls);
            assert!(sitemap.sitemaps.len() <= limits.max_urls);
        }
    }
}
