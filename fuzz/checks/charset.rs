//! Charset detection and decoding: BOM, Content-Type charset, `<meta>` prescan.
//!
//! The check of one input, shared by the fuzz target `fuzz_targets/charset.rs` and the corpus
//! replay test (crates/crawler/tests/fuzz_corpus.rs).

use dedupcrawl_fetch::charset::{charset_from_content_type, prescan_meta_charset};
use dedupcrawl_fetch::decode_bytes;

/// One input: panics (a failed check) when the code under test misbehaves on it.
pub fn check(data: &[u8]) {
    // First line: a Content-Type value; the rest: the body.
    let (content_type, body) = match data.iter().position(|&b| b == b'\n') {
        Some(newline) => (Some(&data[..newline]), &data[newline + 1..]),
        None => (None, data),
    };
    for is_html in [true, false] {
        let _ = decode_bytes(body, content_type, is_html);
    }
    let _ = decode_bytes(data, None, true);
    if let Some(content_type) = content_type {
        let _ = charset_from_content_type(content_type);
    }
    let _ = prescan_meta_charset(body);
}
