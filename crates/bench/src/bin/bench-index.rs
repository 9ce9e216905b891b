//! Index: `DedupIndex::check_and_insert` rate and bytes on disk with synthetic documents.
//!
//! `bench-index [--docs 100000,1000000,10000000] [--mod-docs 100000] [--near 0.1] [--dir DIR] [--peers FILE]`
//! `bench-index --dump-signatures DIR [--docs ...]` writes the signatures for the peer.
//!
//! The peer (`benches/peers/lsh_peer.py`) runs datasketch's `MinHashLSH` (threshold 0.8,
//! 128 permutations, in memory, nothing verified or persisted) over the same signatures:
//! query, then insert when nothing came back.
//!
//! Each document is a random set of 100..=800 distinct shingles (a fresh random stream per
//! document); a share `--near` of the documents are near-duplicates of an earlier random
//! document (its set with 3% of the shingles replaced: true J ≈ 0.94). Fingerprints (SHA-1
//! payload digest, token digest, OPH signature k = 128, and in the MOD_m variant the
//! containment sample) are computed in chunks of 10,000 outside the timed section; only the
//! `check_and_insert` calls are timed. Names are 30–40 byte URLs over 1,000 hosts; no block
//! fingerprints (template learning is measured on the real corpus by `dedupcrawl dedup`).
//!
//! Memory: the process's resident set (`VmRSS`) just before the index opens and with all the
//! documents indexed and flushed; the index's RAM per document is the difference over the
//! document count (the process's own baseline — binary, allocator, the 10,000 precomputed
//! fingerprints — is not the index's), and the whole RSS per document is printed too.
//! `VmHWM` is the process's peak so far.

use dedupcrawl_bench::{Args, Table, du_bytes, measure, process_cpu_time, thousands};
use dedupcrawl_index::{
    DedupDecision, DedupIndex, DocumentFingerprint, IndexConfig, SIGNATURE_BITS, SledDedupIndex,
};
use dedupcrawl_sketch::{MinHasher, ModSample, PayloadDigest, TokenDigest, jaccard, mix64};

const CHUNK: usize = 10_000;

/// The shingle set of document `seed`: sorted, deduplicated.
fn random_set(seed: u64) -> Vec<u64> {
    let len = 100 + (mix64(seed ^ 0xA5A5) % 701) as usize;
    let mut set: Vec<u64> = (0..len as u64)
        .map(|i| mix64(seed.wrapping_mul(0x1_0000_0001) ^ i.wrapping_mul(0x9E37_79B9)))
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

/// Base set with 3% of its shingles replaced.
fn near_set(base_seed: u64, doc: u64) -> Vec<u64> {
    let mut set = random_set(base_seed);
    let n = set.len();
    let changes = (n * 3).div_ceil(100);
    for j in 0..changes {
        let at = (mix64(doc ^ (j as u64) << 40) % n as u64) as usize;
        set[at] = mix64(doc.wrapping_add(0xDEAD_BEEF) ^ j as u64);
    }
    set.sort_unstable();
    set.dedup();
    set
}

struct Outcome {
    docs: usize,
    wall: f64,
    cpu: f64,
    new: usize,
    near: usize,
    near_expected: usize,
    exact: usize,
    contained: usize,
    log_bytes: u64,
    du: u64,
    sled_logical: u64,
    /// Wall seconds to open the flushed index again (the log replayed into the tables).
    reopen: f64,
    /// CPU seconds of the whole process during the timed sections (the index's compaction
    /// thread included).
    process_cpu: f64,
    /// The process's resident memory just before the index opened, MB.
    rss_before_mb: f64,
    /// The process's resident memory with the full index open, MB.
    rss_mb: f64,
    /// The process's peak resident memory so far, MB.
    peak_rss_mb: f64,
}

/// Resident memory of this process, MB.
fn rss_mb() -> f64 {
    status_mb("VmRSS:")
}

/// A memory line of `/proc/self/status` (`VmRSS:`, `VmHWM:`), MB.
fn status_mb(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Documents `range` of the synthetic corpus, and how many of them are planted near duplicates.
fn fingerprints(
    hasher: &MinHasher,
    range: std::ops::Range<usize>,
    near_every: u64,
    mod_samples: bool,
) -> (Vec<DocumentFingerprint>, usize) {
    let mut expected = 0;
    let fingerprints = range
        .map(|i| {
            let doc = i as u64;
            let set = match planted_base(doc, near_every) {
                Some(base) => {
                    expected += 1;
                    near_set(base, doc)
                }
                None => random_set(doc),
            };
            let host = format!("site{}.example", i % 1000);
            let mut fp = DocumentFingerprint::new(
                format!("https://{host}/page/{i}"),
                host,
                PayloadDigest::of(&doc.to_le_bytes()),
            );
            fp.tokens = Some(TokenDigest::of(&[doc, 1]));
            fp.signature = hasher.signature(&set);
            if mod_samples {
                fp.mod_sample = Some(ModSample::from_shingles(&set));
            }
            fp
        })
        .collect();
    (fingerprints, expected)
}

/// For a planted near duplicate, the earlier original it copies (never itself a near
/// duplicate); `None` for a random document.
fn planted_base(doc: u64, near_every: u64) -> Option<u64> {
    if doc == 0 || doc % near_every != near_every - 1 {
        return None;
    }
    let mut base = mix64(doc) % doc;
    if base % near_every == near_every - 1 {
        base = base.saturating_sub(1);
    }
    Some(base)
}

/// Why a planted near duplicate was decided new: its exact Jaccard with its original and the
/// LSH bands the two signatures share, as stored (low bits). No shared band means no candidate,
/// the miss LSH allows; `1 - P(candidate | J)` is that chance.
fn explain_missed(hasher: &MinHasher, doc: u64, base: u64) -> String {
    let (near, original) = (near_set(base, doc), random_set(base));
    let jaccard = jaccard(&near, &original);
    let config = IndexConfig::default();
    let bands = |set: &[u64]| {
        hasher
            .signature(set)
            .map(|s| config.lsh.band_keys(&s.low_bits(SIGNATURE_BITS)))
            .unwrap_or_default()
    };
    let (near_bands, original_bands) = (bands(&near), bands(&original));
    let shared = near_bands
        .iter()
        .zip(&original_bands)
        .filter(|(a, b)| a == b)
        .count();
    format!(
        "planted near duplicate {doc} of {base} decided new: exact J {jaccard:.3}, LSH bands \
         shared {shared} of {} (P(no shared band | J) = {:.1e})",
        near_bands.len(),
        1.0 - config.lsh.candidate_probability(jaccard)
    )
}

fn near_every(near_share: f64) -> u64 {
    if near_share > 0.0 {
        (1.0 / near_share).round() as u64
    } else {
        u64::MAX
    }
}

/// Writes the signatures of the first `docs` documents (128 × u32 LE each, in order) for the
/// Python peer (`benches/peers/lsh_peer.py`).
fn dump_signatures(path: &std::path::Path, docs: usize, near_share: f64) -> anyhow::Result<()> {
    use std::io::Write;
    let hasher = MinHasher::new(128);
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    for start in (0..docs).step_by(CHUNK) {
        let end = (start + CHUNK).min(docs);
        let (fingerprints, _) = fingerprints(&hasher, start..end, near_every(near_share), false);
        for fp in fingerprints {
            let signature = fp
                .signature
                .ok_or_else(|| anyhow::anyhow!("a synthetic document without a signature"))?;
            for value in signature.0 {
                out.write_all(&value.to_le_bytes())?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

fn run(
    dir: &std::path::Path,
    docs: usize,
    near_share: f64,
    mod_samples: bool,
) -> anyhow::Result<Outcome> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    let hasher = MinHasher::new(128);
    let near_every = near_every(near_share);
    // The baseline holds one chunk of precomputed fingerprints, as every later moment does.
    let first_chunk = fingerprints(&hasher, 0..CHUNK.min(docs), near_every, mod_samples);
    let rss_before_mb = rss_mb();
    let index = SledDedupIndex::open(dir, IndexConfig::default())?;
    let mut first_chunk = Some(first_chunk);
    let mut out = Outcome {
        docs,
        wall: 0.0,
        cpu: 0.0,
        new: 0,
        near: 0,
        near_expected: 0,
        exact: 0,
        contained: 0,
        log_bytes: 0,
        du: 0,
        sled_logical: 0,
        reopen: 0.0,
        process_cpu: 0.0,
        rss_before_mb,
        rss_mb: 0.0,
        peak_rss_mb: 0.0,
    };
    // Planted near duplicates decided new, with their originals: explained after the run.
    let mut missed: Vec<(u64, u64)> = Vec::new();
    for start in (0..docs).step_by(CHUNK) {
        let end = (start + CHUNK).min(docs);
        let (fingerprints, expected) = match first_chunk.take() {
            Some(chunk) => chunk,
            None => fingerprints(&hasher, start..end, near_every, mod_samples),
        };
        out.near_expected += expected;
        let process_cpu = process_cpu_time();
        let (result, t) = measure(|| -> anyhow::Result<()> {
            for (doc, fp) in (start as u64..).zip(&fingerprints) {
                match index.check_and_insert(fp)? {
                    DedupDecision::New { .. } => {
                        out.new += 1;
                        if let Some(base) = planted_base(doc, near_every) {
                            missed.push((doc, base));
                        }
                    }
                    DedupDecision::NearDuplicate { .. } => out.near += 1,
                    DedupDecision::ExactDuplicate { .. } => out.exact += 1,
                    DedupDecision::Contained { .. } => out.contained += 1,
                }
            }
            Ok(())
        });
        result?;
        out.process_cpu += (process_cpu_time() - process_cpu).as_secs_f64();
        out.wall += t.wall;
        out.cpu += t.cpu;
    }
    index.flush()?;
    for &(doc, base) in missed.iter().take(10) {
        eprintln!("{}", explain_missed(&hasher, doc, base));
    }
    out.rss_mb = rss_mb();
    out.peak_rss_mb = status_mb("VmHWM:");
    out.log_bytes = std::fs::metadata(index.log_path())?.len();
    drop(index);
    out.du = du_bytes(dir);
    let started = std::time::Instant::now();
    let reopened = SledDedupIndex::open(dir, IndexConfig::default())?;
    out.reopen = started.elapsed().as_secs_f64();
    anyhow::ensure!(
        reopened.stats()?.documents == out.new as u64,
        "the reopened index lost documents"
    );
    drop(reopened);
    // sled's share: keys + values of the index tree (meta, per-host counters).
    let db = dedupcrawl_index::open_sled_waiting_for_lock(dir)?;
    let tree = db.open_tree("dedup_index")?;
    for entry in tree.iter() {
        let (k, v) = entry?;
        out.sled_logical += (k.len() + v.len()) as u64;
    }
    Ok(out)
}

fn main() -> anyhow::Result<()> {
    // The allocator as the dedupcrawl binary sets it (crates/cli/src/main.rs: two malloc
    // arenas), so that RSS is what a crawl or `dedup` would hold.
    // SAFETY: mallopt only adjusts allocator parameters; no other thread exists yet.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
    let args = Args::from_env();
    let list = |key: &str, default: &str| -> Vec<usize> {
        args.value(key)
            .unwrap_or_else(|| default.into())
            .split(',')
            .filter(|s| !s.is_empty())
            .filter_map(|s| s.parse().ok())
            .collect()
    };
    let sizes = list("--docs", "100000,1000000,10000000");
    let mod_sizes = list("--mod-docs", "100000");
    let near_share: f64 = args.parse("--near", 0.1);
    let tmp = tempfile::tempdir()?;
    let base = args
        .value("--dir")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| tmp.path().to_path_buf());

    if let Some(dir) = args.value("--dump-signatures") {
        for &n in &sizes {
            dump_signatures(
                &std::path::Path::new(&dir).join(format!("signatures-{n}.bin")),
                n,
                near_share,
            )?;
        }
        return Ok(());
    }
    // The peer's rates by document count, from `benches/peers/lsh_peer.py`.
    let peers: std::collections::HashMap<String, serde_json::Value> = match args.value("--peers") {
        Some(file) => serde_json::from_str(&std::fs::read_to_string(file)?)?,
        None => Default::default(),
    };
    let peer_rate = |n: usize| -> Option<f64> { peers.get(&n.to_string())?["docs_per_s"].as_f64() };

    let mut table = Table::new(&[
        "documents",
        "MOD_m samples",
        "docs/s (wall)",
        "× datasketch MinHashLSH (same signatures, in memory)",
        "docs/s per core (thread CPU)",
        "near-dups found / planted",
        "other decisions",
        "bytes/doc on disk (du: log + sled)",
        "of it: document log bytes/doc",
        "sled keys + values/doc",
        "docs/s per core (process CPU: compaction thread included)",
        "reopen s",
        "RSS MB before the index / with it (peak so far)",
        "index RAM bytes/doc (RSS growth / docs)",
        "whole process RSS bytes/doc",
    ]);
    let runs = sizes
        .iter()
        .map(|&n| (n, false))
        .chain(mod_sizes.iter().map(|&n| (n, true)));
    for (n, mod_samples) in runs {
        let dir = base.join(format!("index-{n}-{mod_samples}"));
        let o = run(&dir, n, near_share, mod_samples)?;
        eprintln!(
            "  {n} docs mod={mod_samples}: {:.1}s wall, {:.1}s cpu",
            o.wall, o.cpu
        );
        table.row(vec![
            thousands(o.docs as f64),
            if mod_samples { "on" } else { "off" }.into(),
            thousands(o.docs as f64 / o.wall),
            match peer_rate(n).filter(|_| !mod_samples) {
                Some(peer) => format!(
                    "{:.1}× ({} docs/s)",
                    o.docs as f64 / o.wall / peer,
                    thousands(peer)
                ),
                None => "-".into(),
            },
            thousands(o.docs as f64 / o.cpu),
            format!(
                "{} / {}",
                thousands(o.near as f64),
                thousands(o.near_expected as f64)
            ),
            format!(
                "new {}, exact {}, contained {}",
                thousands(o.new as f64),
                o.exact,
                o.contained
            ),
            thousands(o.du as f64 / o.docs as f64),
            thousands(o.log_bytes as f64 / o.docs as f64),
            format!("{:.1}", o.sled_logical as f64 / o.docs as f64),
            thousands(o.docs as f64 / o.process_cpu),
            format!("{:.2}", o.reopen),
            format!(
                "{:.0} / {:.0} ({:.0})",
                o.rss_before_mb, o.rss_mb, o.peak_rss_mb
            ),
            format!(
                "{:.0}",
                (o.rss_mb - o.rss_before_mb) * 1024.0 * 1024.0 / o.docs as f64
            ),
            format!("{:.0}", o.rss_mb * 1024.0 * 1024.0 / o.docs as f64),
        ]);
        let _ = std::fs::remove_dir_all(&dir);
    }
    println!(
        "### Index: check-and-insert, synthetic documents\n\nRandom sets of 100–800 shingles, {:.0}% near-duplicates of an earlier document (3% of shingles replaced, J ≈ 0.94); k = 128, default `IndexConfig` (t = 0.8, LSH b×r from `LshParams::optimal`). Only `check_and_insert` is timed (fingerprints precomputed per 10k chunk); sled's flush threads run besides, so wall is the headline. Bytes after `flush()`: the document log (records: signature = 256 B of them, 16-bit values), the lookup runs (12 bytes an entry: 16 LSH buckets and 2 digest keys a document) and the sled directory (meta and the runs' listing). RAM: `VmRSS` before the index opened and with every document indexed and flushed.\n",
        near_share * 100.0
    );
    println!("{}", table.render());
    println!(
        "Goals: ≥ 50,000 docs/s, ≤ 1,024 bytes/doc on disk including the signature (issue 2); ≥ 100,000 docs/s at 1 M documents and ≤ 100 bytes of RAM a document at 1 M and 10 M (issue 14).\n"
    );
    Ok(())
}
