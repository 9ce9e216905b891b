//! URL canonicalization: one spelling per resource, so the seen-URL set catches
//! `HTTP://Example.com:80/a/./b?b=2&a=1&utm_source=x#top` and `http://example.com/a/b?a=1&b=2`
//! as the same URL.
//!
//! The [`url`] crate (WHATWG URL parser) does the heavy lifting: scheme and host
//! lowercasing, IDNA, default-port removal, dot-segment resolution (also `%2e`), percent-encoding
//! of characters that must be encoded. On top of it this module
//! - drops the fragment and an empty query (`?`),
//! - drops a user name and password (`http://user:pw@host/` is `http://host/`: credentials are
//!   not part of a page's identity, and would be stored and archived with the URL),
//! - normalises percent-encoding (RFC 3986 §6.2.2.2: `%7e` → `~`, `%2f` → `%2F`),
//! - removes tracking and session-id parameters, in the query and as `;name=value`
//!   path parameters (`;jsessionid=...`), names compared case-insensitively,
//! - sorts the remaining query parameters (stable, by key then value),
//! - removes a trailing dot of the host (`example.com.` is `example.com` in DNS).
//!
//! It deliberately keeps: `www.` (another host), trailing slashes, path case, and `+` vs `%20`
//! (servers differ in how they read them).

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use url::{Position, Url};

/// Why an input could not become a [`CanonicalUrl`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlError {
    /// The input is not a URL (or not one relative to the base).
    #[error("invalid URL: {0}")]
    Parse(#[from] url::ParseError),
    /// Only `http` and `https` are crawled (`mailto:`, `javascript:`, `ftp:` ... are not).
    #[error("unsupported scheme {0:?} (only http and https)")]
    UnsupportedScheme(String),
    /// An http(s) URL without host.
    #[error("URL has no host")]
    NoHost,
    /// Longer than [`CanonicalizationRules::max_length`]: a crawler trap more often than a page.
    #[error("URL is {0} bytes long, more than the configured maximum")]
    TooLong(usize),
}

/// Which query/path parameters are removed and whether the query is sorted.
///
/// Parameter names are compared case-insensitively (after percent-decoding);
/// `strip_params` are exact names, `strip_param_prefixes` match the start of a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CanonicalizationRules {
    /// Exact parameter names to remove (tracking ids, session ids).
    pub strip_params: Vec<String>,
    /// Parameter name prefixes to remove (`utm_`, `aspsessionid`).
    pub strip_param_prefixes: Vec<String>,
    /// Sort query parameters by key, then value (stable).
    pub sort_query: bool,
    /// Longest canonical URL accepted, in bytes.
    pub max_length: usize,
}

/// Tracking parameters removed by default (analytics and ad click ids).
pub const DEFAULT_TRACKING_PARAMS: &[&str] = &[
    "gclid",
    "gclsrc",
    "dclid",
    "gbraid",
    "wbraid",
    "fbclid",
    "msclkid",
    "mc_cid",
    "mc_eid",
    "_ga",
    "_gl",
    "yclid",
    "igshid",
    "twclid",
    "ttclid",
    "li_fat_id",
    "_hsenc",
    "_hsmi",
    "mkt_tok",
    "oly_anon_id",
    "oly_enc_id",
    "vero_id",
    "rb_clickid",
    "s_cid",
];

/// Session-id parameters removed by default (query and `;name=` path parameters).
pub const DEFAULT_SESSION_PARAMS: &[&str] = &[
    "jsessionid",
    "phpsessid",
    "sid",
    "sessionid",
    "session_id",
    "cfid",
    "cftoken",
];

/// Parameter name prefixes removed by default.
pub const DEFAULT_STRIP_PREFIXES: &[&str] = &["utm_", "mtm_", "aspsessionid"];

impl Default for CanonicalizationRules {
    fn default() -> Self {
        CanonicalizationRules {
            strip_params: DEFAULT_TRACKING_PARAMS
                .iter()
                .chain(DEFAULT_SESSION_PARAMS)
                .map(|s| s.to_string())
                .collect(),
            strip_param_prefixes: DEFAULT_STRIP_PREFIXES
                .iter()
                .map(|s| s.to_string())
                .collect(),
            sort_query: true,
            max_length: 4096,
        }
    }
}

impl CanonicalizationRules {
    /// Rules that only normalise (no parameter is removed, query not sorted).
    pub fn none() -> Self {
        CanonicalizationRules {
            strip_params: Vec::new(),
            strip_param_prefixes: Vec::new(),
            sort_query: false,
            max_length: usize::MAX,
        }
    }

    /// Whether a parameter with this (raw, possibly percent-encoded) name is removed.
    pub fn strips_param(&self, raw_name: &str) -> bool {
        let name = percent_encoding::percent_decode_str(raw_name)
            .decode_utf8_lossy()
            .to_ascii_lowercase();
        self.strip_params
            .iter()
            .any(|p| p.eq_ignore_ascii_case(&name))
            || self
                .strip_param_prefixes
                .iter()
                // Compared as bytes: the name's prefix of that length may end inside a
                // multi-byte character (`aspsessioné…`), where slicing the `str` panics.
                .any(|p| {
                    name.as_bytes()
                        .get(..p.len())
                        .is_some_and(|head| head.eq_ignore_ascii_case(p.as_bytes()))
                })
    }
}

/// An absolute http(s) URL in canonical form; the key of the seen-URL set and of per-host state.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CanonicalUrl {
    url: Url,
}

impl CanonicalUrl {
    /// Parses `input` (relative to `base` if given) and canonicalizes it under `rules`.
    pub fn parse(
        input: &str,
        base: Option<&Url>,
        rules: &CanonicalizationRules,
    ) -> Result<CanonicalUrl, UrlError> {
        let mut url = match base {
            Some(base) => base.join(input)?,
            None => Url::parse(input)?,
        };
        match url.scheme() {
            "http" | "https" => {}
            other => return Err(UrlError::UnsupportedScheme(other.to_string())),
        }
        let host = url.host_str().ok_or(UrlError::NoHost)?;
        if host.is_empty() {
            return Err(UrlError::NoHost);
        }
        if host.len() > 1 && host.ends_with('.') {
            let trimmed = host.trim_end_matches('.').to_string();
            url.set_host(Some(&trimmed))?;
        }
        url.set_fragment(None);
        // A user name and password are credentials, not part of the page's identity: they
        // would end up in the state, the crawl log and the archive (the crawler sends seeds'
        // credentials as a header instead).
        if !url.username().is_empty() || url.password().is_some() {
            let _ = url.set_username("");
            let _ = url.set_password(None);
        }

        let path = canonical_path(url.path(), rules);
        if path != url.path() {
            url.set_path(&path);
        }
        let query = url.query().map(|q| canonical_query(q, rules));
        match query {
            Some(q) if q.is_empty() => url.set_query(None),
            Some(q) if url.query() != Some(q.as_str()) => url.set_query(Some(&q)),
            _ => {}
        }
        if url.as_str().len() > rules.max_length {
            return Err(UrlError::TooLong(url.as_str().len()));
        }
        Ok(CanonicalUrl { url })
    }

    /// The canonical URL as text.
    pub fn as_str(&self) -> &str {
        self.url.as_str()
    }

    /// The canonical URL as a parsed [`Url`].
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// `host[:port]` (port only when not the scheme's default): the key of per-host state.
    pub fn host(&self) -> &str {
        &self.url[Position::BeforeHost..Position::AfterPort]
    }

    /// The host name alone (no port).
    pub fn host_name(&self) -> &str {
        self.url.host_str().unwrap_or_default()
    }

    /// Path and query (what robots.txt rules are matched against).
    pub fn path_and_query(&self) -> &str {
        &self.url[Position::BeforePath..Position::AfterQuery]
    }

    /// Consumes the canonical URL, returning the inner [`Url`].
    pub fn into_url(self) -> Url {
        self.url
    }

    /// Wraps a URL that is already canonical (read back from storage) after checking it is an
    /// http(s) URL with a host. Does not re-canonicalize: the rules in force when it was stored
    /// decided its form.
    fn from_stored(text: &str) -> Result<CanonicalUrl, UrlError> {
        let url = Url::parse(text)?;
        match url.scheme() {
            "http" | "https" => {}
            other => return Err(UrlError::UnsupportedScheme(other.to_string())),
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(UrlError::NoHost);
        }
        Ok(CanonicalUrl { url })
    }
}

impl fmt::Display for CanonicalUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for CanonicalUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CanonicalUrl({:?})", self.as_str())
    }
}

impl AsRef<str> for CanonicalUrl {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

/// Parses with the default rules and no base.
impl FromStr for CanonicalUrl {
    type Err = UrlError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        CanonicalUrl::parse(s, None, &CanonicalizationRules::default())
    }
}

impl Serialize for CanonicalUrl {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for CanonicalUrl {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = Cow::<str>::deserialize(deserializer)?;
        CanonicalUrl::from_stored(&text).map_err(serde::de::Error::custom)
    }
}

/// Normalises percent-encoding and drops stripped `;name=value` parameters of every segment.
fn canonical_path(path: &str, rules: &CanonicalizationRules) -> String {
    let mut out = String::with_capacity(path.len());
    for (index, segment) in path.split('/').enumerate() {
        if index > 0 {
            out.push('/');
        }
        let mut parts = segment.split(';');
        out.push_str(&normalize_percent_encoding(
            parts.next().unwrap_or_default(),
        ));
        for param in parts {
            let name = param.split('=').next().unwrap_or_default();
            if !rules.strips_param(name) {
                out.push(';');
                out.push_str(&normalize_percent_encoding(param));
            }
        }
    }
    out
}

/// Removes stripped and empty parameters, normalises percent-encoding, sorts if asked.
fn canonical_query(query: &str, rules: &CanonicalizationRules) -> String {
    let mut params: Vec<(String, String)> = query
        .split('&')
        .filter(|piece| !piece.is_empty())
        .filter_map(|piece| {
            let (name, value) = match piece.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (piece, None),
            };
            if rules.strips_param(name) {
                return None;
            }
            let name = normalize_percent_encoding(name).into_owned();
            // `=value` kept apart from the name so that sorting is by key, then value.
            let value = value.map(|v| format!("={}", normalize_percent_encoding(v)));
            Some((name, value.unwrap_or_default()))
        })
        .collect();
    if rules.sort_query {
        params.sort(); // stable: equal (key, value) pairs keep their order, duplicates stay
    }
    let mut out = String::with_capacity(query.len());
    for (index, (name, value)) in params.iter().enumerate() {
        if index > 0 {
            out.push('&');
        }
        out.push_str(name);
        out.push_str(value);
    }
    out
}

fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

fn hex_value(byte: u8) -> Option<u8> {
    (byte as char).to_digit(16).map(|d| d as u8)
}

/// `%7e` → `~` (unreserved characters decoded), other escapes upper-cased (`%2f` → `%2F`).
fn normalize_percent_encoding(text: &str) -> Cow<'_, str> {
    if !text.contains('%') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(hi), Some(lo)) = (hex_value(bytes[i + 1]), hex_value(bytes[i + 2]))
        {
            let decoded = hi * 16 + lo;
            // A decoded hex digit right after a stray `%` would make a new escape (`%%33` →
            // `%3`+`3`, read as `%33` next time: not idempotent), so it stays escaped. A
            // `%` 1 or 2 bytes back is stray: a kept escape ends in its two hex digits.
            let completes_stray_escape =
                decoded.is_ascii_hexdigit() && out.iter().rev().take(2).any(|&byte| byte == b'%');
            if is_unreserved(decoded) && !completes_stray_escape {
                out.push(decoded);
            } else {
                out.push(b'%');
                out.push(bytes[i + 1].to_ascii_uppercase());
                out.push(bytes[i + 2].to_ascii_uppercase());
            }
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    // Only ASCII bytes were added or replaced by ASCII, so UTF-8 validity is preserved.
    Cow::Owned(String::from_utf8(out).unwrap_or_else(|_| text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(input: &str) -> Result<String, UrlError> {
        CanonicalUrl::parse(input, None, &CanonicalizationRules::default()).map(|u| u.to_string())
    }

    #[test]
    fn canonicalization_table() {
        let cases: &[(&str, &str)] = &[
            // scheme, host case, default ports
            ("HTTP://Example.COM/", "http://example.com/"),
            ("http://example.com:80/a", "http://example.com/a"),
            ("https://example.com:443/a", "https://example.com/a"),
            ("http://example.com:8080/a", "http://example.com:8080/a"),
            ("https://example.com:80/a", "https://example.com:80/a"),
            ("http://example.com", "http://example.com/"),
            ("http://example.com./a", "http://example.com/a"),
            // credentials are not part of a URL's identity
            ("http://user:pw@example.com/a", "http://example.com/a"),
            ("http://user@example.com:8080/", "http://example.com:8080/"),
            // dot segments
            ("http://example.com/a/./b/../c", "http://example.com/a/c"),
            ("http://example.com/a/%2e%2E/c", "http://example.com/c"),
            ("http://example.com/../../a", "http://example.com/a"),
            // percent-encoding
            ("http://example.com/%7euser", "http://example.com/~user"),
            (
                "http://example.com/%7Euser/%41%62",
                "http://example.com/~user/Ab",
            ),
            ("http://example.com/a%2fb", "http://example.com/a%2Fb"),
            ("http://example.com/a%2Fb", "http://example.com/a%2Fb"),
            (
                "http://example.com/caf%c3%a9",
                "http://example.com/caf%C3%A9",
            ),
            ("http://example.com/café", "http://example.com/caf%C3%A9"),
            ("http://example.com/a b", "http://example.com/a%20b"),
            ("http://example.com/?q=%7e%2f", "http://example.com/?q=~%2F"),
            ("http://example.com/100%", "http://example.com/100%"),
            // fragment, empty query
            ("http://example.com/a#top", "http://example.com/a"),
            ("http://example.com/a?#top", "http://example.com/a"),
            ("http://example.com/a?", "http://example.com/a"),
            ("http://example.com/a?&&", "http://example.com/a"),
            // sorting
            ("http://example.com/?b=2&a=1", "http://example.com/?a=1&b=2"),
            (
                "http://example.com/?a=2&a=1&a=1",
                "http://example.com/?a=1&a=1&a=2",
            ),
            ("http://example.com/?b&a=", "http://example.com/?a=&b"),
            (
                "http://example.com/?b=1&&a=2",
                "http://example.com/?a=2&b=1",
            ),
            // tracking parameters
            (
                "http://example.com/?utm_source=x&utm_medium=y",
                "http://example.com/",
            ),
            (
                "http://example.com/p?id=3&UTM_Campaign=x",
                "http://example.com/p?id=3",
            ),
            (
                "http://example.com/p?gclid=1&fbclid=2&msclkid=3&id=1",
                "http://example.com/p?id=1",
            ),
            (
                "http://example.com/p?mc_cid=1&mc_eid=2&_ga=3&yclid=4&igshid=5",
                "http://example.com/p",
            ),
            (
                "http://example.com/p?utm%5Fsource=x&a=1",
                "http://example.com/p?a=1",
            ),
            // session ids
            (
                "http://example.com/p;jsessionid=ABC123?x=1",
                "http://example.com/p?x=1",
            ),
            (
                "http://example.com/p;JSESSIONID=ABC123",
                "http://example.com/p",
            ),
            (
                "http://example.com/p;v=2;jsessionid=A",
                "http://example.com/p;v=2",
            ),
            (
                "http://example.com/p?PHPSESSID=abc&page=2",
                "http://example.com/p?page=2",
            ),
            (
                "http://example.com/p?sid=1&sessionid=2&session_id=3&q=a",
                "http://example.com/p?q=a",
            ),
            (
                "http://example.com/p?ASPSESSIONIDQQGGQGPG=xyz&q=a",
                "http://example.com/p?q=a",
            ),
            ("http://example.com/p?jsessionid=1", "http://example.com/p"),
            // kept as they are
            ("http://www.example.com/A/b/", "http://www.example.com/A/b/"),
            ("http://example.com/?q=a+b", "http://example.com/?q=a+b"),
            (
                "http://example.com/?sidebar=1",
                "http://example.com/?sidebar=1",
            ),
            // IDNA, IP addresses
            ("http://BÜCHER.example/", "http://xn--bcher-kva.example/"),
            ("http://[::1]:8080/a", "http://[::1]:8080/a"),
            ("http://127.0.0.1:80/", "http://127.0.0.1/"),
            ("  http://example.com/a\n", "http://example.com/a"),
        ];
        for (input, expected) in cases {
            assert_eq!(canon(input).as_deref(), Ok(*expected), "input {input:?}");
        }
    }

    #[test]
    fn rejects_non_http_and_bad_input() {
        let cases: &[(&str, UrlError)] = &[
            (
                "mailto:a@example.com",
                UrlError::UnsupportedScheme("mailto".into()),
            ),
            (
                "javascript:void(0)",
                UrlError::UnsupportedScheme("javascript".into()),
            ),
            (
                "ftp://example.com/",
                UrlError::UnsupportedScheme("ftp".into()),
            ),
            (
                "file:///etc/passwd",
                UrlError::UnsupportedScheme("file".into()),
            ),
            (
                "data:text/html,hi",
                UrlError::UnsupportedScheme("data".into()),
            ),
            ("http://", UrlError::Parse(url::ParseError::EmptyHost)),
            (
                "/relative/without/base",
                UrlError::Parse(url::ParseError::RelativeUrlWithoutBase),
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(canon(input).as_ref(), Err(expected), "input {input:?}");
        }
        let long = format!("http://example.com/{}", "a".repeat(5000));
        assert!(matches!(canon(&long), Err(UrlError::TooLong(_))));
    }

    #[test]
    fn relative_links_resolve_against_base() {
        let base = Url::parse("https://example.com/docs/guide/index.html?x=1").unwrap();
        let rules = CanonicalizationRules::default();
        let cases: &[(&str, &str)] = &[
            ("intro.html", "https://example.com/docs/guide/intro.html"),
            ("../api/", "https://example.com/docs/api/"),
            ("/top", "https://example.com/top"),
            ("//other.example/x", "https://other.example/x"),
            (
                "?b=2&a=1",
                "https://example.com/docs/guide/index.html?a=1&b=2",
            ),
            ("#section", "https://example.com/docs/guide/index.html?x=1"),
            ("HTTP://Example.com:443/x", "http://example.com:443/x"),
        ];
        for (input, expected) in cases {
            let got = CanonicalUrl::parse(input, Some(&base), &rules).unwrap();
            assert_eq!(got.as_str(), *expected, "input {input:?}");
        }
    }

    #[test]
    fn configurable_rules() {
        let none = CanonicalizationRules::none();
        let got = CanonicalUrl::parse("http://e.com/?utm_source=x&b=1&a=2", None, &none).unwrap();
        assert_eq!(got.as_str(), "http://e.com/?utm_source=x&b=1&a=2");

        let custom = CanonicalizationRules {
            strip_params: vec!["Ref".into()],
            strip_param_prefixes: vec!["x-".into()],
            sort_query: true,
            ..CanonicalizationRules::default()
        };
        let got = CanonicalUrl::parse(
            "http://e.com/?REF=a&x-trace=1&utm_source=s&b=1",
            None,
            &custom,
        )
        .unwrap();
        assert_eq!(got.as_str(), "http://e.com/?b=1&utm_source=s");
    }

    #[test]
    fn host_key_and_accessors() {
        let cases: &[(&str, &str)] = &[
            ("http://Example.com/a", "example.com"),
            ("http://example.com:8080/a", "example.com:8080"),
            ("https://example.com:443/", "example.com"),
            ("http://user:pw@example.com:81/", "example.com:81"),
            ("http://[::1]:9000/", "[::1]:9000"),
        ];
        for (input, host) in cases {
            assert_eq!(canon_url(input).host(), *host, "input {input:?}");
        }
        let url = canon_url("http://example.com:8080/a/b?q=1#f");
        assert_eq!(url.host_name(), "example.com");
        assert_eq!(url.path_and_query(), "/a/b?q=1");
        assert_eq!(url.url().port(), Some(8080));
    }

    fn canon_url(input: &str) -> CanonicalUrl {
        input.parse().unwrap()
    }

    #[test]
    fn canonical_form_is_a_fixed_point() {
        for input in [
            "http://example.com/%7Ea/./b?z=1&utm_source=x&a=%2f#f",
            "http://example.com/p;jsessionid=1;v=2?b&a",
        ] {
            let once = canon(input).unwrap();
            assert_eq!(canon(&once).unwrap(), once);
        }
    }

    #[test]
    fn serde_round_trip() {
        let url = canon_url("https://example.com/a?b=1");
        let json = serde_json::to_string(&url).unwrap();
        assert_eq!(json, "\"https://example.com/a?b=1\"");
        let back: CanonicalUrl = serde_json::from_str(&json).unwrap();
        assert_eq!(back, url);
        assert!(serde_json::from_str::<CanonicalUrl>("\"ftp://example.com/\"").is_err());
        assert!(serde_json::from_str::<CanonicalUrl>("\"not a url\"").is_err());
    }
}
