//! The crawl loop: setup and resume, leasing URLs from the frontier (robots.txt and sitemaps in
//! [`crate::robots_sitemaps`]), fetching, and handing responses to [`crate::page`].

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dedupcrawl_archive::{CdxjWriter, WarcWriter, WarcWriterConfig};
use dedupcrawl_fetch::Fetcher;
use dedupcrawl_frontier::{
    CanonicalUrl, Completion, FrontierEntry, HostOutcome, Lease, NextUrl, OutOfScopeReason,
    RobotsCache, RobotsConfig, ScopeDecision,
};
use dedupcrawl_observe::CrawlObserver;
use dedupcrawl_pipeline::DedupStage;
use tokio::task::JoinSet;

use crate::config::StoreLocation;
use crate::config::{CrawlConfig, ResolvedSite, seconds};
use crate::context::{ArchiveSink, Engine, LogSink, Progress};
use crate::crawl_log::{CrawlLog, Decision, HOST_GIVEN_UP_NOTE, LogLine};
use crate::crawl_state::ArchiveCheckpoint;
use crate::error::CrawlError;
use crate::host_health::{GivenUpHost, HostHealth, Verdict, waiting_message};
use crate::log_checkpoint::LogCounts;
use crate::memory_gate::{MemoryGate, RECHECK_AFTER};
use crate::mutex::lock;
use crate::observe_hooks::{SAMPLE_EVERY, observe_line};
use crate::output_paths::{OutputPaths, warc_files};
use crate::progress::{ProgressLines, progress_bar, update_progress};
use crate::report::{CrawlReport, ResumeScan};
use crate::resume::reconcile_archive;
use crate::revisit::RoundStart;
use crate::robots_sitemaps::RobotsStep;
use crate::stores::CrawlStores;

/// The result of one leased URL, for the main loop.
pub(crate) struct TaskOutput {
    pub(crate) lease: Lease,
    pub(crate) outcome: HostOutcome,
    /// Logged if the frontier gives up on the URL.
    pub(crate) failure: Option<LogLine>,
    /// Pause the host this long before its next request (extra requests were made).
    pub(crate) pause_after: Option<Duration>,
}

/// Runs a crawl to the end (frontier empty, page budget reached, or Ctrl-C) and returns its
/// report (also written to `OUT/report.json`).
pub async fn run_crawl(config: CrawlConfig) -> Result<CrawlReport, CrawlError> {
    run_round(
        config,
        RoundStart::Continue,
        Arc::new(CrawlObserver::unobserved()),
    )
    .await
}

/// [`run_crawl`], telling `observer` what happens (for `/metrics` and the dashboard).
pub async fn run_observed_crawl(
    config: CrawlConfig,
    observer: Arc<CrawlObserver>,
) -> Result<CrawlReport, CrawlError> {
    run_round(config, RoundStart::Continue, observer).await
}

/// Runs one new round over an earlier crawl (`dedupcrawl recrawl`): the URLs whose revisit is
/// due (`all`: every known URL) are fetched again with conditional requests, plus the links
/// newly found; an unfinished round is resumed instead. Returns the round's report.
pub async fn run_recrawl(config: CrawlConfig, all: bool) -> Result<CrawlReport, CrawlError> {
    run_round(
        config,
        RoundStart::New { all },
        Arc::new(CrawlObserver::unobserved()),
    )
    .await
}

async fn run_round(
    config: CrawlConfig,
    start: RoundStart,
    observer: Arc<CrawlObserver>,
) -> Result<CrawlReport, CrawlError> {
    config.validate()?;
    let paths = OutputPaths::new(&config.crawl.out);
    let engine = tokio::task::spawn_blocking(move || Engine::open(config, &paths, start, observer))
        .await
        .map_err(|e| CrawlError::Worker(e.to_string()))??;
    let engine = Arc::new(engine);
    let crawl_state = Arc::clone(&engine.crawl_state);
    let _watchdog = crate::watchdog::StoreWatchdog::start(
        move || {
            let _ = crawl_state.flush();
        },
        crate::watchdog::PROBE_EVERY,
        crate::watchdog::STATE_STALL_TIMEOUT,
        crate::watchdog::exit_on_stall(OutputPaths::new(&engine.config.crawl.out).state),
    );
    engine.seed()?;
    let finished = main_loop(&engine).await?;
    let engine_for_close = Arc::clone(&engine);
    let report = tokio::task::spawn_blocking(move || engine_for_close.close(finished))
        .await
        .map_err(|e| CrawlError::Worker(e.to_string()))?;
    engine.observe_sizes();
    engine.observer.finished();
    report
}

/// A worker's name as it appears in its WARC file names: the last path component of a
/// default name (its `--out` directory), letters, digits, `.` and `_` kept, the rest `_`
/// (`-` separates the parts of a WARC file name).
fn worker_file_tag(worker: &str) -> String {
    let last = worker
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(worker);
    let tag: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if tag.is_empty() { "worker".into() } else { tag }
}

impl Engine {
    fn open(
        config: CrawlConfig,
        paths: &OutputPaths,
        start: RoundStart,
        observer: Arc<CrawlObserver>,
    ) -> Result<Engine, CrawlError> {
        let sites = config.sites()?;
        std::fs::create_dir_all(&paths.state)
            .map_err(|e| CrawlError::io("create directory", &paths.state, e))?;
        let dedup_settings = config.index_dedup_settings(&sites);
        // Workers of a shared crawl name their WARC files after themselves, so files copied
        // together from several `--out` directories never collide.
        let mut warc_prefix = config.archive.prefix.clone();
        let stores = match config.store.location()? {
            StoreLocation::Embedded => CrawlStores::open_embedded(
                &paths.state,
                config.politeness(&sites)?,
                dedup_settings.index_config(),
            )?,
            StoreLocation::Postgres {
                url,
                crawl,
                worker,
                lease,
                reconnect_for,
            } => {
                // A worker's default name is its output directory: stable across restarts,
                // distinct for workers sharing a machine.
                let worker = match worker {
                    Some(worker) => worker,
                    None => std::path::absolute(&config.crawl.out)
                        .map_err(|e| CrawlError::io("resolve", &config.crawl.out, e))?
                        .display()
                        .to_string(),
                };
                warc_prefix = format!("{warc_prefix}-{}", worker_file_tag(&worker));
                CrawlStores::open_postgres(
                    &url,
                    &crawl,
                    &worker,
                    lease,
                    reconnect_for,
                    config.politeness(&sites)?,
                    dedup_settings.index_config(),
                )?
            }
        };
        let stage = DedupStage::new(stores.index, dedup_settings);
        let fetcher = Fetcher::new(config.fetch_config()?)?;
        let crawl_state = stores.crawl_state;
        // Where this worker's WARC files and log are, for readers of the whole crawl
        // (`export --store`).
        let out_dir = std::path::absolute(&config.crawl.out)
            .map_err(|e| CrawlError::io("resolve", &config.crawl.out, e))?;
        crawl_state.record_output_dir(&out_dir.display().to_string())?;
        let round = crate::revisit::open_round(crawl_state.as_ref(), start)?;

        let mut warc_config = WarcWriterConfig::new(&paths.warc_dir, warc_prefix);
        warc_config.max_file_size = config.archive.max_file_size;
        warc_config.warcinfo_fields = vec![
            (
                "http-header-user-agent".into(),
                config.crawl.user_agent.clone(),
            ),
            ("robots".into(), "obey".into()),
            ("format".into(), "WARC File Format 1.1".into()),
            (
                "dedupcrawl-config".into(),
                format!(
                    "seeds={} sites={} delay={}s max_crawl_delay={}s per_host={} concurrency={} \
                     max_pages={:?} max_depth={:?} dedup.view={:?} dedup.threshold={} \
                     dedup.shingle_size={} dedup.num_hashes={} near_duplicates={:?}",
                    config.crawl.seeds.len(),
                    config.site.len(),
                    config.crawl.delay,
                    config.crawl.max_crawl_delay,
                    config.crawl.per_host,
                    config.crawl.concurrency,
                    config.crawl.max_pages,
                    config.crawl.max_depth,
                    config.dedup.view,
                    config.dedup.threshold,
                    config.dedup.shingle_size,
                    config.dedup.num_hashes,
                    config.archive.near_duplicates,
                ),
            ),
        ];
        let (warc, repair) = WarcWriter::resume(warc_config)?;
        if let Some(repair) = repair
            && repair.bytes_cut() > 0
        {
            tracing::warn!(
                file = %repair.path.display(),
                bytes_cut = repair.bytes_cut(),
                "cut a torn record off the last WARC file"
            );
        }
        let mut cdxj = CdxjWriter::open_append(&paths.cdxj_unsorted)?;
        let resume_scan = reconcile_archive(
            &paths.warc_dir,
            crawl_state.as_ref(),
            &mut cdxj,
            &stage,
            round.number,
        )?;

        // The crawl log from its checkpoint on: the state holds the counts of what precedes.
        let log_checkpoint = crawl_state.crawl_log_checkpoint()?;
        let (log, tail) = CrawlLog::open_from(
            &paths.crawl_log,
            log_checkpoint.as_ref().map_or(0, |c| c.offset),
        )?;
        let mut report = CrawlReport {
            resume_scan: ResumeScan {
                crawl_log_bytes_read: tail.bytes_read,
                crawl_log_bytes: log.len(),
                ..resume_scan
            },
            ..CrawlReport::default()
        };
        let resuming = log_checkpoint.is_some() || !tail.lines.is_empty();
        let mut counts = LogCounts::default();
        // The report, the logged marks and the page budgets are the current round's.
        if tail.from_offset
            && let Some(checkpoint) = log_checkpoint.filter(|c| c.round == round.number)
        {
            counts.restore(checkpoint, &mut report, &observer);
        }
        for line in tail.lines.iter().filter(|l| l.round == round.number) {
            observe_line(&observer, line);
            counts.count(&mut report, line, None);
            // A given-up host's seed lines are not final: the URL is still queued.
            if line.note.as_deref() != Some(HOST_GIVEN_UP_NOTE) {
                crawl_state.mark_logged(&crate::revisit::log_key(round.number, &line.url))?;
            }
        }
        let host_pages = counts.pages();
        let progress = Progress::default();
        progress
            .fetched
            .store(report.total.fetched, Ordering::Relaxed);
        progress
            .archived
            .store(report.total.archived, Ordering::Relaxed);
        progress.duplicates.store(
            report.total.exact_duplicates + report.total.near_duplicates + report.total.contained,
            Ordering::Relaxed,
        );
        progress
            .errors
            .store(report.total.errors, Ordering::Relaxed);
        if resuming {
            tracing::info!(
                lines_read = tail.lines.len(),
                crawl_log_bytes_read = report.resume_scan.crawl_log_bytes_read,
                crawl_log_bytes = report.resume_scan.crawl_log_bytes,
                "resuming a crawl (the crawl log before its checkpoint is not read again)"
            );
        }
        let robots_config = RobotsConfig {
            max_crawl_delay: seconds("crawl.max_crawl_delay", config.crawl.max_crawl_delay)?,
            ..RobotsConfig::default()
        };
        let robots_retry = seconds("fetch.robots_retry", config.fetch.robots_retry)?;
        let health = HostHealth::new(config.host_failure_policy()?);
        Ok(Engine {
            health,
            given_up: Mutex::new(Vec::new()),
            seeds_logged: Mutex::new(std::collections::HashSet::new()),
            soft_404: Mutex::new(HashMap::new()),
            round,
            rules: config.canonicalization.rules(),
            robots: RobotsCache::new(Duration::from_secs(24 * 3600), robots_retry),
            robots_config,
            robots_locks: Mutex::new(HashMap::new()),
            archive: Mutex::new(ArchiveSink { warc, cdxj }),
            log: Mutex::new(LogSink {
                log,
                report,
                counts,
            }),
            crawl_state,
            host_pages: Mutex::new(host_pages),
            progress,
            observer,
            frontier: stores.frontier,
            fetcher,
            stage,
            sites,
            config,
        })
    }

    fn seed(&self) -> Result<(), CrawlError> {
        let mut entries = Vec::new();
        for site in &self.sites {
            for seed in &site.seeds {
                entries.push(FrontierEntry::seed(seed.clone()));
            }
        }
        self.frontier.offer_all(entries)?;
        crate::revisit::seed_round(self)?;
        Ok(())
    }

    /// The site a URL's host belongs to.
    pub(crate) fn site_for(&self, url: &CanonicalUrl) -> Option<&ResolvedSite> {
        self.sites.iter().find(|site| {
            !matches!(
                site.scope.check(url, 0),
                ScopeDecision::OutOfScope(
                    OutOfScopeReason::HostNotAllowed | OutOfScopeReason::HostDenied
                )
            )
        })
    }

    /// Whether a URL found at `depth` may be enqueued: in scope of its host's site.
    pub(crate) fn scope_check(&self, url: &CanonicalUrl, depth: u32) -> ScopeDecision {
        match self.site_for(url) {
            Some(site) => site.scope.check(url, depth),
            None => ScopeDecision::OutOfScope(OutOfScopeReason::HostNotAllowed),
        }
    }

    pub(crate) fn host_delay_for(&self, url: &CanonicalUrl) -> Duration {
        self.site_for(url)
            .map(|s| s.delay)
            .unwrap_or_else(|| self.frontier.config().min_delay)
    }

    /// Writes a crawl-log line (once per URL across runs) and counts it.
    pub(crate) fn log_line(&self, mut line: LogLine) -> Result<(), CrawlError> {
        line.round = self.round.number;
        let logged_key = crate::revisit::log_key(self.round.number, &line.url);
        if self.crawl_state.is_logged(&logged_key)? {
            tracing::debug!(url = %line.url, "already logged by an earlier run");
            return Ok(());
        }
        match line.decision {
            Decision::Archived => self.progress.archived.fetch_add(1, Ordering::Relaxed),
            Decision::ExactDuplicate | Decision::NearDuplicate | Decision::Contained => {
                self.progress.duplicates.fetch_add(1, Ordering::Relaxed)
            }
            Decision::Error => self.progress.errors.fetch_add(1, Ordering::Relaxed),
            _ => 0,
        };
        tracing::debug!(url = %line.url, decision = line.decision.as_str(), "decision");
        observe_line(&self.observer, &line);
        if line.depth == 0 && self.is_seed(&line.url) {
            lock(&self.seeds_logged).insert(line.url.clone());
        }
        let mut sink = lock(&self.log);
        sink.log.append(&line)?;
        let LogSink { report, counts, .. } = &mut *sink;
        counts.count(report, &line, Some(logged_key));
        Ok(())
    }

    /// Counts a page against its host's budget; false when the host has used its budget.
    fn take_host_page(&self, url: &CanonicalUrl) -> bool {
        let mut pages = lock(&self.host_pages);
        let count = pages.entry(url.host().to_string()).or_default();
        let budget = self
            .site_for(url)
            .and_then(|s| s.scope.max_pages_per_host)
            .unwrap_or(u64::MAX);
        if *count >= budget {
            return false;
        }
        *count += 1;
        true
    }

    fn total_pages(&self) -> u64 {
        lock(&self.host_pages).values().sum()
    }

    pub(crate) fn is_seed(&self, url: &str) -> bool {
        self.sites
            .iter()
            .any(|site| site.seeds.iter().any(|seed| seed.as_str() == url))
    }

    /// Counts a connection-level failure of the lease's host: the host backs off, or is given
    /// up for this run (its seeds get their `error` lines, its URLs stay queued).
    fn host_failed(
        &self,
        lease: &Lease,
        reason: &str,
        started: Instant,
        robots: bool,
    ) -> Result<HostOutcome, CrawlError> {
        let host = lease.host();
        match self.health.record_failure(host, reason, started) {
            Verdict::Backoff(mut pause) => {
                if robots {
                    pause = pause.min(seconds(
                        "fetch.robots_retry",
                        self.config.fetch.robots_retry,
                    )?);
                }
                tracing::info!(
                    host,
                    reason,
                    pause_s = pause.as_secs_f64(),
                    "host failed; backing off"
                );
                Ok(HostOutcome::HostFailure {
                    pause,
                    count_try: !robots,
                })
            }
            Verdict::GiveUp(given_up) => {
                self.give_up(given_up)?;
                Ok(HostOutcome::HostGivenUp)
            }
            Verdict::AlreadyGivenUp => Ok(HostOutcome::HostGivenUp),
        }
    }

    /// Gives a host up for this run: the frontier stops scheduling it and keeps its URLs, each
    /// of its seeds without a line from this run gets an `error` line saying why.
    fn give_up(&self, given_up: GivenUpHost) -> Result<(), CrawlError> {
        let message = given_up.message();
        tracing::warn!(host = %given_up.host, "{message}; given up for this run, its URLs stay queued");
        self.frontier.give_up_host(&given_up.host)?;
        let seeds: Vec<CanonicalUrl> = self
            .sites
            .iter()
            .flat_map(|site| site.seeds.iter())
            .filter(|seed| seed.host() == given_up.host)
            .cloned()
            .collect();
        lock(&self.given_up).push(given_up);
        for seed in seeds {
            if lock(&self.seeds_logged).contains(seed.as_str()) {
                continue;
            }
            let mut line = LogLine::new(seed.as_str(), Decision::Error, 0, None);
            line.error = Some(message.clone());
            line.note = Some(HOST_GIVEN_UP_NOTE.to_string());
            self.log_line(line)?;
        }
        Ok(())
    }

    /// Processes one leased URL: robots, fetch, response.
    async fn process(self: Arc<Self>, lease: Lease) -> Result<TaskOutput, CrawlError> {
        let url = lease.url().clone();
        let entry = lease.entry.clone();
        if crate::revisit::fetched_this_round(&self, &url)? {
            tracing::debug!(url = %url, "already fetched in this round");
            return Ok(TaskOutput {
                lease,
                outcome: HostOutcome::Done,
                failure: None,
                pause_after: None,
            });
        }
        let robots_started = Instant::now();
        let (policy, extra_requests) = match self.robots_for(&url).await? {
            RobotsStep::Ready(policy, extra_requests) => (policy, extra_requests),
            RobotsStep::Failed(reason) => {
                let outcome = self.host_failed(&lease, &reason, robots_started, true)?;
                return Ok(TaskOutput {
                    lease,
                    outcome,
                    failure: None,
                    pause_after: None,
                });
            }
        };
        let host_delay = self.frontier.host_delay(url.host())?;
        let pause_after = extra_requests.then_some(host_delay);
        let output = |outcome, failure| TaskOutput {
            lease: lease.clone(),
            outcome,
            failure,
            pause_after,
        };
        if !policy.is_allowed(&url) {
            let line = LogLine::new(
                url.as_str(),
                Decision::RobotsDisallowed,
                entry.depth,
                entry.via.clone(),
            );
            self.log_line(line)?;
            return Ok(output(HostOutcome::Failed, None));
        }
        if lease.attempt == 0 && !self.take_host_page(&url) {
            let mut line = LogLine::new(
                url.as_str(),
                Decision::OutOfScope,
                entry.depth,
                entry.via.clone(),
            );
            line.note = Some("host page limit reached".into());
            self.log_line(line)?;
            return Ok(output(HostOutcome::Failed, None));
        }
        if extra_requests {
            // robots.txt (and sitemaps) were just fetched: keep the host's delay before the page.
            tokio::time::sleep(host_delay).await;
        }
        let started = Instant::now();
        let request = crate::revisit::request_for(&self, &url)?;
        let fetched = self.fetcher.fetch(request).await;
        self.progress.fetched.fetch_add(1, Ordering::Relaxed);
        self.observe_fetch(url.host(), started, &fetched, host_delay);
        match fetched {
            Err(error) => {
                let mut line = LogLine::new(
                    url.as_str(),
                    Decision::Error,
                    entry.depth,
                    entry.via.clone(),
                );
                line.error = Some(error.to_string());
                if error.host_answered() {
                    // A response cut short: the host is up, the URL is retried on its own.
                    self.health.record_success(url.host());
                }
                if let Some(reason) = error.host_failure() {
                    tracing::debug!(url = %url, %error, attempt = lease.attempt, "fetch failed (host failure)");
                    let outcome = self.host_failed(&lease, &reason, started, false)?;
                    Ok(output(outcome, Some(line)))
                } else if error.is_retryable() {
                    tracing::debug!(url = %url, %error, attempt = lease.attempt, "fetch failed, will retry");
                    Ok(output(HostOutcome::Retry, Some(line)))
                } else {
                    tracing::info!(url = %url, %error, "fetch failed");
                    self.log_line(line)?;
                    Ok(output(HostOutcome::Failed, None))
                }
            }
            Ok(response) => {
                self.health.record_success(url.host());
                let engine = Arc::clone(&self);
                let lease_for_page = lease.clone();
                let (outcome, failure) = tokio::task::spawn_blocking(move || {
                    crate::revisit_page::handle_response(&engine, &lease_for_page, response)
                })
                .await
                .map_err(|e| CrawlError::Worker(e.to_string()))??;
                Ok(output(outcome, failure))
            }
        }
    }

    /// Flushes the archive and the state, then records the WARC position the flushed state
    /// covers ([`ArchiveCheckpoint`]; on disk with the next flush). Every record before the
    /// position is in the `archived` tree: pages remember their records while they hold the
    /// archive lock, and the position is read under that lock.
    fn checkpoint(&self) -> Result<(), CrawlError> {
        let position = {
            let mut archive = lock(&self.archive);
            archive.warc.flush()?;
            archive.cdxj.flush()?;
            match archive.warc.current_file() {
                Some(path) => {
                    let offset = std::fs::metadata(path)
                        .map_err(|e| CrawlError::io("read the size of", path, e))?
                        .len();
                    let file = path
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    Some(ArchiveCheckpoint { file, offset })
                }
                None => None,
            }
        };
        self.crawl_state.flush()?;
        if let Some(checkpoint) = position {
            self.crawl_state.set_checkpoint(&checkpoint)?;
        }
        // The crawl log: its lines on disk first, then the state says how far it counted them.
        let mut sink = lock(&self.log);
        sink.log.sync()?;
        let LogSink {
            log,
            report,
            counts,
        } = &mut *sink;
        let (checkpoint, marks) = counts.pending(report, log.len(), self.round.number);
        self.crawl_state
            .record_crawl_log_checkpoint(&checkpoint, &marks)?;
        counts.recorded();
        Ok(())
    }

    fn close(&self, finished: bool) -> Result<CrawlReport, CrawlError> {
        let paths = OutputPaths::new(&self.config.crawl.out);
        {
            let mut archive = lock(&self.archive);
            archive.warc.flush()?;
            archive.cdxj.flush()?;
            dedupcrawl_archive::sort_cdxj_file(&paths.cdxj_unsorted, &paths.cdxj)?;
        }
        self.stage.index().flush()?;
        self.frontier.flush()?;
        self.checkpoint()?;
        self.crawl_state.flush()?;
        let mut report = {
            let mut sink = lock(&self.log);
            sink.log.sync()?;
            sink.report.clone()
        };
        report.finished = finished;
        if finished {
            let mut round = self.round.clone();
            round.seeded = true;
            round.finished = true;
            self.crawl_state.set_round(&round)?;
            self.crawl_state.flush()?;
        }
        report.given_up_hosts = lock(&self.given_up).clone();
        report.every_seed_host_given_up = {
            let given_up: std::collections::HashSet<&str> = report
                .given_up_hosts
                .iter()
                .map(|h| h.host.as_str())
                .collect();
            let mut seed_hosts = self
                .sites
                .iter()
                .flat_map(|site| site.seeds.iter())
                .map(|seed| seed.host());
            !given_up.is_empty() && seed_hosts.all(|host| given_up.contains(host))
        };
        report.warc_files = warc_files(&paths.warc_dir)?
            .iter()
            .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .collect();
        let json = serde_json::to_string_pretty(&report).unwrap_or_default();
        std::fs::write(&paths.report, &json)
            .map_err(|e| CrawlError::io("write", &paths.report, e))?;
        let round_report = paths.round_report(self.round.number);
        std::fs::write(&round_report, json)
            .map_err(|e| CrawlError::io("write", &round_report, e))?;
        Ok(report)
    }
}

/// How often the crawl says which hosts it waits for (hosts in backoff after failures).
const WAITING_NOTE_EVERY: Duration = Duration::from_secs(30);

/// Leases URLs while there are some, running one task per lease. Returns whether the crawl
/// finished (frontier empty) rather than stopped (budget, interrupt).
async fn main_loop(engine: &Arc<Engine>) -> Result<bool, CrawlError> {
    let bar = progress_bar(&engine.config);
    let mut progress_lines = ProgressLines::new(&engine.config);
    let started = Instant::now();
    let mut tasks: JoinSet<Result<TaskOutput, CrawlError>> = JoinSet::new();
    let mut stopping = false;
    let mut finished = false;
    let mut last_flush = Instant::now();
    let interrupt = tokio::signal::ctrl_c();
    tokio::pin!(interrupt);
    let max_pages = engine.config.crawl.max_pages;
    let checkpoint_every = Duration::from_secs_f64(engine.config.crawl.checkpoint_every);
    let mut last_waiting_note = Instant::now();
    let mut last_sample = Instant::now();
    let mut memory_gate = MemoryGate::new(engine.config.crawl.max_memory_mb);
    engine.observe_sizes();
    loop {
        if last_waiting_note.elapsed() >= WAITING_NOTE_EVERY {
            last_waiting_note = Instant::now();
            let waiting = engine.health.waiting(last_waiting_note);
            if !waiting.is_empty() {
                tracing::info!("{}", waiting_message(&waiting, last_waiting_note));
            }
        }
        while let Some(joined) = tasks.try_join_next() {
            complete_task(engine, joined)?;
        }
        if last_flush.elapsed() >= checkpoint_every {
            last_flush = Instant::now();
            let engine = Arc::clone(engine);
            tokio::task::spawn_blocking(move || engine.checkpoint())
                .await
                .map_err(|e| CrawlError::Worker(e.to_string()))??;
        }
        update_progress(&bar, engine, started);
        progress_lines.tick(engine, started);
        if last_sample.elapsed() >= SAMPLE_EVERY {
            last_sample = Instant::now();
            engine.observe_sizes();
        }
        if !stopping && max_pages.is_some_and(|max| engine.total_pages() >= max) {
            tracing::info!("page budget reached: finishing the fetches in flight");
            stopping = true;
        }
        let mut wake_at: Option<Instant> = None;
        if stopping {
            if tasks.is_empty() {
                break;
            }
        } else if !memory_gate.allows_new_fetch(tasks.len()) {
            wake_at = Some(Instant::now() + RECHECK_AFTER);
        } else {
            match engine.frontier.next_ready(Instant::now())? {
                NextUrl::Ready(lease) => {
                    tasks.spawn(Arc::clone(engine).process(lease));
                    continue;
                }
                NextUrl::WaitUntil(at) => wake_at = Some(at),
                NextUrl::Busy => {}
                NextUrl::Empty => {
                    if tasks.is_empty() {
                        finished = true;
                        break;
                    }
                }
            }
        }
        let wake_at = wake_at.unwrap_or_else(|| Instant::now() + Duration::from_millis(250));
        tokio::select! {
            Some(joined) = tasks.join_next() => complete_task(engine, joined)?,
            () = tokio::time::sleep_until(wake_at.into()) => {}
            _ = &mut interrupt, if !stopping => {
                tracing::warn!("interrupted: finishing the fetches in flight (run again to resume)");
                stopping = true;
            }
        }
    }
    bar.finish_and_clear();
    if memory_gate.holds > 0 {
        tracing::info!(
            "memory: new fetches were held {} times to stay under crawl.max_memory_mb",
            memory_gate.holds
        );
    }
    Ok(finished)
}

fn complete_task(
    engine: &Engine,
    joined: Result<Result<TaskOutput, CrawlError>, tokio::task::JoinError>,
) -> Result<(), CrawlError> {
    let output = joined.map_err(|e| CrawlError::Worker(e.to_string()))??;
    if let Some(pause) = output.pause_after
        && !pause.is_zero()
    {
        engine.frontier.pause_host(output.lease.host(), pause)?;
    }
    engine.observe_outcome(output.lease.host(), &output.outcome);
    let url = output.lease.url().as_str().to_string();
    match engine.frontier.complete(output.lease, output.outcome)? {
        Completion::Finished => {}
        Completion::Requeued { attempt, .. } => {
            tracing::debug!(%url, attempt, "requeued");
        }
        Completion::Parked => {
            tracing::debug!(%url, "kept queued for the next run (host given up)");
        }
        Completion::GaveUp { attempts } => {
            if let Some(mut line) = output.failure {
                line.note = Some(format!("gave up after {attempts} tries"));
                line.ts = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
                engine.log_line(line)?;
            }
        }
    }
    Ok(())
}
