//! `archive-bench-read MODE FILE...`: reads WARC files with dedupcrawl's reader and prints one
//! JSON line `{"mode", "records", "block_bytes", "seconds"}` (time inside the process, as the
//! Python peers measure theirs).
//!
//! * `read`: every record, its block read and decompressed (what FastWARC's iterate-and-read
//!   does);
//! * `http`: `read`, plus the HTTP head of each `response` parsed and its payload located;
//! * `verify`: `http`, plus `WARC-Block-Digest`/`WARC-Payload-Digest` checked (SHA-1);
//! * `cdxj`: `build_cdxj` of the files into a temporary sorted CDXJ (what `warcio index` and
//!   `cdxj-indexer` do).

use std::time::Instant;

use dedupcrawl_archive::{ReaderOptions, RecordType, WarcReader, build_cdxj};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((mode, files)) = args.split_first() else {
        eprintln!("usage: archive-bench-read read|http|verify|cdxj FILE...");
        std::process::exit(2);
    };
    let start = Instant::now();
    let mut records = 0u64;
    let mut block_bytes = 0u64;
    let mut checksum = 0u64;
    match mode.as_str() {
        "read" | "http" | "verify" => {
            let options = ReaderOptions {
                verify_digests: mode == "verify",
                ..ReaderOptions::default()
            };
            for file in files {
                let reader = WarcReader::open_with_options(file, options.clone())
                    .unwrap_or_else(|e| panic!("{file}: {e}"));
                for record in reader {
                    let record = record.unwrap_or_else(|e| panic!("{file}: {e}"));
                    records += 1;
                    block_bytes += record.block.len() as u64;
                    checksum =
                        checksum.wrapping_add(record.block.last().copied().unwrap_or(0).into());
                    if mode != "read" && record.record_type() == RecordType::Response {
                        let response = record.http_response().expect("HTTP response");
                        checksum = checksum.wrapping_add(response.status.into());
                    }
                }
            }
        }
        "cdxj" => {
            let out =
                std::env::temp_dir().join(format!("archive-bench-{}.cdxj", std::process::id()));
            let report = build_cdxj(files, &out).expect("build_cdxj");
            records = report.records_read;
            block_bytes = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
            let _ = std::fs::remove_file(&out);
        }
        other => {
            eprintln!("unknown mode {other}");
            std::process::exit(2);
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "{{\"mode\": \"{mode}\", \"records\": {records}, \"block_bytes\": {block_bytes}, \"seconds\": {seconds:.6}, \"checksum\": {checksum}}}"
    );
}
