//! Sitemap XML, text and gzip sitemaps.
#![no_main]

use dedupcrawl_frontier::{SitemapLimits, parse_sitemap_with};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
