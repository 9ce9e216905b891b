//! The WARC reader (plain and gzip, any member layout) and what is read from its records.
#![no_main]

use std::io::Cursor;

use dedupcrawl_archive::{ReaderOptions, WarcReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let options = ReaderOptions {
        verify_digests: true,
        max_block_size: 1024 * 1024,
    };
    let reader = WarcReader::new(Cursor::new(data), "fuzz.warc", options);
    // Every item (good record or damaged region) consumes input, so the count is bounded by
    // the input size; more items than bytes means the reader is going round in circles.
    for (items, item) in reader.enumerate() {
        assert!(items <= data.len() + 1, "more items than input bytes");
        let Ok(record) = item else {
            continue;
        };
        let _ = record.record_type();
        let _ = record.target_uri();
        let _ = record.date();
        let _ = record.payload();
        if let Ok(response) = record.http_response() {
            let _ = response.dechunked_payload();
        }
        let _ = record.http_request();
        let _ = record.verify_digests();
    }
});
