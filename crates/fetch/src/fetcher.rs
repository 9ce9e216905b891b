//! The [`Fetcher`]: one reqwest client, one GET per call.

use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use chrono::Utc;
use reqwest::header::{self, HeaderMap, HeaderName, HeaderValue};
use url::Url;

use crate::body::{BodyDecoder, ContentCoding, Progress};
use crate::error::{FetchError, TimeoutPhase, classify_body_error, classify_send_error};
use crate::resolve::TableResolver;
use crate::response::{FetchedResponse, HeaderField, HttpVersion, RequestHead, Validators};
use crate::{FetchConfig, OversizePolicy};

/// Content codings we decode, offered to servers.
const ACCEPT_ENCODING: &str = "gzip, deflate, br";

/// One GET, optionally conditional.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchRequest {
    pub url: Url,
    /// Sent as `If-None-Match` (an `ETag` from a previous fetch).
    pub if_none_match: Option<String>,
    /// Sent as `If-Modified-Since` (a `Last-Modified` from a previous fetch).
    pub if_modified_since: Option<String>,
    /// Sent as `Authorization: Basic` (the URL itself carries no user name or password).
    pub basic_auth: Option<BasicCredentials>,
}

/// A user name and password for HTTP Basic authentication. Its `Debug` leaves the password
/// out.
#[derive(Clone, PartialEq, Eq)]
pub struct BasicCredentials {
    pub user: String,
    pub password: Option<String>,
}

impl std::fmt::Debug for BasicCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BasicCredentials")
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "redacted"))
            .finish()
    }
}

impl FetchRequest {
    /// An unconditional GET of `url`.
    pub fn new(url: Url) -> Self {
        FetchRequest {
            url,
            if_none_match: None,
            if_modified_since: None,
            basic_auth: None,
        }
    }

    /// Parses `url`; fails with [`FetchError::InvalidUrl`].
    pub fn parse(url: &str) -> Result<Self, FetchError> {
        Url::parse(url)
            .map(FetchRequest::new)
            .map_err(|e| FetchError::InvalidUrl {
                url: url.to_owned(),
                reason: e.to_string(),
            })
    }

    /// Makes the GET conditional on `validators` from a previous fetch: a server whose copy
    /// did not change answers 304 without a body.
    pub fn conditional(mut self, validators: &Validators) -> Self {
        self.if_none_match = validators.etag.clone();
        self.if_modified_since = validators.last_modified.clone();
        self
    }
}

/// Fetches URLs with one pooled HTTP client. Cheap to clone; clones share the pool.
///
/// Redirects are never followed (the crawler sends each hop through its frontier, where
/// scope and robots rules apply); cookies are not kept.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    config: Arc<FetchConfig>,
    /// Header fields every request starts with, in order: user-agent, accept, ...
    base_headers: Arc<Vec<(HeaderName, HeaderValue)>>,
}

impl Fetcher {
    /// Builds the client. Fails on a zero timeout or a user agent that is not a valid header
    /// value.
    pub fn new(config: FetchConfig) -> Result<Fetcher, FetchError> {
        for (name, value) in [
            ("connect_timeout", config.connect_timeout),
            ("read_timeout", config.read_timeout),
            ("total_timeout", config.total_timeout),
        ] {
            if value.is_zero() {
                return Err(FetchError::InvalidConfig {
                    reason: format!("`{name}` is zero; every fetch would time out"),
                });
            }
        }
        let config_value = |name: &str, value: &str| {
            HeaderValue::from_str(value).map_err(|_| FetchError::InvalidConfig {
                reason: format!("`{name}` {value:?} is not a valid HTTP header value"),
            })
        };
        let mut base_headers = vec![
            (
                header::USER_AGENT,
                config_value("user_agent", &config.user_agent)?,
            ),
            (header::ACCEPT, config_value("accept", &config.accept)?),
        ];
        if !config.accept_languages.is_empty() {
            let joined = config.accept_languages.join(", ");
            base_headers.push((
                header::ACCEPT_LANGUAGE,
                config_value("accept_languages", &joined)?,
            ));
        }
        base_headers.push((
            header::ACCEPT_ENCODING,
            HeaderValue::from_static(ACCEPT_ENCODING),
        ));

        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(config.connect_timeout)
            // Decoding is done here, so the headers stay as received (see body.rs).
            .no_gzip()
            .no_brotli()
            .no_deflate()
            .referer(false);
        if !config.use_env_proxy {
            builder = builder.no_proxy();
        }
        if config.resolve_only {
            builder = builder.dns_resolver(Arc::new(TableResolver::new(&config.resolve)));
        } else {
            for (name, ip) in &config.resolve {
                builder = builder.resolve(name, std::net::SocketAddr::new(*ip, 0));
            }
        }
        let client = builder.build().map_err(|e| FetchError::ClientBuild {
            reason: e.to_string(),
            source: Box::new(e),
        })?;
        Ok(Fetcher {
            client,
            config: Arc::new(config),
            base_headers: Arc::new(base_headers),
        })
    }

    /// The configuration this fetcher was built with.
    pub fn config(&self) -> &FetchConfig {
        &self.config
    }

    /// GETs `request.url` once. Any status is a success here (see
    /// [`FetchedResponse::status_class`]); errors are transport failures and limits.
    pub async fn fetch(&self, request: FetchRequest) -> Result<FetchedResponse, FetchError> {
        let url = &request.url;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(FetchError::UnsupportedScheme {
                url: url.to_string(),
                scheme: url.scheme().to_owned(),
            });
        }
        if url.host().is_none() {
            return Err(FetchError::InvalidUrl {
                url: url.to_string(),
                reason: "the URL has no host".to_owned(),
            });
        }
        let total = self.config.total_timeout;
        match tokio::time::timeout(total, self.fetch_within_total(&request)).await {
            Ok(result) => result,
            Err(_) => Err(FetchError::Timeout {
                url: url.to_string(),
                phase: TimeoutPhase::Total,
                limit: total,
            }),
        }
    }

    async fn fetch_within_total(
        &self,
        request: &FetchRequest,
    ) -> Result<FetchedResponse, FetchError> {
        let url = &request.url;
        let config = &self.config;
        let started_at = Utc::now();
        let start = Instant::now();

        let mut builder = self
            .client
            .get(url.clone())
            .headers(self.request_headers(request)?);
        if let Some(credentials) = &request.basic_auth {
            builder = builder.basic_auth(&credentials.user, credentials.password.as_ref());
        }
        let built = builder.build().map_err(|e| FetchError::InvalidUrl {
            url: url.to_string(),
            reason: e.to_string(),
        })?;
        let sent_headers: Vec<HeaderField> = built
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec()))
            .collect();

        // reqwest enforces connect_timeout but does not say when it connected: allow both.
        let head_limit = config.connect_timeout + config.read_timeout;
        let mut response = match tokio::time::timeout(head_limit, self.client.execute(built)).await
        {
            Err(_) => {
                return Err(FetchError::Timeout {
                    url: url.to_string(),
                    phase: TimeoutPhase::ResponseHead,
                    limit: head_limit,
                });
            }
            Ok(Err(e)) => return Err(classify_send_error(url, e, config.connect_timeout)),
            Ok(Ok(response)) => response,
        };

        let status = response.status();
        let version = HttpVersion::from_reqwest(response.version());
        let reason = response
            .extensions()
            .get::<hyper::ext::ReasonPhrase>()
            .map(|r| String::from_utf8_lossy(r.as_bytes()).into_owned())
            .or_else(|| status.canonical_reason().map(str::to_owned))
            .unwrap_or_default();
        let headers: Vec<HeaderField> = response
            .headers()
            .iter()
            .map(|(n, v)| (n.as_str().to_owned(), v.as_bytes().to_vec()))
            .collect();
        let remote_addr = response.remote_addr();
        let coding = last_value(response.headers(), header::CONTENT_ENCODING)
            .and_then(ContentCoding::from_header);
        let content_length = last_value(response.headers(), header::CONTENT_LENGTH)
            .and_then(|v| std::str::from_utf8(v).ok())
            .and_then(|v| v.trim().parse::<u64>().ok());

        let limit = config.max_body_bytes;
        let skip = config.oversize_policy == OversizePolicy::Skip;
        // Decide before reading; with a content coding the decoded size is unknown.
        if skip && coding.is_none() && content_length.is_some_and(|n| n > limit) {
            return Err(FetchError::BodyTooLarge {
                url: url.to_string(),
                limit,
                content_length,
            });
        }

        let mut decoder = BodyDecoder::new(coding, limit);
        if let Some(length) = content_length.filter(|_| coding.is_none()) {
            decoder.expect_identity_length(length);
        }
        let mut received_bytes: u64 = 0;
        let mut truncated = false;
        loop {
            let chunk = match tokio::time::timeout(config.read_timeout, response.chunk()).await {
                Err(_) => {
                    return Err(FetchError::Timeout {
                        url: url.to_string(),
                        phase: TimeoutPhase::Body,
                        limit: config.read_timeout,
                    });
                }
                Ok(Err(e)) => return Err(classify_body_error(url, e, received_bytes)),
                Ok(Ok(None)) => break,
                Ok(Ok(Some(chunk))) => chunk,
            };
            received_bytes += chunk.len() as u64;
            let progress = decoder
                .push(&chunk)
                .map_err(|source| decoding_error(url, coding, source))?;
            if progress == Progress::LimitReached {
                if skip {
                    return Err(FetchError::BodyTooLarge {
                        url: url.to_string(),
                        limit,
                        content_length,
                    });
                }
                // Dropping the response closes the connection; the rest is never read.
                truncated = true;
                break;
            }
        }
        // 304s and 204s often carry `Content-Encoding` with no body: nothing to decode.
        let decoded = coding.is_some() && received_bytes > 0;
        let body = if truncated {
            decoder.into_partial()
        } else if received_bytes == 0 {
            Vec::new()
        } else {
            let (body, cut) = decoder
                .finish()
                .map_err(|source| decoding_error(url, coding, source))?;
            truncated = cut;
            body
        };
        tracing::debug!(
            %url,
            status = status.as_u16(),
            wire_bytes = received_bytes,
            body_bytes = body.len(),
            truncated,
            decoded,
            elapsed_ms = start.elapsed().as_millis() as u64,
            "fetched"
        );

        let mut request_headers = sent_headers;
        if !request_headers.iter().any(|(n, _)| n == "host") {
            request_headers.push(("host".to_owned(), host_header(url).into_bytes()));
        }
        Ok(FetchedResponse {
            url: url.clone(),
            status: status.as_u16(),
            reason,
            version,
            headers,
            request: RequestHead {
                method: "GET".to_owned(),
                target: request_target(url),
                version,
                headers: request_headers,
            },
            remote_addr,
            started_at,
            elapsed: start.elapsed(),
            body: Bytes::from(body),
            body_truncated: truncated,
            content_was_decoded: decoded,
        })
    }

    fn request_headers(&self, request: &FetchRequest) -> Result<HeaderMap, FetchError> {
        let mut headers = HeaderMap::with_capacity(self.base_headers.len() + 2);
        for (name, value) in self.base_headers.iter() {
            headers.append(name.clone(), value.clone());
        }
        let mut conditional = |name: HeaderName, label: &'static str, value: &Option<String>| {
            let Some(value) = value else { return Ok(()) };
            let value =
                HeaderValue::from_str(value).map_err(|e| FetchError::InvalidRequestHeader {
                    url: request.url.to_string(),
                    name: label,
                    reason: e.to_string(),
                })?;
            headers.append(name, value);
            Ok(())
        };
        conditional(
            header::IF_NONE_MATCH,
            "If-None-Match",
            &request.if_none_match,
        )?;
        conditional(
            header::IF_MODIFIED_SINCE,
            "If-Modified-Since",
            &request.if_modified_since,
        )?;
        Ok(headers)
    }
}

fn last_value(headers: &HeaderMap, name: HeaderName) -> Option<&[u8]> {
    headers
        .get_all(name)
        .iter()
        .next_back()
        .map(HeaderValue::as_bytes)
}

fn decoding_error(url: &Url, coding: Option<ContentCoding>, source: std::io::Error) -> FetchError {
    FetchError::ContentDecoding {
        url: url.to_string(),
        encoding: coding.map_or("identity", ContentCoding::name),
        source,
    }
}

/// `Host` as hyper writes it: host, plus the port when it is not the scheme's default.
fn host_header(url: &Url) -> String {
    let host = url.host_str().unwrap_or_default();
    match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    }
}

/// Path and query, as on the request line.
fn request_target(url: &Url) -> String {
    match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fetcher_is_clone_send_sync() {
        fn shareable<T: Clone + Send + Sync + 'static>() {}
        fn sendable_error<T: std::error::Error + Send + Sync + 'static>() {}
        shareable::<Fetcher>();
        sendable_error::<FetchError>();
    }

    #[test]
    fn host_and_target() {
        let url = Url::parse("https://example.com:443/a/b?c=d#frag").unwrap();
        assert_eq!(host_header(&url), "example.com");
        assert_eq!(request_target(&url), "/a/b?c=d");
        let url = Url::parse("http://[::1]:8080").unwrap();
        assert_eq!(host_header(&url), "[::1]:8080");
        assert_eq!(request_target(&url), "/");
    }

    #[test]
    fn zero_timeout_is_rejected() {
        let config = FetchConfig {
            read_timeout: std::time::Duration::ZERO,
            ..FetchConfig::default()
        };
        assert!(matches!(
            Fetcher::new(config),
            Err(FetchError::InvalidConfig { .. })
        ));
    }
}
