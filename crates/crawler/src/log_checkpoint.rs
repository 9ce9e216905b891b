//! The crawl-log checkpoint: what a resumed crawl need not read again. A checkpoint of the
//! engine (every `crawl.checkpoint_every` seconds and at the end of a run) syncs the crawl log
//! and records, through [`CrawlStateStore`], how many of its bytes are counted, the report's
//! counts over them (per host only the hosts that changed since the last one), the pages
//! counted against each host's budget, and the crawl-log marks of the lines logged since. A
//! resumed crawl starts from those counts and reads the log from that offset on only, so what
//! it reads does not grow with the crawl (`ResumeScan::crawl_log_bytes_read`).
//!
//! [`CrawlStateStore`]: crate::crawl_state::CrawlStateStore

use std::collections::{HashMap, HashSet};

use dedupcrawl_frontier::{CanonicalUrl, CanonicalizationRules};
use dedupcrawl_observe::{CrawlObserver, HostCounts};

use crate::crawl_log::{HOST_GIVEN_UP_NOTE, LogLine};
use crate::crawl_state::{CrawlLogCheckpoint, LoggedHost};
use crate::report::{CrawlReport, HostReport, report_host};

/// What the log sink counts between two checkpoints.
#[derive(Default)]
pub(crate) struct LogCounts {
    /// Per host, the round's lines with a response (the page budgets a resume starts from),
    /// except a given-up host's seed lines, which are not final.
    pages: HashMap<String, u64>,
    /// Hosts (report names and budget names) whose counts changed since the last checkpoint.
    changed: HashSet<String>,
    /// Crawl-log marks of the lines logged since the last checkpoint.
    unmarked: Vec<String>,
}

impl LogCounts {
    /// Counts one line of the round into `report` and the budgets; `mark` is its crawl-log
    /// mark when the state does not have it yet.
    pub(crate) fn count(&mut self, report: &mut CrawlReport, line: &LogLine, mark: Option<String>) {
        report.add(line);
        self.changed.insert(report_host(&line.url));
        if line.note.as_deref() == Some(HOST_GIVEN_UP_NOTE) {
            return;
        }
        self.unmarked.extend(mark);
        if line.status.is_some()
            && let Ok(url) = CanonicalUrl::parse(&line.url, None, &CanonicalizationRules::none())
        {
            let host = url.host().to_string();
            *self.pages.entry(host.clone()).or_default() += 1;
            self.changed.insert(host);
        }
    }

    /// Takes back the counts of an `archived` line of the round whose record was lost: the
    /// page is fetched again and counted then.
    pub(crate) fn uncount_archived(&mut self, report: &mut CrawlReport, line: &LogLine) {
        report.remove_archived(line);
        self.changed.insert(report_host(&line.url));
        if line.status.is_some()
            && let Ok(url) = CanonicalUrl::parse(&line.url, None, &CanonicalizationRules::none())
            && let Some(pages) = self.pages.get_mut(url.host())
        {
            *pages = pages.saturating_sub(1);
            self.changed.insert(url.host().to_string());
        }
    }

    /// Takes back the count of a `url_duplicate` line of the round (its URL rule was
    /// retracted: the URL is fetched and logged again), and its crawl-log `mark` if the
    /// state does not have it yet.
    pub(crate) fn uncount_url_duplicate(
        &mut self,
        report: &mut CrawlReport,
        url: &str,
        mark: &str,
    ) {
        report.remove_url_duplicate(url);
        self.changed.insert(report_host(url));
        self.unmarked.retain(|unmarked| unmarked != mark);
    }

    /// The pages counted per host (the budgets).
    pub(crate) fn pages(&self) -> HashMap<String, u64> {
        self.pages.clone()
    }

    /// Starts from a checkpoint of this round: its counts into `report`, the budgets and the
    /// observer (whose counters equal `report.json`).
    pub(crate) fn restore(
        &mut self,
        checkpoint: CrawlLogCheckpoint,
        report: &mut CrawlReport,
        observer: &CrawlObserver,
    ) {
        report.total = checkpoint.total;
        for (host, row) in checkpoint.hosts {
            if row.pages > 0 {
                self.pages.insert(host.clone(), row.pages);
            }
            if let Some(counts) = row.report {
                observer.restore(&host, &observed(&counts));
                report.hosts.insert(host, counts);
            }
        }
    }

    /// The checkpoint of the lines up to `offset` (counted in `report`) and the marks to
    /// record with it; [`recorded`](Self::recorded) once the state has them.
    pub(crate) fn pending(
        &self,
        report: &CrawlReport,
        offset: u64,
        round: u32,
    ) -> (CrawlLogCheckpoint, Vec<String>) {
        let hosts = self
            .changed
            .iter()
            .map(|host| {
                let row = LoggedHost {
                    report: report.hosts.get(host).cloned(),
                    pages: self.pages.get(host).copied().unwrap_or(0),
                };
                (host.clone(), row)
            })
            .collect();
        let checkpoint = CrawlLogCheckpoint {
            offset,
            round,
            total: report.total.clone(),
            hosts,
        };
        (checkpoint, self.unmarked.clone())
    }

    /// The last [`pending`](Self::pending) checkpoint is in the state.
    pub(crate) fn recorded(&mut self) {
        self.changed.clear();
        self.unmarked.clear();
    }
}

/// A report row as the observer counts it.
fn observed(report: &HostReport) -> HostCounts {
    HostCounts {
        fetched: report.fetched,
        archived: report.archived,
        exact_duplicates: report.exact_duplicates,
        near_duplicates: report.near_duplicates,
        contained: report.contained,
        not_modified: report.not_modified,
        unchanged: report.unchanged,
        changed: report.changed,
        gone: report.gone,
        robots_disallowed: report.robots_disallowed,
        soft_404: report.soft_404,
        out_of_scope: report.out_of_scope,
        filtered: report.filtered,
        url_duplicates: report.url_duplicates,
        errors: report.errors,
        bytes_fetched: report.bytes_fetched,
        bytes_saved: report.bytes_saved,
        mechanisms: report.mechanisms.clone(),
    }
}
