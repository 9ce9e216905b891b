//! Write and read throughput of the WARC writer/reader and CDXJ indexing.
//!
//! `cargo bench -p dedupcrawl-archive` prints a table. Sizes can be set with
//! `ARCHIVE_BENCH_RECORDS` (default 1500) and `ARCHIVE_BENCH_BODY` (bytes, default 60000);
//! half the bodies are HTML-like text, half incompressible bytes.

use std::time::{Duration, Instant};

use dedupcrawl_archive::{
    Capture, HttpRequestHead, HttpResponseHead, ReaderOptions, WarcCompression, WarcReader,
    WarcWriter, WarcWriterConfig, build_cdxj,
};

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn body(i: usize, len: usize) -> Vec<u8> {
    if i.is_multiple_of(2) {
        let mut state = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect()
    } else {
        let mut text = Vec::with_capacity(len);
        let mut n = 0;
        while text.len() < len {
            text.extend_from_slice(
                format!("<p>page {i} paragraph {n}: the quick brown fox</p>\n").as_bytes(),
            );
            n += 1;
        }
        text.truncate(len);
        text
    }
}

fn row(what: &str, bytes: u64, records: usize, elapsed: Duration) {
    let seconds = elapsed.as_secs_f64().max(1e-9);
    println!(
        "{what:<34} {:>10.1} {:>12.0} {:>10.3}",
        bytes as f64 / seconds / 1e6,
        records as f64 / seconds,
        seconds
    );
}

fn main() {
    // `cargo test --benches` runs bench binaries with `--bench` absent; keep that cheap.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("read_throughput: run with `cargo bench` to measure");
        return;
    }
    let records = env_number("ARCHIVE_BENCH_RECORDS", 1500);
    let body_len = env_number("ARCHIVE_BENCH_BODY", 60_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let payload_bytes = (records * body_len) as u64;
    println!(
        "{records} captures of {body_len} bytes ({:.0} MB of payload)\n",
        payload_bytes as f64 / 1e6
    );
    println!(
        "{:<34} {:>10} {:>12} {:>10}",
        "operation", "MB/s", "records/s", "seconds"
    );

    let request = HttpRequestHead::get("/", vec![("Host".into(), b"example.com".to_vec())]);
    let response = HttpResponseHead {
        version: "HTTP/1.1".into(),
        status: 200,
        reason: "OK".into(),
        headers: vec![("Content-Type".into(), b"text/html".to_vec())],
    };
    let bodies: Vec<Vec<u8>> = (0..records).map(|i| body(i, body_len)).collect();
    for compression in [WarcCompression::Gzip, WarcCompression::None] {
        let label = match compression {
            WarcCompression::Gzip => "gz",
            WarcCompression::None => "plain",
        };
        let mut config = WarcWriterConfig::new(dir.path().join(label), "bench");
        config.compression = compression;
        config.host_name = Some("bench".into());
        let mut writer = WarcWriter::open(config).expect("open writer");
        let start = Instant::now();
        for (i, body) in bodies.iter().enumerate() {
            let uri = format!("http://example.com/page/{i}");
            writer
                .write_capture(&Capture::new(&uri, &request, &response, body))
                .expect("write");
        }
        let files = writer.close().expect("close");
        row(
            &format!("write {label} (response+request)"),
            payload_bytes,
            records,
            start.elapsed(),
        );

        for verify_digests in [false, true] {
            let options = ReaderOptions {
                verify_digests,
                ..ReaderOptions::default()
            };
            let start = Instant::now();
            let mut count = 0;
            for file in &files {
                for record in WarcReader::open_with_options(file, options.clone()).expect("open") {
                    record.expect("good record");
                    count += 1;
                }
            }
            let what = if verify_digests {
                format!("read {label} + verify digests")
            } else {
                format!("read {label}")
            };
            row(&what, payload_bytes, count, start.elapsed());
        }

        let start = Instant::now();
        let report = build_cdxj(&files, dir.path().join(format!("{label}.cdxj"))).expect("cdxj");
        row(
            &format!("build_cdxj {label}"),
            payload_bytes,
            report.lines,
            start.elapsed(),
        );
    }
}
