//! LSH banding against Broder's super-shingles (issue 14): which pairs of pages each method
//! makes candidates (every candidate is then verified), against exact Jaccard, the S-curves,
//! and what each costs in the index.
//!
//! `bench-near-methods SETS [--threshold 0.8] [--reps 3]`
//!
//! SETS is the shingle sets of the corpus as `dedupcrawl dedup` computes them
//! (`bench-pipeline --dump-sets`: the Rust docs' book, reference, nomicon and std). For each
//! method, with its settings for the threshold (`IndexConfig::for_threshold` and
//! `IndexConfig::with_super_shingles`): each page's signature (k = 128, 16-bit values, as the
//! index stores it) and its bucket keys; a pair is a candidate when it shares one bucket (LSH)
//! or at least m super-shingles. The truth is the exact Jaccard of every pair sharing a
//! shingle ([`PairCounts`]). "Measured" S-curve: the share of the pairs in each Jaccard bin that
//! are candidates; "theory": P(candidate | s) at the bin's middle. Speed: `check_and_insert` of
//! the corpus' fingerprints into a fresh index (embedded, thread CPU, best of `--reps`), with
//! the near duplicates each method found.

use std::collections::HashMap;

use dedupcrawl_bench::{Args, PairCounts, Table, measure, read_sets, thousands};
use dedupcrawl_index::{
    DedupDecision, DedupIndex, DocumentFingerprint, IndexConfig, NearMethod, SIGNATURE_BITS,
    SledDedupIndex,
};
use dedupcrawl_sketch::{MinHashSignature, MinHasher, PayloadDigest, TokenDigest};

/// What one method makes of the corpus.
struct MethodResult {
    name: String,
    config: IndexConfig,
    /// Candidate pairs (i < j).
    candidates: HashMap<(usize, usize), ()>,
}

fn describe(config: &IndexConfig) -> String {
    match config.near_method {
        NearMethod::Lsh => format!(
            "LSH: {} bands × {} rows, one shared",
            config.lsh.bands, config.lsh.rows
        ),
        NearMethod::SuperShingles { min_shared } => format!(
            "super-shingles: {} of {} values, {min_shared} shared",
            config.lsh.bands, config.lsh.rows
        ),
    }
}

fn candidate_pairs(
    config: &IndexConfig,
    signatures: &[Option<MinHashSignature>],
) -> HashMap<(usize, usize), ()> {
    let mut buckets: HashMap<(usize, u32), Vec<usize>> = HashMap::new();
    for (doc, signature) in signatures.iter().enumerate() {
        let Some(signature) = signature else { continue };
        for (band, key) in config.lsh.band_keys(signature).into_iter().enumerate() {
            buckets.entry((band, key as u32)).or_default().push(doc);
        }
    }
    let min_shared = match config.near_method {
        NearMethod::Lsh => 1,
        NearMethod::SuperShingles { min_shared } => min_shared,
    };
    let mut shared: HashMap<(usize, usize), usize> = HashMap::new();
    for members in buckets.values() {
        for (a, &i) in members.iter().enumerate() {
            for &j in &members[a + 1..] {
                *shared.entry((i.min(j), i.max(j))).or_default() += 1;
            }
        }
    }
    shared
        .into_iter()
        .filter(|&(_, n)| n >= min_shared)
        .map(|(pair, _)| (pair, ()))
        .collect()
}

fn main() -> anyhow::Result<()> {
    let args = Args::from_env();
    let Some(sets_file) = std::env::args().nth(1) else {
        anyhow::bail!("usage: bench-near-methods SETS [--threshold T] [--reps R]");
    };
    let threshold: f64 = args.parse("--threshold", 0.8);
    let reps: usize = args.parse("--reps", 3);
    let sets = read_sets(std::path::Path::new(&sets_file))?;
    let hasher = MinHasher::new(128);
    let signatures: Vec<Option<MinHashSignature>> = sets
        .iter()
        .map(|set| hasher.signature(set).map(|s| s.low_bits(SIGNATURE_BITS)))
        .collect();
    let refs: Vec<&Vec<u64>> = sets.iter().collect();
    let counts = PairCounts::new(&refs);
    let jaccard = |i: usize, j: usize| -> f64 {
        let common = counts.get(i, j) as f64;
        let union = sets[i].len() as f64 + sets[j].len() as f64 - common;
        if union == 0.0 { 0.0 } else { common / union }
    };
    let configs = [
        ("LSH", IndexConfig::for_threshold(threshold, 128)),
        (
            "super-shingles",
            IndexConfig::with_super_shingles(threshold, 128, None, None),
        ),
    ];
    let results: Vec<MethodResult> = configs
        .iter()
        .map(|(name, config)| MethodResult {
            name: name.to_string(),
            config: *config,
            candidates: candidate_pairs(config, &signatures),
        })
        .collect();

    // Every pair that shares a shingle, by Jaccard bin (tenths); pairs sharing none are at 0.
    let n = sets.len();
    let mut bins = [0u64; 10];
    let mut true_pairs = [0u64; 2]; // J ≥ 0.8, J ≥ 0.9
    let mut candidate_bins = vec![[0u64; 10]; results.len()];
    let mut found = vec![[0u64; 2]; results.len()];
    for i in 0..n {
        for j in i + 1..n {
            if counts.get(i, j) == 0 {
                continue;
            }
            let similarity = jaccard(i, j);
            let bin = ((similarity * 10.0) as usize).min(9);
            bins[bin] += 1;
            for (level, at) in [0.8, 0.9].into_iter().enumerate() {
                if similarity >= at {
                    true_pairs[level] += 1;
                }
            }
            for (r, result) in results.iter().enumerate() {
                if result.candidates.contains_key(&(i, j)) {
                    candidate_bins[r][bin] += 1;
                    for (level, at) in [0.8, 0.9].into_iter().enumerate() {
                        if similarity >= at {
                            found[r][level] += 1;
                        }
                    }
                }
            }
        }
    }

    // Speed and decisions in the index.
    let fingerprints: Vec<DocumentFingerprint> = sets
        .iter()
        .enumerate()
        .map(|(i, set)| DocumentFingerprint {
            tokens: Some(TokenDigest::of(set)),
            signature: hasher.signature(set),
            ..DocumentFingerprint::new(
                format!("doc-{i}"),
                "corpus",
                PayloadDigest::of(&(i as u64).to_le_bytes()),
            )
        })
        .collect();
    let mut speed = Vec::new();
    for result in &results {
        let mut best = f64::INFINITY;
        let mut near = 0;
        for _ in 0..reps.max(1) {
            let dir = tempfile::tempdir()?;
            let index = SledDedupIndex::open(dir.path(), result.config)?;
            let (decisions, timing) = measure(|| {
                fingerprints
                    .iter()
                    .map(|fp| index.check_and_insert(fp))
                    .collect::<Result<Vec<_>, _>>()
            });
            near = decisions?
                .iter()
                .filter(|d| matches!(d, DedupDecision::NearDuplicate { .. }))
                .count();
            best = best.min(timing.cpu);
        }
        speed.push((fingerprints.len() as f64 / best, near));
    }

    println!(
        "### Near-duplicate candidates: LSH against super-shingles\n\n{} pages ({} with a signature), threshold {threshold}, k = 128 (16-bit values as stored). Pairs sharing a shingle: {}; true pairs J ≥ 0.8: {}, J ≥ 0.9: {}.\n",
        thousands(n as f64),
        thousands(signatures.iter().flatten().count() as f64),
        thousands(bins.iter().sum::<u64>() as f64),
        thousands(true_pairs[0] as f64),
        thousands(true_pairs[1] as f64),
    );
    let mut table = Table::new(&[
        "method",
        "keys a page",
        "candidate pairs",
        "of them J < 0.5 (verified for nothing)",
        "candidate recall J ≥ 0.8",
        "candidate recall J ≥ 0.9",
        "near duplicates found (index)",
        "check-and-insert docs/s per core",
    ]);
    for (r, result) in results.iter().enumerate() {
        let low: u64 = result.candidates.len() as u64 - candidate_bins[r][5..].iter().sum::<u64>();
        table.row(vec![
            format!("{} ({})", result.name, describe(&result.config)),
            result.config.lsh.bands.to_string(),
            thousands(result.candidates.len() as f64),
            thousands(low as f64),
            format!("{:.4}", found[r][0] as f64 / true_pairs[0].max(1) as f64),
            format!("{:.4}", found[r][1] as f64 / true_pairs[1].max(1) as f64),
            thousands(speed[r].1 as f64),
            thousands(speed[r].0),
        ]);
    }
    println!("{}", table.render());

    let mut curve = Table::new(&[
        "Jaccard",
        "pairs",
        "LSH theory",
        "LSH measured",
        "super-shingles theory",
        "super-shingles measured",
    ]);
    for bin in 0..10 {
        let middle = (bin as f64 + 0.5) / 10.0;
        let measured = |r: usize| {
            if bins[bin] == 0 {
                "-".to_string()
            } else {
                format!("{:.4}", candidate_bins[r][bin] as f64 / bins[bin] as f64)
            }
        };
        curve.row(vec![
            format!("{:.1}–{:.1}", bin as f64 / 10.0, (bin + 1) as f64 / 10.0),
            thousands(bins[bin] as f64),
            format!("{:.4}", results[0].config.candidate_probability(middle)),
            measured(0),
            format!("{:.4}", results[1].config.candidate_probability(middle)),
            measured(1),
        ]);
    }
    println!(
        "S-curves: P(candidate) by Jaccard (measured: share of the pairs of the bin that are candidates)\n"
    );
    println!("{}", curve.render());
    Ok(())
}
