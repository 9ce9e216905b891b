//! The crawl loop: setup and resume, leasing URLs from the frontier (robots.txt and sitemaps in
//! [`crate::robots_sitemaps`]), fetching, and handing responses to [`crate::page`].

mod lifecycle;
mod main_loop;
mod open;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use dedupcrawl_frontier::{CanonicalUrl, HostOutcome, Lease, OutOfScopeReason, ScopeDecision};
use dedupcrawl_observe::CrawlObserver;

use crate::config::{CrawlConfig, ResolvedSite, seconds};
use crate::context::{Engine, LogSink};
use crate::crawl_log::{Decision, HOST_GIVEN_UP_NOTE, LogLine};
use crate::crawl_state::UrlProgress;
use crate::error::CrawlError;
use crate::host_health::{GivenUpHost, Verdict};
use crate::mutex::lock;
use crate::observe_hooks::observe_line;
use crate::output_lock::OutputLock;
use crate::output_paths::OutputPaths;
use crate::report::CrawlReport;
use crate::revisit::RoundStart;
use crate::robots_sitemaps::RobotsStep;

use main_loop::{TaskOutput, main_loop};

/// Runs a crawl to the end (frontier empty, page budget reached, or Ctrl-C) and returns its
/// report (also written to `OUT/report.json`).
///
/// The output directory's [`OutputLock`] is taken first: another crawl there is refused at
/// once ([`CrawlError::OutputLocked`]), before anything is written.
pub async fn run_crawl(config: CrawlConfig) -> Result<CrawlReport, CrawlError> {
    run_round(
        config,
        RoundStart::Continue,
        Arc::new(CrawlObserver::unobserved()),
        None,
    )
    .await
}

/// [`run_crawl`], telling `observer` what happens (for `/metrics` and the dashboard).
pub async fn run_observed_crawl(
    config: CrawlConfig,
    observer: Arc<CrawlObserver>,
) -> Result<CrawlReport, CrawlError> {
    run_round(config, RoundStart::Continue, observer, None).await
}

/// [`run_observed_crawl`] in an output directory whose lock the caller took (to write there
/// before the crawl starts, as `dedupcrawl crawl` saves its config).
pub async fn run_locked_crawl(
    config: CrawlConfig,
    observer: Arc<CrawlObserver>,
    lock: OutputLock,
) -> Result<CrawlReport, CrawlError> {
    run_round(config, RoundStart::Continue, observer, Some(lock)).await
}

/// Runs one new round over an earlier crawl (`dedupcrawl recrawl`): the URLs whose revisit is
/// due (`all`: every known URL) are fetched again with conditional requests, plus the links
/// newly found; an unfinished round is resumed instead. Returns the round's report.
pub async fn run_recrawl(config: CrawlConfig, all: bool) -> Result<CrawlReport, CrawlError> {
    run_round(
        config,
        RoundStart::New { all },
        Arc::new(CrawlObserver::unobserved()),
        None,
    )
    .await
}

/// [`run_recrawl`] in an output directory whose lock the caller took.
pub async fn run_locked_recrawl(
    config: CrawlConfig,
    all: bool,
    lock: OutputLock,
) -> Result<CrawlReport, CrawlError> {
    run_round(
        config,
        RoundStart::New { all },
        Arc::new(CrawlObserver::unobserved()),
        Some(lock),
    )
    .await
}

/// Runs one round holding the output directory's lock (`lock`, or taken here).
async fn run_round(
    config: CrawlConfig,
    start: RoundStart,
    observer: Arc<CrawlObserver>,
    lock: Option<OutputLock>,
) -> Result<CrawlReport, CrawlError> {
    config.validate()?;
    let _lock = match lock {
        Some(lock) => lock,
        None => OutputLock::acquire(&config.crawl.out)?,
    };
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
    let end = main_loop(&engine).await;
    if let Some(renderer) = &engine.renderer {
        renderer.shut_down().await;
    }
    let end = end?;
    let engine_for_close = Arc::clone(&engine);
    let report =
        tokio::task::spawn_blocking(move || engine_for_close.close(end.finished, end.interrupted))
            .await
            .map_err(|e| CrawlError::Worker(e.to_string()))?;
    engine.observe_sizes();
    engine.observer.finished();
    report
}

/// The site whose hosts hold `url` (by host alone: patterns and depth aside).
pub(crate) fn site_holding<'a>(
    sites: &'a [ResolvedSite],
    url: &CanonicalUrl,
) -> Option<&'a ResolvedSite> {
    sites.iter().find(|site| {
        !matches!(
            site.scope.check(url, 0),
            ScopeDecision::OutOfScope(
                OutOfScopeReason::HostNotAllowed | OutOfScopeReason::HostDenied
            )
        )
    })
}

impl Engine {
    /// The site a URL's host belongs to.
    pub(crate) fn site_for(&self, url: &CanonicalUrl) -> Option<&ResolvedSite> {
        site_holding(&self.sites, url)
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
    pub(crate) fn log_line(&self, line: LogLine) -> Result<(), CrawlError> {
        let cpu = Arc::clone(self.stage.stage_cpu());
        cpu.time(dedupcrawl_stagecpu::Stage::Log, || {
            self.append_log_line(line)
        })
    }

    fn append_log_line(&self, mut line: LogLine) -> Result<(), CrawlError> {
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
        if line.depth == 0 && self.is_seed(&line.url) {
            lock(&self.seeds_logged).insert(line.url.clone());
        }
        let mut sink = lock(&self.log);
        sink.log.append(&line)?;
        // Under the log's lock: the dashboard sees the lines the crawl log has, in its order.
        observe_line(&self.observer, &line);
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

    /// A failed page fetch: the host backs off (a connection-level failure), the URL is
    /// retried, or its `error` line is logged. The outcome, and the line to log if the
    /// frontier gives up on the URL.
    fn fetch_failed(
        &self,
        lease: &Lease,
        error: dedupcrawl_fetch::FetchError,
        started: Instant,
    ) -> Result<(HostOutcome, Option<LogLine>), CrawlError> {
        let url = lease.url();
        let entry = &lease.entry;
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
            let outcome = self.host_failed(lease, &reason, started, false)?;
            Ok((outcome, Some(line)))
        } else if error.is_retryable() {
            tracing::debug!(url = %url, %error, attempt = lease.attempt, "fetch failed, will retry");
            Ok((HostOutcome::Retry, Some(line)))
        } else {
            tracing::info!(url = %url, %error, "fetch failed");
            self.log_line(line)?;
            Ok((HostOutcome::Failed, None))
        }
    }

    /// Whether the page is not fetched: robots.txt disallows it, or its host has used its page
    /// budget (a first try only). Its line is logged.
    fn refused_before_fetch(
        &self,
        lease: &Lease,
        policy: &dedupcrawl_frontier::RobotsPolicy,
    ) -> Result<bool, CrawlError> {
        let (url, entry) = (lease.url(), &lease.entry);
        let line = if !policy.is_allowed(url) {
            LogLine::new(
                url.as_str(),
                Decision::RobotsDisallowed,
                entry.depth,
                entry.via.clone(),
            )
        } else if lease.attempt == 0 && !self.take_host_page(url) {
            let mut line = LogLine::new(
                url.as_str(),
                Decision::OutOfScope,
                entry.depth,
                entry.via.clone(),
            );
            line.note = Some("host page limit reached".into());
            line
        } else {
            return Ok(false);
        };
        self.log_line(line)?;
        Ok(true)
    }

    /// Whether the leased URL is done without a fetch: fetched already in this round, or an
    /// active URL rule maps it onto a page archived as new (its `url_duplicate` line is
    /// logged).
    fn done_before_fetch(&self, lease: &Lease, progress: &UrlProgress) -> Result<bool, CrawlError> {
        if crate::revisit::fetched_this_round(self, progress) {
            tracing::debug!(url = %lease.url(), "already fetched in this round");
            return Ok(true);
        }
        match self.url_duplicate(lease)? {
            Some(line) => {
                self.log_line(line)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The `url_duplicate` line of a leased URL that an active URL rule maps onto a page
    /// archived as new (it is not fetched; [`crate::url_rules`]).
    fn url_duplicate(&self, lease: &Lease) -> Result<Option<LogLine>, CrawlError> {
        let Some(book) = &self.url_rules else {
            return Ok(None);
        };
        let entry = &lease.entry;
        let (before_fetch, retracted) = book.before_fetch(self.crawl_state.as_ref(), entry)?;
        self.restore_skipped(book, entry.url.host(), &retracted)?;
        match before_fetch {
            crate::url_rules::BeforeFetch::Fetch => Ok(None),
            crate::url_rules::BeforeFetch::Skip { duplicate_of, rule } => {
                let mut line = LogLine::new(
                    entry.url.as_str(),
                    Decision::UrlDuplicate,
                    entry.depth,
                    entry.via.clone(),
                );
                line.duplicate_of = Some(duplicate_of);
                line.rule = Some(rule);
                line.reason = Some(dedupcrawl_index::Reason::of(
                    dedupcrawl_index::Mechanism::UrlRule,
                ));
                Ok(Some(line))
            }
        }
    }

    /// Processes one leased URL: robots, fetch, response.
    async fn process(self: Arc<Self>, lease: Lease) -> Result<TaskOutput, CrawlError> {
        let url = lease.url().clone();
        // One read for what the state knows of the URL (a round trip on PostgreSQL), none
        // when nothing can have recorded anything of it (see `first_leases_unrecorded`).
        let progress = if self.first_leases_unrecorded && !lease.leased_before {
            UrlProgress::default()
        } else {
            self.crawl_state.url_progress(url.as_str())?
        };
        if self.done_before_fetch(&lease, &progress)? {
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
        if self.refused_before_fetch(&lease, &policy)? {
            return Ok(output(HostOutcome::Failed, None));
        }
        if extra_requests {
            // robots.txt (and sitemaps) were just fetched: keep the host's delay before the page.
            tokio::time::sleep(host_delay).await;
        }
        self.ensure_not_stopping()?;
        let started = Instant::now();
        let previous = crate::revisit::previous_version(&self, &progress);
        let mut request = crate::revisit::request_for(&url, previous.as_ref());
        request.basic_auth = self.credentials_for(url.url());
        let fetched = self.fetcher.fetch(request).await;
        self.progress.fetched.fetch_add(1, Ordering::Relaxed);
        self.observe_fetch(url.host(), started, &fetched, host_delay);
        match fetched {
            Err(error) => {
                let (outcome, failure) = self.fetch_failed(&lease, error, started)?;
                Ok(output(outcome, failure))
            }
            Ok(response) => {
                self.health.record_success(url.host());
                let engine = Arc::clone(&self);
                let lease_for_page = lease.clone();
                let archived = progress.archived;
                let (outcome, failure) = tokio::task::spawn_blocking(move || {
                    crate::revisit_page::handle_response(
                        &engine,
                        &lease_for_page,
                        response,
                        previous,
                        archived,
                    )
                })
                .await
                .map_err(|e| CrawlError::Worker(e.to_string()))??;
                Ok(output(outcome, failure))
            }
        }
    }
}
