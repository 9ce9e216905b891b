//! `OUT/report.json` and the printed summary. Rebuilt from the crawl log on resume, so the
//! report of a resumed crawl covers the whole crawl.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use dedupcrawl_index::Mechanism;

use crate::crawl_log::{Decision, LogLine};
use crate::host_health::GivenUpHost;

/// Counts of one host.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostReport {
    /// URL decisions with an HTTP response.
    pub fetched: u64,
    pub archived: u64,
    pub exact_duplicates: u64,
    pub near_duplicates: u64,
    pub contained: u64,
    pub not_modified: u64,
    /// Recrawl: a 200 with the payload of the previous version (identical-payload revisit).
    #[serde(default)]
    pub unchanged: u64,
    /// Recrawl: archived again as a new version (`previous_digest` on its line).
    #[serde(default)]
    pub changed: u64,
    /// Recrawl: 404/410 for a URL an earlier round fetched.
    #[serde(default)]
    pub gone: u64,
    pub robots_disallowed: u64,
    /// `200` pages that resemble the host's answer to a path that cannot exist.
    #[serde(default)]
    pub soft_404: u64,
    pub out_of_scope: u64,
    pub filtered: u64,
    pub errors: u64,
    /// Payload bytes received.
    pub bytes_fetched: u64,
    /// Payload bytes of duplicates, not stored as new content.
    pub bytes_saved: u64,
    /// URLs not fetched because a URL rule maps them onto a page archived as new
    /// (`url_duplicate` lines; a skipped URL fetched again after its rule was retracted no
    /// longer counts): fetches saved.
    #[serde(default)]
    pub url_duplicates: u64,
    /// Decisions by the mechanism that decided (lines with a `reason`, by
    /// `reason.mechanism`).
    #[serde(default)]
    pub mechanisms: BTreeMap<String, u64>,
}

/// The whole crawl.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CrawlReport {
    pub total: HostReport,
    pub hosts: BTreeMap<String, HostReport>,
    /// WARC files of the crawl (all runs).
    pub warc_files: Vec<String>,
    /// True when the crawl ended because the frontier was empty (false: page budget or
    /// interrupt; run again to continue).
    pub finished: bool,
    /// Hosts given up in this run (connection-level failures in a row), with the reason, the
    /// tries and the time spent; their URLs stay queued for the next run.
    #[serde(default)]
    pub given_up_hosts: Vec<GivenUpHost>,
    /// True when every seed host was given up in this run (`dedupcrawl crawl` exits 4).
    #[serde(default)]
    pub every_seed_host_given_up: bool,
    /// Documents in the dedup index when the run ended (originals, every round's; what the
    /// dashboard shows as "in index" for a crawl on disk). None: the index did not answer.
    #[serde(default)]
    pub index_documents: Option<u64>,
    /// URL rules learned from duplicates, over the hosts this run met (absent when
    /// `crawl.url_rules` is off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url_rules: Option<crate::url_rules::UrlRulesReport>,
    /// The signal that interrupted this run (`dedupcrawl crawl` exits 130 for SIGINT, 143
    /// for SIGTERM); absent when the run was not interrupted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted_by: Option<crate::StopSignal>,
    /// This run's CPU: the process's, and the pages' by stage (not rebuilt on resume: it
    /// covers this run only; absent in a report rebuilt from the log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<RunCpu>,
    /// What this run read of the WARC files written before it (not written to report.json).
    #[serde(skip)]
    pub resume_scan: ResumeScan,
}

/// CPU seconds of one run of the crawl.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RunCpu {
    /// The process's CPU (every thread: fetching, the storage's threads, the stages) when the
    /// report was written.
    pub process_seconds: f64,
    /// The pages' CPU by stage ([`dedupcrawl_stagecpu::Stage`]); what no stage covers is
    /// `process_seconds` minus their sum.
    pub stages: dedupcrawl_stagecpu::StageTotals,
}

/// How much of the earlier WARC files and of the crawl log a resumed crawl read to reconcile
/// its state; what the last checkpoints of the state cover is skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResumeScan {
    /// Whole files skipped.
    pub files_skipped: u64,
    /// Bytes skipped at the start of the checkpoint's file.
    pub bytes_skipped: u64,
    /// Records read.
    pub records_read: u64,
    /// Bytes of the crawl log read (what its checkpoint does not cover, and the torn-line
    /// check at its end).
    pub crawl_log_bytes_read: u64,
    /// Bytes in the crawl log.
    pub crawl_log_bytes: u64,
    /// Damaged bytes (torn, corrupt or not records) moved out of the WARC files to
    /// `OUT/damaged/` when the crawl opened.
    pub damaged_bytes_moved: u64,
    /// Archived pages whose record was not in the WARC files any more, put back in the
    /// frontier to be fetched again.
    pub pages_lost: u64,
    /// `index.cdxj` lines dropped (pointing at no good record) and added (records without a
    /// line) when the crawl opened.
    pub cdxj_lines_dropped: u64,
    pub cdxj_lines_added: u64,
    /// Crawl-log lines that did not parse, moved to `OUT/damaged/`.
    pub log_lines_moved: u64,
    /// `archived` lines the crawl log had lost, restored from the WARC records.
    pub log_lines_restored: u64,
}

/// `host[:port]` of a URL, as the report names hosts.
pub(crate) fn report_host(url: &str) -> String {
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

impl HostReport {
    fn add(&mut self, line: &LogLine) {
        if line.status.is_some() {
            self.fetched += 1;
        }
        let bytes = line.bytes.unwrap_or(0);
        self.bytes_fetched += bytes;
        if let Some(reason) = &line.reason {
            *self
                .mechanisms
                .entry(reason.mechanism.as_str().to_string())
                .or_default() += 1;
        }
        match line.decision {
            Decision::Archived => {
                self.archived += 1;
                if line.previous_digest.is_some() {
                    self.changed += 1;
                }
            }
            Decision::Unchanged => self.unchanged += 1,
            Decision::Gone => self.gone += 1,
            Decision::ExactDuplicate => {
                self.exact_duplicates += 1;
                self.bytes_saved += bytes;
            }
            Decision::NearDuplicate => {
                self.near_duplicates += 1;
                self.bytes_saved += bytes;
            }
            Decision::Contained => {
                self.contained += 1;
                self.bytes_saved += bytes;
            }
            Decision::NotModified => self.not_modified += 1,
            Decision::RobotsDisallowed => self.robots_disallowed += 1,
            Decision::Soft404 => self.soft_404 += 1,
            Decision::OutOfScope => self.out_of_scope += 1,
            Decision::Filtered => self.filtered += 1,
            Decision::Error => self.errors += 1,
            Decision::UrlDuplicate => self.url_duplicates += 1,
        }
    }
}

impl HostReport {
    /// Takes back a `url_duplicate` line (with its `url_rule` mechanism count).
    fn remove_url_duplicate(&mut self) {
        self.url_duplicates = self.url_duplicates.saturating_sub(1);
        if let Some(count) = self.mechanisms.get_mut(Mechanism::UrlRule.as_str()) {
            *count = count.saturating_sub(1);
        }
    }

    /// Takes back what [`add`](HostReport::add) counted for an `archived` line (its record was
    /// lost from the WARC files: the page is fetched and counted again).
    fn remove_archived(&mut self, line: &LogLine) {
        if line.status.is_some() {
            self.fetched = self.fetched.saturating_sub(1);
        }
        self.bytes_fetched = self.bytes_fetched.saturating_sub(line.bytes.unwrap_or(0));
        if let Some(reason) = &line.reason
            && let Some(count) = self.mechanisms.get_mut(reason.mechanism.as_str())
        {
            *count = count.saturating_sub(1);
        }
        self.archived = self.archived.saturating_sub(1);
        if line.previous_digest.is_some() {
            self.changed = self.changed.saturating_sub(1);
        }
    }
}

impl CrawlReport {
    /// Takes back a `url_duplicate` line of `url`: its rule was retracted and the URL is
    /// fetched after all.
    pub(crate) fn remove_url_duplicate(&mut self, url: &str) {
        self.total.remove_url_duplicate();
        if let Some(host) = self.hosts.get_mut(&report_host(url)) {
            host.remove_url_duplicate();
        }
    }

    /// Takes back the counts of an `archived` line whose record was lost.
    pub(crate) fn remove_archived(&mut self, line: &LogLine) {
        self.total.remove_archived(line);
        if let Some(host) = self.hosts.get_mut(&report_host(&line.url)) {
            host.remove_archived(line);
        }
    }

    /// Counts one crawl-log line.
    pub fn add(&mut self, line: &LogLine) {
        self.total.add(line);
        self.hosts
            .entry(report_host(&line.url))
            .or_default()
            .add(line);
    }

    /// A plain-text table for the terminal.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<28} {:>8} {:>8} {:>8} {:>8} {:>9} {:>7} {:>12}",
            "host", "fetched", "archived", "exact", "near", "contained", "errors", "bytes saved"
        );
        let row = |out: &mut String, name: &str, r: &HostReport| {
            let _ = writeln!(
                out,
                "{:<28} {:>8} {:>8} {:>8} {:>8} {:>9} {:>7} {:>12}",
                name,
                r.fetched,
                r.archived,
                r.exact_duplicates,
                r.near_duplicates,
                r.contained,
                r.errors,
                r.bytes_saved
            );
        };
        // Hosts only ever seen as out-of-scope links would bury the table: they are counted
        // in one line (and listed in report.json).
        let mut skipped = 0;
        for (host, r) in &self.hosts {
            if r.fetched == 0 && r.errors == 0 && r.robots_disallowed == 0 {
                skipped += 1;
                continue;
            }
            row(&mut out, host, r);
        }
        row(&mut out, "TOTAL", &self.total);
        if skipped > 0 {
            let _ = writeln!(
                out,
                "({skipped} more hosts only linked to, out of scope: see report.json)"
            );
        }
        if self.total.soft_404 > 0 {
            let _ = writeln!(
                out,
                "soft 404s: {} (pages resembling their host's answer to a path that cannot \
                 exist: not archived, links not followed)",
                self.total.soft_404
            );
        }
        if let Some(rules) = &self.url_rules
            && rules.learned + rules.vetoed > 0
        {
            let _ = writeln!(
                out,
                "URL rules: {} learned ({} active, {} retracted), {} vetoed by distinct pages; \
                 {} URLs not fetched (url_duplicate), {} fetched to verify, {} fetched after a \
                 retraction",
                rules.learned,
                rules.active,
                rules.retractions,
                rules.vetoed,
                rules.fetches_saved,
                rules.verifications,
                rules.restored
            );
        }
        let integrity = &self.resume_scan;
        if integrity.log_lines_moved + integrity.log_lines_restored > 0 {
            let _ = writeln!(
                out,
                "crawl log check: {} damaged lines moved to damaged/, {} archived lines restored \
                 from the WARC records",
                integrity.log_lines_moved, integrity.log_lines_restored
            );
        }
        if integrity.pages_lost > 0 || integrity.damaged_bytes_moved > 0 {
            let _ = writeln!(
                out,
                "archive check: {} damaged WARC bytes moved to damaged/, {} archived pages whose \
                 record was lost fetched again, index.cdxj: {} lines dropped, {} added",
                integrity.damaged_bytes_moved,
                integrity.pages_lost,
                integrity.cdxj_lines_dropped,
                integrity.cdxj_lines_added
            );
        }
        if !self.given_up_hosts.is_empty() {
            let _ = writeln!(
                out,
                "hosts given up in this run (their URLs stay queued: run the same command to \
                 try them again):"
            );
            for host in &self.given_up_hosts {
                let _ = writeln!(out, "  {:<28} {}", host.host, host.message());
            }
        }
        if !self.finished {
            out.push_str(
                "crawl stopped before the frontier was empty: run the same command to continue\n",
            );
        }
        out
    }
}
