//! HTTP messages inside WARC blocks: the heads the writer stores, and helpers to split a stored
//! block back into status line, headers and payload, and to de-chunk chunked payloads.

use std::borrow::Cow;

use crate::error::ArchiveError;

/// Prefix given to HTTP headers that no longer describe the stored payload (see the crate docs).
pub const ORIGINAL_HEADER_PREFIX: &str = "X-Archive-Orig-";

/// The head of the HTTP request that was sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequestHead {
    /// `GET`, `HEAD`, ...
    pub method: String,
    /// Request target as sent on the request line (`/path?query`).
    pub target: String,
    /// `HTTP/1.1` etc.
    pub version: String,
    /// Header fields in sent order.
    pub headers: Vec<(String, Vec<u8>)>,
}

impl HttpRequestHead {
    /// A `GET target HTTP/1.1` request with the given headers.
    pub fn get(target: impl Into<String>, headers: Vec<(String, Vec<u8>)>) -> Self {
        HttpRequestHead {
            method: "GET".to_string(),
            target: target.into(),
            version: "HTTP/1.1".to_string(),
            headers,
        }
    }
}

/// The head of the HTTP response as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponseHead {
    /// Protocol as the client reports it (`HTTP/1.1`, `HTTP/2`, ...), written on the status line.
    pub version: String,
    /// Status code.
    pub status: u16,
    /// Reason phrase; when empty (HTTP/2 has none) the standard phrase is written.
    pub reason: String,
    /// Header fields in received order.
    pub headers: Vec<(String, Vec<u8>)>,
}

/// The stored (possibly rewritten) header list of a response.
pub(crate) type StoredHeaders<'a> = Vec<(Cow<'a, str>, Cow<'a, [u8]>)>;

fn check_token(what: &str, value: &str) -> Result<(), ArchiveError> {
    let valid = !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b':' | b'"' | b'(' | b')'));
    if valid {
        Ok(())
    } else {
        Err(ArchiveError::InvalidInput(format!(
            "{what} {value:?} is not an HTTP token"
        )))
    }
}

fn check_line_value(what: &str, value: &[u8]) -> Result<(), ArchiveError> {
    if value.iter().any(|&b| b == b'\r' || b == b'\n') {
        Err(ArchiveError::InvalidInput(format!(
            "{what} contains a line break"
        )))
    } else {
        Ok(())
    }
}

fn write_header_lines<'a>(
    out: &mut Vec<u8>,
    headers: impl Iterator<Item = (&'a str, &'a [u8])>,
) -> Result<(), ArchiveError> {
    for (name, value) in headers {
        check_token("header name", name)?;
        check_line_value(&format!("value of header {name}"), value)?;
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    Ok(())
}

/// Serializes a request head as an `application/http;msgtype=request` block.
pub(crate) fn serialize_request_head(head: &HttpRequestHead) -> Result<Vec<u8>, ArchiveError> {
    check_token("request method", &head.method)?;
    check_token("HTTP version", &head.version)?;
    if head.target.is_empty() || head.target.bytes().any(|b| b.is_ascii_whitespace()) {
        return Err(ArchiveError::InvalidInput(format!(
            "request target {:?} is empty or contains whitespace",
            head.target
        )));
    }
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(
        format!("{} {} {}\r\n", head.method, head.target, head.version).as_bytes(),
    );
    write_header_lines(
        &mut out,
        head.headers
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_slice())),
    )?;
    Ok(out)
}

/// Serializes a status line and the given (already rewritten) headers.
pub(crate) fn serialize_response_head(
    head: &HttpResponseHead,
    headers: &StoredHeaders<'_>,
) -> Result<Vec<u8>, ArchiveError> {
    check_token("HTTP version", &head.version)?;
    check_line_value("reason phrase", head.reason.as_bytes())?;
    let reason = if head.reason.is_empty() {
        standard_reason(head.status)
    } else {
        head.reason.as_str()
    };
    let mut out = Vec::with_capacity(512);
    let status_line = if reason.is_empty() {
        format!("{} {}\r\n", head.version, head.status)
    } else {
        format!("{} {} {}\r\n", head.version, head.status, reason)
    };
    out.extend_from_slice(status_line.as_bytes());
    write_header_lines(
        &mut out,
        headers
            .iter()
            .map(|(name, value)| (name.as_ref(), value.as_ref())),
    )?;
    Ok(out)
}

/// The response headers as they must be stored so the block is self-consistent with the payload
/// actually stored (see the crate docs, "Stored HTTP headers"):
/// - `Transfer-Encoding` is always renamed: the body handed to the writer is the de-framed body;
/// - `Content-Encoding` is renamed when `content_decoded`;
/// - `Content-Length` is renamed and replaced by the stored length when it differs from it, or
///   when one of the above was renamed.
pub(crate) fn stored_response_headers(
    head: &HttpResponseHead,
    stored_payload_len: usize,
    content_decoded: bool,
) -> StoredHeaders<'_> {
    let stored_len_text = stored_payload_len.to_string();
    let mut rewrote_framing = false;
    let mut length_matches = true;
    let mut has_length = false;
    for (name, value) in &head.headers {
        if name.eq_ignore_ascii_case("transfer-encoding")
            || (content_decoded && name.eq_ignore_ascii_case("content-encoding"))
        {
            rewrote_framing = true;
        } else if name.eq_ignore_ascii_case("content-length") {
            has_length = true;
            if value.trim_ascii() != stored_len_text.as_bytes() {
                length_matches = false;
            }
        }
    }
    let rewrite_length = (has_length && !length_matches) || rewrote_framing;
    let mut stored: StoredHeaders<'_> = Vec::with_capacity(head.headers.len() + 1);
    for (name, value) in &head.headers {
        let renamed = name.eq_ignore_ascii_case("transfer-encoding")
            || (content_decoded && name.eq_ignore_ascii_case("content-encoding"))
            || (rewrite_length && name.eq_ignore_ascii_case("content-length"));
        let name: Cow<'_, str> = if renamed {
            Cow::Owned(format!("{ORIGINAL_HEADER_PREFIX}{name}"))
        } else {
            Cow::Borrowed(name.as_str())
        };
        stored.push((name, Cow::Borrowed(value.as_slice())));
    }
    if rewrite_length {
        stored.push((
            Cow::Borrowed("Content-Length"),
            Cow::Owned(stored_len_text.into_bytes()),
        ));
    }
    stored
}

fn standard_reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        101 => "Switching Protocols",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        203 => "Non-Authoritative Information",
        204 => "No Content",
        206 => "Partial Content",
        300 => "Multiple Choices",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        304 => "Not Modified",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        410 => "Gone",
        429 => "Too Many Requests",
        451 => "Unavailable For Legal Reasons",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "",
    }
}

/// Why an HTTP block could not be split or de-chunked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HttpParseError {
    /// The first line is not an HTTP status/request line.
    #[error("bad HTTP start line: {0:?}")]
    BadStartLine(String),
    /// A header line without a colon.
    #[error("bad HTTP header line: {0:?}")]
    BadHeaderLine(String),
    /// A chunk-size line that is not hexadecimal.
    #[error("bad chunk size line at payload offset {offset}: {line:?}")]
    BadChunkSize {
        /// Offset of the line in the chunked payload.
        offset: usize,
        /// The line.
        line: String,
    },
    /// The chunked payload ends before its last (zero-size) chunk.
    #[error("chunked payload is truncated at offset {offset}")]
    TruncatedChunked {
        /// Where the data ended.
        offset: usize,
    },
}

/// An HTTP response split out of a `response` or `revisit` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpResponse<'a> {
    /// Protocol token of the status line (`HTTP/1.1`).
    pub version: String,
    /// Status code.
    pub status: u16,
    /// Reason phrase (may be empty).
    pub reason: String,
    /// Header fields in stored order; values are raw bytes.
    pub headers: Vec<(String, Vec<u8>)>,
    /// Everything after the blank line ending the headers, as stored (still chunked if the
    /// archiving tool stored it chunked).
    pub payload: &'a [u8],
}

/// An HTTP request split out of a `request` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest<'a> {
    /// Method.
    pub method: String,
    /// Request target.
    pub target: String,
    /// Protocol token.
    pub version: String,
    /// Header fields in stored order.
    pub headers: Vec<(String, Vec<u8>)>,
    /// Request body.
    pub body: &'a [u8],
}

fn header_value<'h>(headers: &'h [(String, Vec<u8>)], name: &str) -> Option<&'h [u8]> {
    headers
        .iter()
        .find(|(field, _)| field.eq_ignore_ascii_case(name))
        .map(|(_, value)| value.as_slice())
}

impl<'a> HttpResponse<'a> {
    /// First value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        header_value(&self.headers, name)
    }

    /// True when the stored payload uses chunked transfer coding.
    pub fn is_chunked(&self) -> bool {
        self.header("transfer-encoding").is_some_and(|value| {
            String::from_utf8_lossy(value)
                .split(',')
                .any(|coding| coding.trim().eq_ignore_ascii_case("chunked"))
        })
    }

    /// The payload with chunked transfer coding removed (borrowed when it was not chunked).
    /// Content-Encoding (gzip, br) is not undone.
    pub fn dechunked_payload(&self) -> Result<Cow<'a, [u8]>, HttpParseError> {
        if self.is_chunked() {
            dechunk(self.payload).map(Cow::Owned)
        } else {
            Ok(Cow::Borrowed(self.payload))
        }
    }
}

impl HttpRequest<'_> {
    /// First value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        header_value(&self.headers, name)
    }
}

/// Splits `block` at the blank line ending the header section (`\r\n\r\n`, or bare `\n\n` as some
/// tools write). Returns the header lines (without the blank line) and the rest. A block without
/// a blank line is all header (a revisit may be stored that way).
pub(crate) fn split_head(block: &[u8]) -> (&[u8], &[u8]) {
    let mut line_start = 0;
    while line_start < block.len() {
        let line_end = match block[line_start..].iter().position(|&b| b == b'\n') {
            Some(pos) => line_start + pos + 1,
            None => block.len(),
        };
        let line = &block[line_start..line_end];
        if line == b"\r\n" || line == b"\n" {
            return (&block[..line_start], &block[line_end..]);
        }
        line_start = line_end;
    }
    (block, &block[block.len()..])
}

/// Header fields with raw values, in order.
type HeaderFields = Vec<(String, Vec<u8>)>;

fn parse_head_lines(head: &[u8]) -> Result<(String, HeaderFields), HttpParseError> {
    let mut lines = head
        .split(|&b| b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line));
    let start_line = String::from_utf8_lossy(lines.next().unwrap_or_default()).into_owned();
    let mut headers: HeaderFields = Vec::new();
    for line in lines {
        if line.is_empty() {
            continue;
        }
        if line[0] == b' ' || line[0] == b'\t' {
            // Obsolete line folding: continuation of the previous value.
            if let Some((_, value)) = headers.last_mut() {
                value.push(b' ');
                value.extend_from_slice(line.trim_ascii());
                continue;
            }
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            return Err(HttpParseError::BadHeaderLine(
                String::from_utf8_lossy(line).into_owned(),
            ));
        };
        let name = String::from_utf8_lossy(line[..colon].trim_ascii()).into_owned();
        headers.push((name, line[colon + 1..].trim_ascii().to_vec()));
    }
    Ok((start_line, headers))
}

/// Splits a `response` (or `revisit`) block into status line, headers and payload.
pub fn parse_http_response(block: &[u8]) -> Result<HttpResponse<'_>, HttpParseError> {
    let (head, payload) = split_head(block);
    let (status_line, headers) = parse_head_lines(head)?;
    let mut parts = status_line.splitn(3, ' ');
    let version = parts.next().unwrap_or_default();
    let status = parts
        .next()
        .and_then(|code| code.trim().parse::<u16>().ok());
    let (Some(status), true) = (status, version.starts_with("HTTP/")) else {
        return Err(HttpParseError::BadStartLine(status_line));
    };
    Ok(HttpResponse {
        version: version.to_string(),
        status,
        reason: parts.next().unwrap_or_default().trim().to_string(),
        headers,
        payload,
    })
}

/// Splits a `request` block into request line, headers and body.
pub fn parse_http_request(block: &[u8]) -> Result<HttpRequest<'_>, HttpParseError> {
    let (head, body) = split_head(block);
    let (request_line, headers) = parse_head_lines(head)?;
    let parts: Vec<&str> = request_line.split(' ').filter(|p| !p.is_empty()).collect();
    let [method, target, version] = parts.as_slice() else {
        return Err(HttpParseError::BadStartLine(request_line));
    };
    Ok(HttpRequest {
        method: method.to_string(),
        target: target.to_string(),
        version: version.to_string(),
        headers,
        body,
    })
}

/// Removes chunked transfer coding (RFC 9112 §7.1). Chunk extensions and trailer fields are
/// dropped; chunk-size lines may end in `\r\n` or a bare `\n`.
pub fn dechunk(chunked: &[u8]) -> Result<Vec<u8>, HttpParseError> {
    let mut body = Vec::with_capacity(chunked.len());
    let mut pos = 0;
    loop {
        let Some(line_len) = chunked[pos..].iter().position(|&b| b == b'\n') else {
            return Err(HttpParseError::TruncatedChunked { offset: pos });
        };
        let line = &chunked[pos..pos + line_len];
        let size_text = line
            .split(|&b| b == b';')
            .next()
            .unwrap_or_default()
            .trim_ascii();
        let size = std::str::from_utf8(size_text)
            .ok()
            .and_then(|text| usize::from_str_radix(text, 16).ok())
            .ok_or_else(|| HttpParseError::BadChunkSize {
                offset: pos,
                line: String::from_utf8_lossy(line).into_owned(),
            })?;
        pos += line_len + 1;
        if size == 0 {
            // Trailer section follows; nothing in it belongs to the body.
            return Ok(body);
        }
        let Some(data) = chunked.get(pos..pos.saturating_add(size)) else {
            return Err(HttpParseError::TruncatedChunked {
                offset: chunked.len(),
            });
        };
        body.extend_from_slice(data);
        pos += size;
        // The CRLF after the chunk data.
        if chunked.get(pos) == Some(&b'\r') {
            pos += 1;
        }
        if chunked.get(pos) == Some(&b'\n') {
            pos += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(headers: &[(&str, &str)]) -> HttpResponseHead {
        HttpResponseHead {
            version: "HTTP/1.1".into(),
            status: 200,
            reason: String::new(),
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.as_bytes().to_vec()))
                .collect(),
        }
    }

    fn names(stored: &StoredHeaders<'_>) -> Vec<String> {
        stored
            .iter()
            .map(|(n, v)| format!("{n}: {}", String::from_utf8_lossy(v)))
            .collect()
    }

    #[test]
    fn decoded_body_gets_consistent_headers() {
        let head = head(&[
            ("Content-Type", "text/html"),
            ("Content-Encoding", "gzip"),
            ("Content-Length", "120"),
        ]);
        let stored = stored_response_headers(&head, 500, true);
        assert_eq!(
            names(&stored),
            [
                "Content-Type: text/html",
                "X-Archive-Orig-Content-Encoding: gzip",
                "X-Archive-Orig-Content-Length: 120",
                "Content-Length: 500"
            ]
        );
    }

    #[test]
    fn chunked_framing_is_always_rewritten() {
        let head = head(&[("Transfer-Encoding", "chunked")]);
        let stored = stored_response_headers(&head, 5, false);
        assert_eq!(
            names(&stored),
            [
                "X-Archive-Orig-Transfer-Encoding: chunked",
                "Content-Length: 5"
            ]
        );
    }

    #[test]
    fn matching_length_is_kept() {
        let head = head(&[("Content-Length", "5"), ("Content-Encoding", "gzip")]);
        let stored = stored_response_headers(&head, 5, false);
        assert_eq!(
            names(&stored),
            ["Content-Length: 5", "Content-Encoding: gzip"]
        );
        let response = serialize_response_head(&head, &stored).unwrap();
        assert!(response.starts_with(b"HTTP/1.1 200 OK\r\n"));
    }

    #[test]
    fn split_and_dechunk() {
        let block = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Folded: a\r\n b\r\n\r\n4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\nTrailer: x\r\n\r\n";
        let response = parse_http_response(block).unwrap();
        assert_eq!(response.status, 200);
        assert_eq!(response.header("x-folded"), Some(&b"a b"[..]));
        assert!(response.is_chunked());
        assert_eq!(&*response.dechunked_payload().unwrap(), b"Wikipedia");
        assert_eq!(
            dechunk(b"4\nWiki\n5\npedia\n0\n\n").unwrap(),
            b"Wikipedia".to_vec()
        );
        assert!(matches!(
            dechunk(b"10\r\nshort"),
            Err(HttpParseError::TruncatedChunked { .. })
        ));
        assert!(matches!(
            dechunk(b"zz\r\n"),
            Err(HttpParseError::BadChunkSize { .. })
        ));
    }

    #[test]
    fn bare_newline_heads_and_requests() {
        let response = parse_http_response(b"HTTP/1.0 404 Not Found\nA: b\n\nbody").unwrap();
        assert_eq!((response.status, response.payload), (404, &b"body"[..]));
        assert_eq!(response.reason, "Not Found");
        let request = parse_http_request(b"GET /x?y HTTP/1.1\r\nHost: e.com\r\n\r\n").unwrap();
        assert_eq!(request.target, "/x?y");
        assert_eq!(request.header("host"), Some(&b"e.com"[..]));
        assert!(parse_http_response(b"garbage\r\n\r\n").is_err());
    }
}
