//! The engine's side of [`dedupcrawl_observe`]: crawl-log lines, fetches, host pauses and
//! sizes turned into observer events. The engine calls these at a few points only.

use std::time::{Duration, Instant};

use dedupcrawl_fetch::{FetchError, FetchedResponse};
use dedupcrawl_frontier::HostOutcome;
use dedupcrawl_observe::{CrawlObserver, DecisionEvent, FetchEvent, Gauges, PauseReason};

use dedupcrawl_index::Mechanism;

use crate::context::Engine;
use crate::crawl_log::{Decision, LogLine};
use crate::output_paths::{OutputPaths, warc_files};

/// Tells the observer about one crawl-log line (also the lines of earlier runs on resume, so
/// its counters equal `report.json`).
pub fn observe_line(observer: &CrawlObserver, line: &LogLine) {
    observer.decision(&DecisionEvent {
        ts: &line.ts,
        url: &line.url,
        decision: line.decision.as_str(),
        status: line.status,
        bytes: line.bytes,
        duplicate: matches!(
            line.decision,
            Decision::ExactDuplicate | Decision::NearDuplicate | Decision::Contained
        ),
        changed: line.decision == Decision::Archived && line.previous_digest.is_some(),
        duplicate_of: line.duplicate_of.as_deref(),
        similarity: line.similarity,
        mechanism: line.reason.as_ref().map(|reason| reason.mechanism.as_str()),
        note: line.note.as_deref(),
        error: line.error.as_deref(),
    });
}

/// Replays crawl-log lines into an observer (a crawl read from disk, or a resumed crawl's
/// lines since its checkpoint), counting them as `report.json` does: a `url_duplicate` line
/// of a URL that has a later line in the round no longer counts (its URL rule was retracted
/// and the URL fetched after all).
#[derive(Debug, Default)]
pub struct LogReplay {
    /// Round and URL of the lines so far that are a `url_duplicate` and their URL's last.
    skipped: std::collections::HashSet<(u32, String)>,
}

impl LogReplay {
    /// Tells the observer about `line`; true when it took back an earlier `url_duplicate`
    /// line of its URL (the caller's report takes it back too).
    pub fn line(&mut self, observer: &CrawlObserver, line: &LogLine) -> bool {
        let key = (line.round, line.url.clone());
        let taken_back = self.skipped.remove(&key);
        if taken_back {
            observer.url_duplicate_taken_back(&line.url, Mechanism::UrlRule.as_str());
        }
        if line.decision == Decision::UrlDuplicate {
            self.skipped.insert(key);
        }
        observe_line(observer, line);
        taken_back
    }
}

impl Engine {
    /// One fetch attempt ended (`started` when the request went out).
    pub(crate) fn observe_fetch(
        &self,
        host: &str,
        started: Instant,
        fetched: &Result<FetchedResponse, FetchError>,
        host_delay: Duration,
    ) {
        self.observer.fetch(&FetchEvent {
            host,
            duration: started.elapsed(),
            response: fetched
                .as_ref()
                .ok()
                .map(|response| (response.status, response.body.len() as u64)),
            host_delay,
        });
    }

    /// A task's outcome pauses its host (Retry-After, backoff, given up).
    pub(crate) fn observe_outcome(&self, host: &str, outcome: &HostOutcome) {
        let (reason, pause) = match outcome {
            HostOutcome::RetryAfter(pause) => (PauseReason::RetryAfter, *pause),
            HostOutcome::HostFailure { pause, .. } => (PauseReason::Backoff, *pause),
            HostOutcome::HostGivenUp => (PauseReason::GivenUp, Duration::ZERO),
            HostOutcome::Done | HostOutcome::Failed | HostOutcome::Retry => return,
        };
        self.observer.host_paused(host, reason, pause);
    }

    /// Samples frontier, index and WARC sizes into the observer, and returns them. Frontier
    /// and WARC sizes that cannot be read right now count as 0 for this sample, the index's as
    /// not known. A store may count rows for them
    /// (PostgreSQL): the main loop calls this off its thread, as often as
    /// [`SizeSamples`](crate::size_samples::SizeSamples) says.
    pub(crate) fn observe_sizes(&self) -> Gauges {
        let frontier = self.frontier.stats().ok();
        let index_documents = self.stage.index().stats().ok().map(|stats| stats.documents);
        let warc_dir = OutputPaths::new(&self.config.crawl.out).warc_dir;
        let warc_bytes = warc_files(&warc_dir)
            .map(|files| {
                files
                    .iter()
                    .filter_map(|file| std::fs::metadata(file).ok())
                    .map(|metadata| metadata.len())
                    .sum()
            })
            .unwrap_or(0);
        let gauges = Gauges {
            queued: frontier.as_ref().map_or(0, |f| f.queued),
            in_flight: frontier.as_ref().map_or(0, |f| f.in_flight),
            index_documents,
            warc_bytes,
            url_rules: self
                .url_rules
                .as_ref()
                .map(|book| crate::url_rules::UrlRulesReport {
                    fetches_saved: crate::mutex::lock(&self.log).report.total.url_duplicates,
                    ..book.report()
                }),
        };
        self.observer.gauges(gauges);
        gauges
    }
}
