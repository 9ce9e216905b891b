//! Signature alone, from prepared shingle sets: our `MinHasher::signature` (OPH, k = 128)
//! against rensa and datasketch measured on the same sets in the same run.
//!
//! `bench-signature SETS_FILE [--peers PEERS_JSON] [--reps R]`
//!
//! SETS_FILE comes from `bench-pipeline --dump-sets`; PEERS_JSON is the output of
//! `benches/peers/minhash_peers.py SETS_FILE`. Timing: thread CPU time of one pass over all
//! sets, best of R blocks each repeating the pass for at least 0.5 s (as the peer script).

use dedupcrawl_bench::{Args, Table, Timing, measure, read_sets, thousands};
use dedupcrawl_sketch::{MinHasher, classic_minhash};

const K: usize = 128;
/// Set-size buckets (inclusive), as in benches/peers/minhash_peers.py.
const BUCKETS: [(&str, usize, usize); 4] = [
    ("1", 1, 1),
    ("2-63", 2, 63),
    ("64-511", 64, 511),
    (">=512", 512, usize::MAX),
];

fn timed(reps: usize, mut pass: impl FnMut() -> usize) -> Timing {
    let mut best = Timing::default();
    for _ in 0..reps {
        let (passes, t) = measure(|| {
            let start = dedupcrawl_bench::thread_cpu_time();
            let mut passes = 0usize;
            loop {
                std::hint::black_box(pass());
                passes += 1;
                if (dedupcrawl_bench::thread_cpu_time() - start).as_secs_f64() >= 0.5 {
                    break passes;
                }
            }
        });
        best = best.best(Timing {
            wall: t.wall / passes as f64,
            cpu: t.cpu / passes as f64,
        });
    }
    best
}

fn main() -> anyhow::Result<()> {
    let args = Args::from_env();
    let Some(path) = std::env::args().nth(1) else {
        anyhow::bail!("usage: bench-signature SETS_FILE [--peers PEERS_JSON] [--reps R]");
    };
    let reps: usize = args.parse("--reps", 3);
    let sets = read_sets(std::path::Path::new(&path))?;
    let shingles: usize = sets.iter().map(Vec::len).sum();
    let hasher = MinHasher::new(K);

    let mut rows: Vec<(String, Timing)> = Vec::new();
    let ours = timed(reps, || {
        sets.iter()
            .map(|s| hasher.signature(s).map_or(0, |sig| sig.0[0] as usize))
            .fold(0, usize::wrapping_add)
    });
    rows.push((
        "ours: `MinHasher::signature` (one-permutation hashing + densification)".into(),
        ours,
    ));
    let classic = timed(1, || {
        sets.iter()
            .map(|s| classic_minhash(s, K, 7).map_or(0, |sig| sig.0[0] as usize))
            .fold(0, usize::wrapping_add)
    });
    rows.push((
        "ours: `classic_minhash` (k independent mixes, the reference)".into(),
        classic,
    ));

    let mut ours_by_size = Vec::new();
    for (label, lo, hi) in BUCKETS {
        let part: Vec<&Vec<u64>> = sets
            .iter()
            .filter(|s| (lo..=hi).contains(&s.len()))
            .collect();
        if part.is_empty() {
            continue;
        }
        let t = timed(1, || {
            part.iter()
                .map(|s| hasher.signature(s).map_or(0, |sig| sig.0[0] as usize))
                .fold(0, usize::wrapping_add)
        });
        ours_by_size.push((
            label,
            part.len(),
            part.iter().map(|s| s.len()).sum::<usize>(),
            t.cpu,
        ));
    }
    let mut rensa_by_size: Option<serde_json::Value> = None;
    let mut rensa_cpu = None;
    if let Some(peers_path) = args.value("--peers") {
        let peers: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&peers_path)?)?;
        anyhow::ensure!(
            peers["sets"].as_u64() == Some(sets.len() as u64)
                && peers["shingles"].as_u64() == Some(shingles as u64),
            "{peers_path} was measured on other sets than {path}"
        );
        for peer in peers["peers"].as_array().into_iter().flatten() {
            let name = peer["name"].as_str().unwrap_or("?").to_string();
            let t = Timing {
                cpu: peer["cpu"].as_f64().unwrap_or(f64::NAN),
                wall: peer["wall"].as_f64().unwrap_or(f64::NAN),
            };
            if name.contains("RMinHash") {
                rensa_cpu = Some(t.cpu);
                rensa_by_size = Some(peer["by_size_cpu"].clone());
            }
            rows.push((format!("peer: {name}"), t));
        }
    }

    println!(
        "### Signature alone, k = {K}, from prepared shingle sets\n\n{} sets (full view of the pipeline corpus), {} shingles (mean {:.0} per set). Peers get each shingle hash as its 8-byte little-endian string (they hash bytes); their lists are built before timing, the Python→native conversion inside `update` is theirs. Per core = thread/process CPU time.\n",
        thousands(sets.len() as f64),
        thousands(shingles as f64),
        shingles as f64 / sets.len() as f64
    );
    let mut table = Table::new(&[
        "implementation",
        "signatures/s per core",
        "Mshingles/s per core",
        "ns per shingle",
        "ours is × faster",
    ]);
    for (name, t) in &rows {
        table.row(vec![
            name.clone(),
            thousands(sets.len() as f64 / t.cpu),
            format!("{:.1}", shingles as f64 / t.cpu / 1e6),
            format!("{:.2}", t.cpu * 1e9 / shingles as f64),
            format!("{:.2}", t.cpu / ours.cpu),
        ]);
    }
    println!("{}", table.render());
    let mut table = Table::new(&[
        "set size (shingles)",
        "sets",
        "shingles",
        "ours µs/signature",
        "ours ns/shingle",
        "rensa RMinHash ns/shingle",
        "ours is × faster",
    ]);
    for (label, n, shingles, cpu) in &ours_by_size {
        let rensa = rensa_by_size.as_ref().and_then(|v| v[*label].as_f64());
        table.row(vec![
            label.to_string(),
            thousands(*n as f64),
            thousands(*shingles as f64),
            format!("{:.2}", cpu * 1e6 / *n as f64),
            format!("{:.2}", cpu * 1e9 / *shingles as f64),
            rensa.map_or("-".into(), |r| format!("{:.2}", r * 1e9 / *shingles as f64)),
            rensa.map_or("-".into(), |r| format!("{:.2}", r / cpu)),
        ]);
    }
    println!(
        "By set size (the same sets split into buckets):\n\n{}",
        table.render()
    );
    match rensa_cpu {
        Some(r) => println!(
            "Goal: ≥ 2× rensa RMinHash per core: **{:.2}×**.\n",
            r / ours.cpu
        ),
        None => println!("(peers not measured: run benches/peers/minhash_peers.py)\n"),
    }
    Ok(())
}
