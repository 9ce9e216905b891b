//! Scope: which canonical URLs the crawl may enqueue at all.
//!
//! - **Hosts**: `allowed_hosts` empty means every host; otherwise a URL's host must match one
//!   entry. An entry matches the host name exactly (`example.com`), the host and port if it
//!   contains a port (`127.0.0.1:8080`), or a domain and all its subdomains if it starts with
//!   `*.` or `.` (`*.example.com` matches `example.com` and `docs.example.com`).
//!   `denied_hosts` (same syntax) always wins.
//! - **Patterns** are regular expressions ([`regex`] syntax) searched in the whole canonical URL
//!   (unanchored: anchor with `^`/`$` yourself). Regex rather than globs because URL shapes
//!   (query values, numeric paths, calendar traps like `/20\d\d/\d\d/`) need classes and
//!   repetition that globs lack. A deny pattern always wins; if `allow_patterns` is non-empty a
//!   URL must match one of them.
//! - **Depth** counts links from a seed (seed = 0).
//! - **Page budgets** need counts that only the caller has (pages fetched per host and in
//!   total), so they are checked separately by [`ScopeRules::check_budget`].

use std::fmt;

use regex::Regex;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::canonical::CanonicalUrl;

/// A scope pattern that did not compile.
#[derive(Debug, thiserror::Error)]
#[error("invalid scope pattern {pattern:?}: {source}")]
pub struct PatternError {
    pattern: String,
    #[source]
    source: regex::Error,
}

/// A compiled URL pattern (regular expression, searched unanchored in the canonical URL).
#[derive(Clone)]
pub struct UrlPattern(Regex);

impl UrlPattern {
    /// Compiles a regular expression.
    pub fn new(pattern: &str) -> Result<UrlPattern, PatternError> {
        Regex::new(pattern)
            .map(UrlPattern)
            .map_err(|source| PatternError {
                pattern: pattern.to_string(),
                source,
            })
    }

    /// Whether the pattern occurs in the URL.
    pub fn is_match(&self, url: &CanonicalUrl) -> bool {
        self.0.is_match(url.as_str())
    }

    /// The pattern text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl fmt::Debug for UrlPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UrlPattern({:?})", self.as_str())
    }
}

impl Serialize for UrlPattern {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for UrlPattern {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        UrlPattern::new(&text).map_err(serde::de::Error::custom)
    }
}

/// Why a URL is out of scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutOfScopeReason {
    /// `allowed_hosts` is set and the host is not in it.
    HostNotAllowed,
    /// The host matches `denied_hosts`.
    HostDenied,
    /// The URL matches this deny pattern.
    DeniedByPattern(String),
    /// `allow_patterns` is set and the URL matches none of them.
    NoAllowPatternMatched,
    /// Deeper than `max_depth`.
    TooDeep { depth: u32, max_depth: u32 },
    /// The host already has `max_pages_per_host` pages.
    HostPageLimit(u64),
    /// The crawl already has `max_pages_total` pages.
    TotalPageLimit(u64),
}

impl fmt::Display for OutOfScopeReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutOfScopeReason::HostNotAllowed => f.write_str("host not in allowed hosts"),
            OutOfScopeReason::HostDenied => f.write_str("host denied"),
            OutOfScopeReason::DeniedByPattern(p) => write!(f, "matches deny pattern {p:?}"),
            OutOfScopeReason::NoAllowPatternMatched => f.write_str("matches no allow pattern"),
            OutOfScopeReason::TooDeep { depth, max_depth } => {
                write!(f, "depth {depth} exceeds max depth {max_depth}")
            }
            OutOfScopeReason::HostPageLimit(n) => write!(f, "host reached its {n} pages"),
            OutOfScopeReason::TotalPageLimit(n) => write!(f, "crawl reached its {n} pages"),
        }
    }
}

/// The verdict of [`ScopeRules::check`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScopeDecision {
    InScope,
    OutOfScope(OutOfScopeReason),
}

impl ScopeDecision {
    pub fn is_in_scope(&self) -> bool {
        matches!(self, ScopeDecision::InScope)
    }
}

/// What the crawl may enqueue. `Default` allows everything; [`ScopeRules::for_seeds`] is the
/// usual site crawl (the seeds' hosts only).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ScopeRules {
    /// Hosts that may be crawled (empty = all). See the module doc for the syntax.
    pub allowed_hosts: Vec<String>,
    /// Hosts that must not be crawled; wins over `allowed_hosts`.
    pub denied_hosts: Vec<String>,
    /// If non-empty, a URL must match one of these.
    pub allow_patterns: Vec<UrlPattern>,
    /// A URL matching any of these is out of scope.
    pub deny_patterns: Vec<UrlPattern>,
    /// Largest link depth from a seed (seed = 0).
    pub max_depth: Option<u32>,
    /// Most pages per host (checked by [`ScopeRules::check_budget`]).
    pub max_pages_per_host: Option<u64>,
    /// Most pages in the whole crawl (checked by [`ScopeRules::check_budget`]).
    pub max_pages_total: Option<u64>,
}

impl ScopeRules {
    /// Scope of a site crawl: only the seeds' hosts (with their ports), nothing else limited.
    pub fn for_seeds<'a>(seeds: impl IntoIterator<Item = &'a CanonicalUrl>) -> ScopeRules {
        let mut allowed_hosts: Vec<String> = Vec::new();
        for seed in seeds {
            if !allowed_hosts.iter().any(|h| h == seed.host()) {
                allowed_hosts.push(seed.host().to_string());
            }
        }
        ScopeRules {
            allowed_hosts,
            ..ScopeRules::default()
        }
    }

    /// Host, pattern and depth rules.
    pub fn check(&self, url: &CanonicalUrl, depth: u32) -> ScopeDecision {
        use OutOfScopeReason::*;
        if self.denied_hosts.iter().any(|h| host_matches(h, url)) {
            return ScopeDecision::OutOfScope(HostDenied);
        }
        if !self.allowed_hosts.is_empty()
            && !self.allowed_hosts.iter().any(|h| host_matches(h, url))
        {
            return ScopeDecision::OutOfScope(HostNotAllowed);
        }
        if let Some(max_depth) = self.max_depth
            && depth > max_depth
        {
            return ScopeDecision::OutOfScope(TooDeep { depth, max_depth });
        }
        if let Some(pattern) = self.deny_patterns.iter().find(|p| p.is_match(url)) {
            return ScopeDecision::OutOfScope(DeniedByPattern(pattern.as_str().to_string()));
        }
        if !self.allow_patterns.is_empty() && !self.allow_patterns.iter().any(|p| p.is_match(url)) {
            return ScopeDecision::OutOfScope(NoAllowPatternMatched);
        }
        ScopeDecision::InScope
    }

    /// Page budgets, given the pages the caller has already taken for this host and in total.
    pub fn check_budget(&self, host_pages: u64, total_pages: u64) -> ScopeDecision {
        if let Some(max) = self.max_pages_total
            && total_pages >= max
        {
            return ScopeDecision::OutOfScope(OutOfScopeReason::TotalPageLimit(max));
        }
        if let Some(max) = self.max_pages_per_host
            && host_pages >= max
        {
            return ScopeDecision::OutOfScope(OutOfScopeReason::HostPageLimit(max));
        }
        ScopeDecision::InScope
    }
}

/// `rule` against the URL's host: exact name, `name:port`, or `*.domain` / `.domain`.
fn host_matches(rule: &str, url: &CanonicalUrl) -> bool {
    let rule = rule.trim().trim_end_matches('.');
    let name = url.host_name();
    if let Some(domain) = rule.strip_prefix("*.").or_else(|| rule.strip_prefix('.')) {
        return name.eq_ignore_ascii_case(domain)
            || (name.len() > domain.len()
                && name.as_bytes()[name.len() - domain.len() - 1] == b'.'
                && name[name.len() - domain.len()..].eq_ignore_ascii_case(domain));
    }
    // A rule with a port (not the colons of a bare IPv6 address) is compared to host:port.
    let has_port = if rule.starts_with('[') {
        rule.contains("]:")
    } else {
        rule.contains(':')
    };
    if has_port {
        rule.eq_ignore_ascii_case(url.host())
    } else {
        rule.eq_ignore_ascii_case(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> CanonicalUrl {
        s.parse().unwrap()
    }

    fn patterns(list: &[&str]) -> Vec<UrlPattern> {
        list.iter().map(|p| UrlPattern::new(p).unwrap()).collect()
    }

    #[test]
    fn default_for_seed_is_the_seed_host_only() {
        let seed = url("https://example.com/docs/");
        let rules = ScopeRules::for_seeds([&seed]);
        assert_eq!(rules.allowed_hosts, vec!["example.com".to_string()]);
        assert!(
            rules
                .check(&url("https://example.com/other"), 5)
                .is_in_scope()
        );
        assert!(rules.check(&url("http://example.com/x"), 1).is_in_scope());
        assert_eq!(
            rules.check(&url("https://docs.example.com/"), 1),
            ScopeDecision::OutOfScope(OutOfScopeReason::HostNotAllowed)
        );
        assert!(!rules.check(&url("https://example.org/"), 1).is_in_scope());
        // a seed with a port keeps its port
        let local = url("http://127.0.0.1:8080/");
        let rules = ScopeRules::for_seeds([&local]);
        assert!(
            rules
                .check(&url("http://127.0.0.1:8080/a"), 1)
                .is_in_scope()
        );
        assert!(
            !rules
                .check(&url("http://127.0.0.1:9090/a"), 1)
                .is_in_scope()
        );
    }

    #[test]
    fn host_rules() {
        let rules = ScopeRules {
            allowed_hosts: vec!["*.example.com".into(), "Other.org".into()],
            denied_hosts: vec!["private.example.com".into()],
            ..ScopeRules::default()
        };
        let cases: &[(&str, bool)] = &[
            ("http://example.com/", true),
            ("http://docs.example.com/", true),
            ("http://a.b.example.com/", true),
            ("http://badexample.com/", false),
            ("http://private.example.com/", false),
            ("http://other.org:8080/", true),
            ("http://sub.other.org/", false),
        ];
        for (input, in_scope) in cases {
            assert_eq!(
                rules.check(&url(input), 0).is_in_scope(),
                *in_scope,
                "{input}"
            );
        }
        assert_eq!(
            rules.check(&url("http://private.example.com/"), 0),
            ScopeDecision::OutOfScope(OutOfScopeReason::HostDenied)
        );
    }

    #[test]
    fn patterns_and_depth() {
        let rules = ScopeRules {
            allow_patterns: patterns(&["^https://example\\.com/docs/"]),
            deny_patterns: patterns(&["\\.pdf$", "/calendar/\\d{4}/", "[?&]print="]),
            max_depth: Some(3),
            ..ScopeRules::default()
        };
        let cases: &[(&str, u32, bool)] = &[
            ("https://example.com/docs/a", 0, true),
            ("https://example.com/docs/a", 3, true),
            ("https://example.com/docs/a", 4, false),
            ("https://example.com/blog/a", 0, false),
            ("https://example.com/docs/a.pdf", 0, false),
            ("https://example.com/docs/calendar/2031/01", 0, false),
            ("https://example.com/docs/a?print=1", 0, false),
        ];
        for (input, depth, in_scope) in cases {
            assert_eq!(
                rules.check(&url(input), *depth).is_in_scope(),
                *in_scope,
                "{input}"
            );
        }
        assert_eq!(
            rules.check(&url("https://example.com/docs/a"), 4),
            ScopeDecision::OutOfScope(OutOfScopeReason::TooDeep {
                depth: 4,
                max_depth: 3
            })
        );
        assert!(UrlPattern::new("(unclosed").is_err());
    }

    #[test]
    fn budgets() {
        let rules = ScopeRules {
            max_pages_per_host: Some(10),
            max_pages_total: Some(100),
            ..ScopeRules::default()
        };
        assert!(rules.check_budget(9, 99).is_in_scope());
        assert_eq!(
            rules.check_budget(10, 50),
            ScopeDecision::OutOfScope(OutOfScopeReason::HostPageLimit(10))
        );
        assert_eq!(
            rules.check_budget(1, 100),
            ScopeDecision::OutOfScope(OutOfScopeReason::TotalPageLimit(100))
        );
        assert!(
            ScopeRules::default()
                .check_budget(u64::MAX, u64::MAX)
                .is_in_scope()
        );
    }

    #[test]
    fn deserializes_from_config() {
        let json =
            r#"{"allowed_hosts":["example.com"],"deny_patterns":["\\?replytocom="],"max_depth":2}"#;
        let rules: ScopeRules = serde_json::from_str(json).unwrap();
        assert!(
            !rules
                .check(&url("http://example.com/?replytocom=5"), 0)
                .is_in_scope()
        );
        assert!(rules.check(&url("http://example.com/a"), 2).is_in_scope());
        assert!(serde_json::from_str::<ScopeRules>(r#"{"deny_patterns":["("]}"#).is_err());
    }
}
