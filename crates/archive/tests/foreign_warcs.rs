//! Reading WARC files written by other tools: warcio (gzip and plain, chunked payloads),
//! wget --warc-file, a whole file compressed as one gzip stream, hand-made WARC/1.0.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use dedupcrawl_archive::{
    ReaderOptions, RecordType, WarcReader, WarcRecord, build_cdxj, dechunk, read_record_at,
};

const WARCIO_WRITER: &str = r#"
import sys, io
from warcio.warcwriter import WARCWriter
from warcio.statusandheaders import StatusAndHeaders
path, gz = sys.argv[1], sys.argv[2] == 'gz'
with open(path, 'wb') as fh:
    w = WARCWriter(fh, gzip=gz)
    w.write_record(w.create_warcinfo_record(path.rsplit('/', 1)[-1], {'software': 'warcio test'}))
    chunked = b'5\r\nHello\r\n7;ext=1\r\n, world\r\n0\r\n\r\n'
    headers = StatusAndHeaders('200 OK', [('Content-Type', 'text/plain'), ('Transfer-Encoding', 'chunked')], protocol='HTTP/1.1')
    w.write_record(w.create_warc_record('http://example.com/chunked', 'response', payload=io.BytesIO(chunked), http_headers=headers))
    req = StatusAndHeaders('GET /chunked HTTP/1.1', [('Host', 'example.com')], is_http_request=True)
    w.write_record(w.create_warc_record('http://example.com/chunked', 'request', payload=io.BytesIO(b''), http_headers=req))
    w.write_record(w.create_warc_record('http://example.com/note.txt', 'resource', payload=io.BytesIO(b'just text'), warc_content_type='text/plain'))
    binary = bytes(range(256)) * 400
    h2 = StatusAndHeaders('200 OK', [('Content-Type', 'application/octet-stream'), ('Content-Length', str(len(binary)))], protocol='HTTP/1.0')
    rec = w.create_warc_record('http://example.com/bin', 'response', payload=io.BytesIO(binary), http_headers=h2)
    w.write_record(rec)
    h3 = StatusAndHeaders('200 OK', [('Content-Type', 'application/octet-stream'), ('Content-Length', str(len(binary)))], protocol='HTTP/1.0')
    w.write_record(w.create_revisit_record('http://example.com/bin2', rec.rec_headers.get_header('WARC-Payload-Digest'), 'http://example.com/bin', '2026-01-01T00:00:00Z', http_headers=h3))
"#;

fn verified(path: &Path) -> Vec<WarcRecord> {
    let options = ReaderOptions {
        verify_digests: true,
        ..ReaderOptions::default()
    };
    WarcReader::open_with_options(path, options)
        .expect("open")
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn check_warcio_file(path: &Path) {
    let records = verified(path);
    let index = common::warcio_index(path);
    assert_eq!(records.len(), index.len());
    for (record, entry) in records.iter().zip(&index) {
        assert_eq!(record.offset, entry.offset);
        assert_eq!(record.length, Some(entry.length));
        assert_eq!(record.record_type().as_str(), entry.record_type);
        assert_eq!(record.version, "WARC/1.0");
    }
    // The chunked payload is stored chunked; the helpers take it apart.
    let chunked = &records[1];
    assert_eq!(chunked.record_type(), RecordType::Response);
    let response = chunked.http_response().expect("http");
    assert!(response.is_chunked());
    assert_eq!(
        &*response.dechunked_payload().expect("dechunk"),
        b"Hello, world"
    );
    assert_eq!(dechunk(response.payload).expect("dechunk"), b"Hello, world");
    // Random access by offset gives the same record.
    let again = read_record_at(path, chunked.offset, ReaderOptions::default()).expect("read at");
    assert_eq!(again.block, chunked.block);
    let binary = &records[4];
    let expected: Vec<u8> = (0..400).flat_map(|_| 0u8..=255).collect();
    assert_eq!(
        binary.http_response().expect("http").payload,
        expected.as_slice()
    );
    assert_eq!(records[5].record_type(), RecordType::Revisit);

    // Our index of their file equals cdxj-indexer's.
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("index.cdxj");
    build_cdxj(&[path], &out).expect("build");
    let mut expected_lines = common::cdxj_indexer(&[path]);
    expected_lines.sort();
    let ours: Vec<String> = std::fs::read_to_string(&out)
        .expect("read")
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(ours, expected_lines);
}

#[test]
fn warcio_gzip_and_plain_files_are_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, mode) in [("w.warc.gz", "gz"), ("w.warc", "plain")] {
        let path = dir.path().join(name);
        common::run_python(WARCIO_WRITER, &[path.to_str().expect("utf-8 path"), mode]);
        check_warcio_file(&path);
    }
}

#[test]
fn whole_file_gzip_stream_is_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let plain = dir.path().join("w.warc");
    common::run_python(
        WARCIO_WRITER,
        &[plain.to_str().expect("utf-8 path"), "plain"],
    );
    // Some tools gzip the finished file as one stream instead of one member per record.
    let data = std::fs::read(&plain).expect("read");
    let single = dir.path().join("single.warc.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&data).expect("compress");
    std::fs::write(&single, encoder.finish().expect("finish")).expect("write");

    let from_plain = verified(&plain);
    let from_single = verified(&single);
    assert_eq!(from_single.len(), from_plain.len());
    for (a, b) in from_single.iter().zip(&from_plain) {
        assert_eq!(a.headers, b.headers);
        assert_eq!(a.block, b.block);
        assert_eq!(a.offset, 0, "records inside one stream share its offset");
    }
    assert!(
        from_single[..from_single.len() - 1]
            .iter()
            .all(|r| r.length.is_none())
    );
}

#[test]
fn warc_1_0_with_bare_newlines_and_bracketed_uri_is_read() {
    let body = "HTTP/1.0 200 OK\nContent-Type: text/html\n\n<p>hi</p>";
    let text = format!(
        "WARC/1.0\nWARC-Type: response\nWARC-Target-URI: <http://old.example/>\nWARC-Date: 2009-01-02T03:04:05Z\nWARC-Record-ID: <urn:uuid:1>\nContent-Type: application/http; msgtype=response\nX-Folded: first\n  second\nContent-Length: {}\n\n{body}\n\n",
        body.len()
    );
    let items: Vec<_> = WarcReader::new(
        std::io::Cursor::new(text.into_bytes()),
        "old.warc",
        ReaderOptions::default(),
    )
    .collect();
    assert_eq!(items.len(), 1);
    let record = items[0].as_ref().expect("record");
    assert_eq!(record.target_uri(), Some("http://old.example/"));
    assert_eq!(record.headers.get("x-folded"), Some("first second"));
    assert_eq!(record.date().map(|d| d.timestamp()), Some(1230865445));
    let response = record.http_response().expect("http");
    assert_eq!(response.payload, b"<p>hi</p>");
    assert_eq!(record.payload(), b"<p>hi</p>");
}

/// A tiny HTTP/1.1 server (Python) serving a chunked page and a plain one.
const TEST_SERVER: &str = r#"
import http.server, socketserver
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def do_GET(self):
        if self.path == '/chunked':
            self.send_response(200)
            self.send_header('Content-Type', 'text/html')
            self.send_header('Transfer-Encoding', 'chunked')
            self.end_headers()
            for part in [b'<html><body>', b'chunked ' * 100, b'</body></html>']:
                self.wfile.write(b'%x\r\n%s\r\n' % (len(part), part))
            self.wfile.write(b'0\r\n\r\n')
        else:
            body = b'plain body'
            self.send_response(200)
            self.send_header('Content-Type', 'text/plain')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)
    def log_message(self, *args):
        pass
server = socketserver.TCPServer(('127.0.0.1', 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"#;

struct ServerGuard(Child);

impl Drop for ServerGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn wget_warc_file_is_read() {
    let wget_works = Command::new("wget")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        wget_works,
        "wget is missing: install it (apt-get install wget) to run this test"
    );
    common::require_tools();
    let mut server = ServerGuard(
        Command::new("python3")
            .arg("-c")
            .arg(TEST_SERVER)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start test server"),
    );
    let mut port = String::new();
    BufReader::new(server.0.stdout.take().expect("stdout"))
        .read_line(&mut port)
        .expect("read port");
    let port = port.trim();
    let dir = tempfile::tempdir().expect("temp dir");
    let base = dir.path().join("wget");
    let status = Command::new("wget")
        .arg("-q")
        .arg(format!("--warc-file={}", base.display()))
        .args(["-O", "/dev/null"])
        .arg(format!("http://127.0.0.1:{port}/chunked"))
        .arg(format!("http://127.0.0.1:{port}/plain"))
        .status()
        .expect("run wget");
    assert!(status.success(), "wget failed");
    let path = dir.path().join("wget.warc.gz");
    let records = verified(&path);
    let index = common::warcio_index(&path);
    assert_eq!(records.len(), index.len());
    let chunked_uri = format!("http://127.0.0.1:{port}/chunked");
    let chunked = records
        .iter()
        .find(|r| {
            r.record_type() == RecordType::Response && r.target_uri() == Some(chunked_uri.as_str())
        })
        .expect("chunked response");
    let response = chunked.http_response().expect("http");
    assert!(response.is_chunked(), "wget stores the chunked framing");
    let body = response.dechunked_payload().expect("dechunk");
    let expected = [
        b"<html><body>".to_vec(),
        b"chunked ".repeat(100),
        b"</body></html>".to_vec(),
    ]
    .concat();
    assert_eq!(&*body, expected.as_slice());
    assert!(
        records
            .iter()
            .any(|r| r.record_type() == RecordType::Request)
    );
}
