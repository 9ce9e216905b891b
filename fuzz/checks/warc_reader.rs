//! The WARC reader (plain and gzip, any member layout) and what is read from its records.
//!
//! The check of one input, shared by the fuzz target `fuzz_targets/warc_reader.rs` and the corpus
//! replay test (crates/crawler/tests/fuzz_corpus.rs).

use std::io::Cursor;

use dedupcrawl_archive::{ReaderOptions, WarcReader};

/// One input: panics (a failed check) when the code under test misbehaves on it.
pub fn check(data: &[u8]) {
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
}
