//! What the pipeline's tests share: seeded prose and a main-content stage on a real sled index.

use std::sync::Arc;

use dedupcrawl_index::{DedupDecision, SledDedupIndex};
use dedupcrawl_pipeline::{DedupSettings, DedupStage};
use dedupcrawl_textprep::View;

const WORDS: &[&str] = &[
    "river", "mountain", "engine", "library", "garden", "window", "market", "harbor", "signal",
    "forest", "bridge", "castle", "planet", "rocket", "letter", "silver", "winter", "summer",
    "valley", "meadow", "thunder", "lantern", "compass", "harvest", "journey", "whisper",
    "crystal", "shadow", "orchard", "glacier", "canyon", "voyage", "anchor", "beacon", "cobalt",
    "dragon", "ember", "falcon", "granite", "horizon", "island", "jasmine", "kettle", "lagoon",
    "marble", "nectar", "oasis", "pepper", "quartz", "raven", "saddle", "timber", "umbrella",
    "velvet", "walnut", "yonder", "zephyr", "bakery", "cellar", "dynamo", "fabric", "goblet",
];

/// Deterministic prose: `n` words chosen by a seeded generator.
pub fn prose(seed: u64, n: usize) -> String {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.push(WORDS[(state >> 33) as usize % WORDS.len()]);
    }
    out.join(" ")
}

pub fn stage(dir: &std::path::Path, view: View) -> DedupStage {
    let settings = DedupSettings {
        view,
        ..DedupSettings::default()
    };
    let index = SledDedupIndex::open(dir, settings.index_config()).unwrap();
    DedupStage::new(Arc::new(index), settings)
}

/// The stage's decision on `html` served at `path` of `host`.
// Every test file compiles this module, and not all of them check pages through it.
#[allow(dead_code)]
pub fn check(stage: &DedupStage, host: &str, path: &str, html: &str) -> DedupDecision {
    let url = format!("https://{host}{path}");
    stage
        .check_html(&url, host, html.as_bytes(), html)
        .unwrap()
        .decision
}
