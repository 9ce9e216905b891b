//! What a set of hosts' rules did, as the crawl reports it ([`RuleFigures`]).

use serde::{Deserialize, Serialize};

use crate::host_rules::{RuleRecord, RuleStatus};

/// The rules' figures over a set of hosts: `report.json`'s `url_rules`, the dashboard's URL
/// rules cards and `/metrics`' `dedupcrawl_url_rules`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleFigures {
    /// Rules that became active (those retracted since included).
    pub learned: u64,
    /// Rules active now.
    pub active: u64,
    /// Rules with support, not yet enough.
    pub candidates: u64,
    /// Rules with enough support that a counterexample kept from ever being applied.
    pub vetoed: u64,
    /// Active rules retracted (a verification or a later page found two distinct pages).
    pub retractions: u64,
    /// Applications of rules (a URL mapped onto a page decided new): skips plus
    /// verifications; an application by two rules counts for each.
    pub applications: u64,
    /// Applications fetched anyway to check the rule.
    pub verifications: u64,
    /// Skipped URLs fetched after all because their rule was retracted.
    pub restored: u64,
    /// URLs not fetched (`url_duplicate` lines that still count): fetches saved. The rules
    /// do not know it (an application by two rules is one skip): the caller sets it.
    pub fetches_saved: u64,
}

impl RuleFigures {
    /// Adds one rule's record.
    pub fn add(&mut self, record: &RuleRecord) {
        match record.status {
            RuleStatus::Candidate => self.candidates += 1,
            RuleStatus::Active => self.active += 1,
            RuleStatus::Vetoed => self.vetoed += 1,
            RuleStatus::Retracted => self.retractions += 1,
        }
        self.applications += record.skips + record.verifications;
        self.verifications += record.verifications;
        self.restored += record.restored;
        self.learned = self.active + self.retractions;
    }

    /// The figures as (name, value) pairs, in the order of the fields: the names are the
    /// JSON keys.
    pub fn named(&self) -> [(&'static str, u64); 9] {
        [
            ("learned", self.learned),
            ("active", self.active),
            ("candidates", self.candidates),
            ("vetoed", self.vetoed),
            ("retractions", self.retractions),
            ("applications", self.applications),
            ("verifications", self.verifications),
            ("restored", self.restored),
            ("fetches_saved", self.fetches_saved),
        ]
    }
}
