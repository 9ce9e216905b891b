//! The crawl configuration: TOML file (`config/default.toml` documents every key), command-line
//! overrides, per-site overrides, validation.
//!
//! Unknown keys are errors (every table is `deny_unknown_fields`), and values are checked by
//! [`CrawlConfig::validate`] before anything is fetched; every message names the key.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use dedupcrawl_fetch::{FetchConfig, OversizePolicy};
use dedupcrawl_frontier::{
    CanonicalUrl, CanonicalizationRules, PolitenessConfig, ScopeRules, UrlPattern,
};
use dedupcrawl_pipeline::DedupSettings;
use serde::{Deserialize, Serialize};

use crate::error::CrawlError;

mod render;
mod validation;
use crate::host_health::HostFailurePolicy;
use crate::recrawl_settings::RecrawlSettings;
pub use render::{RenderMode, RenderSettings};

/// Default of `crawl.max_memory_mb`.
pub const DEFAULT_MAX_MEMORY_MB: u64 = 512;
/// Smallest `crawl.max_memory_mb` accepted: the process itself (runtime, index, buffers)
/// needs about this much before the first page.
pub const MIN_MAX_MEMORY_MB: u64 = 64;

/// Default of `crawl.interrupt_grace_seconds`.
pub const DEFAULT_INTERRUPT_GRACE_SECONDS: f64 = 5.0;
/// Largest `crawl.interrupt_grace_seconds` accepted.
pub const MAX_INTERRUPT_GRACE_SECONDS: f64 = 600.0;

/// Default of `crawl.url_rules`.
pub const DEFAULT_URL_RULES: bool = true;

/// The whole configuration of one crawl.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrawlConfig {
    pub crawl: CrawlSettings,
    pub fetch: FetchSettings,
    pub scope: ScopeSettings,
    pub canonicalization: CanonicalizationSettings,
    pub archive: ArchiveSettings,
    pub dedup: DedupSettings,
    pub store: StoreSettings,
    pub recrawl: RecrawlSettings,
    pub render: RenderSettings,
    /// `[url_rules]`: when a rule learned from duplicates is applied, how often it is checked
    /// (`crawl.url_rules` turns the mechanism on or off).
    pub url_rules: dedupcrawl_urlrules::RuleSettings,
    /// `[[site]]` entries: seeds with their own scope and politeness.
    pub site: Vec<SiteConfig>,
}

/// `[crawl]`: where, what and how fast.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrawlSettings {
    /// Output directory (`warc/`, `crawl.log.jsonl`, `index.cdxj`, `state/`, `report.json`).
    pub out: PathBuf,
    /// Seeds of an implicit site whose scope is the seeds' hosts.
    pub seeds: Vec<String>,
    /// `User-Agent` header; its first word is the robots.txt product token.
    pub user_agent: String,
    /// Most requests in flight over all hosts.
    pub concurrency: u32,
    /// Most requests in flight per host.
    pub per_host: u32,
    /// Minimum seconds between two requests to one host (a larger robots Crawl-delay wins).
    pub delay: f64,
    /// Largest robots.txt Crawl-delay honoured, in seconds.
    pub max_crawl_delay: f64,
    /// Most pages fetched in the whole crawl (unset: no limit).
    pub max_pages: Option<u64>,
    /// Most pages fetched per host (unset: no limit).
    pub max_pages_per_host: Option<u64>,
    /// Largest link depth from a seed, seeds are depth 0 (unset: no limit).
    pub max_depth: Option<u32>,
    /// Most redirect hops followed from one URL.
    pub max_redirects: u8,
    /// Most out-links taken from one page (in document order); the rest are left out and the
    /// page's crawl-log line says how many.
    pub max_links_per_page: usize,
    /// Seed the frontier from robots.txt `Sitemap:` lines and `/sitemap.xml`.
    pub sitemaps: bool,
    /// Follow the page URLs written in scripts: inline scripts' string literals, and in-scope
    /// `<script src>` files, fetched once each (politely, archived as non-HTML) and read the
    /// same way ([`dedupcrawl_textprep::links_in_script`]).
    pub script_links: bool,
    /// When a fetched HTML page is rendered by headless Chromium (`[render]`).
    pub render: RenderMode,
    /// Random paths that cannot exist requested per host to learn its soft-404 answer
    /// (0: off; at most 4).
    pub soft_404_probes: u32,
    /// Least word-shingle resemblance with a probe answer for a page to be a soft 404 (and it
    /// must have no substantial block of its own).
    pub soft_404_resemblance: f64,
    /// Follow redirects from a public host into loopback, private or link-local addresses
    /// (refused by default: server-side request forgery).
    pub allow_private_redirects: bool,
    /// Addresses that count as public for the redirect rule above (tests and staging
    /// networks: a fixture host on 127.0.0.2 playing a public host).
    pub public_addresses: Vec<IpAddr>,
    /// Peak resident memory the crawl aims to stay under, MiB: above 90 % of it no new
    /// fetch is started until memory falls or the fetches in flight end.
    pub max_memory_mb: u64,
    /// Show a progress bar when stderr is a terminal, a progress log line every
    /// `progress_every` seconds when it is not (`--quiet`: neither).
    pub progress: bool,
    /// Seconds between two progress log lines when stderr is not a terminal.
    pub progress_every: f64,
    /// Seconds between two checkpoints of the state: sled is flushed and the WARC position
    /// it covers is recorded, so a resume rescans only the WARC written after it.
    pub checkpoint_every: f64,
    /// After SIGINT or SIGTERM no new request starts; the fetches in flight get at most this
    /// many seconds to end before they are dropped (a second signal drops them at once). The
    /// URLs dropped are fetched again when the crawl is resumed.
    pub interrupt_grace_seconds: f64,
    /// A duplicate's content links to targets its original does not link to are followed
    /// when they are at least this share of its content link targets (0..1; see
    /// `duplicate_links`)...
    pub duplicate_links_min_share: f64,
    /// ... and at least this many of them (a calendar day's "day before" and "day after" are
    /// two). With both at 0 every link of every duplicate is followed, as by a crawl without
    /// dedup (no hop limit: a trap is not stopped).
    pub duplicate_links_min_count: usize,
    /// A duplicate reached through this many duplicates' new links in a row follows none of
    /// its own (0: no duplicate's links are followed).
    pub duplicate_links_max_hops: u8,
    /// URL rules learned from duplicates (`[url_rules]`, `crate::url_rules`): a URL that an
    /// active rule maps onto a page already archived is not fetched (`url_duplicate`).
    pub url_rules: bool,
}

impl CrawlSettings {
    /// Whether a duplicate's links are all followed (`duplicate_links_min_share` and
    /// `duplicate_links_min_count` both 0): the reach of a crawl without dedup.
    pub fn follows_every_duplicate_link(&self) -> bool {
        self.duplicate_links_min_share == 0.0 && self.duplicate_links_min_count == 0
    }
}

impl Default for CrawlSettings {
    fn default() -> Self {
        CrawlSettings {
            out: PathBuf::from("crawl-out"),
            seeds: Vec::new(),
            user_agent: dedupcrawl_fetch::DEFAULT_USER_AGENT.to_string(),
            concurrency: 64,
            per_host: 1,
            delay: 1.0,
            max_crawl_delay: 30.0,
            max_pages: None,
            max_pages_per_host: None,
            max_depth: None,
            max_redirects: 5,
            max_links_per_page: 5000,
            sitemaps: true,
            script_links: true,
            render: RenderMode::Never,
            soft_404_probes: 2,
            soft_404_resemblance: 0.9,
            allow_private_redirects: false,
            public_addresses: Vec::new(),
            max_memory_mb: DEFAULT_MAX_MEMORY_MB,
            progress: true,
            progress_every: 10.0,
            checkpoint_every: 2.0,
            interrupt_grace_seconds: DEFAULT_INTERRUPT_GRACE_SECONDS,
            duplicate_links_min_share: 0.5,
            duplicate_links_min_count: 3,
            duplicate_links_max_hops: 8,
            url_rules: DEFAULT_URL_RULES,
        }
    }
}

/// `[fetch]`: timeouts, limits, retries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FetchSettings {
    /// Seconds for TCP connect + TLS handshake.
    pub connect_timeout: f64,
    /// Seconds of silence tolerated while waiting for the head or between body chunks.
    pub read_timeout: f64,
    /// Seconds for a whole fetch, body included.
    pub total_timeout: f64,
    /// Most body bytes kept (after content decoding).
    pub max_body_bytes: u64,
    /// `truncate` (keep the first `max_body_bytes`, archive with WARC-Truncated) or `skip`.
    pub oversize: Oversize,
    /// Tries of one URL (first included) on timeouts, connection errors and 5xx.
    pub max_attempts: u8,
    /// Seconds before the first retry; doubled for each further one.
    pub retry_backoff: f64,
    /// Longest retry backoff, seconds.
    pub max_retry_backoff: f64,
    /// Longest host pause honoured from a `Retry-After`, seconds.
    pub max_retry_after: f64,
    /// Longest pause of a host whose robots.txt answered 5xx or was unreachable, seconds
    /// (the pause itself follows the host backoff, see `host_max_backoff`).
    pub robots_retry: f64,
    /// Connection-level failures in a row (refused, reset, DNS, TLS, timeouts, robots.txt
    /// unreachable or 5xx) after which a host is given up for this run.
    pub host_max_failures: u32,
    /// Longest pause of a host between two such failures, seconds (the pause starts at
    /// `retry_backoff` and doubles).
    pub host_max_backoff: f64,
    /// Names resolved to these addresses without DNS (as curl's `--resolve`).
    pub resolve: BTreeMap<String, IpAddr>,
    /// Resolve only the names of `resolve`: any other name "does not resolve" and no DNS
    /// query is sent (tests, staging crawls).
    pub resolve_only: bool,
}

impl Default for FetchSettings {
    fn default() -> Self {
        FetchSettings {
            connect_timeout: 10.0,
            read_timeout: 30.0,
            total_timeout: 60.0,
            max_body_bytes: 10 * 1024 * 1024,
            oversize: Oversize::Truncate,
            max_attempts: 3,
            retry_backoff: 30.0,
            max_retry_backoff: 3600.0,
            max_retry_after: 3600.0,
            robots_retry: 300.0,
            host_max_failures: 3,
            host_max_backoff: 120.0,
            resolve: BTreeMap::new(),
            resolve_only: false,
        }
    }
}

/// What happens to a body over `fetch.max_body_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Oversize {
    #[default]
    Truncate,
    Skip,
}

/// `[scope]`: rules applied to every site (a site's own lists are added to these).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ScopeSettings {
    /// Hosts that are never crawled (`example.com`, `*.example.com`).
    pub denied_hosts: Vec<String>,
    /// Regular expressions: a URL matching one is out of scope.
    pub deny_patterns: Vec<String>,
}

/// `[canonicalization]`: how URLs are spelled before the seen-URL check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CanonicalizationSettings {
    /// Parameter names removed (tracking and session ids), case-insensitive.
    pub strip_params: Vec<String>,
    /// Parameter name prefixes removed (`utm_`).
    pub strip_param_prefixes: Vec<String>,
    /// Sort query parameters.
    pub sort_query: bool,
    /// Longest URL accepted, bytes.
    pub max_url_length: usize,
}

impl Default for CanonicalizationSettings {
    fn default() -> Self {
        let rules = CanonicalizationRules::default();
        CanonicalizationSettings {
            strip_params: rules.strip_params,
            strip_param_prefixes: rules.strip_param_prefixes,
            sort_query: rules.sort_query,
            max_url_length: rules.max_length,
        }
    }
}

impl CanonicalizationSettings {
    pub fn rules(&self) -> CanonicalizationRules {
        CanonicalizationRules {
            strip_params: self.strip_params.clone(),
            strip_param_prefixes: self.strip_param_prefixes.clone(),
            sort_query: self.sort_query,
            max_length: self.max_url_length,
        }
    }
}

/// `[archive]`: what goes into the WARC files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ArchiveSettings {
    /// WARC file name prefix.
    pub prefix: String,
    /// A new WARC file is started once the current one reaches this many bytes.
    pub max_file_size: u64,
    /// Deflate level of each record's gzip member, 1 (fastest) ..= 9 (smallest).
    pub gzip_level: u32,
    /// Non-HTML responses (PDF, images, CSV ...): `archive` (exact dedup only) or `skip`.
    pub non_html: NonHtmlPolicy,
    /// Near duplicates and contained pages: `log` (crawl log only), `metadata` (plus a WARC
    /// metadata record naming the original) or `archive` (plus a full response record).
    pub near_duplicates: NearDuplicatePolicy,
    /// Archive 3xx responses (so replay can follow redirects).
    pub redirects: bool,
    /// Keep the values of `Authorization` and `Cookie` headers in WARC request records
    /// (default: each value is replaced by `redacted`; the request still sends them).
    pub keep_credential_headers: bool,
}

impl Default for ArchiveSettings {
    fn default() -> Self {
        ArchiveSettings {
            prefix: "dedupcrawl".to_string(),
            max_file_size: 1_000_000_000,
            gzip_level: dedupcrawl_archive::WarcWriterConfig::DEFAULT_GZIP_LEVEL,
            non_html: NonHtmlPolicy::Archive,
            near_duplicates: NearDuplicatePolicy::Log,
            redirects: true,
            keep_credential_headers: false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NonHtmlPolicy {
    #[default]
    Archive,
    Skip,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NearDuplicatePolicy {
    #[default]
    Log,
    Metadata,
    Archive,
}

/// `[[site]]`: seeds with their own scope, politeness and dedup threshold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SiteConfig {
    /// A name for reports and logs (default: the first seed's host).
    pub name: Option<String>,
    pub seeds: Vec<String>,
    /// Hosts belonging to the site (default: the seeds' hosts). `*.example.com` allowed.
    pub allowed_hosts: Vec<String>,
    pub denied_hosts: Vec<String>,
    /// Regular expressions; when set, a URL must match one.
    pub allow_patterns: Vec<String>,
    pub deny_patterns: Vec<String>,
    /// Overrides `crawl.delay` for this site's hosts.
    pub delay: Option<f64>,
    /// Overrides `crawl.max_depth`.
    pub max_depth: Option<u32>,
    /// Overrides `crawl.max_pages_per_host`.
    pub max_pages: Option<u64>,
    /// Overrides `dedup.threshold` for this site's pages (see the crate docs).
    pub threshold: Option<f64>,
    /// Overrides `crawl.render` for this site's pages.
    pub render: Option<RenderMode>,
    /// When `dedupcrawl schedule` runs this site's rounds: a cron expression
    /// (`"0 3 * * *"`, UTC). At most one of `schedule` and `every`.
    pub schedule: Option<String>,
    /// When `dedupcrawl schedule` runs this site's rounds: a fixed interval between round
    /// starts (`"6h"`, `"30m"`, `"2s"`).
    pub every: Option<String>,
}

/// `[store]`: where the crawl's state lives. Without `url`, in the embedded store
/// (`OUT/state/`); with a `postgres://` URL, in PostgreSQL, keyed by `crawl` so that several
/// workers (each with its own `out`) share one crawl and several crawls share one database.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StoreSettings {
    /// `postgres://user@host:port/database` (unset: the embedded store).
    pub url: Option<String>,
    /// The crawl's name in the database (required with `url`).
    pub crawl: Option<String>,
    /// This worker's name, stable across its restarts (unset: the absolute `crawl.out` path).
    pub worker: Option<String>,
    /// How long a URL leased to a worker stays its own without renewal: a running worker
    /// renews its leases every quarter of this, a killed worker's URLs go back to the queues
    /// when it runs out.
    pub lease_seconds: f64,
    /// How long a worker waits for a PostgreSQL server that is unreachable or restarting
    /// (each call tries again with backoff) before the call fails; 0: fail at once.
    pub reconnect_seconds: f64,
}

impl Default for StoreSettings {
    fn default() -> Self {
        StoreSettings {
            url: None,
            crawl: None,
            worker: None,
            lease_seconds: 300.0,
            reconnect_seconds: dedupcrawl_reconnect::DEFAULT_LIMIT.as_secs_f64(),
        }
    }
}

/// Where a crawl's state lives, resolved from [`StoreSettings`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StoreLocation {
    Embedded,
    Postgres {
        url: String,
        crawl: String,
        worker: Option<String>,
        lease: std::time::Duration,
        reconnect_for: std::time::Duration,
    },
}

impl StoreSettings {
    /// The location, or an error naming the key.
    pub(crate) fn location(&self) -> Result<StoreLocation, CrawlError> {
        let Some(url) = &self.url else {
            return Ok(StoreLocation::Embedded);
        };
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            return Err(CrawlError::ConfigValue(
                "store.url must be a postgres:// URL (or unset for the embedded store)".into(),
            ));
        }
        let crawl = match self.crawl.as_deref().map(str::trim) {
            Some(crawl) if !crawl.is_empty() => crawl.to_string(),
            _ => {
                return Err(CrawlError::ConfigValue(
                    "store.crawl (--crawl NAME) is required with a PostgreSQL store.url: \
                     workers of one crawl use the same name"
                        .into(),
                ));
            }
        };
        if !(self.lease_seconds.is_finite() && (1.0..=86_400.0).contains(&self.lease_seconds)) {
            return Err(CrawlError::ConfigValue(format!(
                "store.lease_seconds = {} must be between 1 and 86400 (a killed worker's URLs \
                 come back after it; a running worker renews every quarter of it)",
                self.lease_seconds
            )));
        }
        if !(self.reconnect_seconds.is_finite()
            && (0.0..=86_400.0).contains(&self.reconnect_seconds))
        {
            return Err(CrawlError::ConfigValue(format!(
                "store.reconnect_seconds = {} must be between 0 and 86400 (how long a worker \
                 waits for an unreachable or restarting PostgreSQL server; 0: fail at once)",
                self.reconnect_seconds
            )));
        }
        Ok(StoreLocation::Postgres {
            url: url.clone(),
            crawl,
            worker: self.worker.clone(),
            lease: std::time::Duration::from_secs_f64(self.lease_seconds),
            reconnect_for: std::time::Duration::from_secs_f64(self.reconnect_seconds),
        })
    }
}

/// Command-line values that override config keys (`None` = keep the file's value).
#[derive(Debug, Clone, Default)]
pub struct ConfigOverrides {
    pub seeds: Vec<String>,
    pub out: Option<PathBuf>,
    pub delay: Option<f64>,
    pub concurrency: Option<u32>,
    pub per_host: Option<u32>,
    pub max_pages: Option<u64>,
    pub max_depth: Option<u32>,
    pub threshold: Option<f64>,
    pub user_agent: Option<String>,
    /// `store.url`.
    pub store: Option<String>,
    /// `store.crawl`.
    pub crawl_name: Option<String>,
    /// `crawl.url_rules` (`--url-rules on|off`).
    pub url_rules: Option<bool>,
}

/// A site ready for the engine: parsed seeds and compiled scope.
#[derive(Debug, Clone)]
pub struct ResolvedSite {
    pub name: String,
    pub seeds: Vec<CanonicalUrl>,
    pub scope: ScopeRules,
    pub delay: Duration,
    pub threshold: f64,
    pub render: RenderMode,
}

pub(crate) fn seconds(key: &str, value: f64) -> Result<Duration, CrawlError> {
    Duration::try_from_secs_f64(value).map_err(|_| {
        CrawlError::ConfigValue(format!(
            "{key} = {value} must be a non-negative number of seconds"
        ))
    })
}

pub(crate) fn positive_seconds(key: &str, value: f64) -> Result<Duration, CrawlError> {
    let duration = seconds(key, value)?;
    if duration.is_zero() {
        return Err(CrawlError::ConfigValue(format!(
            "{key} = {value} must be more than 0 seconds"
        )));
    }
    Ok(duration)
}

pub(crate) fn threshold_check(key: &str, value: f64) -> Result<(), CrawlError> {
    if value > 0.0 && value <= 1.0 {
        Ok(())
    } else {
        Err(CrawlError::ConfigValue(format!(
            "{key} = {value} must be in (0, 1]"
        )))
    }
}

pub(crate) fn compile_patterns(
    key: &str,
    patterns: &[String],
) -> Result<Vec<UrlPattern>, CrawlError> {
    patterns
        .iter()
        .map(|p| UrlPattern::new(p).map_err(|e| CrawlError::ConfigValue(format!("{key}: {e}"))))
        .collect()
}

impl CrawlConfig {
    /// Parses TOML text (unknown keys are errors).
    pub fn from_toml_str(text: &str) -> Result<CrawlConfig, CrawlError> {
        toml::from_str(text).map_err(|e| CrawlError::ConfigParse {
            path: None,
            message: e.to_string(),
        })
    }

    /// Reads and parses a TOML file.
    pub fn load(path: &Path) -> Result<CrawlConfig, CrawlError> {
        let text = std::fs::read_to_string(path).map_err(|source| CrawlError::ConfigRead {
            path: path.to_path_buf(),
            source,
        })?;
        toml::from_str(&text).map_err(|e| CrawlError::ConfigParse {
            path: Some(path.to_path_buf()),
            message: e.to_string(),
        })
    }

    /// Applies command-line overrides (flags win over keys).
    pub fn apply(&mut self, overrides: ConfigOverrides) {
        if !overrides.seeds.is_empty() {
            self.crawl.seeds = overrides.seeds;
        }
        if let Some(out) = overrides.out {
            self.crawl.out = out;
        }
        if let Some(delay) = overrides.delay {
            self.crawl.delay = delay;
            for site in &mut self.site {
                site.delay = None;
            }
        }
        if let Some(concurrency) = overrides.concurrency {
            self.crawl.concurrency = concurrency;
        }
        if let Some(per_host) = overrides.per_host {
            self.crawl.per_host = per_host;
        }
        if let Some(max_pages) = overrides.max_pages {
            self.crawl.max_pages = Some(max_pages);
        }
        if let Some(max_depth) = overrides.max_depth {
            self.crawl.max_depth = Some(max_depth);
            for site in &mut self.site {
                site.max_depth = None;
            }
        }
        if let Some(threshold) = overrides.threshold {
            self.dedup.threshold = threshold;
            for site in &mut self.site {
                site.threshold = None;
            }
        }
        if let Some(user_agent) = overrides.user_agent {
            self.crawl.user_agent = user_agent;
        }
        if let Some(url) = overrides.store {
            self.store.url = Some(url);
        }
        if let Some(crawl) = overrides.crawl_name {
            self.store.crawl = Some(crawl);
        }
        if let Some(url_rules) = overrides.url_rules {
            self.crawl.url_rules = url_rules;
        }
    }

    /// The sites to crawl: `crawl.seeds` (if any) as one site, then each `[[site]]`.
    pub fn sites(&self) -> Result<Vec<ResolvedSite>, CrawlError> {
        let rules = self.canonicalization.rules();
        let mut all = Vec::new();
        let implicit = (!self.crawl.seeds.is_empty()).then(|| SiteConfig {
            seeds: self.crawl.seeds.clone(),
            ..SiteConfig::default()
        });
        let sites = implicit
            .iter()
            .map(|s| ("crawl.seeds".to_string(), s))
            .chain(
                self.site
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (format!("site[{i}].seeds"), s)),
            );
        for (key, site) in sites {
            let mut seeds = Vec::new();
            for seed in &site.seeds {
                let url = CanonicalUrl::parse(seed, None, &rules).map_err(|e| {
                    CrawlError::ConfigValue(format!("{key}: seed {seed:?} is not usable: {e}"))
                })?;
                seeds.push(url);
            }
            let mut scope = ScopeRules::for_seeds(seeds.iter());
            if !site.allowed_hosts.is_empty() {
                scope.allowed_hosts = site.allowed_hosts.clone();
            }
            scope.denied_hosts = self
                .scope
                .denied_hosts
                .iter()
                .chain(&site.denied_hosts)
                .cloned()
                .collect();
            scope.deny_patterns =
                compile_patterns("scope.deny_patterns", &self.scope.deny_patterns)?;
            scope
                .deny_patterns
                .extend(compile_patterns(&key, &site.deny_patterns)?);
            scope.allow_patterns = compile_patterns(&key, &site.allow_patterns)?;
            scope.max_depth = site.max_depth.or(self.crawl.max_depth);
            scope.max_pages_per_host = site.max_pages.or(self.crawl.max_pages_per_host);
            scope.max_pages_total = self.crawl.max_pages;
            let delay = seconds("site.delay", site.delay.unwrap_or(self.crawl.delay))?;
            let name = site
                .name
                .clone()
                .or_else(|| seeds.first().map(|s| s.host().to_string()))
                .unwrap_or_default();
            all.push(ResolvedSite {
                name,
                seeds,
                scope,
                delay,
                threshold: site.threshold.unwrap_or(self.dedup.threshold),
                render: site.render.unwrap_or(self.crawl.render),
            });
        }
        Ok(all)
    }

    /// Fetcher settings.
    pub fn fetch_config(&self) -> Result<FetchConfig, CrawlError> {
        let f = &self.fetch;
        Ok(FetchConfig {
            user_agent: self.crawl.user_agent.clone(),
            connect_timeout: positive_seconds("fetch.connect_timeout", f.connect_timeout)?,
            read_timeout: positive_seconds("fetch.read_timeout", f.read_timeout)?,
            total_timeout: positive_seconds("fetch.total_timeout", f.total_timeout)?,
            max_body_bytes: f.max_body_bytes,
            oversize_policy: match f.oversize {
                Oversize::Truncate => OversizePolicy::Truncate,
                Oversize::Skip => OversizePolicy::Skip,
            },
            resolve: f.resolve.clone(),
            resolve_only: f.resolve_only,
            ..FetchConfig::default()
        })
    }

    /// The per-host failure policy.
    pub(crate) fn host_failure_policy(&self) -> Result<HostFailurePolicy, CrawlError> {
        let f = &self.fetch;
        Ok(HostFailurePolicy {
            max_failures: f.host_max_failures.max(1),
            backoff: seconds("fetch.retry_backoff", f.retry_backoff)?,
            max_backoff: seconds("fetch.host_max_backoff", f.host_max_backoff)?,
        })
    }

    /// Frontier politeness: the smallest delay of any site is the frontier's floor; each host
    /// gets its site's delay (or a larger Crawl-delay) with `Frontier::set_host_delay`.
    pub fn politeness(&self, sites: &[ResolvedSite]) -> Result<PolitenessConfig, CrawlError> {
        let global = seconds("crawl.delay", self.crawl.delay)?;
        let min_delay = sites.iter().map(|s| s.delay).fold(global, Duration::min);
        let f = &self.fetch;
        Ok(PolitenessConfig {
            min_delay,
            per_host_concurrency: self.crawl.per_host,
            global_concurrency: self.crawl.concurrency,
            max_attempts: f.max_attempts,
            retry_backoff: seconds("fetch.retry_backoff", f.retry_backoff)?,
            max_retry_backoff: seconds("fetch.max_retry_backoff", f.max_retry_backoff)?,
            max_retry_after: seconds("fetch.max_retry_after", f.max_retry_after)?,
        })
    }

    /// The dedup settings of the index: its threshold is the lowest of any site, so LSH finds
    /// every candidate a site's threshold may accept.
    pub fn index_dedup_settings(&self, sites: &[ResolvedSite]) -> DedupSettings {
        let threshold = sites
            .iter()
            .map(|s| s.threshold)
            .fold(self.dedup.threshold, f64::min);
        let mut text = self.dedup.text;
        // Links past the cap are never taken: the extraction need not keep them either.
        text.max_links = Some(self.crawl.max_links_per_page);
        DedupSettings {
            threshold,
            text,
            ..self.dedup
        }
    }
}
