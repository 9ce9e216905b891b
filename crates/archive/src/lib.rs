//! WARC 1.1 archiving for dedupcrawl: a writer, a streaming reader, CDXJ indexes and SURT keys.
//!
//! The files are meant for archivists' tools: `warcio check` verifies them, pywb replays them
//! with the CDXJ index written here, and the reader reads what wget, Heritrix, warcio and
//! Browsertrix write.
//!
//! # Writing
//! [`WarcWriter`] writes `.warc.gz` files with one gzip member per record (or plain `.warc`),
//! each file starting with a `warcinfo` record, rotated by size and named
//! `PREFIX-YYYYMMDDhhmmss-SERIAL-HOST.warc.gz`. Per fetch it writes:
//! - a new page: `response` + `request` ([`WarcWriter::write_capture`]);
//! - an exact duplicate: `revisit`, profile identical-payload-digest, block = HTTP headers only,
//!   `WARC-Refers-To-Target-URI` / `-Date` / `WARC-Refers-To` of the original
//!   ([`WarcWriter::write_identical_payload_revisit`]);
//! - a `304` on a recrawl: `revisit`, profile server-not-modified
//!   ([`WarcWriter::write_not_modified_revisit`]);
//! - near-duplicate provenance: a JSON `metadata` record
//!   ([`WarcWriter::write_near_duplicate_metadata`]).
//!
//! Digests are `sha1:` + RFC 4648 base32, as warcio writes them: `WARC-Block-Digest` over the
//! block, `WARC-Payload-Digest` over the stored HTTP body. Each write returns a
//! [`RecordLocation`] (file, offset, compressed length, id, date, digest) for the CDXJ index and
//! later revisits. [`WarcWriter::flush`] fsyncs. After a crash, [`WarcWriter::resume`] (or
//! [`repair_tail`]) cuts a torn last record off and writing continues in a new file.
//!
//! ## Stored HTTP headers
//! The crawler's HTTP client removes transfer coding and usually content coding, so the body it
//! hands over no longer matches the headers it received. To keep the stored block a valid HTTP
//! message (what replay tools parse), the writer stores the headers as received except:
//! - `Transfer-Encoding` is always renamed `X-Archive-Orig-Transfer-Encoding` (the body is the
//!   de-framed body);
//! - `Content-Encoding` is renamed `X-Archive-Orig-Content-Encoding` when
//!   [`Capture::content_decoded`] is set;
//! - `Content-Length` is renamed `X-Archive-Orig-Content-Length` and a `Content-Length` with the
//!   stored body length is added when the received value differs from it (decoded or truncated
//!   bodies) or when one of the headers above was renamed.
//!
//! A body cut at the size limit ([`Capture::truncated`]) gets `WARC-Truncated: length`.
//!
//! # Reading
//! [`WarcReader`] iterates the records of a file without loading it: multi-member or
//! single-stream gzip, or plain; WARC/1.0 and 1.1; bare `\n` header lines accepted. Damage (torn
//! tail, corrupt member, malformed header, and with [`ReaderOptions::verify_digests`] a digest
//! mismatch) is yielded as a [`ReadError`] naming file and offset, and reading resumes at the
//! next good record. [`parse_http_response`] and [`dechunk`] take stored blocks apart.
//!
//! # Indexing
//! [`CdxjWriter`] appends pywb-compatible CDXJ lines during a crawl and sorts them at the end;
//! [`build_cdxj`] indexes existing WARC files; [`surt`] computes the same keys as pywb.
//!
//! # Example
//! ```
//! use dedupcrawl_archive::{
//!     Capture, HttpRequestHead, HttpResponseHead, RecordType, WarcReader, WarcWriter,
//!     WarcWriterConfig,
//! };
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let mut writer = WarcWriter::open(WarcWriterConfig::new(dir.path(), "example"))?;
//!
//! let request = HttpRequestHead::get("/hello", vec![("Host".into(), b"example.com".to_vec())]);
//! let response = HttpResponseHead {
//!     version: "HTTP/1.1".into(),
//!     status: 200,
//!     reason: "OK".into(),
//!     headers: vec![("Content-Type".into(), b"text/plain".to_vec())],
//! };
//! let capture = Capture::new("http://example.com/hello", &request, &response, b"hello world");
//! let written = writer.write_capture(&capture)?;
//! let files = writer.close()?;
//!
//! // Read it back: warcinfo, response, request.
//! let records = WarcReader::open(&files[0])?.collect::<Result<Vec<_>, _>>()?;
//! assert_eq!(records[0].record_type(), RecordType::Warcinfo);
//! let stored = &records[1];
//! assert_eq!(stored.offset, written.response.offset);
//! assert_eq!(stored.target_uri(), Some("http://example.com/hello"));
//! assert_eq!(stored.http_response()?.payload, b"hello world");
//! assert_eq!(
//!     stored.headers.get("WARC-Payload-Digest"),
//!     Some(written.response.payload_digest.as_str())
//! );
//! # Ok(())
//! # }
//! ```

mod capture;
mod cdxj;
mod digest;
mod error;
mod headers;
mod http;
mod http_head;
mod reader;
mod record;
mod record_parser;
mod repair;
mod surt;
mod warc_file_names;
mod writer;

pub use cdxj::{CdxjBuildReport, CdxjEntry, CdxjWriter, build_cdxj, sort_cdxj_file};
pub use digest::sha1_digest;
pub use error::{ArchiveError, ReadError};
pub use headers::{RecordType, WarcHeaders};
pub use http::{
    HttpParseError, HttpRequest, HttpResponse, dechunk, parse_http_request, parse_http_response,
};
pub use http_head::{HttpRequestHead, HttpResponseHead, ORIGINAL_HEADER_PREFIX};
pub use reader::{ReaderOptions, WarcReader, read_record_at};
pub use record::{DigestField, DigestMismatch, WarcRecord};
pub use repair::{RepairReport, repair_tail};
pub use surt::surt;
pub use writer::{
    CONTENT_TYPE_WARC_FIELDS, Capture, CaptureLocations, MetadataRecord, NearDuplicateProvenance,
    OriginalCapture, PROFILE_IDENTICAL_PAYLOAD_DIGEST, PROFILE_SERVER_NOT_MODIFIED, RecordLocation,
    WarcCompression, WarcWriter, WarcWriterConfig,
};

/// Re-exported so callers can build [`Capture`] times without naming chrono themselves.
pub use chrono;
