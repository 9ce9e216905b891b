//! The WARC reader (plain and gzip, any member layout) and what is read from its records.
#![no_main]

#[path = "../checks/warc_reader.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check(data);
});
