//! One host's rules ([`HostRules`]): learned from the duplicate pairs the crawler found,
//! vetoed by pages decided distinct, applied to URLs before they are fetched.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use url::Url;

use crate::rule::Rule;
use crate::url_parts::leaf_shape;

/// Distinct pairs a rule needs before it is applied (`url_rules.min_support`).
pub const DEFAULT_MIN_SUPPORT: u32 = 5;

/// One in this many applications of a rule is fetched anyway (`url_rules.verify_every`).
pub const DEFAULT_VERIFY_EVERY: u32 = 20;

/// When a rule becomes active and how often it is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RuleSettings {
    /// Distinct duplicate pairs that must teach a rule before it is applied.
    pub min_support: u32,
    /// Every `verify_every`-th application of a rule is fetched anyway (at least 1).
    pub verify_every: u32,
}

impl Default for RuleSettings {
    fn default() -> RuleSettings {
        RuleSettings {
            min_support: DEFAULT_MIN_SUPPORT,
            verify_every: DEFAULT_VERIFY_EVERY,
        }
    }
}

/// Where a rule stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleStatus {
    /// Taught by fewer than `min_support` distinct pairs: not applied.
    Candidate,
    /// Enough support, no counterexample: applied before fetch.
    Active,
    /// A counterexample was found before the rule became active: never applied.
    Vetoed,
    /// A counterexample was found while the rule was active (a verification, or two pages
    /// decided distinct): no longer applied, its skipped URLs are fetched.
    Retracted,
}

/// Two URLs of one host: a duplicate and its original, or (as a counterexample) two pages
/// decided distinct.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UrlPair {
    /// The duplicate (or the later of two distinct pages).
    pub url: String,
    /// The page it was compared with.
    pub original: String,
}

/// A rule and its evidence, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RuleRecord {
    /// The rule.
    pub rule: Rule,
    /// Where it stands.
    pub status: RuleStatus,
    /// Distinct pairs that taught the rule (the first `min_support` of them).
    pub support: Vec<UrlPair>,
    /// Duplicate pairs the rule explained, support included.
    pub pairs_seen: u64,
    /// The two distinct pages that vetoed or retracted the rule.
    pub counterexample: Option<UrlPair>,
    /// URLs not fetched because of the rule.
    pub skips: u64,
    /// Applications fetched anyway to check the rule.
    pub verifications: u64,
    /// Skipped URLs enqueued again after the rule was retracted.
    pub restored: u64,
    /// The [`leaf_shape`]s of the URLs of the duplicate pairs the rule explained: an
    /// application to a URL of another shape is a verification (fetched), whose duplicate
    /// adds its shape and whose distinct page retracts the rule.
    #[serde(default)]
    pub shapes: BTreeSet<String>,
}

impl RuleRecord {
    fn new(rule: Rule) -> RuleRecord {
        RuleRecord {
            rule,
            status: RuleStatus::Candidate,
            support: Vec::new(),
            pairs_seen: 0,
            counterexample: None,
            skips: 0,
            verifications: 0,
            restored: 0,
            shapes: BTreeSet::new(),
        }
    }

    fn applications(&self) -> u64 {
        self.skips + self.verifications
    }
}

/// What to do with a URL before fetching it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Application {
    /// No active rule maps it onto a page decided new: fetch it.
    Fetch,
    /// Active `rules` map it onto `duplicate_of`, a page decided new: do not fetch it.
    Skip {
        /// The page decided new the URL maps onto.
        duplicate_of: String,
        /// The active rules that map it there.
        rules: Vec<Rule>,
    },
    /// As `Skip`, but this application is one that checks the rules: fetch it, and if it
    /// turns out distinct from `duplicate_of` the rules are retracted.
    Verify {
        /// The page decided new the URL maps onto.
        duplicate_of: String,
        /// The active rules that map it there.
        rules: Vec<Rule>,
    },
}

/// What a call changed, for the caller to store.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Changes {
    /// Rule records to store (replacing the stored ones).
    pub records: Vec<RuleRecord>,
    /// Rules retracted by this call: the URLs they skipped are to be fetched again.
    pub retracted: Vec<Rule>,
    /// The page was not known as decided new before: store it.
    pub new_page: bool,
}

/// One host's rules, the pages of the host decided new, and the normal forms of those
/// pages under the active rules (kept in memory, rebuilt from the pages).
///
/// A rule is learned from duplicate pairs ([`duplicate_found`](Self::duplicate_found));
/// with `min_support` distinct pairs it becomes active unless two pages decided new have one
/// normal form under it (a counterexample: it would have mapped distinct pages onto each
/// other). Every page decided new later is checked against the active rules the same way
/// ([`page_decided_new`](Self::page_decided_new)), which retracts a rule it contradicts.
/// [`apply`](Self::apply) maps a URL onto a page decided new, never onto a URL not seen.
#[derive(Debug, Clone)]
pub struct HostRules {
    settings: RuleSettings,
    records: BTreeMap<Rule, RuleRecord>,
    pages: HashSet<String>,
    page_list: Vec<Url>,
    /// Per active rule: normal form → the first page decided new with it.
    indexes: BTreeMap<Rule, HashMap<String, String>>,
    /// Normal form under every active rule at once → the first page decided new with it.
    composite: HashMap<String, String>,
}

impl HostRules {
    /// No rules, no pages.
    pub fn new(settings: RuleSettings) -> HostRules {
        HostRules {
            settings,
            records: BTreeMap::new(),
            pages: HashSet::new(),
            page_list: Vec::new(),
            indexes: BTreeMap::new(),
            composite: HashMap::new(),
        }
    }

    /// The host as stored: its rule records and its pages decided new (URLs that do not
    /// parse are left out). An active rule that two of the pages contradict (its retraction
    /// was lost, the pages were not) is retracted: the changes say so.
    pub fn load(
        settings: RuleSettings,
        records: impl IntoIterator<Item = RuleRecord>,
        pages: impl IntoIterator<Item = String>,
    ) -> (HostRules, Changes) {
        let mut host = HostRules::new(settings);
        for page in pages {
            if let Ok(url) = Url::parse(&page)
                && host.pages.insert(page)
            {
                host.page_list.push(url);
            }
        }
        for record in records {
            host.records.insert(record.rule.clone(), record);
        }
        let active: Vec<Rule> = host
            .records
            .values()
            .filter(|r| r.status == RuleStatus::Active)
            .map(|r| r.rule.clone())
            .collect();
        let mut changes = Changes::default();
        for rule in active {
            match host.index_of(&rule) {
                Ok(index) => {
                    host.indexes.insert(rule, index);
                }
                Err((_, pair)) => host.contradict(&rule, pair, &mut changes),
            }
        }
        host.rebuild_composite();
        (host, changes)
    }

    /// Every rule record of the host.
    pub fn records(&self) -> impl Iterator<Item = &RuleRecord> {
        self.records.values()
    }

    /// Whether `url` is a page of the host decided new.
    pub fn is_page(&self, url: &str) -> bool {
        self.pages.contains(url)
    }

    /// `url` was decided new (archived as new content): it becomes a page rules may map
    /// onto, and an active rule that maps it onto another page decided new is retracted.
    pub fn page_decided_new(&mut self, url: &Url) -> Changes {
        let mut changes = Changes::default();
        let key = url.as_str().to_string();
        if !self.pages.insert(key.clone()) {
            return changes;
        }
        changes.new_page = true;
        self.page_list.push(url.clone());
        let mut contradicted: Vec<(Rule, String)> = Vec::new();
        for (rule, index) in &mut self.indexes {
            let normal = rule.normal_form(url);
            match index.get(&normal) {
                Some(other) => contradicted.push((rule.clone(), other.clone())),
                None => {
                    index.insert(normal, key.clone());
                }
            }
        }
        let composite = self.composite_form(url);
        match self.composite.get(&composite) {
            Some(other) if contradicted.is_empty() => {
                let other = other.clone();
                let rules = self.rules_changing(url, &other);
                contradicted.extend(rules.into_iter().map(|rule| (rule, other.clone())));
            }
            Some(_) => {}
            None => {
                self.composite.insert(composite, key.clone());
            }
        }
        for (rule, other) in contradicted {
            let pair = UrlPair {
                url: key.clone(),
                original: other,
            };
            self.contradict(&rule, pair, &mut changes);
        }
        changes
    }

    /// The index decided `url` a duplicate of `original`: each rule that explains the pair
    /// gains support, and becomes active at `min_support` distinct pairs unless two pages
    /// decided new contradict it.
    pub fn duplicate_found(&mut self, url: &Url, original: &Url) -> Changes {
        let mut changes = Changes::default();
        let min_support = self.settings.min_support.max(1) as usize;
        for rule in Rule::explaining(url, original) {
            let record = self
                .records
                .entry(rule.clone())
                .or_insert_with(|| RuleRecord::new(rule.clone()));
            if matches!(record.status, RuleStatus::Vetoed | RuleStatus::Retracted) {
                continue;
            }
            record.pairs_seen += 1;
            record.shapes.insert(leaf_shape(url));
            record.shapes.insert(leaf_shape(original));
            let pair = UrlPair {
                url: url.as_str().to_string(),
                original: original.as_str().to_string(),
            };
            let known = record.support.iter().any(|p| {
                (p.url == pair.url && p.original == pair.original)
                    || (p.url == pair.original && p.original == pair.url)
            });
            if !known && record.support.len() < min_support {
                record.support.push(pair);
            }
            let ready =
                record.status == RuleStatus::Candidate && record.support.len() >= min_support;
            if ready {
                self.activate(&rule, &mut changes);
            } else {
                changes.records.push(record.clone());
            }
        }
        changes
    }

    /// Whether an active rule maps `url` onto a page decided new (the rule's application is
    /// counted: a skip, or a verification: every `verify_every`-th one, and one to a URL
    /// whose [`leaf_shape`] none of the rule's pairs had).
    pub fn apply(&mut self, url: &Url) -> (Application, Changes) {
        let mut changes = Changes::default();
        if self.indexes.is_empty() || self.pages.contains(url.as_str()) {
            return (Application::Fetch, changes);
        }
        let Some(original) = self.composite.get(&self.composite_form(url)).cloned() else {
            return (Application::Fetch, changes);
        };
        let rules = self.rules_changing(url, &original);
        if rules.is_empty() {
            return (Application::Fetch, changes);
        }
        let every = u64::from(self.settings.verify_every.max(1));
        let shape = leaf_shape(url);
        let verify = rules.iter().any(|rule| {
            self.records
                .get(rule)
                .is_some_and(|r| (r.applications() + 1) % every == 0 || !r.shapes.contains(&shape))
        });
        for rule in &rules {
            if let Some(record) = self.records.get_mut(rule) {
                if verify {
                    record.verifications += 1;
                } else {
                    record.skips += 1;
                }
                changes.records.push(record.clone());
            }
        }
        let application = if verify {
            Application::Verify {
                duplicate_of: original,
                rules,
            }
        } else {
            Application::Skip {
                duplicate_of: original,
                rules,
            }
        };
        (application, changes)
    }

    /// `count` URLs skipped by `rule` were enqueued again (after its retraction).
    pub fn restored(&mut self, rule: &Rule, count: u64) -> Changes {
        let mut changes = Changes::default();
        if let Some(record) = self.records.get_mut(rule) {
            record.restored += count;
            changes.records.push(record.clone());
        }
        changes
    }

    /// Makes `rule` active if no two pages decided new contradict it, else vetoes it.
    fn activate(&mut self, rule: &Rule, changes: &mut Changes) {
        match self.index_of(rule) {
            Ok(index) => {
                self.indexes.insert(rule.clone(), index);
                if let Some(record) = self.records.get_mut(rule) {
                    record.status = RuleStatus::Active;
                    changes.records.push(record.clone());
                }
                self.rebuild_composite();
            }
            Err((_, pair)) => self.contradict(rule, pair, changes),
        }
    }

    /// The normal forms of the pages decided new under `rule`, or the first two pages with
    /// one normal form (with the forms indexed until then).
    fn index_of(
        &self,
        rule: &Rule,
    ) -> Result<HashMap<String, String>, (HashMap<String, String>, UrlPair)> {
        let mut index: HashMap<String, String> = HashMap::with_capacity(self.page_list.len());
        for page in &self.page_list {
            let normal = rule.normal_form(page);
            if let Some(other) = index.get(&normal) {
                let pair = UrlPair {
                    url: page.as_str().to_string(),
                    original: other.clone(),
                };
                return Err((index, pair));
            }
            index.insert(normal, page.as_str().to_string());
        }
        Ok(index)
    }

    /// Two pages decided new that `rule` maps onto each other: an active rule is retracted,
    /// a candidate vetoed.
    fn contradict(&mut self, rule: &Rule, pair: UrlPair, changes: &mut Changes) {
        let Some(record) = self.records.get_mut(rule) else {
            return;
        };
        if record.status == RuleStatus::Active {
            record.status = RuleStatus::Retracted;
            changes.retracted.push(rule.clone());
        } else {
            record.status = RuleStatus::Vetoed;
        }
        record.counterexample = Some(pair);
        changes.records.push(record.clone());
        if self.indexes.remove(rule).is_some() {
            self.rebuild_composite();
        }
    }

    /// `url` in the normal form of every active rule, applied in rule order.
    fn composite_form(&self, url: &Url) -> String {
        let mut normal = url.clone();
        for rule in self.indexes.keys() {
            rule.normalize(&mut normal);
        }
        normal.into()
    }

    fn rebuild_composite(&mut self) {
        let mut composite = HashMap::with_capacity(self.page_list.len());
        for page in &self.page_list {
            composite
                .entry(self.composite_form(page))
                .or_insert_with(|| page.as_str().to_string());
        }
        self.composite = composite;
    }

    /// The active rules that map `url` and `other` onto each other: those that do alone,
    /// else (together only) those that change either.
    fn rules_changing(&self, url: &Url, other: &str) -> Vec<Rule> {
        let Ok(other) = Url::parse(other) else {
            return Vec::new();
        };
        let alone: Vec<Rule> = self
            .indexes
            .keys()
            .filter(|rule| rule.relates(url, &other))
            .cloned()
            .collect();
        if !alone.is_empty() {
            return alone;
        }
        self.indexes
            .keys()
            .filter(|rule| {
                rule.normal_form(url) != url.as_str() || rule.normal_form(&other) != other.as_str()
            })
            .cloned()
            .collect()
    }
}
