//! Sitemap XML, text and gzip sitemaps.
#![no_main]

#[path = "../checks/sitemap.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check(data);
});
