//! [`CrawlObserver`]: the hooks the engine calls, feeding the Prometheus metrics and the
//! dashboard's live state.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use prometheus_client::registry::Registry;

use crate::crawl_metrics::CrawlMetrics;
use crate::events::{DecisionEvent, FetchEvent, Gauges, PauseReason};
use crate::live_state::{HostCounts, LiveState, Snapshot};

/// What one crawl exposes while it runs. Cheap to call from many tasks: counters are atomics,
/// the live state one short lock.
pub struct CrawlObserver {
    metrics: CrawlMetrics,
    state: Mutex<LiveState>,
}

impl CrawlObserver {
    /// An observer of a running crawl, its metrics registered in `registry`.
    pub fn new(registry: &mut Registry) -> CrawlObserver {
        CrawlObserver {
            metrics: CrawlMetrics::register(registry),
            state: Mutex::new(LiveState::new(true)),
        }
    }

    /// An observer nobody reads (a crawl without `--serve`): the same hooks, its own registry.
    pub fn unobserved() -> CrawlObserver {
        CrawlObserver::new(&mut Registry::default())
    }

    /// A URL decision (one crawl-log line).
    pub fn decision(&self, event: &DecisionEvent<'_>) {
        let host = host_of(event.url);
        self.metrics.decision(&host, event);
        self.lock().decision(&host, event);
    }

    /// Counts decisions of an earlier run of the crawl (a resumed crawl starting from its
    /// checkpoint's counts instead of reading its whole crawl log), so the counters still
    /// equal `report.json`. They do not appear among the recent decisions.
    pub fn restore(&self, host: &str, counts: &HostCounts) {
        self.metrics.restore(host, counts);
        self.lock().restore(host, counts);
    }

    /// A `url_duplicate` line of `url` no longer counts: its rule was retracted and the URL
    /// is fetched after all (as `report.json` takes it back). The Prometheus counters keep
    /// it: they count lines written.
    pub fn url_duplicate_taken_back(&self, url: &str, mechanism: &str) {
        self.lock()
            .url_duplicate_taken_back(&host_of(url), mechanism);
    }

    /// A fetch attempt ended.
    pub fn fetch(&self, event: &FetchEvent<'_>) {
        self.metrics.fetch(event);
        self.lock().fetch(event);
    }

    /// A host pauses for `pause` beyond its delay.
    pub fn host_paused(&self, host: &str, reason: PauseReason, pause: Duration) {
        self.lock().pause(host, reason, pause);
    }

    /// Frontier, index and archive sizes.
    pub fn gauges(&self, gauges: Gauges) {
        self.metrics.gauges(&gauges);
        self.lock().gauges(gauges);
    }

    /// The crawl ended (or, for a finished crawl read from disk, never ran here).
    pub fn finished(&self) {
        self.lock().set_running(false);
    }

    pub fn snapshot(&self) -> Snapshot {
        self.lock().snapshot()
    }

    fn lock(&self) -> MutexGuard<'_, LiveState> {
        // A panic while holding the lock leaves counts that are still counts: keep serving.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// `host[:port]` of a URL, as `report.json` names hosts.
pub fn host_of(url: &str) -> String {
    url::Url::parse(url)
        .ok()
        .and_then(|u| {
            u.host_str().map(|h| match u.port() {
                Some(p) => format!("{h}:{p}"),
                None => h.to_string(),
            })
        })
        .unwrap_or_else(|| "(invalid)".to_string())
}
