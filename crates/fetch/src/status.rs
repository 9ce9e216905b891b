//! What a status code means for the crawl, and `Retry-After`.

use std::time::{Duration, SystemTime};

use crate::FetchedResponse;

/// What the engine should do with a response, by status code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatusClass {
    /// 2xx: process the body.
    Success,
    /// 304: the stored copy is still current (conditional GET).
    NotModified,
    /// 3xx other than 304: enqueue [`FetchedResponse::redirect_target`].
    Redirect,
    /// 429 and 503: the server asks us to come back later; honour [`retry_after`] and slow
    /// down on this host.
    RetryLater,
    /// Other 5xx, and 408 (request timeout): transient, retry with backoff.
    ServerError,
    /// Other 4xx: permanent for this URL, do not retry.
    ClientError,
    /// 1xx or outside 100..=599: not a usable final response.
    Unexpected,
}

impl StatusClass {
    /// True for the classes worth a later retry of the same URL.
    pub fn is_retryable(self) -> bool {
        matches!(self, StatusClass::RetryLater | StatusClass::ServerError)
    }
}

/// Classifies an HTTP status code for the engine.
pub fn classify_status(status: u16) -> StatusClass {
    match status {
        200..=299 => StatusClass::Success,
        304 => StatusClass::NotModified,
        300..=399 => StatusClass::Redirect,
        429 | 503 => StatusClass::RetryLater,
        408 | 500..=599 => StatusClass::ServerError,
        400..=499 => StatusClass::ClientError,
        _ => StatusClass::Unexpected,
    }
}

/// How long the server asks us to wait, from its `Retry-After` header (delta-seconds or an
/// HTTP-date, RFC 9110 §10.2.3), counted from `now`. A date in the past gives zero; a missing
/// or malformed header gives `None`.
pub fn retry_after(response: &FetchedResponse, now: SystemTime) -> Option<Duration> {
    parse_retry_after(response.header("retry-after")?, now)
}

/// Parses one `Retry-After` value; see [`retry_after`].
pub fn parse_retry_after(value: &[u8], now: SystemTime) -> Option<Duration> {
    let value = std::str::from_utf8(value).ok()?.trim();
    if value.is_empty() {
        return None;
    }
    if value.bytes().all(|b| b.is_ascii_digit()) {
        return value.parse::<u64>().ok().map(Duration::from_secs);
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes() {
        assert_eq!(classify_status(200), StatusClass::Success);
        assert_eq!(classify_status(206), StatusClass::Success);
        assert_eq!(classify_status(304), StatusClass::NotModified);
        for code in [300, 301, 302, 303, 307, 308] {
            assert_eq!(classify_status(code), StatusClass::Redirect);
        }
        assert_eq!(classify_status(429), StatusClass::RetryLater);
        assert_eq!(classify_status(503), StatusClass::RetryLater);
        assert_eq!(classify_status(500), StatusClass::ServerError);
        assert_eq!(classify_status(408), StatusClass::ServerError);
        assert_eq!(classify_status(404), StatusClass::ClientError);
        assert_eq!(classify_status(410), StatusClass::ClientError);
        assert_eq!(classify_status(101), StatusClass::Unexpected);
        assert_eq!(classify_status(999), StatusClass::Unexpected);
        assert!(!StatusClass::ClientError.is_retryable());
        assert!(StatusClass::RetryLater.is_retryable());
    }

    #[test]
    fn retry_after_forms() {
        let now = httpdate::parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
        assert_eq!(
            parse_retry_after(b"120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(parse_retry_after(b" 0 ", now), Some(Duration::ZERO));
        assert_eq!(
            parse_retry_after(b"Sun, 06 Nov 1994 08:50:37 GMT", now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            parse_retry_after(b"Sun, 06 Nov 1994 08:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        for garbage in [
            &b""[..],
            b"soon",
            b"-5",
            b"1.5",
            b"\xff\xfe",
            b"99999999999999999999999",
        ] {
            assert_eq!(parse_retry_after(garbage, now), None, "{garbage:?}");
        }
    }
}
