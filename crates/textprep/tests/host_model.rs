//! The host model against the page-level extractor on real multi-page hosts (four templates of
//! the Rust docs: mdBook's book, reference and nomicon, and rustdoc's std): after a host's
//! first pages, the cheap model must keep the text the extractor keeps.

mod common;

use common::rust_docs;
use std::path::{Path, PathBuf};

use dedupcrawl_textprep::{ContentSource, MainContent, MainContentConfig, extract};
use rustc_hash::FxHashMap;

/// Up to `limit` HTML files under `dir`, sorted by path.
fn pages(dir: &Path, limit: usize) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("docs readable").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                files.push(path);
            }
        }
    }
    files.sort();
    // Spread over the host rather than the first directory only.
    let step = (files.len() / limit).max(1);
    files.into_iter().step_by(step).take(limit).collect()
}

fn words(text: &str) -> FxHashMap<String, u32> {
    let mut counts = FxHashMap::default();
    for word in text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
    {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

/// Words two texts have in common (as multisets) and the words of each.
fn overlap(a: &str, b: &str) -> (u32, u32, u32) {
    let (a, b) = (words(a), words(b));
    let common: u32 = a
        .iter()
        .map(|(w, &n)| n.min(b.get(w).copied().unwrap_or(0)))
        .sum();
    (common, a.values().sum(), b.values().sum())
}

/// Word-multiset F1 from [`overlap`] (1 when both texts are empty).
fn f1((common, a, b): (u32, u32, u32)) -> f64 {
    if a + b == 0 {
        1.0
    } else {
        2.0 * f64::from(common) / f64::from(a + b)
    }
}

/// Floors a little under what this test measures (README, "Main-content extraction"): over all
/// words 0.828 (std) to 0.993 (nomicon), per page 0.907 (std) to 0.991 (nomicon). Issue 17 asks
/// 0.97 per page; the mdBook hosts are near it, rustdoc's std is not (its pages depart from the
/// model often, and the model keeps what it does not know). "By the model" counts every page
/// past the cold start: the model's view is what those pages get, also when the extractor saw
/// them (a recheck, a departure) and only taught the model first.
const OVER_WORDS_FLOOR: f64 = 0.81;
const PER_PAGE_FLOOR: f64 = 0.90;
/// Pages after the cold start that the model (not the extractor) must decide, per host.
const MIN_PAGES_BY_MODEL: usize = 30;

/// Pages taken from each host, spread over it.
const PAGES_PER_HOST: usize = 120;

#[test]
fn after_a_hosts_first_pages_the_model_agrees_with_the_extractor() {
    let root = rust_docs();
    let config = MainContentConfig::default();
    let main = MainContent::new(config);
    let mut report = Vec::new();
    let mut results = Vec::new();
    for host in ["book", "reference", "nomicon", "std"] {
        let mut agreement = Vec::new();
        let mut words = (0, 0, 0);
        for (n, path) in pages(&root.join(host), PAGES_PER_HOST).iter().enumerate() {
            let html = std::fs::read_to_string(path).expect("page readable");
            let page = extract(&html);
            let decided = main.decide(host, &html, None, &page);
            if n < config.cold_start_pages as usize {
                assert_eq!(decided.source, ContentSource::PageExtractor);
                continue;
            }
            if decided.source != ContentSource::HostModel {
                continue;
            }
            let alone = main.decide_alone(&html, None, &page, &|_| false);
            let page_overlap = overlap(&decided.text(&page), &alone.text(&page));
            words = (
                words.0 + page_overlap.0,
                words.1 + page_overlap.1,
                words.2 + page_overlap.2,
            );
            agreement.push(f1(page_overlap));
        }
        let mean = agreement.iter().sum::<f64>() / agreement.len().max(1) as f64;
        let over_words = f1(words);
        report.push(format!(
            "{host}: {} of {PAGES_PER_HOST} pages by the model, F1 {over_words:.4} over all their words, \
             mean per page {mean:.4}",
            agreement.len()
        ));
        results.push((agreement.len(), over_words, mean));
    }
    eprintln!("{report:#?}");
    for (by_model, over_words, mean) in results {
        // The model must carry most of each host, not hand it back to the extractor.
        assert!(by_model >= MIN_PAGES_BY_MODEL, "{report:#?}");
        assert!(over_words >= OVER_WORDS_FLOOR, "{report:#?}");
        // Tiny pages (a type alias, a moved-page stub) swing the per-page mean: a word the
        // extractor keeps on one and not the next is a tenth of such a page.
        assert!(mean >= PER_PAGE_FLOOR, "{report:#?}");
    }
}
