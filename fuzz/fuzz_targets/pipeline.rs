//! The whole dedup stage on a run of pages of one host, as a crawl meets them: extraction, the
//! host's model and template counts, the card-box and insert rules, the fingerprint and the
//! decision against a real sled index. The input is up to 8 pages separated by NUL bytes; each
//! run is a new host, checked three rounds over (the host's template is known from its third
//! page on), the later rounds with the very same bytes.
#![no_main]

#[path = "../checks/pipeline.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check(data);
});
