//! # dedupcrawl-crawler
//!
//! The engine of `dedupcrawl crawl`: a polite, resumable crawler that decides whether a page is
//! new **before** any of its links is enqueued.
//!
//! ```text
//! seeds + sitemaps -> Frontier (sled) -> robots.txt -> fetch -> 3xx: target back to the frontier
//!                                                         \-> 2xx HTML: DedupStage -> archive / log
//!                                                                       new pages only: links -> Frontier
//! ```
//!
//! ## Use
//! ```no_run
//! use dedupcrawl_crawler::{ConfigOverrides, CrawlConfig, run_crawl};
//!
//! # async fn demo() -> Result<(), dedupcrawl_crawler::CrawlError> {
//! let mut config = CrawlConfig::load("config/sites.toml".as_ref())?;
//! config.apply(ConfigOverrides { delay: Some(0.5), ..ConfigOverrides::default() });
//! let report = run_crawl(config).await?; // validates first: bad keys fail before any fetch
//! println!("{}", report.summary());
//! # Ok(()) }
//! ```
//! The same call on the same output directory resumes an interrupted crawl.
//!
//! ## Decisions per page
//! * robots.txt (fetched once per host, cached 24 h; 5xx/unreachable = nothing from that host
//!   until it is fetched again after the host backoff) → `robots_disallowed`.
//! * Connection-level failures (refused, reset, DNS, TLS, timeouts, robots.txt unreachable)
//!   in a row back the host off (`fetch.retry_backoff` doubling, capped by
//!   `fetch.host_max_backoff`); after `fetch.host_max_failures` the host is given up for the
//!   run: its URLs stay queued for the next run, its seeds get an `error` line saying why, and
//!   the report lists it (`given_up_hosts`). A crawl therefore always ends.
//! * Out-links: at most `crawl.max_links_per_page` per page (note on the page's line).
//! * 3xx: the response is archived (`archive.redirects`), the target goes back through the
//!   frontier as a new entry with `redirect_hops + 1`; past `crawl.max_redirects` hops the chain
//!   stops (`filtered`), a loop stops because the target is already seen.
//! * 429/503 with `Retry-After`: the host pauses that long; other 5xx, timeouts and broken
//!   connections retry with exponential backoff, at most `fetch.max_attempts` tries, then `error`.
//! * HTML: [`dedupcrawl_pipeline::DedupStage`] fingerprints the page; the index decides:
//!   - new → WARC `response` + `request`, `archived`, links enqueued (resolved against
//!     `<base href>`, canonicalized, scoped; `rel=nofollow` links and pages with meta/header
//!     `nofollow` are not followed);
//!   - exact duplicate (same payload) → WARC `revisit` (identical-payload-digest) naming the
//!     original, `exact_duplicate`;
//!   - same normalized text, near duplicate, contained → log line with `duplicate_of` and
//!     `similarity`; not archived unless `archive.near_duplicates` = `metadata` / `archive`;
//!   - in every duplicate case the page's links are **not** enqueued.
//! * `noindex` (meta or `X-Robots-Tag`): not archived and not added to the dedup index
//!   (`filtered`, note `noindex`); links followed unless nofollow or the page is a duplicate.
//! * `<link rel=canonical>` to another in-scope URL: the canonical URL is enqueued and the page
//!   is logged as `near_duplicate` of it (note `rel=canonical`, `similarity` when the index
//!   knows the canonical page already), not archived, links not enqueued. This is our choice:
//!   the site tells us which URL stands for the content.
//! * Soft 404s (a host answering `200` to any path): once per host, after robots.txt,
//!   `crawl.soft_404_probes` random paths that cannot exist are requested; a `200` HTML answer
//!   is the host's soft-404 model, and a page that resembles it (and has no substantial block
//!   of its own) is logged `soft_404`: not archived, links not enqueued (`soft_404.rs`).
//! * URL rules learned from duplicates (`crawl.url_rules`, [`crate::url_rules`]): a leased URL
//!   that an active rule maps onto a page archived as new is not fetched → `url_duplicate`
//!   (with `duplicate_of` and `rule`), links not enqueued; one in `url_rules.verify_every`
//!   applications is fetched anyway, and a rule found wrong is retracted and its skipped URLs
//!   fetched.
//! * Non-HTML: never parsed; archived with exact (payload) dedup, or skipped
//!   (`archive.non_html = "skip"`).
//! * Bodies over `fetch.max_body_bytes`: truncated (archived with `WARC-Truncated: length`, log
//!   note `body truncated at N bytes`) or skipped (`error`), per `fetch.oversize`.
//!
//! Per-site dedup thresholds: the index is built with the lowest threshold of any site; a site
//! with a stricter threshold keeps (archives) a page the index calls similar below it. Such a
//! page is not itself added to the index.
//!
//! ## Output (`OUT/`)
//! `warc/*.warc.gz`, `crawl.log.jsonl` (one line per URL decision: `ts, url, status, decision,
//! duplicate_of, similarity, content_digest, depth, via`, plus `error`, `note`, `bytes` when
//! they apply), `index.cdxj` (sorted, pywb), `state/` (one sled db: `frontier_*` trees,
//! `dedup_index`, `crawl_archived`, `crawl_logged`, `crawl_sitemaps_done`, `crawl_revisit`,
//! `crawl_round`, `crawl_soft_404`, `crawl_url_rules`, `crawl_url_rule_sets`), `report.json`.
//!
//! ## Rounds ([`run_recrawl`])
//! Round 1 is the first crawl; each recrawl is one more round over the same state: the URLs
//! due (per-URL adaptive interval, `[recrawl]`) are fetched again with conditional requests;
//! `304` → `not_modified` and same payload → `unchanged` (WARC revisits referring to the URL's
//! earlier response), a changed page is compared with its own previous version and archived as
//! a new version, 404/410 → `gone`. Every crawl-log line carries its `round`.
//!
//! ## Durability and resume (kill -9 at any moment)
//! Order per page: dedup index insert (sled) → WARC record written with one `write_all`
//! (durable against a process kill as soon as the call returns; fsynced every 2 s and at the
//! end) → URL recorded in `crawl_archived` → links offered to the frontier → crawl-log line
//! (one `write_all`) → lease completed. Sled may lose its last ~100 ms of writes on a kill, so
//! on start the engine reconciles from the files, which are the truth:
//! 0. the archive is checked against the state (`archive_integrity`, `log_integrity`,
//!    `lost_pages`): damaged WARC bytes and crawl-log lines are moved to `OUT/damaged/`,
//!    archived pages whose record is lost are forgotten and queued again, `archived` lines the
//!    log lost are restored from the WARC records, `index.cdxj` is made to match; a state that
//!    is empty beside a crawl log with lines stops the run (`dedupcrawl repair`);
//! 1. [`dedupcrawl_archive::WarcWriter::resume`] cuts a torn last record and a new WARC file is
//!    started; every WARC file is read and each captured URL is (re)recorded in
//!    `crawl_archived` (and its CDXJ line re-added; sorting drops duplicates). A `response` that
//!    `crawl_archived` did not know may also have lost its dedup-index insert (which came
//!    first), so its stored payload is checked into the index again;
//! 2. the crawl log's torn last line is cut; every URL in it goes to `crawl_logged` and the
//!    report counters are rebuilt from it;
//! 3. the frontier puts URLs leased by the dead process back in their queues.
//!
//! A URL whose completion was lost is simply fetched again: its links are offered again (the
//! seen set makes that idempotent), a WARC record is not written again if `crawl_archived` has
//! the URL, a log line is not written again if `crawl_logged` has it, and a dedup answer
//! "duplicate of itself" (the index kept the insert) counts as new. Hence nothing is archived
//! twice and no URL is lost; a few pages may be fetched twice. Reconciliation reads every WARC
//! file once per resume (cost grows with the archive; a checkpointed offset is future work).

mod archive_integrity;
mod config;
mod context;
mod crawl_log;
mod crawl_state;
mod credentials;
mod directory_lock;
mod duplicate_links;
mod engine;
mod error;
mod fetched;
mod host_health;
mod log_checkpoint;
mod log_integrity;
mod lost_pages;
mod memory_gate;
mod mutex;
mod observe_hooks;
mod output_lock;
mod output_paths;
mod page;
mod page_archive;
mod page_decision;
mod page_links;
mod postgres_crawl_state;
mod postgres_schedule_lock;
mod progress;
mod read_only_state;
mod recrawl_settings;
mod redirect_guard;
mod render_page;
mod report;
mod resume;
mod revisit;
mod revisit_page;
mod robots_sitemaps;
mod schedule_book;
mod script_links;
mod site_schedule;
mod size_samples;
mod sled_crawl_state;
mod soft_404;
mod soft_404_model;
mod state_repair;
mod stop_signal;
mod stores;
mod url_rules;
mod watchdog;

pub use archive_integrity::{ArchiveCheck, DamagedRegion, check_archive};
pub use config::{
    ArchiveSettings, CanonicalizationSettings, ConfigOverrides, CrawlConfig, CrawlSettings,
    FetchSettings, NearDuplicatePolicy, NonHtmlPolicy, Oversize, RenderMode, RenderSettings,
    ResolvedSite, ScopeSettings, SiteConfig, StoreSettings,
};
pub use crawl_log::{CrawlLog, Decision, HOST_GIVEN_UP_NOTE, LogLine, read_crawl_log};
pub use crawl_state::ScheduledSiteState;
pub use credentials::{REDACTED, config_without_credentials, without_credentials};
pub use dedupcrawl_urlrules::RuleRecord;
pub use engine::{
    run_crawl, run_locked_crawl, run_locked_recrawl, run_observed_crawl, run_recrawl,
};
pub use error::CrawlError;
pub use host_health::GivenUpHost;
pub use observe_hooks::{LogReplay, observe_line};
pub use output_lock::OutputLock;
pub use output_paths::{OutputPaths, warc_files};
pub use recrawl_settings::RecrawlSettings;
pub use report::{CrawlReport, HostReport, ResumeScan, RunCpu};
pub use schedule_book::ScheduleBook;
pub use site_schedule::SiteSchedule;
pub use state_repair::{StateRepair, repair_state};
pub use stop_signal::StopSignal;
pub use stores::{crawl_output_dirs, open_crawl_index, read_url_rules};
pub use url_rules::UrlRulesReport;
