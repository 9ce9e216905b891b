//! HTTP heads as the writer stores them: the request and response heads, the headers kept
//! or renamed when the payload was decoded, and their serialization into WARC blocks.

use std::borrow::Cow;

use crate::error::ArchiveError;

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
}
