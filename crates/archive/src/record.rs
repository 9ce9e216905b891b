//! One WARC record as read from a file, and what can be asked of it: type, target, date,
//! HTTP message, digest checks.

use std::path::Path;
use std::sync::Arc;

use chrono::{DateTime, Utc};

use crate::digest::{DigestCheck, check_digest};
use crate::headers::{RecordType, WarcHeaders};
use crate::http::{
    HttpParseError, HttpRequest, HttpResponse, parse_http_request, parse_http_response, split_head,
};

/// Which digest field of a record failed verification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DigestField {
    /// `WARC-Block-Digest`.
    Block,
    /// `WARC-Payload-Digest`.
    Payload,
}

impl std::fmt::Display for DigestField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            DigestField::Block => "WARC-Block-Digest",
            DigestField::Payload => "WARC-Payload-Digest",
        })
    }
}

/// A declared digest that does not match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestMismatch {
    /// Which field.
    pub field: DigestField,
    /// The declared value.
    pub declared: String,
    /// The computed value (`sha1:` base32).
    pub computed: String,
}

/// One WARC record as read from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarcRecord {
    /// The file it was read from.
    pub file: Arc<Path>,
    /// Offset of the record in the file: for `.warc.gz` the start of its gzip member (for a
    /// file compressed as one gzip stream, every record has the offset of that stream).
    pub offset: u64,
    /// Stored length when the record has its own gzip member (the member length) or the file is
    /// plain (up to the end of the block, without the closing line breaks, as warcio counts);
    /// `None` inside a multi-record gzip member.
    pub length: Option<u64>,
    /// Offset just past the record's stored bytes, when known.
    pub end_offset: Option<u64>,
    /// Version line, e.g. `WARC/1.1`.
    pub version: String,
    /// Header fields.
    pub headers: WarcHeaders,
    /// The block (`Content-Length` bytes).
    pub block: Vec<u8>,
}

impl WarcRecord {
    /// `WARC-Type`.
    pub fn record_type(&self) -> RecordType {
        RecordType::from_warc_type(self.headers.get("WARC-Type").unwrap_or_default())
    }

    /// `WARC-Record-ID` (with its angle brackets).
    pub fn record_id(&self) -> Option<&str> {
        self.headers.get("WARC-Record-ID")
    }

    /// `WARC-Target-URI`, without the angle brackets WARC/1.0 writers sometimes add.
    pub fn target_uri(&self) -> Option<&str> {
        self.headers.get("WARC-Target-URI").map(|uri| {
            let uri = uri.trim();
            uri.strip_prefix('<')
                .and_then(|inner| inner.strip_suffix('>'))
                .unwrap_or(uri)
        })
    }

    /// `WARC-Date`, parsed (second or finer precision).
    pub fn date(&self) -> Option<DateTime<Utc>> {
        let text = self.headers.get("WARC-Date")?.trim();
        DateTime::parse_from_rfc3339(text)
            .ok()
            .map(|date| date.with_timezone(&Utc))
    }

    /// Record `Content-Type`.
    pub fn content_type(&self) -> Option<&str> {
        self.headers.get("Content-Type")
    }

    /// True when the block is an HTTP message (`application/http`).
    pub fn is_http(&self) -> bool {
        self.content_type().is_some_and(|value| {
            value
                .trim()
                .to_ascii_lowercase()
                .starts_with("application/http")
        }) && matches!(
            self.record_type(),
            RecordType::Response | RecordType::Request | RecordType::Revisit
        )
    }

    /// The payload as WARC digests define it: the HTTP body as stored (after the HTTP head) for
    /// HTTP records, the whole block otherwise.
    pub fn payload(&self) -> &[u8] {
        if self.is_http() {
            split_head(&self.block).1
        } else {
            &self.block
        }
    }

    /// Splits a `response`/`revisit` block into status, headers and payload.
    pub fn http_response(&self) -> Result<HttpResponse<'_>, HttpParseError> {
        parse_http_response(&self.block)
    }

    /// Splits a `request` block into request line, headers and body.
    pub fn http_request(&self) -> Result<HttpRequest<'_>, HttpParseError> {
        parse_http_request(&self.block)
    }

    /// Checks the declared SHA-1 digests. `Ok(true)` when at least one was checked and all
    /// matched, `Ok(false)` when there was nothing checkable (none declared, other algorithm,
    /// revisit, segment).
    pub fn verify_digests(&self) -> Result<bool, DigestMismatch> {
        // Like warcio: a revisit's payload digest is the original's, and some writers put it
        // in the block digest too, so neither is checked.
        if self.record_type() == RecordType::Revisit {
            return Ok(false);
        }
        let mut checked = false;
        let mut checks = vec![(DigestField::Block, "WARC-Block-Digest", &self.block[..])];
        if self.headers.get("WARC-Segment-Number").is_none() {
            checks.push((DigestField::Payload, "WARC-Payload-Digest", self.payload()));
        }
        for (field, name, data) in checks {
            let Some(declared) = self.headers.get(name) else {
                continue;
            };
            match check_digest(declared, data) {
                DigestCheck::Match => checked = true,
                DigestCheck::Unsupported => {}
                DigestCheck::Mismatch(computed) => {
                    return Err(DigestMismatch {
                        field,
                        declared: declared.to_string(),
                        computed,
                    });
                }
            }
        }
        Ok(checked)
    }
}
