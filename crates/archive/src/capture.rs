//! What the WARC writer is given and what it returns: its configuration, a capture (request and
//! response), the original a revisit points at, metadata records, and where records landed.

use std::net::IpAddr;
use std::path::PathBuf;

use chrono::{DateTime, Utc};

use crate::headers::RecordType;
use crate::http_head::{HttpRequestHead, HttpResponseHead};

/// Profile URI of a revisit whose payload is identical to an earlier capture's.
pub const PROFILE_IDENTICAL_PAYLOAD_DIGEST: &str =
    "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest";
/// Profile URI of a revisit recording a `304 Not Modified` answer to a conditional request.
pub const PROFILE_SERVER_NOT_MODIFIED: &str =
    "http://netpreserve.org/warc/1.1/revisit/server-not-modified";

pub(crate) const CONTENT_TYPE_HTTP_RESPONSE: &str = "application/http;msgtype=response";
pub(crate) const CONTENT_TYPE_HTTP_REQUEST: &str = "application/http;msgtype=request";
/// Content type of `warcinfo` and field-list metadata blocks.
pub const CONTENT_TYPE_WARC_FIELDS: &str = "application/warc-fields";

/// How WARC files are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarcCompression {
    /// `.warc.gz`, one gzip member per record (random access by offset).
    Gzip,
    /// `.warc`, plain.
    None,
}

impl WarcCompression {
    pub(crate) fn extension(self) -> &'static str {
        match self {
            WarcCompression::Gzip => ".warc.gz",
            WarcCompression::None => ".warc",
        }
    }
}

/// Where and how a [`WarcWriter`](crate::WarcWriter) writes.
#[derive(Debug, Clone)]
pub struct WarcWriterConfig {
    /// Directory of the WARC files (created if missing).
    pub dir: PathBuf,
    /// File name prefix, e.g. `dedupcrawl` → `dedupcrawl-20261122051500-00001-myhost.warc.gz`.
    pub prefix: String,
    /// Gzip (default) or plain.
    pub compression: WarcCompression,
    /// The deflate level of each gzip member (1 fastest .. 9 smallest).
    pub gzip_level: u32,
    /// A new file is started before the next write once the current one reaches this size.
    pub max_file_size: u64,
    /// `software` field of each `warcinfo`.
    pub software: String,
    /// Further `warcinfo` fields in order (operator, http-header-user-agent, robots, description,
    /// a config summary, ...). Line breaks in values are replaced by spaces.
    pub warcinfo_fields: Vec<(String, String)>,
    /// Host name used in file names and `warcinfo`; the machine's host name when `None`.
    pub host_name: Option<String>,
}

impl WarcWriterConfig {
    /// Default rotation size: 1 GB, the usual WARC file size.
    pub const DEFAULT_MAX_FILE_SIZE: u64 = 1_000_000_000;

    /// Default deflate level: the cheapest whose files are within 2 % of zlib's usual level
    /// 6, by `benches/gzip/run` on real pages (level 4: 0.86× level 6's CPU for 1.02× its
    /// bytes; benches/gzip/results.md).
    pub const DEFAULT_GZIP_LEVEL: u32 = 4;

    /// Gzip files of at most about 1 GB in `dir`, named with `prefix`.
    pub fn new(dir: impl Into<PathBuf>, prefix: impl Into<String>) -> Self {
        WarcWriterConfig {
            dir: dir.into(),
            prefix: prefix.into(),
            compression: WarcCompression::Gzip,
            gzip_level: Self::DEFAULT_GZIP_LEVEL,
            max_file_size: Self::DEFAULT_MAX_FILE_SIZE,
            software: concat!("dedupcrawl/", env!("CARGO_PKG_VERSION")).to_string(),
            warcinfo_fields: Vec::new(),
            host_name: None,
        }
    }
}

/// Where a record was written: what a CDXJ line (and a later revisit) needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordLocation {
    /// File name (no directory), as CDXJ `filename`.
    pub file_name: String,
    /// Byte offset of the record (its gzip member) in the file.
    pub offset: u64,
    /// Stored length of the record: the gzip member length for `.warc.gz`; for `.warc` the
    /// record without its closing `\r\n\r\n` (as warcio and cdxj-indexer count it).
    pub length: u64,
    /// `WARC-Record-ID`, e.g. `<urn:uuid:...>`.
    pub record_id: String,
    /// `WARC-Type`.
    pub record_type: RecordType,
    /// `WARC-Date` (microsecond precision).
    pub warc_date: DateTime<Utc>,
    /// `WARC-Target-URI`.
    pub target_uri: String,
    /// Payload digest (`sha1:` base32): of the HTTP payload for responses, requests and
    /// revisits (for a revisit: the original's), of the whole block for metadata.
    pub payload_digest: String,
    /// The CDXJ `mime`: HTTP Content-Type without parameters for responses, `warc/revisit` for
    /// revisits, the record Content-Type for metadata.
    pub mime: Option<String>,
    /// HTTP status for responses and revisits.
    pub http_status: Option<u16>,
}

/// The two records written for one fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureLocations {
    /// The `response` or `revisit` record.
    pub response: RecordLocation,
    /// The `request` record (`WARC-Concurrent-To` the response).
    pub request: RecordLocation,
}

/// One fetch as the crawler saw it.
#[derive(Debug, Clone)]
pub struct Capture<'a> {
    /// The URI fetched.
    pub target_uri: &'a str,
    /// When the response started to arrive.
    pub fetch_time: DateTime<Utc>,
    /// Address of the server, if known.
    pub remote_ip: Option<IpAddr>,
    /// The request sent.
    pub request: &'a HttpRequestHead,
    /// The response head as received (headers unmodified, in received order).
    pub response: &'a HttpResponseHead,
    /// The body as the client delivered it (transfer coding removed; content coding removed
    /// when `content_decoded`), possibly cut at the size limit.
    pub body: &'a [u8],
    /// The body was cut at the crawler's size limit (`WARC-Truncated: length`).
    pub truncated: bool,
    /// The client undid the `Content-Encoding` (gzip, br, ...).
    pub content_decoded: bool,
    /// `body`'s SHA-1 as `sha1:BASE32`, when the caller has it already (the crawler computes
    /// it once per payload for its index and state): written as `WARC-Payload-Digest` as
    /// given. `None`: the writer computes it.
    pub payload_digest: Option<&'a str>,
}

impl<'a> Capture<'a> {
    /// A capture fetched now, without IP, not truncated, not decoded.
    pub fn new(
        target_uri: &'a str,
        request: &'a HttpRequestHead,
        response: &'a HttpResponseHead,
        body: &'a [u8],
    ) -> Self {
        Capture {
            target_uri,
            fetch_time: Utc::now(),
            remote_ip: None,
            request,
            response,
            body,
            truncated: false,
            content_decoded: false,
            payload_digest: None,
        }
    }
}

/// The earlier capture a revisit refers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginalCapture {
    /// Its `WARC-Target-URI` (`WARC-Refers-To-Target-URI`).
    pub target_uri: String,
    /// Its `WARC-Date` (`WARC-Refers-To-Date`).
    pub warc_date: DateTime<Utc>,
    /// Its `WARC-Record-ID` (`WARC-Refers-To`), if known.
    pub record_id: Option<String>,
    /// Its `WARC-Payload-Digest`, if known.
    pub payload_digest: Option<String>,
}

impl From<&RecordLocation> for OriginalCapture {
    fn from(location: &RecordLocation) -> Self {
        OriginalCapture {
            target_uri: location.target_uri.clone(),
            warc_date: location.warc_date,
            record_id: Some(location.record_id.clone()),
            payload_digest: Some(location.payload_digest.clone()),
        }
    }
}

/// A `metadata` record.
#[derive(Debug, Clone)]
pub struct MetadataRecord<'a> {
    /// The URI the metadata is about.
    pub target_uri: &'a str,
    /// `WARC-Date`.
    pub date: DateTime<Utc>,
    /// `application/json` or `application/warc-fields` (the latter is left out of CDXJ indexes
    /// by pywb tools).
    pub content_type: &'a str,
    /// The block.
    pub body: &'a [u8],
    /// `WARC-Concurrent-To`: the record of the same capture, if one was written.
    pub concurrent_to: Option<&'a str>,
    /// `WARC-Refers-To`: the record this one is about (e.g. the near-duplicate's original).
    pub refers_to: Option<&'a str>,
}

/// Why a page was judged a near duplicate, stored as a JSON `metadata` record.
#[derive(Debug, Clone, PartialEq)]
pub struct NearDuplicateProvenance {
    /// The page it duplicates.
    pub original_uri: String,
    /// When the original was captured.
    pub original_date: Option<DateTime<Utc>>,
    /// The original's `WARC-Record-ID` (becomes `WARC-Refers-To`).
    pub original_record_id: Option<String>,
    /// Estimated similarity in [0, 1].
    pub similarity: f64,
    /// How it was found (`minhash-lsh`, `containment`, ...).
    pub method: String,
    /// The duplicate's own text (one block per line), so reports can show what differs from
    /// the original without the duplicate being archived.
    pub text: Option<String>,
}
