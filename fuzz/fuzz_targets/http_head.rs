//! The HTTP head parser of stored blocks (status/request line, header fields, folding) and
//! chunked-body decoding.
#![no_main]

use dedupcrawl_archive::{dechunk, parse_http_request, parse_http_response};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
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
});
