//! The whole dedup stage on a run of pages of one host, as a crawl meets them: extraction, the
//! host's model and template counts, the card-box and insert rules, the fingerprint and the
//! decision against a real sled index. The input is up to 8 pages separated by NUL bytes; each
//! run is a new host, checked three rounds over (the host's template is known from its third
//! page on), the later rounds with the very same bytes.
//!
//! The check of one input, shared by the fuzz target `fuzz_targets/pipeline.rs` and the corpus
//! replay test (crates/crawler/tests/fuzz_corpus.rs).

use dedupcrawl_index::SledDedupIndex;
use dedupcrawl_pipeline::{DedupSettings, DedupStage};
use std::sync::{Arc, Mutex};

/// Runs on one index before it is replaced by a fresh one, so its files stay small.
const RUNS_PER_INDEX: u64 = 2_000;
const MAX_PAGES: usize = 8;
const ROUNDS: usize = 3;

struct Stage {
    _dir: tempfile::TempDir,
    stage: DedupStage,
}

fn new_stage() -> Stage {
    let dir = tempfile::tempdir().expect("a temporary directory for the index");
    let settings = DedupSettings::default();
    let index = SledDedupIndex::open(dir.path(), settings.index_config()).expect("a sled index");
    Stage {
        _dir: dir,
        stage: DedupStage::new(Arc::new(index), settings),
    }
}

static STAGE: Mutex<Option<(Stage, u64)>> = Mutex::new(None);

/// One input: panics (a failed check) when the code under test misbehaves on it.
pub fn check(data: &[u8]) {
    let pages: Vec<String> = data
        .split(|&byte| byte == 0)
        .take(MAX_PAGES)
        .map(|page| String::from_utf8_lossy(page).into_owned())
        .collect();
    let mut guard = STAGE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if guard
        .as_ref()
        .is_none_or(|(_, runs)| *runs >= RUNS_PER_INDEX)
    {
        *guard = None; // the old index closes (and its directory goes) before the new opens
        *guard = Some((new_stage(), 0));
    }
    let (stage, runs) = guard.as_mut().expect("a stage");
    *runs += 1;
    let host = format!("h{runs}.example");
    let mut first_round_new = vec![false; pages.len()];
    for round in 0..ROUNDS {
        for (number, html) in pages.iter().enumerate() {
            let name = format!("https://{host}/p{number}?round={round}");
            let verdict = stage
                .stage
                .check_html(&name, &host, html.as_bytes(), html)
                .expect("the index accepts every page");
            if round == 0 {
                first_round_new[number] = verdict.decision.is_new();
            } else {
                // The same bytes as a page recorded as new: its payload is known.
                assert!(
                    !(first_round_new[number] && verdict.decision.is_new()),
                    "page {number} again in round {round}: {:?}",
                    verdict.decision
                );
            }
        }
    }
}
