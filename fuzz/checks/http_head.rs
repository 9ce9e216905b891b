//! The HTTP head parser of stored blocks (status/request line, header fields, folding) and
//! chunked-body decoding.
//!
//! The check of one input, shared by the fuzz target `fuzz_targets/http_head.rs` and the corpus
//! replay test (crates/crawler/tests/fuzz_corpus.rs).

use dedupcrawl_archive::{dechunk, parse_http_request, parse_http_response};

/// One input: panics (a failed check) when the code under test misbehaves on it.
pub fn check(data: &[u8]) {
    if let Ok(response) = parse_http_response(data) {
        let _ = response.header("content-type");
        if response.is_chunked() {
            let _ = response.dechunked_payload();
        }
    }
    if let Ok(request) = parse_http_request(data) {
        let _ = request.header("host");
    }
    if let Ok(body) = dechunk(data) {
        assert!(
            body.len() <= data.len(),
            "de-chunked body larger than its input"
        );
    }
}
