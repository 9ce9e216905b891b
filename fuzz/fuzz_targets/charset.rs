//! Charset detection and decoding: BOM, Content-Type charset, `<meta>` prescan.
#![no_main]

#[path = "../checks/charset.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check(data);
});
