//! The dedup replayed over a decisions file's pages in their order, on a fresh index: what it
//! compared for each page, and whether it decided as the run did.

use dedupcrawl_bench::{PairCounts, load_page};
use dedupcrawl_sketch::shingle_set;
use dedupcrawl_textprep::View;

use crate::{Corpus, Doc, W};

/// What the dedup compared: the real stage replayed in the same order on a fresh index (same
/// decisions, so the same host templates learnt along the way).
pub(crate) struct Replay {
    /// Each document's compared shingle set (empty under one shingle).
    pub(crate) compared: Vec<Vec<u64>>,
    pub(crate) counts: PairCounts,
    pub(crate) exact_keys: Vec<ExactKeys>,
    /// Decisions of the replay that differ from the run's (kind or original).
    pub(crate) disagreements: usize,
}

impl Replay {
    /// Exact Jaccard of two documents' compared sets.
    pub(crate) fn jaccard(&self, a: usize, b: usize) -> f64 {
        let c = self.counts.get(a, b) as f64;
        if c == u32::MAX as f64 {
            return 1.0;
        }
        let union = self.compared[a].len() as f64 + self.compared[b].len() as f64 - c;
        if union == 0.0 { 1.0 } else { c / union }
    }
}

pub(crate) fn replay(
    docs: &[Doc],
    view: View,
    near_method: dedupcrawl_pipeline::NearMethodName,
    corpus: &Corpus,
) -> anyhow::Result<Replay> {
    let settings = dedupcrawl_pipeline::DedupSettings {
        view,
        near_method,
        ..Default::default()
    };
    let index_dir = tempfile::tempdir()?;
    let index = dedupcrawl_index::SledDedupIndex::open(index_dir.path(), settings.index_config())?;
    let stage = dedupcrawl_pipeline::DedupStage::new(std::sync::Arc::new(index), settings);
    let mut compared = Vec::with_capacity(docs.len());
    let mut disagreements = 0usize;
    let mut exact_keys = Vec::with_capacity(docs.len());
    for d in docs {
        // The host as `dedupcrawl dedup` names it: the site directory it was given.
        let host = corpus.root.join(corpus.site(&d.path)).display().to_string();
        let payload = load_page(std::path::Path::new(&d.path))?.html;
        let fingerprinted = stage.fingerprint_html(&d.path, &host, payload.as_bytes(), &payload)?;
        let decision = stage.index().check_and_insert(&fingerprinted.fingerprint)?;
        if debug_paths().iter().any(|p| d.path.ends_with(p.as_str())) {
            print_compared_text(
                &stage,
                &fingerprinted,
                &decision,
                &payload,
                &corpus.short(&d.path),
            );
        }
        if decision_of(&decision) != (d.decision.as_str(), d.duplicate_of.as_deref()) {
            disagreements += 1;
        }
        exact_keys.push((
            fingerprinted.fingerprint.payload,
            fingerprinted.fingerprint.tokens,
        ));
        compared.push(if fingerprinted.tokens.len() < W {
            Vec::new()
        } else {
            shingle_set(&fingerprinted.tokens, W)
        });
    }
    let counts = PairCounts::new(&compared.iter().collect::<Vec<_>>());
    Ok(Replay {
        compared,
        counts,
        exact_keys,
        disagreements,
    })
}

/// `BENCH_DEBUG`: a page's compared text (host-template blocks marked `T`) beside its truth.
pub(crate) fn print_compared_text(
    stage: &dedupcrawl_pipeline::DedupStage,
    fingerprinted: &dedupcrawl_pipeline::Fingerprinted,
    decision: &dedupcrawl_index::DedupDecision,
    payload: &str,
    short: &str,
) {
    eprintln!(
        "== {} ({:?}, {} tokens compared)\n-- main view (T: host template):\n{}\n-- truth main blocks:\n{}",
        short,
        decision_of(decision),
        fingerprinted.tokens.len(),
        stage
            .textprep()
            .view_blocks(&fingerprinted.page, View::MainContent, &|_| false)
            .map(|block| {
                let template = stage
                    .block_key(&block.text, fingerprinted.page.language)
                    .is_some_and(|key| fingerprinted.template_keys.binary_search(&key).is_ok());
                format!("{} {}", if template { "T" } else { " " }, block.text)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        dedupcrawl_bench::template_truth::main_blocks(payload, short)
            .iter()
            .map(|b| b.text.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Document-level recall of the index on what it compared: a document with an earlier
/// document recorded as new whose compared set has J ≥ t must not come back new.
pub(crate) struct DocumentRecall {
    /// At J ≥ 0.9 and ≥ 0.8: (documents with such an earlier new document, of them flagged).
    pub(crate) at: [(u64, u64); 2],
    /// Documents left new at J ≥ 0.9: (J, document, the earlier one), highest J first.
    pub(crate) missed: Vec<(f64, usize, usize)>,
}

impl DocumentRecall {
    pub(crate) fn of(docs: &[Doc], replay: &Replay) -> DocumentRecall {
        let compared = &replay.compared;
        let mut at = [(0u64, 0u64); 2];
        let mut missed: Vec<(f64, usize, usize)> = Vec::new();
        for i in 0..docs.len() {
            if compared[i].is_empty() {
                continue;
            }
            let mut best: Option<(f64, usize)> = None;
            for j in 0..i {
                if docs[j].decision != "new" || compared[j].is_empty() {
                    continue;
                }
                if replay.counts.get(i.min(j), i.max(j)) == 0 {
                    continue;
                }
                let jv = replay.jaccard(i, j);
                if best.is_none_or(|(b, _)| jv > b) {
                    best = Some((jv, j));
                }
            }
            if let Some((jv, j)) = best {
                let flagged = docs[i].decision != "new";
                for (t, threshold) in [0.9, 0.8].iter().enumerate() {
                    if jv >= *threshold {
                        at[t].0 += 1;
                        at[t].1 += flagged as u64;
                    }
                }
                if !flagged && jv >= 0.9 {
                    missed.push((jv, i, j));
                }
            }
        }
        missed.sort_by(|x, y| y.0.total_cmp(&x.0));
        DocumentRecall { at, missed }
    }
}

/// Pages whose compared text and truth text are printed to stderr (`BENCH_DEBUG`, paths
/// separated by commas, matched at the end).
pub(crate) fn debug_paths() -> Vec<String> {
    std::env::var("BENCH_DEBUG")
        .map(|v| v.split(',').map(str::to_string).collect())
        .unwrap_or_default()
}

/// What an `exact_duplicate` decision is keyed on: the payload digest and the digest of the
/// page's normalized text (its own content, template included).
pub(crate) type ExactKeys = (
    dedupcrawl_sketch::PayloadDigest,
    Option<dedupcrawl_sketch::TokenDigest>,
);

/// A decision as the decision lines name it: kind and the page it links to.
pub(crate) fn decision_of(
    decision: &dedupcrawl_index::DedupDecision,
) -> (&'static str, Option<&str>) {
    use dedupcrawl_index::DedupDecision;
    match decision {
        DedupDecision::New { .. } => ("new", None),
        DedupDecision::ExactDuplicate { of, .. } => ("exact_duplicate", Some(of.name.as_str())),
        DedupDecision::NearDuplicate { of, .. } => ("near_duplicate", Some(of.name.as_str())),
        DedupDecision::Contained { within, .. } => ("contained", Some(within.name.as_str())),
    }
}
