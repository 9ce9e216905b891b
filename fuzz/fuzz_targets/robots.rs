//! robots.txt (RFC 9309) parsing and matching.
#![no_main]

#[path = "../checks/robots.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check(data);
});
