//! Crawl configuration: TOML parsing, validation and everything derived from it before a crawl.
#![no_main]

#[path = "../checks/config.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check(data);
});
