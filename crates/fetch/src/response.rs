//! What one fetch returns: status, headers as received, the request head that was sent, the
//! body and how it was obtained.

use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use chrono::{DateTime, Utc};
use url::Url;

use crate::status::{StatusClass, classify_status};

/// A header field: name (lowercase, see [`FetchedResponse::headers`]) and raw value bytes.
pub type HeaderField = (String, Vec<u8>);

/// HTTP version of the exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HttpVersion {
    Http09,
    Http10,
    Http11,
    Http2,
    Http3,
}

impl HttpVersion {
    /// As written in an HTTP/1 status line or request line: `HTTP/1.1`, `HTTP/2.0`...
    pub fn as_str(self) -> &'static str {
        match self {
            HttpVersion::Http09 => "HTTP/0.9",
            HttpVersion::Http10 => "HTTP/1.0",
            HttpVersion::Http11 => "HTTP/1.1",
            HttpVersion::Http2 => "HTTP/2.0",
            HttpVersion::Http3 => "HTTP/3.0",
        }
    }

    pub(crate) fn from_reqwest(version: reqwest::Version) -> HttpVersion {
        match version {
            reqwest::Version::HTTP_09 => HttpVersion::Http09,
            reqwest::Version::HTTP_10 => HttpVersion::Http10,
            reqwest::Version::HTTP_2 => HttpVersion::Http2,
            reqwest::Version::HTTP_3 => HttpVersion::Http3,
            _ => HttpVersion::Http11,
        }
    }
}

impl std::fmt::Display for HttpVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The request as sent, for a WARC `request` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHead {
    /// Always `GET` today.
    pub method: String,
    /// Origin-form request target: path and query (`/a/b?c=d`), as on the request line.
    pub target: String,
    pub version: HttpVersion,
    /// Header fields in the order they were sent, `host` included. Over HTTP/1 hyper writes
    /// `host` last; over HTTP/2 it travels as `:authority` and is listed here as `host`.
    pub headers: Vec<HeaderField>,
}

impl RequestHead {
    /// The head in HTTP/1 wire form: request line, fields, blank line (`\r\n` line ends).
    pub fn to_http1_bytes(&self) -> Vec<u8> {
        let mut out = format!("{} {} {}\r\n", self.method, self.target, self.version).into_bytes();
        write_fields(
            &mut out,
            self.headers.iter().map(|(n, v)| (n.as_str(), v.as_slice())),
        );
        out
    }
}

/// `ETag` and `Last-Modified` of a response, to send back as `If-None-Match` and
/// `If-Modified-Since` on the next crawl.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

impl Validators {
    /// True when neither validator is present (a conditional GET is impossible).
    pub fn is_empty(&self) -> bool {
        self.etag.is_none() && self.last_modified.is_none()
    }
}

/// The result of one fetch. Redirects are not followed: a 3xx is returned as is, with
/// [`redirect_target`](Self::redirect_target) for the frontier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchedResponse {
    /// The URL requested.
    pub url: Url,
    pub status: u16,
    /// Reason phrase of the status line as sent (HTTP/1), or the canonical one.
    pub reason: String,
    pub version: HttpVersion,
    /// Response header fields as received: hyper lowercases names and groups repeated fields
    /// of one name at that name's first position; otherwise the order is the server's.
    /// `content-encoding`, `content-length` and `transfer-encoding` are kept even though the
    /// body below is de-chunked and possibly decoded (see
    /// [`http1_head_for_stored_body`](Self::http1_head_for_stored_body)).
    pub headers: Vec<HeaderField>,
    /// The request that was sent.
    pub request: RequestHead,
    /// Address of the peer (the proxy's, when one is used).
    pub remote_addr: Option<SocketAddr>,
    /// When the fetch started (WARC-Date).
    pub started_at: DateTime<Utc>,
    /// From start to the last body byte.
    pub elapsed: Duration,
    /// The body: de-chunked, decoded from gzip/deflate/br, at most `max_body_bytes`.
    pub body: Bytes,
    /// True when the body was cut at `max_body_bytes` (policy `Truncate`).
    pub body_truncated: bool,
    /// True when the server sent `Content-Encoding: gzip|x-gzip|deflate|br` and `body` holds
    /// the decoded bytes (an empty body is not "decoded"). Other codings are left as sent
    /// (and this is false).
    pub content_was_decoded: bool,
}

impl FetchedResponse {
    /// First value of a header (name matched case-insensitively).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
    }

    /// Last value of a header: for fields where the last one wins, like `Content-Type`.
    pub fn header_last(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
    }

    /// All values of a header, in order.
    pub fn header_values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
    }

    /// First value of a header as text, if it is valid UTF-8.
    pub fn header_str(&self, name: &str) -> Option<&str> {
        self.header(name).and_then(|v| std::str::from_utf8(v).ok())
    }

    /// MIME type essence of `Content-Type`, lowercased (`text/html`), without parameters.
    pub fn content_type(&self) -> Option<String> {
        let value = std::str::from_utf8(self.header_last("content-type")?).ok()?;
        let essence = value.split(';').next()?.trim().to_ascii_lowercase();
        (!essence.is_empty()).then_some(essence)
    }

    /// True for `text/html` and `application/xhtml+xml`. Without a `Content-Type`, true when
    /// the body starts (after whitespace) like HTML (`<!doctype html`, `<html`, `<head`,
    /// `<body`), as browsers sniff.
    pub fn is_html(&self) -> bool {
        match self.content_type() {
            Some(essence) => essence == "text/html" || essence == "application/xhtml+xml",
            None => {
                let start = self.body.trim_ascii_start();
                [&b"<!doctype html"[..], b"<html", b"<head", b"<body"]
                    .iter()
                    .any(|tag| {
                        start.len() >= tag.len() && start[..tag.len()].eq_ignore_ascii_case(tag)
                    })
            }
        }
    }

    /// What the status means for the engine.
    pub fn status_class(&self) -> StatusClass {
        classify_status(self.status)
    }

    /// For a 3xx other than 304: `Location` resolved against the request URL. `None` when
    /// `Location` is missing, cannot be resolved, or is not http(s).
    pub fn redirect_target(&self) -> Option<Url> {
        self.redirect_location()
            .filter(|target| matches!(target.scheme(), "http" | "https"))
    }

    /// For a 3xx other than 304: `Location` resolved against the request URL, whatever its
    /// scheme (`file:`, `data:` …, for a caller that says why it does not follow them).
    pub fn redirect_location(&self) -> Option<Url> {
        if !(300..400).contains(&self.status) || self.status == 304 {
            return None;
        }
        let location = String::from_utf8_lossy(self.header("location")?);
        let location = location.trim();
        if location.is_empty() {
            return None;
        }
        self.url.join(location).ok()
    }

    /// `ETag` and `Last-Modified`, for a conditional GET next time.
    pub fn validators(&self) -> Validators {
        let text = |name| {
            self.header_str(name)
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        Validators {
            etag: text("etag"),
            last_modified: text("last-modified"),
        }
    }

    /// Status line and header fields in HTTP/1 wire form, exactly as received (modulo name
    /// case), ending with the blank line.
    pub fn http1_head(&self) -> Vec<u8> {
        self.http1_head_with(|_| None)
    }

    /// Like [`http1_head`](Self::http1_head), but consistent with [`body`](Self::body) as
    /// stored: `transfer-encoding` (the body is de-chunked), `content-encoding` (when decoded)
    /// and `content-length` (when decoded or truncated) are renamed with the
    /// `x-archive-orig-` prefix, so replay tools do not un-chunk or gunzip the stored body.
    pub fn http1_head_for_stored_body(&self) -> Vec<u8> {
        let length_changed = self.content_was_decoded || self.body_truncated;
        self.http1_head_with(|name| {
            let rename = name.eq_ignore_ascii_case("transfer-encoding")
                || (self.content_was_decoded && name.eq_ignore_ascii_case("content-encoding"))
                || (length_changed && name.eq_ignore_ascii_case("content-length"));
            rename.then(|| format!("x-archive-orig-{name}"))
        })
    }

    fn http1_head_with(&self, rename: impl Fn(&str) -> Option<String>) -> Vec<u8> {
        let mut out = format!("{} {} {}\r\n", self.version, self.status, self.reason).into_bytes();
        let renamed: Vec<(String, &[u8])> = self
            .headers
            .iter()
            .map(|(n, v)| (rename(n).unwrap_or_else(|| n.clone()), v.as_slice()))
            .collect();
        write_fields(&mut out, renamed.iter().map(|(n, v)| (n.as_str(), *v)));
        out
    }
}

fn write_fields<'a>(out: &mut Vec<u8>, fields: impl Iterator<Item = (&'a str, &'a [u8])>) {
    for (name, value) in fields {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
}
