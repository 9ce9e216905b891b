//! HTML → text blocks, links and token views (textprep), and the crawler's link resolution:
//! what every fetched page goes through. The page-level main-content extractor has its own
//! target (`html_main_content`): it is ~100× slower per input and would starve this one.
#![no_main]

#[path = "../checks/html.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check(data);
});
