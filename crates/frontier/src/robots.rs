//! robots.txt (RFC 9309) decisions with [`texting_robots`], and a per-host cache.
//!
//! [`RobotsPolicy::from_fetch`] turns the outcome of fetching `/robots.txt` into a policy:
//!
//! | fetch outcome | policy | RFC 9309 |
//! |---|---|---|
//! | 2xx | the rules of the group for our product token, else the `*` group, else allow all | §2.2.1, §2.3.1.1 |
//! | 3xx (redirects exhausted, > 5 hops) | allow all ("unavailable") | §2.3.1.2 |
//! | 4xx except 429 | allow all ("unavailable") | §2.3.1.3 |
//! | 429, 5xx, network error ([`RobotsPolicy::unreachable`]) | disallow all **for now**; the cache expires it soon so the engine retries | §2.3.1.4 |
//!
//! 429 is treated like 5xx (as Google does): the server asks us to slow down, not "no rules".
//! Bodies are cut at 500 KiB (the RFC's minimum a crawler must parse, §2.5) at a line end.
//! Rules are matched against the canonical path and query; `/robots.txt` itself is always
//! allowed. Longest match wins, and on equal length Allow wins over Disallow (§2.2.2);
//! `*` and `$` are supported (§2.2.3).
//!
//! # Differences of `texting_robots` 0.2.2 from RFC 9309 / Google's parser
//! Checked against Google's robots_test.cc (10 of 15 applicable tests pass); what we do:
//! - **User-agent matching**: the crate compares the whole `User-agent:` value with our token.
//!   RFC 9309 matches the product token (`[a-zA-Z_-]+`) case-insensitively, so
//!   `User-agent: DedupCrawl/1.0` must apply to `dedupcrawl`. We rewrite each `User-agent:`
//!   value (and our token) to its leading product-token characters before parsing.
//! - **`/index.html` as directory**: Google treats `Allow: /dir/$` as also allowing
//!   `/dir/index.html`; the crate does not (stricter, so harmless for politeness).
//! - **Long lines**: Google truncates overlong lines; the crate keeps them, and fails on
//!   patterns whose regex exceeds its size limit. We then retry without lines longer than
//!   2,083 bytes, and if it still fails the policy is "disallow all" (status `Unparseable`).
//! - **Non-ASCII vs percent-encoded rules**: the crate percent-encodes non-ASCII rules
//!   (upper-case hex, like our canonical URLs) but does not decode `%7E`-style escapes of
//!   unreserved characters in rules, which our canonical URLs have decoded; such rules
//!   then do not match.
//! - Rules before any `User-agent:` line apply to everyone only if the file has no
//!   `User-agent:` line at all; `Crawl-delay:` before the first group is used as a default.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use url::Url;

use crate::canonical::CanonicalUrl;

/// RFC 9309 §2.5: crawlers must parse at least 500 KiB; we parse exactly that much.
pub const ROBOTS_MAX_BYTES: usize = 500 * 1024;

/// Lines longer than this are dropped when the crate rejects a file (see module doc).
const MAX_RULE_LINE: usize = 2083;

/// Limits applied when building a policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RobotsConfig {
    /// `Crawl-delay` values above this are capped (a site asking for 1 h between requests
    /// would stall the crawl of that host).
    pub max_crawl_delay: Duration,
    /// Body bytes parsed.
    pub max_body_bytes: usize,
}

impl Default for RobotsConfig {
    fn default() -> Self {
        RobotsConfig {
            max_crawl_delay: Duration::from_secs(30),
            max_body_bytes: ROBOTS_MAX_BYTES,
        }
    }
}

/// Where a policy came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RobotsStatus {
    /// 2xx, rules parsed.
    Parsed,
    /// 2xx, but the file could not be parsed: disallow all (cached like a parsed file).
    Unparseable,
    /// 3xx/4xx: no robots.txt, everything allowed.
    Unavailable,
    /// 429/5xx/network error: everything disallowed until the next try.
    Unreachable,
}

/// The robots.txt policy of one host for our user agent.
#[derive(Debug)]
pub struct RobotsPolicy {
    status: RobotsStatus,
    robot: Option<texting_robots::Robot>,
    crawl_delay: Option<Duration>,
    sitemaps: Vec<String>,
    truncated: bool,
}

impl RobotsPolicy {
    /// Policy from a fetch of `/robots.txt` with the default [`RobotsConfig`].
    pub fn from_fetch(status: u16, body: &[u8], user_agent_token: &str) -> RobotsPolicy {
        Self::from_fetch_with(status, body, user_agent_token, &RobotsConfig::default())
    }

    /// Policy from a fetch of `/robots.txt` (after following up to 5 redirects).
    pub fn from_fetch_with(
        status: u16,
        body: &[u8],
        user_agent_token: &str,
        config: &RobotsConfig,
    ) -> RobotsPolicy {
        match status {
            200..=299 => Self::parse(body, user_agent_token, config),
            429 | 500..=599 => Self::unreachable(),
            _ => Self::allow_all(),
        }
    }

    /// The server could not be reached (DNS, connect, timeout): disallow all for now.
    pub fn unreachable() -> RobotsPolicy {
        Self::without_rules(RobotsStatus::Unreachable)
    }

    /// No robots.txt: everything allowed.
    pub fn allow_all() -> RobotsPolicy {
        Self::without_rules(RobotsStatus::Unavailable)
    }

    fn without_rules(status: RobotsStatus) -> RobotsPolicy {
        RobotsPolicy {
            status,
            robot: None,
            crawl_delay: None,
            sitemaps: Vec::new(),
            truncated: false,
        }
    }

    fn parse(body: &[u8], user_agent_token: &str, config: &RobotsConfig) -> RobotsPolicy {
        let (body, truncated) = truncate_at_line(body, config.max_body_bytes);
        let body = normalize_user_agent_lines(body);
        let token = product_token(user_agent_token);
        let robot = texting_robots::Robot::new(token, &body).or_else(|first_error| {
            let shortened: Vec<u8> = body
                .split(|&b| b == b'\n')
                .filter(|line| line.len() <= MAX_RULE_LINE)
                .flat_map(|line| line.iter().copied().chain([b'\n']))
                .collect();
            texting_robots::Robot::new(token, &shortened).map_err(|_| first_error)
        });
        match robot {
            Ok(robot) => RobotsPolicy {
                status: RobotsStatus::Parsed,
                crawl_delay: robot.delay.map(|secs| {
                    Duration::try_from_secs_f32(secs)
                        .unwrap_or(config.max_crawl_delay)
                        .min(config.max_crawl_delay)
                }),
                sitemaps: robot.sitemaps.clone(),
                robot: Some(robot),
                truncated,
            },
            Err(error) => {
                tracing::debug!(%error, "robots.txt not parseable, disallowing all");
                RobotsPolicy {
                    truncated,
                    ..Self::without_rules(RobotsStatus::Unparseable)
                }
            }
        }
    }

    /// Whether our user agent may fetch this URL.
    pub fn is_allowed(&self, url: &CanonicalUrl) -> bool {
        self.allows_path(url.path_and_query())
    }

    /// Whether our user agent may fetch this path (with query), e.g. `/a/b?c=1`.
    pub fn allows_path(&self, path_and_query: &str) -> bool {
        match self.status {
            RobotsStatus::Parsed => self
                .robot
                .as_ref()
                .is_none_or(|r| r.allowed(path_and_query)),
            RobotsStatus::Unavailable => true,
            RobotsStatus::Unparseable | RobotsStatus::Unreachable => {
                path_and_query == "/robots.txt"
            }
        }
    }

    /// `Crawl-delay` of our group (or of the `*` group), capped by the configured maximum.
    pub fn crawl_delay(&self) -> Option<Duration> {
        self.crawl_delay
    }

    /// `Sitemap:` URLs (they apply to every user agent).
    pub fn sitemaps(&self) -> &[String] {
        &self.sitemaps
    }

    /// Where this policy came from.
    pub fn status(&self) -> RobotsStatus {
        self.status
    }

    /// Whether this is a "disallow all for now" state that should be re-fetched soon.
    pub fn is_temporary(&self) -> bool {
        self.status == RobotsStatus::Unreachable
    }

    /// Whether the body was longer than the size cap (only the first part was parsed).
    pub fn was_truncated(&self) -> bool {
        self.truncated
    }

    /// `scheme://host[:port]/robots.txt` for a URL.
    pub fn robots_url(url: &CanonicalUrl) -> Url {
        let mut robots = url.url().clone();
        robots.set_path("/robots.txt");
        robots.set_query(None);
        robots.set_fragment(None);
        // Credentials never go to robots.txt; clearing cannot fail on an http(s) URL with a host.
        let _ = robots.set_username("");
        let _ = robots.set_password(None);
        robots
    }
}

/// RFC 9309 product token: the leading `[a-zA-Z_-]` characters (`DedupCrawl/1.0` → `DedupCrawl`).
fn product_token(agent: &str) -> &str {
    let trimmed = agent.trim();
    let end = trimmed
        .find(|c: char| !(c.is_ascii_alphabetic() || c == '_' || c == '-'))
        .unwrap_or(trimmed.len());
    if end == 0 { trimmed } else { &trimmed[..end] }
}

/// Cuts the body at `max` bytes, at the last line end before it (no half rule).
fn truncate_at_line(body: &[u8], max: usize) -> (&[u8], bool) {
    if body.len() <= max {
        return (body, false);
    }
    let head = &body[..max];
    let cut = head
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(max, |i| i + 1);
    (&body[..cut], true)
}

/// Rewrites `User-agent: Foo/1.0 (+http://...)` to `User-agent: Foo` (see module doc).
fn normalize_user_agent_lines(body: &[u8]) -> Cow<'_, [u8]> {
    let mut out: Option<Vec<u8>> = None;
    let mut start = 0;
    while start < body.len() {
        let end = body[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(body.len(), |i| start + i + 1);
        let line = &body[start..end];
        let rewritten = user_agent_value_range(line).and_then(|(from, to)| {
            let raw_value = std::str::from_utf8(&line[from..to]).ok()?;
            let value = raw_value.trim();
            let token = product_token(value);
            (token != value).then(|| {
                let indent = raw_value.len() - raw_value.trim_start().len();
                let mut new_line = line[..from + indent].to_vec();
                new_line.extend_from_slice(token.as_bytes());
                new_line.extend_from_slice(&line[to..]);
                new_line
            })
        });
        match (rewritten, &mut out) {
            (Some(new_line), Some(buffer)) => buffer.extend_from_slice(&new_line),
            (Some(new_line), None) => {
                let mut buffer = body[..start].to_vec();
                buffer.extend_from_slice(&new_line);
                out = Some(buffer);
            }
            (None, Some(buffer)) => buffer.extend_from_slice(line),
            (None, None) => {}
        }
        start = end;
    }
    out.map_or(Cow::Borrowed(body), Cow::Owned)
}

/// Byte range of the value of a `User-agent:` line (up to a comment or line end).
fn user_agent_value_range(line: &[u8]) -> Option<(usize, usize)> {
    let indent = line.iter().take_while(|b| b.is_ascii_whitespace()).count();
    let rest = &line[indent..];
    let key_len = ["user-agent", "user agent", "useragent"]
        .iter()
        .find(|key| {
            rest.len() >= key.len() && rest[..key.len()].eq_ignore_ascii_case(key.as_bytes())
        })?
        .len();
    let after_key = indent + key_len;
    let colon = after_key
        + line[after_key..]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
    if line.get(colon) != Some(&b':') {
        return None;
    }
    let from = colon + 1;
    let to = line[from..]
        .iter()
        .position(|&b| b == b'#' || b == b'\r' || b == b'\n')
        .map_or(line.len(), |i| from + i);
    Some((from, to))
}

struct CachedRobots {
    policy: Arc<RobotsPolicy>,
    expires_at: Instant,
}

/// Robots policies by host (`host[:port]` of [`CanonicalUrl::host`]) with expiry. In memory:
/// after a restart the engine fetches robots.txt again, as it should after a day anyway.
pub struct RobotsCache {
    entries: Mutex<HashMap<String, CachedRobots>>,
    ttl: Duration,
    temporary_ttl: Duration,
    capacity: usize,
}

impl Default for RobotsCache {
    /// 24 h for fetched policies, 5 min for "unreachable", at most 100,000 hosts.
    fn default() -> Self {
        RobotsCache::new(Duration::from_secs(24 * 3600), Duration::from_secs(300))
    }
}

impl RobotsCache {
    /// `ttl` for parsed/unavailable policies, `temporary_ttl` for unreachable (5xx) ones.
    pub fn new(ttl: Duration, temporary_ttl: Duration) -> RobotsCache {
        RobotsCache {
            entries: Mutex::new(HashMap::new()),
            ttl,
            temporary_ttl,
            capacity: 100_000,
        }
    }

    /// Most hosts kept; beyond it expired entries, then the soonest-expiring ones, are dropped.
    pub fn with_capacity(mut self, capacity: usize) -> RobotsCache {
        self.capacity = capacity.max(1);
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, CachedRobots>> {
        // A panic while holding the lock cannot leave the map inconsistent (single inserts).
        self.entries
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The unexpired policy of `host`, if any (`None` = fetch robots.txt).
    pub fn get(&self, host: &str, now: Instant) -> Option<Arc<RobotsPolicy>> {
        let entries = self.lock();
        entries
            .get(host)
            .filter(|cached| cached.expires_at > now)
            .map(|cached| Arc::clone(&cached.policy))
    }

    /// Stores the policy of `host`, returning it shared.
    pub fn insert(&self, host: &str, policy: RobotsPolicy, now: Instant) -> Arc<RobotsPolicy> {
        let ttl = if policy.is_temporary() {
            self.temporary_ttl
        } else {
            self.ttl
        };
        let policy = Arc::new(policy);
        let mut entries = self.lock();
        if entries.len() >= self.capacity && !entries.contains_key(host) {
            entries.retain(|_, cached| cached.expires_at > now);
            while entries.len() >= self.capacity {
                let soonest = entries
                    .iter()
                    .min_by_key(|(_, cached)| cached.expires_at)
                    .map(|(host, _)| host.clone());
                match soonest {
                    Some(host) => entries.remove(&host),
                    None => break,
                };
            }
        }
        entries.insert(
            host.to_string(),
            CachedRobots {
                policy: Arc::clone(&policy),
                expires_at: now + ttl,
            },
        );
        policy
    }

    /// Forgets the policy of `host`.
    pub fn remove(&self, host: &str) {
        self.lock().remove(host);
    }

    /// Drops expired entries; returns how many were dropped.
    pub fn prune(&self, now: Instant) -> usize {
        let mut entries = self.lock();
        let before = entries.len();
        entries.retain(|_, cached| cached.expires_at > now);
        before - entries.len()
    }

    /// Hosts cached (expired ones included until pruned).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UA: &str = "DedupCrawl";

    fn policy(body: &str) -> RobotsPolicy {
        RobotsPolicy::from_fetch(200, body.as_bytes(), UA)
    }

    fn check(body: &str, cases: &[(&str, bool)]) {
        let policy = policy(body);
        for (path, allowed) in cases {
            assert_eq!(
                policy.allows_path(path),
                *allowed,
                "path {path:?} in\n{body}"
            );
        }
    }

    #[test]
    fn status_codes() {
        let body = b"User-agent: *\nDisallow: /";
        let ok = RobotsPolicy::from_fetch(200, body, UA);
        assert_eq!(ok.status(), RobotsStatus::Parsed);
        assert!(!ok.allows_path("/a"));
        for status in [301, 400, 401, 403, 404, 410] {
            let p = RobotsPolicy::from_fetch(status, body, UA);
            assert_eq!(p.status(), RobotsStatus::Unavailable, "{status}");
            assert!(p.allows_path("/anything"), "{status}");
            assert!(!p.is_temporary());
        }
        for status in [429, 500, 502, 503, 504] {
            let p = RobotsPolicy::from_fetch(status, b"", UA);
            assert_eq!(p.status(), RobotsStatus::Unreachable, "{status}");
            assert!(!p.allows_path("/"), "{status}");
            assert!(p.allows_path("/robots.txt"));
            assert!(p.is_temporary());
        }
        assert!(!RobotsPolicy::unreachable().allows_path("/"));
        assert!(policy("").allows_path("/anything"));
    }

    #[test]
    fn wildcards_and_end_anchor() {
        check(
            "User-agent: *\nDisallow: /*.php$\nDisallow: /private*/secret\nDisallow: /fish*\n",
            &[
                ("/index.php", false),
                ("/a/b/index.php", false),
                ("/index.php?x=1", true),
                ("/index.php5", true),
                ("/privateXYZ/secret", false),
                ("/private/x/secret/y", false),
                ("/private/public", true),
                ("/fish", false),
                ("/fish.html", false),
                ("/Fish", true),
                ("/catfish", true),
            ],
        );
        check(
            "User-agent: *\nDisallow: /\nAllow: /$\n",
            &[("/", true), ("/page", false)],
        );
    }

    #[test]
    fn longest_match_and_allow_wins_ties() {
        check(
            "User-agent: *\nDisallow: /folder\nAllow: /folder/page\nDisallow: /folder/page/deeper\n",
            &[
                ("/folder", false),
                ("/folder/page", true),
                ("/folder/page/deeper/x", false),
                ("/folder/other", false),
                ("/elsewhere", true),
            ],
        );
        // equal length: Allow wins
        check(
            "User-agent: *\nDisallow: /page\nAllow: /page\n",
            &[("/page", true)],
        );
        check(
            "User-agent: *\nAllow: /page\nDisallow: /page\n",
            &[("/page", true)],
        );
        // longer disallow beats shorter allow
        check(
            "User-agent: *\nAllow: /p\nDisallow: /pa\n",
            &[("/p", true), ("/page", false)],
        );
    }

    #[test]
    fn our_group_matched_case_insensitively_by_product_token() {
        let body = "User-agent: OtherBot\nDisallow: /\n\n\
                    User-agent: dedupcrawl\nDisallow: /only-us\n\n\
                    User-agent: *\nDisallow: /everyone\n";
        for token in [
            "DedupCrawl",
            "dedupcrawl",
            "DEDUPCRAWL",
            "DedupCrawl/0.1 (+https://x)",
        ] {
            let p = RobotsPolicy::from_fetch(200, body.as_bytes(), token);
            assert!(!p.allows_path("/only-us"), "{token}");
            assert!(p.allows_path("/everyone"), "{token}: our group replaces *");
        }
        // the robots.txt line carries a version: still our group (RFC 9309 product token)
        check(
            "User-agent: DedupCrawl/1.0\nDisallow: /x\n\nUser-agent: *\nDisallow: /\n",
            &[("/x", false), ("/y", true)],
        );
        // several lines of one group, and two groups for us are merged
        check(
            "User-agent: a\nUser-agent: DEDUPCRAWL\nDisallow: /one\n\nUser-agent: dedupcrawl\nDisallow: /two\n",
            &[("/one", false), ("/two", false), ("/three", true)],
        );
    }

    #[test]
    fn star_group_fallback() {
        check(
            "User-agent: googlebot\nDisallow: /\n\nUser-agent: *\nDisallow: /tmp/\n",
            &[("/tmp/a", false), ("/", true), ("/a", true)],
        );
        // no group for us and no `*` group: everything allowed
        check(
            "User-agent: googlebot\nDisallow: /\n",
            &[("/", true), ("/a", true)],
        );
        // rules without any user-agent line apply to everyone
        check("Disallow: /x\n", &[("/x", false), ("/y", true)]);
    }

    #[test]
    fn crawl_delay_capped_and_sitemaps() {
        let p = policy(
            "User-agent: *\nCrawl-delay: 2.5\nDisallow: /x\n\nSitemap: https://example.com/sitemap.xml\nSitemap: https://example.com/news.xml.gz\n",
        );
        assert_eq!(p.crawl_delay(), Some(Duration::from_millis(2500)));
        assert_eq!(
            p.sitemaps(),
            [
                "https://example.com/sitemap.xml",
                "https://example.com/news.xml.gz"
            ]
        );
        let slow = policy("User-agent: *\nCrawl-delay: 86400\n");
        assert_eq!(slow.crawl_delay(), Some(Duration::from_secs(30)));
        let config = RobotsConfig {
            max_crawl_delay: Duration::from_secs(5),
            ..RobotsConfig::default()
        };
        let capped =
            RobotsPolicy::from_fetch_with(200, b"User-agent: *\nCrawl-delay: 10\n", UA, &config);
        assert_eq!(capped.crawl_delay(), Some(Duration::from_secs(5)));
        let ours =
            policy("User-agent: *\nCrawl-delay: 9\n\nUser-agent: dedupcrawl\nCrawl-delay: 1\n");
        assert_eq!(ours.crawl_delay(), Some(Duration::from_secs(1)));
        assert_eq!(policy("User-agent: *\nDisallow:\n").crawl_delay(), None);
    }

    #[test]
    fn body_is_cut_at_500_kib_on_a_line_end() {
        let mut body = String::from("User-agent: *\nDisallow: /early\n");
        while body.len() < ROBOTS_MAX_BYTES + 10 {
            body.push_str("# padding padding padding padding padding padding\n");
        }
        body.push_str("Disallow: /late\n");
        let p = policy(&body);
        assert!(p.was_truncated());
        assert!(!p.allows_path("/early"));
        assert!(p.allows_path("/late"), "rules after 500 KiB are ignored");
    }

    #[test]
    fn canonical_urls_and_robots_url() {
        let p = policy("User-agent: *\nDisallow: /search?\nDisallow: /caf%C3%A9\n");
        let url = |s: &str| s.parse::<CanonicalUrl>().unwrap();
        assert!(!p.is_allowed(&url("https://example.com/search?q=1")));
        assert!(p.is_allowed(&url("https://example.com/search")));
        assert!(!p.is_allowed(&url("https://example.com/café")));
        assert!(p.allows_path("/robots.txt"));
        assert_eq!(
            RobotsPolicy::robots_url(&url("https://u:p@example.com:8443/a/b?c=1")).as_str(),
            "https://example.com:8443/robots.txt"
        );
    }

    #[test]
    fn user_agent_line_rewrite() {
        let body =
            b"User-Agent: Foo/1.0 # comment\r\nuser-agent :Bar Baz\nDisallow: /\nUser-agent: *\n";
        let out = normalize_user_agent_lines(body);
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            "User-Agent: Foo# comment\r\nuser-agent :Bar\nDisallow: /\nUser-agent: *\n"
        );
        let untouched = b"User-agent: foo\nDisallow: /\n";
        assert!(matches!(
            normalize_user_agent_lines(untouched),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn cache_expiry() {
        let cache = RobotsCache::new(Duration::from_secs(100), Duration::from_secs(5));
        let t0 = Instant::now();
        cache.insert("a.example", policy("User-agent: *\nDisallow: /x"), t0);
        cache.insert("b.example", RobotsPolicy::from_fetch(503, b"", UA), t0);
        assert!(
            cache
                .get("a.example", t0 + Duration::from_secs(99))
                .is_some()
        );
        assert!(
            cache
                .get("a.example", t0 + Duration::from_secs(100))
                .is_none()
        );
        assert!(
            cache
                .get("b.example", t0 + Duration::from_secs(4))
                .is_some()
        );
        assert!(
            cache
                .get("b.example", t0 + Duration::from_secs(5))
                .is_none()
        );
        assert!(cache.get("c.example", t0).is_none());
        assert_eq!(cache.prune(t0 + Duration::from_secs(10)), 1);
        assert_eq!(cache.len(), 1);
        cache.remove("a.example");
        assert!(cache.is_empty());
    }

    #[test]
    fn cache_capacity() {
        let cache = RobotsCache::default().with_capacity(2);
        let t0 = Instant::now();
        cache.insert("a", RobotsPolicy::allow_all(), t0);
        cache.insert("b", RobotsPolicy::allow_all(), t0 + Duration::from_secs(1));
        cache.insert("c", RobotsPolicy::allow_all(), t0 + Duration::from_secs(2));
        assert_eq!(cache.len(), 2);
        assert!(
            cache.get("a", t0).is_none(),
            "soonest-expiring entry evicted"
        );
        assert!(cache.get("c", t0).is_some());
    }
}
