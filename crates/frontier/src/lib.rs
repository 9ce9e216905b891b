//! # dedupcrawl-frontier
//!
//! Everything about **which URL to fetch next and when**, for the dedupcrawl engine (which
//! does the fetching):
//!
//! - [`canonical`]: one spelling per URL ([`CanonicalUrl`]): case, ports, dot segments,
//!   percent-encoding, fragments, tracking and session-id parameters, query order.
//! - [`scope`]: which URLs the crawl may enqueue ([`ScopeRules`]: hosts, regex patterns,
//!   depth, page budgets).
//! - [`robots`]: robots.txt per RFC 9309 ([`RobotsPolicy`] with `texting_robots`) and a
//!   per-host [`RobotsCache`] with expiry.
//! - [`sitemap`]: `<urlset>`, `<sitemapindex>`, text and gzip sitemaps ([`parse_sitemap`]).
//! - [`seen`]: the seen-URL set (recent URLs in sled, older ones in sorted runs with Bloom
//!   filters: ~1.3 bytes of RAM a URL).
//! - [`FrontierStore`]: the storage seam (seen-URL set, per-host FIFO queues, politeness
//!   state, leases), its contract in the trait's doc. [`PoliteFrontier`] implements it once
//!   over a backend's storage: per-host delay with `governor`, per-host and global
//!   concurrency, retries with backoff, Retry-After pauses, crash recovery of leased URLs.
//!   [`Frontier`] is the embedded backend (sled trees and the seen-set files);
//!   [`PostgresFrontierStore`] the PostgreSQL one (several workers on one crawl: claims with
//!   `FOR UPDATE SKIP LOCKED`, leases fenced on their worker; schema in `migrations/`).
//!
//! ```
//! use std::time::{Duration, Instant};
//! use dedupcrawl_frontier::{
//!     CanonicalUrl, CanonicalizationRules, Frontier, FrontierEntry, FrontierStore, HostOutcome,
//!     NextUrl, OfferOutcome, PolitenessConfig, RobotsPolicy, ScopeRules,
//! };
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let rules = CanonicalizationRules::default();
//! let seed = CanonicalUrl::parse("HTTPS://Example.com:443/docs/?utm_source=x", None, &rules)?;
//! assert_eq!(seed.as_str(), "https://example.com/docs/");
//!
//! let scope = ScopeRules::for_seeds([&seed]);
//! let robots = RobotsPolicy::from_fetch(200, b"User-agent: *\nDisallow: /private\n", "dedupcrawl");
//!
//! // The crawler keeps one sled db under OUT/state/; the frontier uses its `frontier_*` trees.
//! let state = tempfile::tempdir()?;
//! let db = sled::Config::new().path(state.path()).open()?;
//! let politeness = PolitenessConfig { min_delay: Duration::from_millis(10), ..Default::default() };
//! let frontier = Frontier::open(&db, state.path().join("seen"), politeness)?;
//! assert_eq!(frontier.offer(FrontierEntry::seed(seed.clone()))?, OfferOutcome::Enqueued);
//! assert_eq!(frontier.offer(FrontierEntry::seed(seed.clone()))?, OfferOutcome::AlreadySeen);
//!
//! match frontier.next_ready(Instant::now())? {
//!     NextUrl::Ready(lease) => {
//!         assert_eq!(lease.url(), &seed);
//!         // ... fetch, parse; links of a new page go back through scope and robots:
//!         let base = lease.url().url().clone();
//!         for href in ["guide.html", "/private/x", "https://other.example/"] {
//!             let link = CanonicalUrl::parse(href, Some(&base), &rules)?;
//!             if scope.check(&link, 1).is_in_scope() && robots.is_allowed(&link) {
//!                 frontier.offer(FrontierEntry::link(link, 1, lease.url().as_str()))?;
//!             }
//!         }
//!         frontier.complete(lease, HostOutcome::Done)?;
//!     }
//!     other => panic!("expected a URL, got {other:?}"),
//! }
//! // the next URL of the same host waits for the politeness delay
//! assert!(matches!(frontier.next_ready(Instant::now())?, NextUrl::WaitUntil(_)));
//! assert_eq!(frontier.stats()?.queued, 1);
//! frontier.flush()?;
//! # Ok(())
//! # }
//! ```

pub mod canonical;
mod entry;
mod error;
mod polite_frontier;
mod politeness;
mod postgres_host_slot;
mod postgres_queue;
mod postgres_queue_rows;
mod postgres_schema;
mod queue_storage;
pub mod robots;
mod scheduler;
pub mod scope;
pub mod seen;
pub mod sitemap;
mod sled_queue;
mod store;
mod stored_entry;

pub use canonical::{CanonicalUrl, CanonicalizationRules, UrlError};
pub use entry::{
    Completion, EntryKind, FrontierEntry, FrontierStats, HostOutcome, Lease, NextUrl, OfferOutcome,
};
pub use error::FrontierError;
pub use polite_frontier::PoliteFrontier;
pub use politeness::PolitenessConfig;
pub use postgres_queue::{
    DEFAULT_LEASE, PostgresFrontierConfig, PostgresFrontierStore, PostgresQueue,
};
pub use postgres_schema::{MIGRATOR, connect_and_migrate};
pub use robots::{RobotsCache, RobotsConfig, RobotsPolicy, RobotsStatus};
pub use scope::{OutOfScopeReason, PatternError, ScopeDecision, ScopeRules, UrlPattern};
pub use seen::{DEFAULT_RECENT_LIMIT, SeenSetStats};
pub use sitemap::{
    Sitemap, SitemapEntry, SitemapError, SitemapFormat, SitemapLimits, parse_sitemap,
    parse_sitemap_with,
};
pub use sled_queue::{Frontier, SledQueue};
pub use store::FrontierStore;
