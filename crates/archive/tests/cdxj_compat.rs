//! Our CDXJ lines and SURT keys against cdxj-indexer and the Python `surt` package.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{cdxj_indexer, fixed_time, request, response, write_sample_warc};
use dedupcrawl_archive::{
    Capture, CdxjEntry, CdxjWriter, WarcCompression, WarcWriter, WarcWriterConfig, build_cdxj, surt,
};

/// URLs whose keys exercise the canonicalization details.
const TRICKY_URLS: &[&str] = &[
    "http://WWW.Example.COM:80/A/./b/../C/?z=1&a=%41#frag",
    "https://www3.example.com:8443/path/",
    "https://bücher.de/straße?q=é",
    "http://example.com/x?jsessionid=0123456789abcdef0123456789abcdef&b=1",
    "http://example.com/a%2520b?b&a=&a",
    "http://192.168.0.1/index.html",
    "http://example.com/?",
    "http://user:secret@example.com/private",
    "http://example.com/caf%C3%A9/%7Euser",
];

/// Keys computed by the Python `surt` package installed with cdxj-indexer.
fn python_surt(urls: &[&str]) -> Vec<String> {
    common::require_tools();
    let output = Command::new("python3")
        .arg("-c")
        .arg("import sys, surt\nfor u in sys.argv[1:]: print(surt.surt(u))")
        .args(urls)
        .output()
        .expect("run python3");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn surt_keys_match_python_surt() {
    let keys = python_surt(TRICKY_URLS);
    assert_eq!(keys.len(), TRICKY_URLS.len());
    for (url, expected) in TRICKY_URLS.iter().zip(keys) {
        assert_eq!(surt(url), expected, "surt({url:?})");
    }
}

fn sorted(mut lines: Vec<String>) -> Vec<String> {
    lines.sort();
    lines
}

fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .expect("read index")
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn cdxj_lines_match_cdxj_indexer() {
    common::require_tools();
    let dir = tempfile::tempdir().expect("temp dir");
    let sample = write_sample_warc(dir.path(), WarcCompression::Gzip);

    // Lines as the crawler appends them while writing.
    let append_path = dir.path().join("index.cdxj.part");
    let mut writer = CdxjWriter::open_append(&append_path).expect("open cdxj");
    let mut appended = 0;
    for location in &sample.locations {
        if writer.append_location(location).expect("append") {
            appended += 1;
        }
    }
    let final_index = dir.path().join("index.cdxj");
    let count = writer.finish(&final_index).expect("finish");
    assert_eq!(count, appended);

    let reference = cdxj_indexer(&[&sample.path]);
    // response x7, revisit x2, JSON metadata x1; requests and warc-fields metadata left out.
    assert_eq!(reference.len(), 10, "{reference:#?}");
    assert_eq!(
        lines_of(&final_index),
        sorted(reference.clone()),
        "CdxjWriter lines differ from cdxj-indexer"
    );

    // Indexing the file by reading it gives the same.
    let built = dir.path().join("built.cdxj");
    let report = build_cdxj(&[&sample.path], &built).expect("build");
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.lines, 10);
    assert_eq!(lines_of(&built), sorted(reference.clone()));

    // Same order as cdxj-indexer --sort (what pywb expects).
    let output = Command::new("cdxj-indexer")
        .arg("--sort")
        .arg(&sample.path)
        .output()
        .expect("cdxj-indexer --sort");
    let python_sorted: Vec<String> = String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines_of(&final_index), python_sorted);

    // The (url, digest) pairs agree, and lines parse back.
    for line in &reference {
        let entry = CdxjEntry::parse(line).expect("parse cdxj line");
        assert_eq!(entry.surt_key, surt(&entry.url));
        assert!(entry.digest.is_some());
    }
    let plain = write_sample_warc(&dir.path().join("plain"), WarcCompression::None);
    let plain_built = dir.path().join("plain.cdxj");
    build_cdxj(&[&plain.path], &plain_built).expect("build plain");
    assert_eq!(lines_of(&plain_built), sorted(cdxj_indexer(&[&plain.path])));
}

#[test]
fn tricky_urls_get_the_same_keys_as_cdxj_indexer() {
    common::require_tools();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = WarcWriterConfig::new(dir.path(), "tricky");
    config.host_name = Some("testhost".into());
    let mut writer = WarcWriter::open(config).expect("open");
    let mut locations = Vec::new();
    for (i, url) in TRICKY_URLS.iter().enumerate() {
        let request = request("/", "example.com");
        let head = response(200, &[("Content-Type", "text/plain")]);
        let body = format!("body {i}");
        let mut capture = Capture::new(url, &request, &head, body.as_bytes());
        capture.fetch_time = fixed_time(i as u32);
        locations.push(writer.write_capture(&capture).expect("write").response);
    }
    let files = writer.close().expect("close");
    let ours: Vec<String> = locations
        .iter()
        .filter_map(CdxjEntry::from_location)
        .map(|entry| entry.to_line())
        .collect();
    assert_eq!(sorted(ours), sorted(cdxj_indexer(&[&files[0]])));
}
