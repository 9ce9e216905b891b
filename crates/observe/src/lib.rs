//! # dedupcrawl-observe
//!
//! What a crawl exposes while it runs: Prometheus metrics (`/metrics`), the live state the
//! dashboard shows (totals, per-host table with politeness state, pages over time, recent
//! decisions), and the read-only HTTP server for both.
//!
//! The engine owns a [`CrawlObserver`] and calls its hooks ([`CrawlObserver::decision`] per
//! crawl-log line, [`CrawlObserver::fetch`] per fetch attempt, [`CrawlObserver::host_paused`],
//! [`CrawlObserver::gauges`] about once a second). A [`Dashboard`] serves one or more
//! observers; `dedupcrawl serve OUT` fills an observer from a finished crawl's log. A crawl on
//! disk can also answer [`CrawlQueries`] (clusters, `why`, recrawl changes) for the dashboard.

mod access;
mod crawl_metrics;
mod decision_series;
mod error;
mod events;
mod live_state;
mod observer;
mod queries;
mod server;

pub use access::AccessToken;
pub use decision_series::{DecisionSeries, SeriesPoint};
pub use error::ServeError;
pub use events::{DecisionEvent, FetchEvent, Gauges, PauseReason};
pub use live_state::{HostCounts, HostRow, RECENT, RecentDecision, Snapshot};
pub use observer::{CrawlObserver, host_of};
pub use queries::{ClusterQuery, CrawlQueries, QueryError};
pub use server::{Dashboard, bind, serve};
