//! Opening a crawl: the stores, the archive and its resume, the sites and their seeds.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dedupcrawl_archive::{CdxjWriter, WarcWriter, WarcWriterConfig};
use dedupcrawl_fetch::Fetcher;
use dedupcrawl_frontier::{FrontierEntry, RobotsCache, RobotsConfig};
use dedupcrawl_observe::CrawlObserver;
use dedupcrawl_pipeline::DedupStage;

use crate::config::StoreLocation;
use crate::config::{CrawlConfig, seconds};
use crate::context::{ArchiveSink, Engine, LogSink, Progress};
use crate::crawl_log::{CrawlLog, HOST_GIVEN_UP_NOTE};
use crate::error::CrawlError;
use crate::host_health::HostHealth;
use crate::log_checkpoint::LogCounts;
use crate::output_paths::OutputPaths;
use crate::report::{CrawlReport, ResumeScan};
use crate::resume::reconcile_archive;
use crate::revisit::RoundStart;
use crate::stores::CrawlStores;

/// A worker's name as it appears in its WARC file names: the last path component of a
/// default name (its `--out` directory), letters, digits, `.` and `_` kept, the rest `_`
/// (`-` separates the parts of a WARC file name).
pub(super) fn worker_file_tag(worker: &str) -> String {
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
    pub(super) fn open(
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
            )
            .map_err(|error| crate::lost_pages::state_damaged(paths, error))?,
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
        crate::lost_pages::refuse_lost_state(crawl_state.as_ref(), paths)?;
        let round = crate::revisit::open_round(crawl_state.as_ref(), start)?;

        let mut warc_config = WarcWriterConfig::new(&paths.warc_dir, warc_prefix);
        warc_config.max_file_size = config.archive.max_file_size;
        warc_config.gzip_level = config.archive.gzip_level;
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
        // Before the writer opens its files: the damaged bytes of any file are moved out.
        let (scan, integrity) = crate::lost_pages::mend_archive(paths)?;
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
        let log_mending = crate::log_integrity::mend_crawl_log(
            paths,
            &scan,
            crawl_state.as_ref(),
            log_checkpoint.as_ref().map_or(0, |c| c.offset),
            round.number,
        )?;
        // A log mended (or cut short) is read whole: the checkpoint's counts are not its.
        let log_checkpoint = log_checkpoint.filter(|c| c.offset == log_mending.read_from);
        let (log, tail) = CrawlLog::open_from(&paths.crawl_log, log_mending.read_from)?;
        let first_leases_unrecorded = round.number == 1 && resume_scan.records_read == 0;
        let mut report = CrawlReport {
            resume_scan: ResumeScan {
                crawl_log_bytes_read: tail.bytes_read,
                crawl_log_bytes: log.len(),
                ..integrity
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
        let mut replay = crate::observe_hooks::LogReplay::default();
        for line in tail.lines.iter().filter(|l| l.round == round.number) {
            if replay.line(&observer, line) {
                let key = crate::revisit::log_key(round.number, &line.url);
                counts.uncount_url_duplicate(&mut report, &line.url, &key);
            }
            counts.count(&mut report, line, None);
            // A given-up host's seed lines are not final: the URL is still queued.
            if line.note.as_deref() != Some(HOST_GIVEN_UP_NOTE) {
                crawl_state.mark_logged(&crate::revisit::log_key(round.number, &line.url))?;
            }
        }
        if config.crawl.url_rules {
            crate::url_rules::recover_from_log(crawl_state.as_ref(), &tail.lines)?;
        }
        report.resume_scan.files_skipped = resume_scan.files_skipped;
        report.resume_scan.bytes_skipped = resume_scan.bytes_skipped;
        report.resume_scan.records_read = resume_scan.records_read;
        report.resume_scan.log_lines_moved = log_mending.lines_moved_out as u64;
        report.resume_scan.log_lines_restored = log_mending.lines_restored as u64;
        crate::lost_pages::requeue_lost_pages(
            paths,
            &scan,
            crate::lost_pages::LostPageParts {
                crawl_state: crawl_state.as_ref(),
                frontier: stores.frontier.as_ref(),
                stage: &stage,
                counts: &mut counts,
                report: &mut report,
                round: round.number,
            },
        )?;
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
        let renderer = crate::render_page::RenderPool::for_config(&config, &sites)?;
        Ok(Engine {
            renderer,
            health,
            given_up: Mutex::new(Vec::new()),
            seeds_logged: Mutex::new(std::collections::HashSet::new()),
            soft_404: Mutex::new(HashMap::new()),
            credentials: crate::credentials::seed_credentials(&config),
            stopping: std::sync::atomic::AtomicBool::new(false),
            url_rules: config.crawl.url_rules.then(|| {
                // Workers sharing a PostgreSQL crawl read each other's rules as they go.
                let shared = !matches!(config.store.location(), Ok(StoreLocation::Embedded));
                crate::url_rules::UrlRuleBook::new(
                    config.url_rules,
                    shared.then_some(crate::url_rules::SHARED_RULES_REREAD),
                )
            }),
            round,
            first_leases_unrecorded,
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

    pub(super) fn seed(&self) -> Result<(), CrawlError> {
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
}
