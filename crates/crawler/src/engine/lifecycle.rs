//! Making a crawl durable: checkpoints while it runs and the report when it closes.

use crate::context::{Engine, LogSink};
use crate::crawl_state::ArchiveCheckpoint;
use crate::error::CrawlError;
use crate::mutex::lock;
use crate::output_paths::{OutputPaths, warc_files};
use crate::report::CrawlReport;
use crate::stop_signal::StopSignal;
use crate::url_rules::UrlRulesReport;

impl Engine {
    /// Flushes the archive and the state, then records the WARC position the flushed state
    /// covers ([`ArchiveCheckpoint`]; on disk with the next flush). Every record before the
    /// position is in the `archived` tree: pages remember their records while they hold the
    /// archive lock, and the position is read under that lock.
    pub(super) fn checkpoint(&self) -> Result<(), CrawlError> {
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

    pub(super) fn close(
        &self,
        finished: bool,
        interrupted: Option<StopSignal>,
    ) -> Result<CrawlReport, CrawlError> {
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
        report.interrupted_by = interrupted;
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
        report.index_documents = self
            .stage
            .index()
            .stats()
            .map(|stats| stats.documents)
            .map_err(|error| tracing::warn!("index size for report.json: {error}"))
            .ok();
        report.url_rules = self.url_rules.as_ref().map(|book| UrlRulesReport {
            fetches_saved: report.total.url_duplicates,
            ..book.report()
        });
        report.cpu = Some(crate::report::RunCpu {
            process_seconds: dedupcrawl_stagecpu::process_cpu_time().as_secs_f64(),
            stages: self.stage.stage_cpu().totals(),
        });
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
