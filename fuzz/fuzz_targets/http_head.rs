//! The HTTP head parser of stored blocks (status/request line, header fields, folding) and
//! chunked-body decoding.
#![no_main]

#[path = "../checks/http_head.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check::check(data);
});
