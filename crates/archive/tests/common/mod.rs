//! Helpers shared by the integration tests: sample captures and the real Python WARC tools
//! (warcio, cdxj-indexer) that check our output. Missing tools fail the tests loudly.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;
use std::process::Command;

use dedupcrawl_archive::chrono::{DateTime, TimeZone, Utc};
use dedupcrawl_archive::{HttpRequestHead, HttpResponseHead};

const INSTALL_HINT: &str = "the WARC test tools are missing: run scripts/install-test-tools (installs warcio and cdxj-indexer from PyPI)";

/// Panics (fails the test) unless `warcio`, `cdxj-indexer` and the warcio Python module work.
pub fn require_tools() {
    let checks: [(&str, &[&str]); 3] = [
        ("warcio", &["--help"]),
        ("cdxj-indexer", &["--help"]),
        ("python3", &["-c", "import warcio"]),
    ];
    for (program, args) in checks {
        let ok = Command::new(program)
            .args(args)
            .output()
            .map(|output| output.status.success())
            .unwrap_or(false);
        assert!(ok, "`{program} {}` failed: {INSTALL_HINT}", args.join(" "));
    }
}

/// Runs `warcio check -v`; returns (passed, output).
pub fn warcio_check(path: &Path) -> (bool, String) {
    require_tools();
    let output = Command::new("warcio")
        .args(["check", "-v"])
        .arg(path)
        .output()
        .expect("run warcio check");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    (output.status.success(), text)
}

/// Asserts `warcio check -v` passes and reports no digest failure.
pub fn assert_warcio_check_passes(path: &Path) -> String {
    let (passed, text) = warcio_check(path);
    assert!(
        passed,
        "warcio check failed for {}:\n{text}",
        path.display()
    );
    assert!(!text.contains("failed"), "warcio check output:\n{text}");
    text
}

/// One `warcio index` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarcioIndexEntry {
    pub record_type: String,
    pub record_id: String,
    pub offset: u64,
    pub length: u64,
    pub target_uri: Option<String>,
}

/// Runs `warcio index` and parses its JSON lines.
pub fn warcio_index(path: &Path) -> Vec<WarcioIndexEntry> {
    require_tools();
    let output = Command::new("warcio")
        .args([
            "index",
            "-f",
            "warc-type,warc-record-id,offset,length,warc-target-uri",
        ])
        .arg(path)
        .output()
        .expect("run warcio index");
    assert!(
        output.status.success(),
        "warcio index failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("utf-8 index")
        .lines()
        .map(|line| {
            let json: serde_json::Value = serde_json::from_str(line).expect("json line");
            let text = |name: &str| json[name].as_str().map(str::to_string);
            WarcioIndexEntry {
                record_type: text("warc-type").expect("type"),
                record_id: text("warc-record-id").expect("id"),
                offset: text("offset").expect("offset").parse().expect("number"),
                length: text("length").expect("length").parse().expect("number"),
                target_uri: text("warc-target-uri"),
            }
        })
        .collect()
}

/// Runs `cdxj-indexer` (unsorted output) over the files and returns its lines.
pub fn cdxj_indexer(paths: &[&Path]) -> Vec<String> {
    require_tools();
    let output = Command::new("cdxj-indexer")
        .args(paths)
        .output()
        .expect("run cdxj-indexer");
    assert!(
        output.status.success(),
        "cdxj-indexer failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("utf-8 cdxj")
        .lines()
        .map(str::to_string)
        .collect()
}

/// Runs a Python snippet (with warcio importable) and asserts it succeeded.
pub fn run_python(script: &str, args: &[&str]) {
    require_tools();
    let output = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("run python3");
    assert!(
        output.status.success(),
        "python snippet failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

pub fn request(target: &str, host: &str) -> HttpRequestHead {
    HttpRequestHead::get(
        target,
        vec![
            ("Host".to_string(), host.as_bytes().to_vec()),
            ("User-Agent".to_string(), b"dedupcrawl-test/0.1".to_vec()),
            ("Accept-Encoding".to_string(), b"gzip, br".to_vec()),
        ],
    )
}

pub fn response(status: u16, headers: &[(&str, &str)]) -> HttpResponseHead {
    HttpResponseHead {
        version: "HTTP/1.1".to_string(),
        status,
        reason: String::new(),
        headers: headers
            .iter()
            .map(|(name, value)| (name.to_string(), value.as_bytes().to_vec()))
            .collect(),
    }
}

pub fn fixed_time(second: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 22, 5, 15, second)
        .single()
        .expect("valid date")
}

/// Deterministic pseudo-random bytes (all 256 values occur).
pub fn binary_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 56) as u8
        })
        .collect()
}

/// Compressible text of about `len` bytes.
pub fn html_text(len: usize, seed: u64) -> Vec<u8> {
    let mut out = format!("<html><body><h1>page {seed}</h1>").into_bytes();
    let mut i = 0u64;
    while out.len() < len {
        writeln!(
            out,
            "<p>paragraph {i} of page {seed}: lorem ipsum dolor sit amet</p>"
        )
        .expect("write to vec");
        i += 1;
    }
    out.truncate(len);
    out
}

use dedupcrawl_archive::{
    Capture, MetadataRecord, NearDuplicateProvenance, OriginalCapture, RecordLocation,
    WarcCompression, WarcWriter, WarcWriterConfig,
};
use std::path::PathBuf;

/// What a sample capture stored, to compare against what is read back.
#[derive(Debug, Clone)]
pub struct StoredCapture {
    pub uri: String,
    pub body: Vec<u8>,
    pub location: RecordLocation,
}

/// A WARC written by `write_sample_warc`.
#[derive(Debug)]
pub struct SampleWarc {
    pub path: PathBuf,
    /// Every record written after the warcinfo, in file order.
    pub locations: Vec<RecordLocation>,
    /// The `response` records and their bodies.
    pub responses: Vec<StoredCapture>,
    /// Body of the decoded-gzip page as the client delivered it.
    pub decoded_uri: String,
    pub truncated_uri: String,
    pub chunked_uri: String,
}

pub const BIG_BODY_LEN: usize = 3 * 1024 * 1024 + 12345;

/// Writes one file with every kind of record the crawler writes.
pub fn write_sample_warc(dir: &Path, compression: WarcCompression) -> SampleWarc {
    let mut config = WarcWriterConfig::new(dir, "sample");
    config.compression = compression;
    config.host_name = Some("testhost".to_string());
    config.warcinfo_fields = vec![
        ("operator".to_string(), "tests".to_string()),
        (
            "http-header-user-agent".to_string(),
            "dedupcrawl-test/0.1".to_string(),
        ),
        ("robots".to_string(), "obey".to_string()),
        (
            "description".to_string(),
            "config summary:\nseeds=2 depth=3".to_string(),
        ),
    ];
    let mut recorder = Recorder {
        writer: WarcWriter::open(config).expect("open writer"),
        locations: Vec::new(),
        responses: Vec::new(),
    };
    let page = html_text(5000, 1);
    let original = recorder.page(
        "http://www.example.com/index.html",
        0,
        response(
            200,
            &[
                ("Content-Type", "text/html; charset=utf-8"),
                ("Content-Length", &page.len().to_string()),
                ("ETag", "\"abc\""),
            ],
        ),
        page.clone(),
        (false, false),
    );
    let big = binary_bytes(BIG_BODY_LEN, 2);
    recorder.page(
        "https://example.com/big.bin?b=2&a=1",
        1,
        response(
            200,
            &[
                ("Content-Type", "application/octet-stream"),
                ("Content-Length", &big.len().to_string()),
            ],
        ),
        big,
        (false, false),
    );
    let image = binary_bytes(70_000, 3);
    recorder.page(
        "http://example.com/images/Logo.PNG",
        2,
        response(
            200,
            &[
                ("Content-Type", "image/png"),
                ("Content-Length", &image.len().to_string()),
            ],
        ),
        image,
        (false, false),
    );
    let truncated_uri = "http://example.com/huge.iso".to_string();
    recorder.page(
        &truncated_uri,
        3,
        response(
            200,
            &[
                ("Content-Type", "application/x-iso9660-image"),
                ("Content-Length", "10485760"),
            ],
        ),
        binary_bytes(100_000, 4),
        (true, false),
    );
    let decoded_uri = "http://example.com/compressed.html".to_string();
    recorder.page(
        &decoded_uri,
        4,
        response(
            200,
            &[
                ("Content-Type", "text/html"),
                ("Content-Encoding", "gzip"),
                ("Content-Length", "731"),
                ("Vary", "Accept-Encoding"),
            ],
        ),
        html_text(20_000, 5),
        (false, true),
    );
    let chunked_uri = "http://example.com/chunked.html".to_string();
    recorder.page(
        &chunked_uri,
        5,
        response(
            200,
            &[
                ("Content-Type", "text/html"),
                ("Transfer-Encoding", "chunked"),
                ("Content-Encoding", "br"),
            ],
        ),
        html_text(8_000, 6),
        (false, true),
    );

    // Exact duplicate of the first page under another URL.
    let copy_request = request("/copy.html", "example.com");
    let copy_head = response(
        200,
        &[
            ("Content-Type", "text/html; charset=utf-8"),
            ("Content-Length", &page.len().to_string()),
        ],
    );
    let mut copy = Capture::new(
        "http://example.com/copy.html",
        &copy_request,
        &copy_head,
        &page,
    );
    copy.fetch_time = fixed_time(6);
    let revisit = recorder
        .writer
        .write_identical_payload_revisit(&copy, &OriginalCapture::from(&original))
        .expect("identical revisit");
    recorder.locations.push(revisit.response);
    recorder.locations.push(revisit.request);

    // 304 on a recrawl of the first page.
    let mut conditional = request("/index.html", "www.example.com");
    conditional
        .headers
        .push(("If-None-Match".to_string(), b"\"abc\"".to_vec()));
    let not_modified_head = response(304, &[("ETag", "\"abc\""), ("Cache-Control", "max-age=60")]);
    let mut recrawl = Capture::new(
        "http://www.example.com/index.html",
        &conditional,
        &not_modified_head,
        b"",
    );
    recrawl.fetch_time = fixed_time(7);
    let not_modified = recorder
        .writer
        .write_not_modified_revisit(&recrawl, &OriginalCapture::from(&original))
        .expect("not-modified revisit");
    recorder.locations.push(not_modified.response);
    recorder.locations.push(not_modified.request);

    // A near duplicate, archived, with provenance.
    let near_body = html_text(5100, 1);
    let near = recorder.page(
        "http://example.com/near.html",
        8,
        response(200, &[("Content-Type", "text/html")]),
        near_body,
        (false, false),
    );
    let provenance = NearDuplicateProvenance {
        original_uri: original.target_uri.clone(),
        original_date: Some(original.warc_date),
        original_record_id: Some(original.record_id.clone()),
        similarity: 0.93,
        method: "minhash-lsh".to_string(),
        text: Some("a paragraph only the duplicate has".to_string()),
    };
    recorder.locations.push(
        recorder
            .writer
            .write_near_duplicate_metadata(
                "http://example.com/near.html",
                fixed_time(8),
                Some(&near.record_id),
                &provenance,
            )
            .expect("metadata"),
    );
    // A field-list metadata record (left out of CDXJ by pywb tools).
    recorder.locations.push(
        recorder
            .writer
            .write_metadata(&MetadataRecord {
                target_uri: "http://example.com/near.html",
                date: fixed_time(9),
                content_type: "application/warc-fields",
                body: b"via: http://example.com/\r\nhopsFromSeed: L\r\n",
                concurrent_to: Some(&near.record_id),
                refers_to: None,
            })
            .expect("warc-fields metadata"),
    );
    let files = recorder.writer.close().expect("close");
    assert_eq!(files.len(), 1, "sample must fit in one file");
    SampleWarc {
        path: files[0].clone(),
        locations: recorder.locations,
        responses: recorder.responses,
        decoded_uri,
        truncated_uri,
        chunked_uri,
    }
}

struct Recorder {
    writer: WarcWriter,
    locations: Vec<RecordLocation>,
    responses: Vec<StoredCapture>,
}

impl Recorder {
    /// Writes a response + request pair: (uri, second of fetch time, head, body, truncated,
    /// decoded).
    fn page(
        &mut self,
        uri: &str,
        second: u32,
        head: dedupcrawl_archive::HttpResponseHead,
        body: Vec<u8>,
        flags: (bool, bool),
    ) -> RecordLocation {
        let target = uri
            .find("://")
            .and_then(|i| uri[i + 3..].find('/').map(|j| &uri[i + 3 + j..]))
            .unwrap_or("/");
        let request = request(target, "example.com");
        let mut capture = Capture::new(uri, &request, &head, &body);
        capture.fetch_time = fixed_time(second);
        capture.remote_ip = Some("93.184.216.34".parse().expect("ip"));
        (capture.truncated, capture.content_decoded) = flags;
        let written = self.writer.write_capture(&capture).expect("write capture");
        self.locations.push(written.response.clone());
        self.locations.push(written.request.clone());
        self.responses.push(StoredCapture {
            uri: uri.to_string(),
            body,
            location: written.response.clone(),
        });
        written.response
    }
}
