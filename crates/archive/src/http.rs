//! Stored HTTP blocks read back: split a WARC block into status line, headers and payload,
//! and de-chunk chunked payloads.

use std::borrow::Cow;

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
