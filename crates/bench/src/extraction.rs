//! Main-content extraction scored against human ground truth (`../shared/data`).
//!
//! * WCXB dev (`wcxb-dev/`): 1,497 pages of 7 page types, `ground-truth/NNNN.json` with
//!   `ground_truth.main_content`, `with` and `without` snippets.
//! * ScrapingHub's article benchmark (`article-extraction-benchmark/`): 181 articles,
//!   `ground-truth.json` with `articleBody`.
//!
//! The metric is the benchmarks' own: per page, F1 between the multisets of lowercase `\w+`
//! tokens of the extraction and of the reference, averaged over pages (an empty reference and
//! an empty output score 1). The snippet rates are the share of `with` snippets found in the
//! output and of `without` snippets absent from it (case and whitespace folded).

use std::io::Read;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

/// One benchmark page with its reference.
pub struct ScoredPage {
    pub id: String,
    pub url: Option<String>,
    pub page_type: String,
    pub html: String,
    pub reference: String,
    pub with: Vec<String>,
    pub without: Vec<String>,
}

/// `../shared/data` from the repository root (or `DEDUP_SHARED_DATA`).
pub fn shared_data_root() -> anyhow::Result<PathBuf> {
    let root = match std::env::var("DEDUP_SHARED_DATA") {
        Ok(dir) => PathBuf::from(dir),
        Err(_) => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"),
    };
    anyhow::ensure!(
        root.join("wcxb-dev").is_dir(),
        "{} has no wcxb-dev/: the benchmark data sets live in ../shared/data beside the \
         repository (set DEDUP_SHARED_DATA to another copy)",
        root.display()
    );
    Ok(root)
}

fn read_gzip(path: &Path) -> anyhow::Result<String> {
    let file = std::fs::File::open(path)?;
    let mut text = Vec::new();
    flate2::read::MultiGzDecoder::new(file).read_to_end(&mut text)?;
    Ok(String::from_utf8_lossy(&text).into_owned())
}

/// WCXB dev pages; `keep(index, page_type)` chooses which (all, or a sample).
pub fn load_wcxb(
    root: &Path,
    keep: &mut dyn FnMut(usize, &str) -> bool,
) -> anyhow::Result<Vec<ScoredPage>> {
    let dir = root.join("wcxb-dev");
    let mut names: Vec<_> = std::fs::read_dir(dir.join("ground-truth"))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    let mut pages = Vec::new();
    for (index, name) in names.iter().enumerate() {
        let truth: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("ground-truth").join(name))?)?;
        let page_type = truth["page_type"]
            .as_str()
            .or_else(|| truth["_internal"]["page_type"]["primary"].as_str())
            .or_else(|| truth["ground_truth"]["page_type"].as_str())
            .unwrap_or("unknown")
            .to_string();
        if !keep(index, &page_type) {
            continue;
        }
        let id = name.trim_end_matches(".json").to_string();
        let strings = |key: &str| -> Vec<String> {
            truth["ground_truth"][key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default()
        };
        pages.push(ScoredPage {
            html: read_gzip(&dir.join("html").join(format!("{id}.html.gz")))?,
            url: truth["url"].as_str().map(str::to_string),
            reference: truth["ground_truth"]["main_content"]
                .as_str()
                .unwrap_or("")
                .to_string(),
            with: strings("with"),
            without: strings("without"),
            page_type,
            id,
        });
    }
    Ok(pages)
}

/// The ScrapingHub article benchmark's pages.
pub fn load_scrapinghub(root: &Path) -> anyhow::Result<Vec<ScoredPage>> {
    let dir = root.join("article-extraction-benchmark");
    let truth: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.join("ground-truth.json"))?)?;
    let mut pages = Vec::new();
    let mut ids: Vec<&String> = truth.keys().collect();
    ids.sort();
    for id in ids {
        let entry = &truth[id];
        pages.push(ScoredPage {
            html: read_gzip(&dir.join("html").join(format!("{id}.html.gz")))?,
            url: entry["url"].as_str().map(str::to_string),
            reference: entry["articleBody"].as_str().unwrap_or("").to_string(),
            with: Vec::new(),
            without: Vec::new(),
            page_type: "article".to_string(),
            id: id.clone(),
        });
    }
    Ok(pages)
}

fn word_counts(text: &str) -> FxHashMap<String, u32> {
    let mut counts = FxHashMap::default();
    for word in text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
    {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

/// Precision, recall and F1 of one extraction.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageScore {
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// The words two texts share (as multisets) and the words of each: `(common, a, b)`, words
/// being runs of letters, digits and `_`, lowercased.
pub fn word_overlap(a: &str, b: &str) -> (u32, u32, u32) {
    let (a, b) = (word_counts(a), word_counts(b));
    let common = a
        .iter()
        .map(|(w, &n)| n.min(b.get(w).copied().unwrap_or(0)))
        .sum();
    (common, a.values().sum(), b.values().sum())
}

/// Word-multiset precision/recall/F1 of `output` against `reference`.
pub fn score(output: &str, reference: &str) -> PageScore {
    let (common, out_total, truth_total) = word_overlap(output, reference);
    if out_total == 0 && truth_total == 0 {
        return PageScore {
            precision: 1.0,
            recall: 1.0,
            f1: 1.0,
        };
    }
    let precision = if out_total == 0 {
        0.0
    } else {
        f64::from(common) / f64::from(out_total)
    };
    let recall = if truth_total == 0 {
        0.0
    } else {
        f64::from(common) / f64::from(truth_total)
    };
    let f1 = if precision + recall == 0.0 {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    PageScore {
        precision,
        recall,
        f1,
    }
}

fn fold(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// (`with` snippets found, `with` total, `without` snippets absent, `without` total).
pub fn snippet_hits(output: &str, page: &ScoredPage) -> (usize, usize, usize, usize) {
    let folded = fold(output);
    let found = page
        .with
        .iter()
        .filter(|s| folded.contains(&fold(s)))
        .count();
    let absent = page
        .without
        .iter()
        .filter(|s| !folded.contains(&fold(s)))
        .count();
    (found, page.with.len(), absent, page.without.len())
}

/// Scores summed over pages, overall and per page type.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    pub pages: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
    pub with_found: usize,
    pub with_total: usize,
    pub without_absent: usize,
    pub without_total: usize,
}

impl Tally {
    pub fn add(&mut self, score: PageScore, snippets: (usize, usize, usize, usize)) {
        self.pages += 1;
        self.precision += score.precision;
        self.recall += score.recall;
        self.f1 += score.f1;
        self.with_found += snippets.0;
        self.with_total += snippets.1;
        self.without_absent += snippets.2;
        self.without_total += snippets.3;
    }

    fn mean(&self, sum: f64) -> f64 {
        if self.pages == 0 {
            0.0
        } else {
            sum / self.pages as f64
        }
    }

    pub fn mean_f1(&self) -> f64 {
        self.mean(self.f1)
    }

    pub fn mean_precision(&self) -> f64 {
        self.mean(self.precision)
    }

    pub fn mean_recall(&self) -> f64 {
        self.mean(self.recall)
    }

    pub fn with_rate(&self) -> f64 {
        self.with_found as f64 / self.with_total.max(1) as f64
    }

    pub fn without_rate(&self) -> f64 {
        self.without_absent as f64 / self.without_total.max(1) as f64
    }
}

/// Scores of one extractor over a set: overall and per page type.
#[derive(Debug, Default, Clone)]
pub struct SetScore {
    pub overall: Tally,
    pub by_type: std::collections::BTreeMap<String, Tally>,
    /// HTML bytes extracted and thread CPU time spent.
    pub bytes: usize,
    pub cpu: std::time::Duration,
}

/// Runs `extract(html, url)` over `pages` on this thread and scores it.
pub fn score_set(pages: &[ScoredPage], extract: &dyn Fn(&str, Option<&str>) -> String) -> SetScore {
    let mut result = SetScore::default();
    for page in pages {
        let start = crate::thread_cpu_time();
        let output = extract(&page.html, page.url.as_deref());
        result.cpu += crate::thread_cpu_time().saturating_sub(start);
        result.bytes += page.html.len();
        let page_score = score(&output, &page.reference);
        let snippets = snippet_hits(&output, page);
        result.overall.add(page_score, snippets);
        result
            .by_type
            .entry(page.page_type.clone())
            .or_default()
            .add(page_score, snippets);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_is_word_multiset_f1() {
        assert!((score("a b c", "a b c").f1 - 1.0).abs() < 1e-12);
        assert_eq!(score("", "").f1, 1.0);
        assert_eq!(score("x", "").f1, 0.0);
        let s = score("the cat the", "The cat sat");
        // common: the ×1, cat ×1 → precision 2/3, recall 2/3.
        assert!((s.precision - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.recall - 2.0 / 3.0).abs() < 1e-12);
    }
}
