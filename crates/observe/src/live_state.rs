//! The dashboard's view of a crawl: totals and per-host counts (the fields of report.json),
//! politeness state per host, decisions over time, recent decisions. Bounded in memory: the
//! series halves its resolution when full, the recent list keeps the last [`RECENT`] decisions.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::decision_series::{DecisionSeries, SeriesPoint};
use crate::events::{DecisionEvent, FetchEvent, Gauges, PauseReason};

/// Decisions kept for the "recent" list.
pub const RECENT: usize = 100;

/// Counts of one host (or of the whole crawl), named as in `report.json`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HostCounts {
    pub fetched: u64,
    pub archived: u64,
    pub exact_duplicates: u64,
    pub near_duplicates: u64,
    pub contained: u64,
    pub not_modified: u64,
    pub unchanged: u64,
    /// Archived again as a new version (a recrawl; also counted as archived).
    pub changed: u64,
    pub gone: u64,
    pub robots_disallowed: u64,
    pub soft_404: u64,
    pub out_of_scope: u64,
    pub filtered: u64,
    /// URLs not fetched: a URL rule maps them onto a page archived as new.
    pub url_duplicates: u64,
    pub errors: u64,
    pub bytes_fetched: u64,
    pub bytes_saved: u64,
    /// Decisions by the mechanism that decided (the crawl log's `reason.mechanism`).
    pub mechanisms: BTreeMap<String, u64>,
}

impl HostCounts {
    /// The count of each decision, by the crawl log's name of it.
    pub(crate) fn by_decision(&self) -> [(&'static str, u64); 13] {
        [
            ("archived", self.archived),
            ("exact_duplicate", self.exact_duplicates),
            ("near_duplicate", self.near_duplicates),
            ("contained", self.contained),
            ("not_modified", self.not_modified),
            ("unchanged", self.unchanged),
            ("gone", self.gone),
            ("robots_disallowed", self.robots_disallowed),
            ("soft_404", self.soft_404),
            ("out_of_scope", self.out_of_scope),
            ("filtered", self.filtered),
            ("url_duplicate", self.url_duplicates),
            ("error", self.errors),
        ]
    }

    /// Adds counts of decisions made before (see [`crate::CrawlObserver::restore`]).
    fn add_counts(&mut self, other: &HostCounts) {
        self.fetched += other.fetched;
        self.archived += other.archived;
        self.exact_duplicates += other.exact_duplicates;
        self.near_duplicates += other.near_duplicates;
        self.contained += other.contained;
        self.not_modified += other.not_modified;
        self.unchanged += other.unchanged;
        self.changed += other.changed;
        self.gone += other.gone;
        self.robots_disallowed += other.robots_disallowed;
        self.soft_404 += other.soft_404;
        self.out_of_scope += other.out_of_scope;
        self.filtered += other.filtered;
        self.url_duplicates += other.url_duplicates;
        self.errors += other.errors;
        self.bytes_fetched += other.bytes_fetched;
        self.bytes_saved += other.bytes_saved;
        for (mechanism, count) in &other.mechanisms {
            *self.mechanisms.entry(mechanism.clone()).or_default() += count;
        }
    }

    fn add(&mut self, event: &DecisionEvent<'_>) {
        if event.status.is_some() {
            self.fetched += 1;
        }
        let bytes = event.bytes.unwrap_or(0);
        self.bytes_fetched += bytes;
        if event.duplicate {
            self.bytes_saved += bytes;
        }
        if event.changed {
            self.changed += 1;
        }
        if let Some(mechanism) = event.mechanism {
            *self.mechanisms.entry(mechanism.to_string()).or_default() += 1;
        }
        let counter = match event.decision {
            "archived" => &mut self.archived,
            "exact_duplicate" => &mut self.exact_duplicates,
            "near_duplicate" => &mut self.near_duplicates,
            "contained" => &mut self.contained,
            "not_modified" => &mut self.not_modified,
            "unchanged" => &mut self.unchanged,
            "gone" => &mut self.gone,
            "robots_disallowed" => &mut self.robots_disallowed,
            "soft_404" => &mut self.soft_404,
            "out_of_scope" => &mut self.out_of_scope,
            "filtered" => &mut self.filtered,
            "url_duplicate" => &mut self.url_duplicates,
            _ => &mut self.errors,
        };
        *counter += 1;
    }

    /// Takes back a `url_duplicate` line: its rule was retracted and the URL is fetched.
    fn take_back_url_duplicate(&mut self, mechanism: &str) {
        self.url_duplicates = self.url_duplicates.saturating_sub(1);
        if let Some(count) = self.mechanisms.get_mut(mechanism) {
            *count = count.saturating_sub(1);
        }
    }
}

/// One host's politeness state, as last seen.
#[derive(Debug, Default)]
struct Politeness {
    next_allowed: Option<Instant>,
    pause: Option<(PauseReason, Instant)>,
}

#[derive(Debug, Default)]
struct HostState {
    counts: HostCounts,
    politeness: Politeness,
}

/// What one decision adds to its bucket of the series.
fn series_point(event: &DecisionEvent<'_>) -> SeriesPoint {
    SeriesPoint {
        fetched: u64::from(event.status.is_some()),
        archived: u64::from(event.decision == "archived"),
        duplicates: u64::from(event.duplicate),
        errors: u64::from(event.decision == "error"),
    }
}

/// One decision of the "recent" list.
#[derive(Debug, Clone, Serialize)]
pub struct RecentDecision {
    pub ts: String,
    pub url: String,
    pub decision: &'static str,
    pub status: Option<u16>,
    pub duplicate_of: Option<String>,
    pub similarity: Option<f64>,
    pub detail: Option<String>,
}

/// A host row of the snapshot.
#[derive(Debug, Clone, Serialize)]
pub struct HostRow {
    pub host: String,
    #[serde(flatten)]
    pub counts: HostCounts,
    /// Seconds until the host's next request is allowed (0 when it may go now).
    pub next_allowed_in: Option<f64>,
    /// `retry-after`, `backoff` or `given up`, while the pause lasts.
    pub paused: Option<&'static str>,
    pub paused_for: Option<f64>,
}

/// What `/api/state` returns.
#[derive(Debug, Clone, Serialize)]
pub struct Snapshot {
    pub running: bool,
    /// Seconds since the observer started.
    pub elapsed: f64,
    /// Fetch attempts (retries included).
    pub fetches: u64,
    pub total: HostCounts,
    pub hosts: Vec<HostRow>,
    pub queued: u64,
    pub in_flight: u64,
    /// Documents in the dedup index (None: not known).
    pub index_documents: Option<u64>,
    pub warc_bytes: u64,
    /// The URL rules' figures (None: `crawl.url_rules` is off, or not known yet).
    pub url_rules: Option<dedupcrawl_urlrules::RuleFigures>,
    /// Decisions per time bucket, by their crawl-log times.
    pub series: DecisionSeries,
    pub recent: Vec<RecentDecision>,
}

/// The mutable state behind the observer's lock.
#[derive(Debug)]
pub(crate) struct LiveState {
    started: Instant,
    running: bool,
    fetches: u64,
    total: HostCounts,
    hosts: BTreeMap<String, HostState>,
    gauges: Gauges,
    series: DecisionSeries,
    recent: VecDeque<RecentDecision>,
}

impl LiveState {
    pub(crate) fn new(running: bool) -> LiveState {
        LiveState {
            started: Instant::now(),
            running,
            fetches: 0,
            total: HostCounts::default(),
            hosts: BTreeMap::new(),
            gauges: Gauges::default(),
            series: DecisionSeries::default(),
            recent: VecDeque::with_capacity(RECENT),
        }
    }

    pub(crate) fn restore(&mut self, host: &str, counts: &HostCounts) {
        self.total.add_counts(counts);
        self.host(host).counts.add_counts(counts);
    }

    pub(crate) fn decision(&mut self, host: &str, event: &DecisionEvent<'_>) {
        self.total.add(event);
        self.host(host).counts.add(event);
        // A line whose time does not parse is counted everywhere but in the chart.
        if let Ok(time) = chrono::DateTime::parse_from_rfc3339(event.ts) {
            self.series.add(time.timestamp(), &series_point(event));
        }
        if self.recent.len() == RECENT {
            self.recent.pop_front();
        }
        self.recent.push_back(RecentDecision {
            ts: event.ts.to_string(),
            url: event.url.to_string(),
            decision: event.decision,
            status: event.status,
            duplicate_of: event.duplicate_of.map(str::to_string),
            similarity: event.similarity,
            detail: event.error.or(event.note).map(str::to_string),
        });
    }

    pub(crate) fn url_duplicate_taken_back(&mut self, host: &str, mechanism: &str) {
        self.total.take_back_url_duplicate(mechanism);
        self.host(host).counts.take_back_url_duplicate(mechanism);
    }

    pub(crate) fn fetch(&mut self, event: &FetchEvent<'_>) {
        self.fetches += 1;
        let now = Instant::now();
        self.host(event.host).politeness.next_allowed = Some(now + event.host_delay);
    }

    pub(crate) fn pause(&mut self, host: &str, reason: PauseReason, pause: Duration) {
        self.host(host).politeness.pause = Some((reason, Instant::now() + pause));
    }

    pub(crate) fn gauges(&mut self, gauges: Gauges) {
        self.gauges = gauges;
    }

    pub(crate) fn set_running(&mut self, running: bool) {
        self.running = running;
    }

    pub(crate) fn snapshot(&self) -> Snapshot {
        let now = Instant::now();
        let remaining = |at: Instant| at.saturating_duration_since(now).as_secs_f64();
        let hosts = self
            .hosts
            .iter()
            .map(|(host, state)| {
                let pause = state
                    .politeness
                    .pause
                    .filter(|(reason, until)| *until > now || *reason == PauseReason::GivenUp);
                HostRow {
                    host: host.clone(),
                    counts: state.counts.clone(),
                    next_allowed_in: state.politeness.next_allowed.map(remaining),
                    paused: pause.map(|(reason, _)| reason.as_str()),
                    paused_for: pause.map(|(_, until)| remaining(until)),
                }
            })
            .collect();
        Snapshot {
            running: self.running,
            elapsed: self.started.elapsed().as_secs_f64(),
            fetches: self.fetches,
            total: self.total.clone(),
            hosts,
            queued: self.gauges.queued,
            in_flight: self.gauges.in_flight,
            index_documents: self.gauges.index_documents,
            warc_bytes: self.gauges.warc_bytes,
            url_rules: self.gauges.url_rules,
            series: self.series.clone(),
            recent: self.recent.iter().rev().cloned().collect(),
        }
    }

    fn host(&mut self, host: &str) -> &mut HostState {
        self.hosts.entry(host.to_string()).or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(decision: &'static str, status: Option<u16>) -> DecisionEvent<'static> {
        DecisionEvent {
            ts: "2026-11-25T00:00:00Z",
            url: "http://a.example/",
            decision,
            status,
            bytes: Some(10),
            duplicate: false,
            changed: false,
            duplicate_of: None,
            similarity: None,
            mechanism: None,
            note: None,
            error: None,
        }
    }

    #[test]
    fn every_decision_of_a_recrawl_has_its_own_count_and_only_errors_count_as_errors() {
        let mut counts = HostCounts::default();
        for (decision, status) in [
            ("unchanged", Some(200)),
            ("gone", Some(404)),
            ("not_modified", Some(304)),
            ("soft_404", Some(200)),
            ("error", None),
        ] {
            counts.add(&event(decision, status));
        }
        assert_eq!(
            (
                counts.unchanged,
                counts.gone,
                counts.not_modified,
                counts.soft_404,
                counts.errors,
                counts.fetched
            ),
            (1, 1, 1, 1, 1, 4)
        );
    }

    #[test]
    fn a_page_archived_as_a_new_version_counts_as_archived_and_as_changed() {
        let mut counts = HostCounts::default();
        counts.add(&DecisionEvent {
            changed: true,
            ..event("archived", Some(200))
        });
        counts.add(&event("archived", Some(200)));
        assert_eq!((counts.archived, counts.changed), (2, 1));
    }

    #[test]
    fn decisions_are_counted_by_their_mechanism_and_restored_counts_add_up() {
        let mut counts = HostCounts::default();
        for mechanism in ["near_lsh", "near_lsh", "new"] {
            counts.add(&DecisionEvent {
                mechanism: Some(mechanism),
                ..event("near_duplicate", Some(200))
            });
        }
        counts.add(&event("error", None));
        let mut total = HostCounts::default();
        total.add_counts(&counts);
        total.add_counts(&counts);
        assert_eq!(total.mechanisms["near_lsh"], 4);
        assert_eq!(total.mechanisms["new"], 2);
        assert_eq!(total.mechanisms.len(), 2);
    }
}
