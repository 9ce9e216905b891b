//! Scores a crawl log against a [`ClassTruth`]: what issue 10 asks per page class.

use std::collections::HashMap;
use std::path::Path;

use dedupcrawl_testsite::{ClassTruth, PageClass};
use serde_json::Value;

/// The last crawl-log line of each URL, as JSON (so fields added later, such as
/// `contains`, are read without a change here).
pub fn last_lines(out: &Path) -> HashMap<String, Value> {
    let text = std::fs::read_to_string(out.join("crawl.log.jsonl")).expect("crawl log");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("JSON line"))
        .map(|v| (v["url"].as_str().expect("url").to_string(), v))
        .collect()
}

fn decision(lines: &HashMap<String, Value>, url: &str) -> String {
    lines
        .get(url)
        .and_then(|l| l["decision"].as_str())
        .unwrap_or("never fetched")
        .to_string()
}

/// The decision logged for `url` with its similarity, when it has one: `near_duplicate 0.912`.
fn logged(lines: &HashMap<String, Value>, url: &str) -> String {
    let d = decision(lines, url);
    match lines.get(url).and_then(|l| l["similarity"].as_f64()) {
        Some(s) => format!("{d} {s:.3}"),
        None => d,
    }
}

fn is_duplicate(decision: &str) -> bool {
    matches!(decision, "exact_duplicate" | "near_duplicate" | "contained")
}

/// Whether following `duplicate_of` from `url` reaches `target`.
fn chain_reaches(lines: &HashMap<String, Value>, url: &str, target: &str) -> bool {
    let mut at = url.to_string();
    for _ in 0..16 {
        match lines.get(&at).and_then(|l| l["duplicate_of"].as_str()) {
            Some(next) if next == target => return true,
            Some(next) => at = next.to_string(),
            None => return false,
        }
    }
    false
}

fn lists_contained(lines: &HashMap<String, Value>, whole: &str, part: &str) -> bool {
    lines
        .get(whole)
        .and_then(|l| l["contains"].as_array())
        .is_some_and(|c| c.iter().any(|u| u.as_str() == Some(part)))
}

/// A count out of a total.
#[derive(Clone, Copy, Debug, Default)]
pub struct Ratio {
    pub hits: usize,
    pub total: usize,
}

impl Ratio {
    pub fn share(self) -> f64 {
        if self.total == 0 {
            return 1.0;
        }
        self.hits as f64 / self.total as f64
    }

    pub fn add(&mut self, other: Ratio) {
        self.hits += other.hits;
        self.total += other.total;
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.total == 0 {
            return write!(f, "-");
        }
        write!(f, "{}/{}", self.hits, self.total)
    }
}

/// Issue 10's figures for one class.
#[derive(Clone, Debug, Default)]
pub struct ClassScore {
    pub distinct_archived: Ratio,
    /// Distinct pages logged as a duplicate: `(url, decision and similarity, duplicate_of)`.
    pub false_duplicates: Vec<(String, String, String)>,
    /// Distinct pages neither archived nor logged as a duplicate: `(url, decision)`.
    pub distinct_lost: Vec<(String, String)>,
    pub copies_linked: Ratio,
    pub copies_archived: Ratio,
    /// Copies not linked to their original: `(copy, decision and similarity, duplicate_of)`.
    pub copies_misplaced: Vec<(String, String, String)>,
    pub parts_linked: Ratio,
    /// Parts fetched before their whole, and after it.
    pub parts_linked_before: Ratio,
    pub parts_linked_after: Ratio,
    /// Parts not linked to their whole: `(part, decision and similarity, duplicate_of)`.
    pub parts_unlinked: Vec<(String, String, String)>,
}

pub fn score(truth: &ClassTruth, lines: &HashMap<String, Value>) -> ClassScore {
    let mut s = ClassScore::default();
    let dup_of = |url: &str| {
        lines
            .get(url)
            .and_then(|l| l["duplicate_of"].as_str())
            .unwrap_or("")
            .to_string()
    };
    for url in &truth.distinct {
        let d = decision(lines, url);
        s.distinct_archived.total += 1;
        if d == "archived" {
            s.distinct_archived.hits += 1;
        } else if is_duplicate(&d) {
            s.false_duplicates
                .push((url.clone(), logged(lines, url), dup_of(url)));
        } else {
            s.distinct_lost.push((url.clone(), d));
        }
    }
    for c in &truth.copies {
        let d = decision(lines, &c.copy);
        let linked = is_duplicate(&d) && chain_reaches(lines, &c.copy, &c.original);
        s.copies_linked.total += 1;
        s.copies_archived.total += 1;
        s.copies_linked.hits += usize::from(linked);
        s.copies_archived.hits += usize::from(d == "archived");
        if !linked {
            s.copies_misplaced
                .push((c.copy.clone(), logged(lines, &c.copy), dup_of(&c.copy)));
        }
    }
    for p in &truth.parts {
        let d = decision(lines, &p.part);
        let linked = (is_duplicate(&d) && chain_reaches(lines, &p.part, &p.whole))
            || lists_contained(lines, &p.whole, &p.part);
        let hit = Ratio {
            hits: usize::from(linked),
            total: 1,
        };
        s.parts_linked.add(hit);
        if !linked {
            s.parts_unlinked
                .push((p.part.clone(), logged(lines, &p.part), dup_of(&p.part)));
        }
        if p.fetched_before_whole {
            s.parts_linked_before.add(hit);
        } else {
            s.parts_linked_after.add(hit);
        }
    }
    s
}

/// The per-class table of a crawl's scores, each failure listed under its class.
pub fn table(scores: &HashMap<PageClass, ClassScore>) -> String {
    let mut out = format!(
        "{:<15} {:>17} {:>10} {:>13} {:>13} {:>15}\n",
        "class",
        "distinct archived",
        "false dup",
        "copies linked",
        "parts linked",
        "copies archived"
    );
    for class in PageClass::ALL {
        let s = &scores[&class];
        out.push_str(&format!(
            "{:<15} {:>17} {:>10} {:>13} {:>13} {:>15}\n",
            class.name(),
            s.distinct_archived.to_string(),
            s.false_duplicates.len(),
            s.copies_linked.to_string(),
            s.parts_linked.to_string(),
            s.copies_archived.to_string()
        ));
        for (url, d, of) in &s.false_duplicates {
            out.push_str(&format!("    false duplicate: {url} {d} of {of}\n"));
        }
        for (url, d) in &s.distinct_lost {
            out.push_str(&format!("    distinct not archived: {url} ({d})\n"));
        }
        for (url, d, of) in &s.copies_misplaced {
            out.push_str(&format!("    copy not linked: {url} {d} of {of:?}\n"));
        }
        for (url, d, of) in &s.parts_unlinked {
            out.push_str(&format!("    part not linked: {url} {d} of {of:?}\n"));
        }
        if s.parts_linked.total > 0 {
            out.push_str(&format!(
                "    parts linked: fetched before the whole {}, after {}\n",
                s.parts_linked_before, s.parts_linked_after
            ));
        }
    }
    out
}
