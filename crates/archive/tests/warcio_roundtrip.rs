//! Our WARC files, checked by warcio (the reference Python implementation) and read back by our
//! reader.

use crate::common;

use common::{
    BIG_BODY_LEN, SampleWarc, assert_warcio_check_passes, warcio_index, write_sample_warc,
};
use dedupcrawl_archive::{
    PROFILE_IDENTICAL_PAYLOAD_DIGEST, PROFILE_SERVER_NOT_MODIFIED, ReaderOptions, RecordType,
    WarcCompression, WarcReader, WarcRecord, read_record_at, sha1_digest,
};

fn check_sample(sample: &SampleWarc) {
    // warcio verifies every digest it can (responses, requests, metadata, warcinfo).
    let output = assert_warcio_check_passes(&sample.path);
    let digest_passes = output.matches("digest pass").count();
    let non_revisits = sample
        .locations
        .iter()
        .filter(|l| l.record_type != RecordType::Revisit)
        .count();
    assert_eq!(
        digest_passes,
        non_revisits + 1,
        "every non-revisit record and the warcinfo verified:\n{output}"
    );

    // warcio lists every record at the offsets and lengths we reported.
    let index = warcio_index(&sample.path);
    assert_eq!(index.len(), sample.locations.len() + 1);
    assert_eq!(index[0].record_type, "warcinfo");
    assert_eq!(index[0].offset, 0);
    for (entry, location) in index[1..].iter().zip(&sample.locations) {
        assert_eq!(entry.record_id, location.record_id);
        assert_eq!(entry.record_type, location.record_type.as_str());
        assert_eq!(entry.offset, location.offset, "offset of {location:?}");
        assert_eq!(entry.length, location.length, "length of {location:?}");
        assert_eq!(
            entry.target_uri.as_deref(),
            Some(location.target_uri.as_str())
        );
    }

    // Our reader, digests verified: same records, bodies byte-identical.
    let options = ReaderOptions {
        verify_digests: true,
        ..ReaderOptions::default()
    };
    let records: Vec<WarcRecord> = WarcReader::open_with_options(&sample.path, options.clone())
        .expect("open")
        .collect::<Result<_, _>>()
        .expect("all records good");
    assert_eq!(records.len(), sample.locations.len() + 1);
    let warcinfo = String::from_utf8_lossy(&records[0].block).into_owned();
    assert!(
        warcinfo.contains("format: WARC File Format 1.1\r\n"),
        "{warcinfo}"
    );
    assert!(warcinfo.contains("software: dedupcrawl/"), "{warcinfo}");
    assert!(warcinfo.contains("description: config summary: seeds=2 depth=3\r\n"));
    for (record, location) in records[1..].iter().zip(&sample.locations) {
        assert_eq!(record.version, "WARC/1.1");
        assert_eq!(record.record_id(), Some(location.record_id.as_str()));
        assert_eq!(record.offset, location.offset);
        assert_eq!(record.length, Some(location.length));
        assert_eq!(record.date(), Some(location.warc_date));
        assert!(record.verify_digests().is_ok());
    }
    for stored in &sample.responses {
        let record =
            read_record_at(&sample.path, stored.location.offset, options.clone()).expect("read");
        let response = record.http_response().expect("http");
        assert_eq!(response.payload.len(), stored.body.len(), "{}", stored.uri);
        assert!(response.payload == stored.body.as_slice(), "{}", stored.uri);
        assert_eq!(sha1_digest(&stored.body), stored.location.payload_digest);
        assert_eq!(record.headers.get("WARC-IP-Address"), Some("93.184.216.34"));
    }
    let big = sample
        .responses
        .iter()
        .find(|r| r.body.len() == BIG_BODY_LEN)
        .expect("big body");
    assert!(
        big.location.length > 3 * 1024 * 1024,
        "random data does not compress"
    );

    let record_for = |uri: &str, kind: RecordType| {
        records
            .iter()
            .find(|r| r.target_uri() == Some(uri) && r.record_type() == kind)
            .unwrap_or_else(|| panic!("{kind} record for {uri}"))
    };

    // Truncated body: flagged, and the stored Content-Length is the stored length.
    let truncated = record_for(&sample.truncated_uri, RecordType::Response);
    assert_eq!(truncated.headers.get("WARC-Truncated"), Some("length"));
    let response = truncated.http_response().expect("http");
    assert_eq!(response.header("content-length"), Some(&b"100000"[..]));
    assert_eq!(
        response.header("x-archive-orig-content-length"),
        Some(&b"10485760"[..])
    );

    // Decoded gzip body: the block describes what is stored.
    let decoded = record_for(&sample.decoded_uri, RecordType::Response);
    let response = decoded.http_response().expect("http");
    assert_eq!(response.header("content-encoding"), None);
    assert_eq!(
        response.header("x-archive-orig-content-encoding"),
        Some(&b"gzip"[..])
    );
    assert_eq!(
        response.header("content-length"),
        Some(response.payload.len().to_string().as_bytes())
    );
    assert_eq!(response.header("vary"), Some(&b"Accept-Encoding"[..]));
    let chunked = record_for(&sample.chunked_uri, RecordType::Response);
    let response = chunked.http_response().expect("http");
    assert!(!response.is_chunked());
    assert_eq!(
        response.header("x-archive-orig-transfer-encoding"),
        Some(&b"chunked"[..])
    );

    // Request records point at their response.
    let request = record_for("http://www.example.com/index.html", RecordType::Request);
    let original = &sample.responses[0].location;
    assert_eq!(
        request.headers.get("WARC-Concurrent-To"),
        Some(original.record_id.as_str())
    );
    assert_eq!(request.http_request().expect("request").method, "GET");

    // Revisits.
    let revisits: Vec<&WarcRecord> = records
        .iter()
        .filter(|r| r.record_type() == RecordType::Revisit)
        .collect();
    assert_eq!(revisits.len(), 2);
    let identical = revisits[0];
    assert_eq!(
        identical.headers.get("WARC-Profile"),
        Some(PROFILE_IDENTICAL_PAYLOAD_DIGEST)
    );
    assert_eq!(
        identical.headers.get("WARC-Refers-To-Target-URI"),
        Some("http://www.example.com/index.html")
    );
    assert_eq!(
        identical.headers.get("WARC-Refers-To-Date"),
        Some("2026-11-22T05:15:00.000000Z")
    );
    assert_eq!(
        identical.headers.get("WARC-Payload-Digest"),
        Some(original.payload_digest.as_str())
    );
    let head_only = identical.http_response().expect("http");
    assert_eq!(head_only.status, 200);
    assert!(head_only.payload.is_empty());
    let not_modified = revisits[1];
    assert_eq!(
        not_modified.headers.get("WARC-Profile"),
        Some(PROFILE_SERVER_NOT_MODIFIED)
    );
    assert_eq!(not_modified.http_response().expect("http").status, 304);
    assert_eq!(
        not_modified.headers.get("WARC-Refers-To"),
        Some(original.record_id.as_str())
    );

    // Near-duplicate provenance.
    let metadata = record_for("http://example.com/near.html", RecordType::Metadata);
    assert_eq!(metadata.content_type(), Some("application/json"));
    assert_eq!(
        metadata.headers.get("WARC-Refers-To"),
        Some(original.record_id.as_str())
    );
    assert!(metadata.headers.get("WARC-Concurrent-To").is_some());
    let json: serde_json::Value = serde_json::from_slice(&metadata.block).expect("json");
    assert_eq!(json["similarity"], 0.93);
    assert_eq!(json["method"], "minhash-lsh");
    assert_eq!(json["original_uri"], "http://www.example.com/index.html");
}

#[test]
fn gzip_warc_passes_warcio_and_reads_back() {
    common::require_tools();
    let dir = tempfile::tempdir().expect("temp dir");
    let sample = write_sample_warc(dir.path(), WarcCompression::Gzip);
    let name = sample
        .path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    assert!(
        name.starts_with("sample-") && name.ends_with("-00001-testhost.warc.gz"),
        "{name}"
    );
    check_sample(&sample);
}

#[test]
fn plain_warc_passes_warcio_and_reads_back() {
    common::require_tools();
    let dir = tempfile::tempdir().expect("temp dir");
    let sample = write_sample_warc(dir.path(), WarcCompression::None);
    assert!(sample.path.to_string_lossy().ends_with("-testhost.warc"));
    check_sample(&sample);
}
