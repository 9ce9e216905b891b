//! URL canonicalization: canon(canon(u)) == canon(u), absolute and relative to a base, under
//! the default rules and under none.
#![no_main]

#[path = "../checks/canonical_url.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check(data);
});
