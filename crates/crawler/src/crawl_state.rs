//! The engine's own progress, behind a storage seam ([`CrawlStateStore`]): which URLs have a
//! WARC record (and which record), which have a crawl-log line from an earlier run, whose
//! sitemaps were read, how far the WARC files are known to the state (the checkpoint), and
//! for recrawls the round in progress and each URL's revisit state ([`RevisitState`]); for
//! `dedupcrawl schedule`, each scheduled site's state ([`ScheduledSiteState`]); each worker's
//! output directory (for commands that read a whole crawl); per host, what its soft-404
//! probes found ([`Soft404Probe`]); per host, the URL rules learned from duplicates
//! ([`RuleRecord`]) and the URL sets they use ([`crate::url_rules`]).

use dedupcrawl_urlrules::RuleRecord;
use serde::{Deserialize, Serialize};

use crate::error::CrawlError;
use crate::report::HostReport;

/// What the archive holds for a URL (enough to write a revisit pointing at it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ArchivedRecord {
    pub(crate) record_type: String,
    pub(crate) record_id: Option<String>,
    pub(crate) date: Option<chrono::DateTime<chrono::Utc>>,
    pub(crate) payload_digest: Option<String>,
    /// The crawl round that wrote the record (1 = the first crawl; absent in state written
    /// before rounds existed, which is round 1).
    #[serde(default = "first_round")]
    pub(crate) round: u32,
}

fn first_round() -> u32 {
    1
}

/// What the state knows of one URL when it is leased: its revisit state and its archived
/// record, read together ([`CrawlStateStore::url_progress`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct UrlProgress {
    /// The URL's revisit state, if a round fetched it.
    pub(crate) revisit: Option<RevisitState>,
    /// What was archived for the URL, if anything.
    pub(crate) archived: Option<ArchivedRecord>,
}

/// What a recrawl needs to know about one URL: the validators and content of its current
/// version, when it is due again, and how often it was missing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RevisitState {
    /// The last round that fetched the URL.
    pub(crate) round: u32,
    /// Link depth at which the URL was found (kept for scope checks of later rounds).
    pub(crate) depth: u32,
    /// `ETag` of the current version (sent as `If-None-Match`).
    pub(crate) etag: Option<String>,
    /// `Last-Modified` of the current version (sent as `If-Modified-Since`).
    pub(crate) last_modified: Option<String>,
    /// `sha1:BASE32` payload digest of the current version.
    pub(crate) payload_digest: Option<String>,
    /// The dedup index's document of the current version (its MinHash signature is what a
    /// changed page is compared with; removed from the index when a new version replaces it).
    pub(crate) document: Option<u32>,
    /// The `response` record of the current version: what revisit records refer to.
    pub(crate) record: Option<ArchivedRecord>,
    /// Seconds between two revisits (adapted per round from the change similarity).
    pub(crate) interval_secs: f64,
    /// When the URL is due again.
    pub(crate) next_due: chrono::DateTime<chrono::Utc>,
    /// Rounds in a row that found the URL gone (404/410).
    pub(crate) misses: u32,
    /// Dropped from later rounds (gone for `recrawl.gone_after_misses` rounds).
    pub(crate) gone: bool,
    /// Resemblance of the last fetched version with the one before (1.0: unchanged).
    pub(crate) last_similarity: Option<f64>,
}

/// The crawl's current round: round 1 is the first `crawl`, each `recrawl` adds one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RoundState {
    pub(crate) number: u32,
    pub(crate) started: chrono::DateTime<chrono::Utc>,
    /// Every URL due in the round was put in the frontier (a recrawl killed before that
    /// seeds again on resume).
    pub(crate) seeded: bool,
    /// The round ran to its end (frontier empty): the next `recrawl` starts a new round.
    pub(crate) finished: bool,
    /// `recrawl --all`: every known URL, due or not.
    pub(crate) all: bool,
}

/// How far the WARC files are known to the state: every record of the files before `file`
/// (in name order) and of `file` before byte `offset` is recorded as archived, durably.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ArchiveCheckpoint {
    pub(crate) file: String,
    pub(crate) offset: u64,
}

/// How much of a worker's crawl log (`crawl.log.jsonl`) the state holds, and what was counted
/// there: a resumed crawl reads the log from `offset` on only, and starts its report and page
/// budgets from these counts (when `round` is the round being resumed).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct CrawlLogCheckpoint {
    /// Bytes of the crawl log (whole lines) the counts cover.
    pub(crate) offset: u64,
    /// The round whose lines are counted (the report and the budgets are a round's).
    pub(crate) round: u32,
    /// The report's totals over those lines.
    pub(crate) total: HostReport,
    /// Per host, its counts. Read back: every host of the round. Recorded: the hosts whose
    /// counts changed since the last checkpoint (the others keep theirs).
    pub(crate) hosts: Vec<(String, LoggedHost)>,
}

/// One host's counts over the lines a [`CrawlLogCheckpoint`] covers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct LoggedHost {
    /// Its row of the report (`None` when only its budget counts are known under this name).
    pub(crate) report: Option<HostReport>,
    /// Lines with a response, which count against `max_pages_per_host`.
    pub(crate) pages: u64,
}

/// One site's state in `dedupcrawl schedule`: when its next round is due and how the last one
/// went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScheduledSiteState {
    /// When the next round may start.
    pub next_due: chrono::DateTime<chrono::Utc>,
    /// Rounds that ran to their end (exit status 0): 0 means the next round is the first crawl.
    pub rounds_finished: u32,
    pub last_started: Option<chrono::DateTime<chrono::Utc>>,
    pub last_finished: Option<chrono::DateTime<chrono::Utc>>,
    /// Exit status of the last round's process (`None`: killed by a signal, or none yet).
    pub last_exit: Option<i32>,
}

impl ScheduledSiteState {
    /// A site never run: due at `now`.
    pub fn new(now: chrono::DateTime<chrono::Utc>) -> ScheduledSiteState {
        ScheduledSiteState {
            next_due: now,
            rounds_finished: 0,
            last_started: None,
            last_finished: None,
            last_exit: None,
        }
    }
}

/// What a host answered to paths that cannot exist (`crawl.soft_404_probes`), kept so a
/// resumed crawl or a later round does not probe again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Soft404Probe {
    /// When the host was probed.
    pub(crate) probed: chrono::DateTime<chrono::Utc>,
    /// The probes answered `200` with HTML: the host's soft-404 model. Empty when the host
    /// answers unknown paths honestly (404, 410, a redirect, non-HTML).
    pub(crate) answers: Vec<ProbeAnswer>,
    /// What each probe got, for the log (`"/3f9a…: 404"`).
    pub(crate) outcomes: Vec<String>,
}

/// One probe's `200` HTML answer, reduced to what a page is compared with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ProbeAnswer {
    /// The probe URL (a random path).
    pub(crate) url: String,
    /// Normalized token hashes of each text block, the probe URL's words and tokens with
    /// digits left out ([`crate::soft_404_model`]).
    pub(crate) blocks: Vec<Vec<u64>>,
}

/// The engine's progress records. Thread-safe; each call is atomic on its own.
///
/// Contract: a write is visible to every later read at once and durable after
/// [`flush`](CrawlStateStore::flush) (a backend may be durable earlier). After a crash the
/// engine does not trust this store past the last checkpoint: it rescans the WARC files and the
/// crawl log written since and writes what was lost again, so a backend may lose writes made
/// after the last `flush`, never older ones.
///
/// The scheduled-site states are not a crawl's: they live in the store of the schedule itself
/// (its own state directory, or its own crawl name in PostgreSQL), keyed by `[[site]] name`.
/// A site's state is replaced whole by each record; no file holds them, so their user
/// ([`crate::ScheduleBook`]) flushes after every record.
pub(crate) trait CrawlStateStore: Send + Sync {
    /// What was archived for `url`, if anything.
    fn archived_record(&self, url: &str) -> Result<Option<ArchivedRecord>, CrawlError>;
    /// Records (or replaces) what was archived for `url`.
    fn record_archived(&self, url: &str, record: &ArchivedRecord) -> Result<(), CrawlError>;
    /// How many URLs have an archived record.
    fn archived_count(&self) -> usize;
    /// Forgets that `url` was fetched: its archived record, its revisit state and the
    /// crawl-log mark `logged` (a [`log_key`](crate::revisit::log_key)), so it is fetched,
    /// archived and logged again (its record was lost from the WARC files).
    fn forget_page(&self, url: &str, logged: &str) -> Result<(), CrawlError>;
    /// Every URL with an archived record, when the store holds this worker's only (the
    /// embedded one); `None` when the records are shared by the workers of a crawl.
    fn own_archived_urls(&self) -> Result<Option<Vec<String>>, CrawlError>;
    /// Records that `url` has a crawl-log line (from an earlier run).
    fn mark_logged(&self, url: &str) -> Result<(), CrawlError>;
    /// Whether [`mark_logged`](CrawlStateStore::mark_logged) was called for `url`.
    fn is_logged(&self, url: &str) -> Result<bool, CrawlError>;
    /// Records that the sitemaps of `host` were read.
    fn mark_sitemaps_read(&self, host: &str) -> Result<(), CrawlError>;
    /// Whether [`mark_sitemaps_read`](CrawlStateStore::mark_sitemaps_read) was called for `host`.
    fn sitemaps_read(&self, host: &str) -> Result<bool, CrawlError>;
    /// The last checkpoint recorded.
    fn checkpoint(&self) -> Result<Option<ArchiveCheckpoint>, CrawlError>;
    /// Records a checkpoint (durable with the next [`flush`](CrawlStateStore::flush)).
    fn set_checkpoint(&self, checkpoint: &ArchiveCheckpoint) -> Result<(), CrawlError>;
    /// The last crawl-log checkpoint of this worker, with every host row of its round.
    fn crawl_log_checkpoint(&self) -> Result<Option<CrawlLogCheckpoint>, CrawlError>;
    /// Marks `logged` (keys of [`mark_logged`](CrawlStateStore::mark_logged)), then records
    /// `checkpoint`: its offset, round and total, and its host rows over the stored ones (all
    /// of them replaced when the round changed). The marks come first: a crash between leaves
    /// lines marked whose counts the next resume reads again from the log, never lines counted
    /// but not marked. Durable with the next [`flush`](CrawlStateStore::flush).
    fn record_crawl_log_checkpoint(
        &self,
        checkpoint: &CrawlLogCheckpoint,
        logged: &[String],
    ) -> Result<(), CrawlError>;
    /// The revisit state of `url`, if a round fetched it.
    fn revisit_state(&self, url: &str) -> Result<Option<RevisitState>, CrawlError>;
    /// [`revisit_state`](CrawlStateStore::revisit_state) and
    /// [`archived_record`](CrawlStateStore::archived_record) of `url` together: the engine
    /// asks for both before each fetch, and a backend whose reads are round trips answers them
    /// in one.
    fn url_progress(&self, url: &str) -> Result<UrlProgress, CrawlError> {
        Ok(UrlProgress {
            revisit: self.revisit_state(url)?,
            archived: self.archived_record(url)?,
        })
    }
    /// Records (or replaces) the revisit state of `url`.
    fn record_revisit_state(&self, url: &str, state: &RevisitState) -> Result<(), CrawlError>;
    /// Every URL with a revisit state (read when a round is seeded).
    fn revisit_states(&self) -> Result<Vec<(String, RevisitState)>, CrawlError>;
    /// The current round, if any was started.
    fn round(&self) -> Result<Option<RoundState>, CrawlError>;
    /// Records the current round.
    fn set_round(&self, round: &RoundState) -> Result<(), CrawlError>;
    /// Every site with a recorded schedule state, with that state (any order).
    fn scheduled_sites(&self) -> Result<Vec<(String, ScheduledSiteState)>, CrawlError>;
    /// Records (or replaces) the schedule state of the site named `site`.
    fn record_scheduled_site(
        &self,
        site: &str,
        state: &ScheduledSiteState,
    ) -> Result<(), CrawlError>;
    /// Records `dir` (absolute) as this worker's output directory, replacing an earlier one.
    fn record_output_dir(&self, dir: &str) -> Result<(), CrawlError>;
    /// The output directory of every worker of the crawl that recorded one, in worker-name
    /// order (one with the embedded store).
    fn output_dirs(&self) -> Result<Vec<String>, CrawlError>;
    /// What the soft-404 probes of `host` found, if it was probed.
    fn soft_404_probe(&self, host: &str) -> Result<Option<Soft404Probe>, CrawlError>;
    /// Records (or replaces) what the soft-404 probes of `host` found.
    fn record_soft_404_probe(&self, host: &str, probe: &Soft404Probe) -> Result<(), CrawlError>;
    /// Every URL rule recorded for `host`, any order.
    fn url_rules(&self, host: &str) -> Result<Vec<RuleRecord>, CrawlError>;
    /// Records (or replaces) one rule of `host`, keyed by its rule.
    fn record_url_rule(&self, host: &str, record: &RuleRecord) -> Result<(), CrawlError>;
    /// The items of `host`'s set named `set` (any order): the URL rules' pages archived as new
    /// (URLs) and the URLs each rule skipped (frontier entries as JSON; `crate::url_rules`).
    fn url_rule_set(&self, host: &str, set: &str) -> Result<Vec<String>, CrawlError>;
    /// Adds `item` to `host`'s set named `set` (again: no change).
    fn add_to_url_rule_set(&self, host: &str, set: &str, item: &str) -> Result<(), CrawlError>;
    /// Makes every write so far durable; with the embedded stores this flushes the whole
    /// state database (frontier and index trees too).
    fn flush(&self) -> Result<(), CrawlError>;
}

/// The behaviour every [`CrawlStateStore`] backend must show, run by each backend's tests with
/// a function that opens a store on fresh state and, called again, on the same state.
#[cfg(test)]
pub(crate) mod behaviour_suite {
    use super::*;

    fn record(id: &str) -> ArchivedRecord {
        ArchivedRecord {
            record_type: "response".into(),
            record_id: Some(format!("<urn:uuid:{id}>")),
            date: None,
            payload_digest: Some("sha1:AAAA".into()),
            round: 1,
        }
    }

    fn revisit(round: u32, etag: &str) -> RevisitState {
        RevisitState {
            round,
            depth: 2,
            etag: Some(etag.into()),
            last_modified: Some("Tue, 24 Nov 2026 10:00:00 GMT".into()),
            payload_digest: Some("sha1:BBBB".into()),
            document: Some(7),
            record: Some(record("9")),
            interval_secs: 3600.0,
            next_due: chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap_or_default(),
            misses: 1,
            gone: false,
            last_similarity: Some(0.75),
        }
    }

    fn round(number: u32, finished: bool) -> RoundState {
        RoundState {
            number,
            started: chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap_or_default(),
            seeded: true,
            finished,
            all: false,
        }
    }

    fn scheduled(rounds: u32, exit: Option<i32>) -> ScheduledSiteState {
        let at = |seconds| chrono::DateTime::from_timestamp(seconds, 0).unwrap_or_default();
        ScheduledSiteState {
            next_due: at(1_800_000_600),
            rounds_finished: rounds,
            last_started: Some(at(1_800_000_000)),
            last_finished: Some(at(1_800_000_100)),
            last_exit: exit,
        }
    }

    fn probe(answers: usize) -> Soft404Probe {
        Soft404Probe {
            probed: chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap_or_default(),
            answers: (0..answers)
                .map(|n| ProbeAnswer {
                    url: format!("http://a.example/{n}f3e"),
                    blocks: vec![vec![1, 2, u64::MAX], vec![n as u64]],
                })
                .collect(),
            outcomes: vec!["/0f3e: 200 text/html".into()],
        }
    }

    fn sorted_sites(state: &dyn CrawlStateStore) -> Vec<(String, ScheduledSiteState)> {
        let mut sites = state.scheduled_sites().unwrap();
        sites.sort_by(|a, b| a.0.cmp(&b.0));
        sites
    }

    /// The sites the suite records, as they read back.
    fn expected_sites() -> Vec<(String, ScheduledSiteState)> {
        vec![
            ("dead".to_string(), scheduled(0, Some(4))),
            ("live".to_string(), scheduled(3, Some(0))),
        ]
    }

    /// Every case, on the stores `open` gives (each call reopens the same state; the caller
    /// drops a store before the next call).
    pub(crate) fn run(open: &dyn Fn() -> Box<dyn CrawlStateStore>) {
        {
            let state = open();
            assert_eq!(state.archived_record("http://a.example/").unwrap(), None);
            assert_eq!(state.archived_count(), 0);
            state
                .record_archived("http://a.example/", &record("1"))
                .unwrap();
            state
                .record_archived("http://a.example/", &record("2"))
                .unwrap();
            assert_eq!(
                state.archived_record("http://a.example/").unwrap(),
                Some(record("2")),
                "the last record wins"
            );
            assert_eq!(state.archived_count(), 1);

            assert!(!state.is_logged("http://a.example/x").unwrap());
            state.mark_logged("http://a.example/x").unwrap();
            assert!(state.is_logged("http://a.example/x").unwrap());

            assert!(!state.sitemaps_read("a.example").unwrap());
            state.mark_sitemaps_read("a.example").unwrap();
            assert!(state.sitemaps_read("a.example").unwrap());
            assert!(!state.sitemaps_read("b.example").unwrap());

            assert_eq!(state.checkpoint().unwrap(), None);
            let checkpoint = ArchiveCheckpoint {
                file: "a-00001.warc.gz".into(),
                offset: 1234,
            };
            state.set_checkpoint(&checkpoint).unwrap();
            assert_eq!(state.checkpoint().unwrap(), Some(checkpoint));

            assert_eq!(state.revisit_state("http://a.example/").unwrap(), None);
            assert!(state.revisit_states().unwrap().is_empty());
            state
                .record_revisit_state("http://a.example/", &revisit(1, "\"v1\""))
                .unwrap();
            state
                .record_revisit_state("http://a.example/", &revisit(2, "W/\"v2\""))
                .unwrap();
            state
                .record_revisit_state("http://a.example/b", &revisit(1, "\"b\""))
                .unwrap();
            assert_eq!(
                state.revisit_state("http://a.example/").unwrap(),
                Some(revisit(2, "W/\"v2\"")),
                "the last revisit state wins"
            );
            assert_eq!(
                state.url_progress("http://a.example/").unwrap(),
                UrlProgress {
                    revisit: Some(revisit(2, "W/\"v2\"")),
                    archived: Some(record("2")),
                },
                "a URL's progress is its revisit state and archived record"
            );
            assert_eq!(
                state.url_progress("http://a.example/b").unwrap(),
                UrlProgress {
                    revisit: Some(revisit(1, "\"b\"")),
                    archived: None,
                }
            );
            assert_eq!(
                state.url_progress("http://a.example/never").unwrap(),
                UrlProgress::default()
            );
            let mut all = state.revisit_states().unwrap();
            all.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(
                all,
                vec![
                    ("http://a.example/".to_string(), revisit(2, "W/\"v2\"")),
                    ("http://a.example/b".to_string(), revisit(1, "\"b\"")),
                ]
            );

            assert_eq!(state.round().unwrap(), None);
            state.set_round(&round(1, false)).unwrap();
            state.set_round(&round(2, true)).unwrap();
            assert_eq!(state.round().unwrap(), Some(round(2, true)));

            assert!(state.scheduled_sites().unwrap().is_empty());
            let fresh = ScheduledSiteState::new(
                chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap_or_default(),
            );
            state.record_scheduled_site("live", &fresh).unwrap();
            state
                .record_scheduled_site("dead", &scheduled(0, Some(4)))
                .unwrap();
            state
                .record_scheduled_site("live", &scheduled(3, Some(0)))
                .unwrap();
            assert_eq!(
                sorted_sites(state.as_ref()),
                expected_sites(),
                "one state per site, the last record wins"
            );

            assert!(state.output_dirs().unwrap().is_empty());
            state.record_output_dir("/old/out").unwrap();
            state.record_output_dir("/crawls/out").unwrap();
            assert_eq!(
                state.output_dirs().unwrap(),
                ["/crawls/out"],
                "the last one wins"
            );
            assert_eq!(state.soft_404_probe("a.example").unwrap(), None);
            state.record_soft_404_probe("a.example", &probe(1)).unwrap();
            state.record_soft_404_probe("a.example", &probe(2)).unwrap();
            state.record_soft_404_probe("b.example", &probe(0)).unwrap();
            assert_eq!(
                state.soft_404_probe("a.example").unwrap(),
                Some(probe(2)),
                "the last probe wins"
            );
            assert_eq!(state.soft_404_probe("c.example").unwrap(), None);

            assert_eq!(state.crawl_log_checkpoint().unwrap(), None);
            state
                .record_crawl_log_checkpoint(
                    &log_checkpoint(1, 100, &[("a", 3), ("b", 1)]),
                    &["1 http://a.example/y".into()],
                )
                .unwrap();
            // Only the changed host is recorded (the total is the report's, over both): the
            // other keeps its row.
            let only_a = CrawlLogCheckpoint {
                total: log_checkpoint(1, 250, &[("a", 5), ("b", 1)]).total,
                ..log_checkpoint(1, 250, &[("a", 5)])
            };
            state.record_crawl_log_checkpoint(&only_a, &[]).unwrap();
            assert!(state.is_logged("1 http://a.example/y").unwrap());
            let mut read = state.crawl_log_checkpoint().unwrap().expect("recorded");
            read.hosts.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(read, log_checkpoint(1, 250, &[("a", 5), ("b", 1)]));
            state.flush().unwrap();
        }
        // Reopened: everything flushed is there.
        let state = open();
        assert_eq!(
            state.archived_record("http://a.example/").unwrap(),
            Some(record("2"))
        );
        assert!(state.is_logged("http://a.example/x").unwrap());
        assert!(state.sitemaps_read("a.example").unwrap());
        assert_eq!(
            state.checkpoint().unwrap().map(|c| c.offset),
            Some(1234),
            "the checkpoint survives"
        );
        assert_eq!(
            state.revisit_state("http://a.example/b").unwrap(),
            Some(revisit(1, "\"b\""))
        );
        assert_eq!(state.revisit_states().unwrap().len(), 2);
        assert_eq!(state.round().unwrap(), Some(round(2, true)));
        assert_eq!(
            sorted_sites(state.as_ref()),
            expected_sites(),
            "the schedule state survives"
        );
        assert_eq!(state.output_dirs().unwrap(), ["/crawls/out"]);
        assert_eq!(state.soft_404_probe("a.example").unwrap(), Some(probe(2)));
        assert_eq!(
            state.soft_404_probe("b.example").unwrap(),
            Some(probe(0)),
            "a host without a model stays probed"
        );
        let mut read = state.crawl_log_checkpoint().unwrap().expect("it survives");
        read.hosts.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(read, log_checkpoint(1, 250, &[("a", 5), ("b", 1)]));
        // A new round's checkpoint replaces the old round's host rows.
        state
            .record_crawl_log_checkpoint(&log_checkpoint(2, 300, &[("c", 2)]), &[])
            .unwrap();
        assert_eq!(
            state.crawl_log_checkpoint().unwrap(),
            Some(log_checkpoint(2, 300, &[("c", 2)]))
        );
        drop(state);
        forgetting_a_page(open);
        url_rules(open);
    }

    fn rule_record(name: &str, skips: u64) -> RuleRecord {
        let mut host = dedupcrawl_urlrules::HostRules::new(Default::default());
        let u = |s: &str| url::Url::parse(s).unwrap();
        host.duplicate_found(
            &u(&format!("http://a.example/x?{name}=1")),
            &u("http://a.example/x"),
        );
        let mut record = host.records().next().cloned().expect("a rule");
        record.skips = skips;
        record
    }

    fn sorted(mut urls: Vec<String>) -> Vec<String> {
        urls.sort();
        urls
    }

    /// URL rules: one record per host and rule, the last one wins; sets per host and name,
    /// each item once; all of it after a reopen.
    fn url_rules(open: &dyn Fn() -> Box<dyn CrawlStateStore>) {
        {
            let state = open();
            assert!(state.url_rules("a.example").unwrap().is_empty());
            state
                .record_url_rule("a.example", &rule_record("ref", 1))
                .unwrap();
            state
                .record_url_rule("a.example", &rule_record("ref", 2))
                .unwrap();
            state
                .record_url_rule("a.example", &rule_record("src", 0))
                .unwrap();
            state
                .record_url_rule("b.example", &rule_record("ref", 9))
                .unwrap();
            for (list, url) in [
                ("pages", "http://a.example/1"),
                ("pages", "http://a.example/2"),
                ("pages", "http://a.example/1"),
                ("skipped drop-param ref", "http://a.example/1?ref=x"),
            ] {
                state.add_to_url_rule_set("a.example", list, url).unwrap();
            }
            state
                .add_to_url_rule_set("b.example", "pages", "http://b.example/")
                .unwrap();
            state.flush().unwrap();
        }
        let state = open();
        let mut rules = state.url_rules("a.example").unwrap();
        rules.sort_by_key(|r| r.rule.key());
        assert_eq!(
            rules,
            [rule_record("ref", 2), rule_record("src", 0)],
            "the last record wins"
        );
        assert_eq!(
            state.url_rules("b.example").unwrap(),
            [rule_record("ref", 9)]
        );
        assert!(state.url_rules("c.example").unwrap().is_empty());
        assert_eq!(
            sorted(state.url_rule_set("a.example", "pages").unwrap()),
            ["http://a.example/1", "http://a.example/2"],
            "a set: each URL once"
        );
        assert_eq!(
            state
                .url_rule_set("a.example", "skipped drop-param ref")
                .unwrap(),
            ["http://a.example/1?ref=x"]
        );
        assert!(
            state
                .url_rule_set("a.example", "skipped drop-param src")
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            state.url_rule_set("b.example", "pages").unwrap(),
            ["http://b.example/"]
        );
    }

    /// A page whose record was lost: forgotten, it has no archived record, no revisit state and
    /// no crawl-log mark any more, and the other pages keep theirs (after a reopen too).
    fn forgetting_a_page(open: &dyn Fn() -> Box<dyn CrawlStateStore>) {
        let state = open();
        state
            .record_archived("http://a.example/lost", &record("9"))
            .unwrap();
        state
            .record_revisit_state("http://a.example/lost", &revisit(1, "\"l\""))
            .unwrap();
        state.mark_logged("http://a.example/lost").unwrap();
        state
            .forget_page("http://a.example/lost", "http://a.example/lost")
            .unwrap();
        state.flush().unwrap();
        drop(state);
        let state = open();
        assert_eq!(
            state.url_progress("http://a.example/lost").unwrap(),
            UrlProgress::default()
        );
        assert!(!state.is_logged("http://a.example/lost").unwrap());
        assert!(state.is_logged("http://a.example/x").unwrap());
        assert_eq!(
            state.archived_record("http://a.example/").unwrap(),
            Some(record("2"))
        );
    }

    /// A checkpoint whose hosts have `pages` fetched pages each (and a report row saying so).
    fn log_checkpoint(round: u32, offset: u64, hosts: &[(&str, u64)]) -> CrawlLogCheckpoint {
        let row = |pages: u64| HostReport {
            fetched: pages,
            archived: pages,
            bytes_fetched: 1000 * pages,
            ..HostReport::default()
        };
        CrawlLogCheckpoint {
            offset,
            round,
            total: row(hosts.iter().map(|h| h.1).sum()),
            hosts: hosts
                .iter()
                .map(|&(host, pages)| {
                    let logged = LoggedHost {
                        report: Some(row(pages)),
                        pages,
                    };
                    (format!("{host}.example"), logged)
                })
                .collect(),
        }
    }
}
