//! URL rules learned from duplicates, in the crawl (`crawl.url_rules`, `[url_rules]`;
//! the rules themselves: [`dedupcrawl_urlrules`]).
//!
//! * **Learn.** Every page the dedup archives as new becomes one of its host's pages
//!   ([`UrlRuleBook::page_archived_new`]); every exact or near duplicate (or contained page)
//!   of a page of the same host is a pair that teaches the rules explaining it
//!   ([`UrlRuleBook::duplicate_found`]).
//! * **Apply.** Before a leased URL is fetched, [`UrlRuleBook::before_fetch`] asks whether an
//!   active rule maps it onto a page archived as new; if so it is not fetched: its crawl-log
//!   line is `url_duplicate` with `duplicate_of` and `rule`, its links are not enqueued, and
//!   its frontier entry joins the rule's skipped set. One in `url_rules.verify_every`
//!   applications is fetched anyway, its line carrying the `rule` it checks.
//! * **Retract.** A page archived as new that an active rule maps onto another page archived
//!   as new (a verification that found distinct content, or any later page) retracts the
//!   rule: every URL in its skipped set is forgotten by the crawl state (its `url_duplicate`
//!   line no longer counts) and offered to the frontier again ([`Engine::restore_skipped`]).
//!
//! Everything lives in the crawl state ([`CrawlStateStore::url_rules`] and the sets of
//! [`CrawlStateStore::url_rule_set`]): a host's rules and pages are read once, when the run
//! first meets the host, so rules survive a restart and apply in later rounds. With several
//! workers (PostgreSQL), each writes what it learns when it learns it and reads a host's
//! rules and pages again [`SHARED_RULES_REREAD`] after it last read them: what another worker
//! learned applies here within that time.

use std::collections::HashMap;
use std::sync::Mutex;

use dedupcrawl_frontier::{CanonicalUrl, CanonicalizationRules, EntryKind, FrontierEntry};
use dedupcrawl_index::Mechanism;
use dedupcrawl_urlrules::{Application, Changes, HostRules, Rule, RuleSettings};

use crate::context::Engine;
use crate::crawl_log::{Decision, LogLine};
use crate::crawl_state::CrawlStateStore;
use crate::error::CrawlError;
use crate::mutex::lock;

/// The set of a host's pages archived as new (URLs): what rules may map onto.
pub(crate) const PAGES_SET: &str = "pages";

/// Between the rules' keys in a crawl-log line's `rule` field.
const RULE_SEPARATOR: &str = "; ";

/// The set of the frontier entries (JSON) `rule` skipped.
fn skipped_set(rule: &Rule) -> String {
    format!("skipped {}", rule.key())
}

/// The `rule` field of a crawl-log line: the rules' keys, joined by [`RULE_SEPARATOR`].
fn rule_field(rules: &[Rule]) -> String {
    rules
        .iter()
        .map(Rule::key)
        .collect::<Vec<_>>()
        .join(RULE_SEPARATOR)
}

/// What the rules say of a URL before its fetch.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum BeforeFetch {
    /// Fetch it.
    Fetch,
    /// Do not fetch it: `rule` maps it onto `duplicate_of`, a page archived as new.
    Skip { duplicate_of: String, rule: String },
}

/// The report's figures over the hosts this run met (`report.json`, `url_rules`).
pub type UrlRulesReport = dedupcrawl_urlrules::RuleFigures;

/// How long a host's rules read from a crawl state shared by several workers (PostgreSQL)
/// are used before they are read again, so that what other workers learned (rules, pages,
/// retractions) applies here within this time. A host's pages are read with its rules: at
/// this interval a host of 30,000 pages costs one read of ~2 MB every 10 s.
pub(crate) const SHARED_RULES_REREAD: std::time::Duration = std::time::Duration::from_secs(10);

/// One host's rules as this process holds them, and when they were read from the state.
struct HeldHost {
    rules: HostRules,
    read_at: std::time::Instant,
}

/// The crawl's URL rules, per host, loaded from the crawl state when a host is first met
/// (and again after `reread_after`, for a state other workers write too).
pub(crate) struct UrlRuleBook {
    settings: RuleSettings,
    reread_after: Option<std::time::Duration>,
    hosts: Mutex<HashMap<String, HeldHost>>,
    /// URLs fetched to verify a rule, with the `rule` field their line carries.
    verifying: Mutex<HashMap<String, String>>,
}

impl UrlRuleBook {
    /// `reread_after`: `None` when this process is the state's only writer (embedded),
    /// [`SHARED_RULES_REREAD`] when workers share it. Every change is written to the state
    /// when it is made, so reading a host again loses nothing of this process's.
    pub(crate) fn new(
        settings: RuleSettings,
        reread_after: Option<std::time::Duration>,
    ) -> UrlRuleBook {
        UrlRuleBook {
            settings,
            reread_after,
            hosts: Mutex::new(HashMap::new()),
            verifying: Mutex::new(HashMap::new()),
        }
    }

    /// Runs `body` on `host`'s rules (read from `state` the first time) and stores what it
    /// changed (and what reading the host changed: a retraction the state lost).
    fn with_host<T>(
        &self,
        state: &dyn CrawlStateStore,
        host: &str,
        body: impl FnOnce(&mut HostRules) -> (T, Changes, Option<String>),
    ) -> Result<(T, Changes), CrawlError> {
        let mut hosts = lock(&self.hosts);
        let mut loaded = Changes::default();
        let stale = |held: &HeldHost| {
            self.reread_after
                .is_some_and(|after| held.read_at.elapsed() >= after)
        };
        if hosts.get(host).is_none_or(stale) {
            let records = state.url_rules(host)?;
            let pages = state.url_rule_set(host, PAGES_SET)?;
            let (rules, changes) = HostRules::load(self.settings, records, pages);
            let read_at = std::time::Instant::now();
            hosts.insert(host.to_string(), HeldHost { rules, read_at });
            loaded = changes;
        }
        let Some(HeldHost { rules, .. }) = hosts.get_mut(host) else {
            return Err(CrawlError::Worker(format!(
                "URL rules of {host} not loaded"
            )));
        };
        let (value, mut changes, page) = body(rules);
        for record in loaded.records.iter().chain(&changes.records) {
            state.record_url_rule(host, record)?;
        }
        if let (true, Some(page)) = (changes.new_page, page) {
            state.add_to_url_rule_set(host, PAGES_SET, &page)?;
        }
        changes.retracted.splice(0..0, loaded.retracted);
        Ok((value, changes))
    }

    /// Whether `entry`'s URL is fetched: not when an active rule maps it onto a page archived
    /// as new (the entry then joins each such rule's skipped set). Also the rules retracted
    /// when the host's rules were read (their skipped URLs are to be fetched).
    pub(crate) fn before_fetch(
        &self,
        state: &dyn CrawlStateStore,
        entry: &FrontierEntry,
    ) -> Result<(BeforeFetch, Vec<Rule>), CrawlError> {
        let url = &entry.url;
        let (application, changes) = self.with_host(state, url.host(), |rules| {
            let (application, changes) = rules.apply(url.url());
            (application, changes, None)
        })?;
        Ok((
            self.skip_or_fetch(state, entry, application)?,
            changes.retracted,
        ))
    }

    /// What an application means for `entry`: a skip is recorded in the rules' skipped sets,
    /// a verification remembered for the line of its fetch.
    fn skip_or_fetch(
        &self,
        state: &dyn CrawlStateStore,
        entry: &FrontierEntry,
        application: Application,
    ) -> Result<BeforeFetch, CrawlError> {
        let url = &entry.url;
        match application {
            Application::Fetch => Ok(BeforeFetch::Fetch),
            Application::Verify { rules, .. } => {
                lock(&self.verifying).insert(url.as_str().to_string(), rule_field(&rules));
                Ok(BeforeFetch::Fetch)
            }
            Application::Skip {
                duplicate_of,
                rules,
            } => {
                let item = serde_json::to_string(entry).unwrap_or_default();
                for rule in &rules {
                    state.add_to_url_rule_set(url.host(), &skipped_set(rule), &item)?;
                }
                Ok(BeforeFetch::Skip {
                    duplicate_of,
                    rule: rule_field(&rules),
                })
            }
        }
    }

    /// The `rule` field of `url`'s line when it was fetched to verify a rule.
    pub(crate) fn verifying(&self, url: &str) -> Option<String> {
        lock(&self.verifying).remove(url)
    }

    /// `url` was archived as new. Returns the rules this retracted (their skipped URLs are to
    /// be fetched).
    pub(crate) fn page_archived_new(
        &self,
        state: &dyn CrawlStateStore,
        url: &CanonicalUrl,
    ) -> Result<Vec<Rule>, CrawlError> {
        let page = url.as_str().to_string();
        let (_, changes) = self.with_host(state, url.host(), |rules| {
            ((), rules.page_decided_new(url.url()), Some(page))
        })?;
        Ok(changes.retracted)
    }

    /// The dedup decided `url` a duplicate of `original`: a pair for the rules of their host
    /// (pairs across hosts teach nothing). Returns the rules retracted when the host's rules
    /// were read.
    pub(crate) fn duplicate_found(
        &self,
        state: &dyn CrawlStateStore,
        url: &CanonicalUrl,
        original: &str,
    ) -> Result<Vec<Rule>, CrawlError> {
        let Ok(original) = url::Url::parse(original) else {
            return Ok(Vec::new());
        };
        if original.host_str() != url.url().host_str() || original.port() != url.url().port() {
            return Ok(Vec::new());
        }
        let (_, changes) = self.with_host(state, url.host(), |rules| {
            ((), rules.duplicate_found(url.url(), &original), None)
        })?;
        Ok(changes.retracted)
    }

    /// The frontier entries `rule` of `host` skipped, and records that `count` of them are
    /// restored.
    fn skipped_entries(
        &self,
        state: &dyn CrawlStateStore,
        host: &str,
        rule: &Rule,
    ) -> Result<Vec<FrontierEntry>, CrawlError> {
        let entries: Vec<FrontierEntry> = state
            .url_rule_set(host, &skipped_set(rule))?
            .iter()
            .filter_map(|item| serde_json::from_str(item).ok())
            .collect();
        let count = entries.len() as u64;
        self.with_host(state, host, |rules| ((), rules.restored(rule, count), None))?;
        Ok(entries)
    }

    /// The figures of every host met so far (`fetches_saved` is the caller's).
    pub(crate) fn report(&self) -> UrlRulesReport {
        let mut report = UrlRulesReport::default();
        for held in lock(&self.hosts).values() {
            held.rules.records().for_each(|record| report.add(record));
        }
        report
    }
}

/// After a kill the crawl state may lack the URL-rule writes of the lines logged since its
/// last checkpoint (`lines`, which a resume reads again): each `url_duplicate` line's entry
/// goes back into its rules' skipped sets, each page archived as new into its host's pages.
/// A rule record may be behind them (a rule needs its support again; a retraction that the
/// pages show is made again when the host is read).
pub(crate) fn recover_from_log(
    state: &dyn CrawlStateStore,
    lines: &[LogLine],
) -> Result<(), CrawlError> {
    let plain = CanonicalizationRules::none();
    for line in lines {
        let Ok(url) = CanonicalUrl::parse(&line.url, None, &plain) else {
            continue;
        };
        let new_page = line.decision == Decision::Archived
            && line
                .reason
                .as_ref()
                .is_some_and(|r| r.mechanism == Mechanism::New);
        if new_page {
            state.add_to_url_rule_set(url.host(), PAGES_SET, url.as_str())?;
        }
        if let (Decision::UrlDuplicate, Some(rules)) = (line.decision, &line.rule) {
            let entry = FrontierEntry {
                kind: if line.via.is_some() {
                    EntryKind::Link
                } else {
                    EntryKind::Seed
                },
                depth: line.depth,
                via: line.via.clone(),
                redirect_hops: 0,
                duplicate_hops: 0,
                url,
            };
            let item = serde_json::to_string(&entry).unwrap_or_default();
            for rule in rules.split(RULE_SEPARATOR) {
                state.add_to_url_rule_set(entry.url.host(), &format!("skipped {rule}"), &item)?;
            }
        }
    }
    Ok(())
}

impl Engine {
    /// Learns from a page's dedup decision: `original` is the page it duplicates (`None`: it
    /// was archived as new). Skipped URLs of the rules this retracts are restored.
    pub(crate) fn learn_url_rules(
        &self,
        url: &CanonicalUrl,
        original: Option<&str>,
    ) -> Result<(), CrawlError> {
        let Some(book) = &self.url_rules else {
            return Ok(());
        };
        let state = self.crawl_state.as_ref();
        let retracted = match original {
            Some(original) => book.duplicate_found(state, url, original)?,
            None => book.page_archived_new(state, url)?,
        };
        self.restore_skipped(book, url.host(), &retracted)
    }

    /// Every URL the `retracted` rules of `host` skipped is fetched after all: the crawl state
    /// forgets its crawl-log mark of this round, its `url_duplicate` line no longer counts in
    /// the report, and the frontier has it again.
    pub(crate) fn restore_skipped(
        &self,
        book: &UrlRuleBook,
        host: &str,
        retracted: &[Rule],
    ) -> Result<(), CrawlError> {
        for rule in retracted {
            let entries = book.skipped_entries(self.crawl_state.as_ref(), host, rule)?;
            tracing::info!(
                host,
                rule = %rule,
                skipped = entries.len(),
                "URL rule retracted: the URLs it skipped are fetched"
            );
            for entry in &entries {
                let key = crate::revisit::log_key(self.round.number, entry.url.as_str());
                self.crawl_state.forget_page(entry.url.as_str(), &key)?;
                let mut sink = lock(&self.log);
                let crate::context::LogSink { report, counts, .. } = &mut *sink;
                counts.uncount_url_duplicate(report, entry.url.as_str(), &key);
                self.observer
                    .url_duplicate_taken_back(entry.url.as_str(), Mechanism::UrlRule.as_str());
            }
            self.frontier.offer_again(entries)?;
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn canonical(url: &str) -> CanonicalUrl {
        CanonicalUrl::parse(url, None, &CanonicalizationRules::none()).unwrap()
    }

    fn entry(url: &str) -> FrontierEntry {
        FrontierEntry {
            kind: EntryKind::Link,
            depth: 1,
            via: Some("http://h.example/".into()),
            redirect_hops: 0,
            duplicate_hops: 0,
            url: canonical(url),
        }
    }

    /// Two workers' books on one crawl's state (`one` and `two`: the same store, or two
    /// connections to it): a rule the first learns after the second read the host applies in
    /// the second once it reads the host again, and not before. Without the reread the second
    /// worker would fetch every variant until its restart.
    pub(crate) fn a_rule_learned_by_one_worker_applies_in_another(
        one: &dyn CrawlStateStore,
        two: &dyn CrawlStateStore,
    ) {
        let settings = RuleSettings {
            min_support: 2,
            verify_every: 1000,
        };
        let interval = std::time::Duration::from_secs(2);
        let first = UrlRuleBook::new(settings, Some(interval));
        let second = UrlRuleBook::new(settings, Some(interval));
        let variant = entry("http://h.example/a/3?ref=home");
        let fetch = |book: &UrlRuleBook| book.before_fetch(two, &variant).unwrap().0;
        assert_eq!(fetch(&second), BeforeFetch::Fetch, "nothing learned yet");
        for n in 1..=3 {
            first
                .page_archived_new(one, &canonical(&format!("http://h.example/a/{n}")))
                .unwrap();
        }
        for n in 1..=2 {
            let duplicate = canonical(&format!("http://h.example/a/{n}?ref=feed"));
            first
                .duplicate_found(one, &duplicate, &format!("http://h.example/a/{n}"))
                .unwrap();
        }
        assert_eq!(
            first.report().active,
            1,
            "the first worker learned the rule"
        );
        assert_eq!(
            fetch(&second),
            BeforeFetch::Fetch,
            "read before the rule was learned, not yet read again"
        );
        std::thread::sleep(interval);
        assert_eq!(
            fetch(&second),
            BeforeFetch::Skip {
                duplicate_of: "http://h.example/a/3".into(),
                rule: "drop-param ref".into(),
            },
            "read again: the first worker's rule and pages apply"
        );
    }

    #[test]
    fn books_sharing_a_state_read_each_others_rules() {
        let dir = tempfile::tempdir().unwrap();
        let db = dedupcrawl_index::open_sled_waiting_for_lock(dir.path()).unwrap();
        let state = crate::sled_crawl_state::SledCrawlState::open(&db).unwrap();
        a_rule_learned_by_one_worker_applies_in_another(&state, &state);
    }

    fn line(url: &str, decision: Decision) -> LogLine {
        LogLine::new(url, decision, 2, Some("http://h.example/idx".into()))
    }

    /// The lines since the checkpoint put back what a kill lost: the pages archived as new and
    /// the skipped entries (under each rule of the line); other lines add nothing.
    #[test]
    fn the_crawl_log_since_the_checkpoint_restores_the_sets() {
        let dir = tempfile::tempdir().unwrap();
        let db = dedupcrawl_index::open_sled_waiting_for_lock(dir.path()).unwrap();
        let state = crate::sled_crawl_state::SledCrawlState::open(&db).unwrap();
        let mut new = line("http://h.example/a", Decision::Archived);
        new.reason = Some(dedupcrawl_index::Reason::of(Mechanism::New));
        let redirect = line("http://h.example/moved", Decision::Archived);
        let mut skipped = line("http://h.example/a?ref=x", Decision::UrlDuplicate);
        skipped.rule = Some(["drop-param ref", "case"].join(RULE_SEPARATOR));
        let exact = line("http://h.example/b?ref=y", Decision::ExactDuplicate);
        recover_from_log(&state, &[new, redirect, skipped, exact]).unwrap();
        assert_eq!(
            state.url_rule_set("h.example", PAGES_SET).unwrap(),
            ["http://h.example/a"]
        );
        for rule in ["drop-param ref", "case"] {
            let items = state
                .url_rule_set("h.example", &format!("skipped {rule}"))
                .unwrap();
            let entries: Vec<FrontierEntry> = items
                .iter()
                .map(|i| serde_json::from_str(i).unwrap())
                .collect();
            assert_eq!(entries.len(), 1, "{rule}");
            assert_eq!(entries[0].url.as_str(), "http://h.example/a?ref=x");
            assert_eq!((entries[0].depth, entries[0].kind), (2, EntryKind::Link));
        }
    }
}
