//! The page-level main-content decision (rs-trafilatura's verdict mapped onto our blocks), as
//! `extract`, `compare` and `export --view main` and a host's first pages in a crawl use it.
#![no_main]

#[path = "../checks/html_main_content.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check(data);
});
