//! What every part of the engine shares: the [`Engine`] (configuration, the storage seams,
//! the archive and crawl-log sinks, live counts). The crawl loop (`engine.rs`) and the page
//! handler (`page.rs`) both build on it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use dedupcrawl_archive::{CdxjWriter, WarcWriter};
use dedupcrawl_fetch::{BasicCredentials, Fetcher};
use dedupcrawl_frontier::{CanonicalizationRules, FrontierStore, RobotsCache, RobotsConfig};
use dedupcrawl_pipeline::DedupStage;

use crate::config::{CrawlConfig, ResolvedSite};
use crate::crawl_log::CrawlLog;
use crate::crawl_state::{CrawlStateStore, RoundState, Soft404Probe};
use crate::error::CrawlError;
use crate::host_health::{GivenUpHost, HostHealth};
use crate::log_checkpoint::LogCounts;
use crate::report::CrawlReport;

pub(crate) struct ArchiveSink {
    pub(crate) warc: WarcWriter,
    pub(crate) cdxj: CdxjWriter,
}

pub(crate) struct LogSink {
    pub(crate) log: CrawlLog,
    pub(crate) report: CrawlReport,
    /// What the next crawl-log checkpoint records.
    pub(crate) counts: LogCounts,
}

/// Live counts for the progress bar.
#[derive(Default)]
pub(crate) struct Progress {
    pub(crate) fetched: AtomicU64,
    pub(crate) archived: AtomicU64,
    pub(crate) duplicates: AtomicU64,
    pub(crate) errors: AtomicU64,
}

/// Everything a worker needs, shared.
pub(crate) struct Engine {
    pub(crate) config: CrawlConfig,
    pub(crate) sites: Vec<ResolvedSite>,
    pub(crate) rules: CanonicalizationRules,
    pub(crate) frontier: Box<dyn FrontierStore>,
    pub(crate) fetcher: Fetcher,
    pub(crate) stage: DedupStage,
    pub(crate) robots: RobotsCache,
    pub(crate) robots_config: RobotsConfig,
    pub(crate) robots_locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    pub(crate) archive: Mutex<ArchiveSink>,
    pub(crate) log: Mutex<LogSink>,
    /// The engine's progress records (archived URLs, logged URLs, sitemaps read, checkpoint).
    pub(crate) crawl_state: Arc<dyn CrawlStateStore>,
    pub(crate) host_pages: Mutex<HashMap<String, u64>>,
    pub(crate) progress: Progress,
    /// Metrics and live state for `/metrics` and the dashboard ([`crate::observe_hooks`]).
    pub(crate) observer: Arc<dedupcrawl_observe::CrawlObserver>,
    /// Connection-level failures per host, and which hosts are given up for this run.
    pub(crate) health: HostHealth,
    pub(crate) given_up: Mutex<Vec<GivenUpHost>>,
    /// The crawl round this run works on (1: the first crawl; see [`crate::revisit`]).
    pub(crate) round: RoundState,
    /// A URL's first lease ([`dedupcrawl_frontier::Lease::leased_before`] false) finds nothing
    /// of it in the crawl state, so its state is not read: the first round, started without
    /// WARC records past the state's checkpoint (records of a crash, which the state may know
    /// of while the frontier lost their leases).
    pub(crate) first_leases_unrecorded: bool,
    /// Seeds with a crawl-log line from this run (a given-up host's seeds get one only if not).
    pub(crate) seeds_logged: Mutex<std::collections::HashSet<String>>,
    /// What each host's soft-404 probes found, read from the crawl state once (`None`: the
    /// host is not probed; [`crate::soft_404`]).
    pub(crate) soft_404: Mutex<HashMap<String, Option<Arc<Soft404Probe>>>>,
    /// The seeds' credentials by origin, sent with every request of the origin's pages
    /// ([`crate::credentials`]).
    pub(crate) credentials: HashMap<String, BasicCredentials>,
    /// URL rules learned from duplicates (`None`: `crawl.url_rules` is off;
    /// [`crate::url_rules`]).
    pub(crate) url_rules: Option<crate::url_rules::UrlRuleBook>,
    /// Set by an interrupt: no new request starts ([`Engine::ensure_not_stopping`]).
    pub(crate) stopping: AtomicBool,
    /// The browser pool when some site renders pages ([`crate::render_page`]).
    pub(crate) renderer: Option<crate::render_page::RenderPool>,
}

impl Engine {
    /// From now on no new request starts (an interrupt).
    pub(crate) fn stop_new_requests(&self) {
        self.stopping.store(true, Ordering::SeqCst);
    }

    /// [`CrawlError::Interrupted`] once the crawl is stopping: called before every request
    /// (page, robots.txt, sitemap, soft-404 probe), so nothing new starts after an interrupt.
    pub(crate) fn ensure_not_stopping(&self) -> Result<(), CrawlError> {
        if self.stopping.load(Ordering::SeqCst) {
            return Err(CrawlError::Interrupted);
        }
        Ok(())
    }

    /// The seed credentials for `url`'s origin, if a seed of that origin had some.
    pub(crate) fn credentials_for(&self, url: &url::Url) -> Option<BasicCredentials> {
        self.credentials
            .get(&url.origin().ascii_serialization())
            .cloned()
    }
}
