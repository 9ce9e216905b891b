//! The seen-URL set at scale: N distinct URLs (default 2,000,000, over 1,000 hosts, offered in
//! page-sized batches) go into the persistent frontier, and the process's peak RSS is compared
//! with a peer measured in the same run: the same canonical URLs kept in an in-memory
//! `HashSet<String>` (what a crawler without a persistent seen set does).
//!
//! `bench-frontier [--urls N]` runs both as child processes and prints a Markdown table;
//! `bench-frontier --child sled|hashset --urls N` is one side.

use std::collections::HashSet;
use std::time::Instant;

use dedupcrawl_frontier::{
    CanonicalUrl, CanonicalizationRules, Frontier, FrontierEntry, OfferOutcome, PolitenessConfig,
};

const HOSTS: usize = 1_000;
const BATCH: usize = 500;

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn url(rules: &CanonicalizationRules, i: usize) -> CanonicalUrl {
    let text = format!(
        "http://h{}.example/docs/section-{}/page-{i}.html?utm_source=feed&b=2&a=1",
        i % HOSTS,
        i % 97
    );
    CanonicalUrl::parse(&text, None, rules).expect("valid URL")
}

fn child(mode: &str, urls: usize) -> anyhow::Result<()> {
    let rules = CanonicalizationRules::default();
    let started = Instant::now();
    let mut disk = 0u64;
    match mode {
        "sled" => {
            let dir = tempfile::tempdir()?;
            let db = sled::Config::new()
                .path(dir.path())
                .cache_capacity(64 * 1024 * 1024)
                .open()?;
            let frontier = Frontier::open(&db, PolitenessConfig::default())?;
            let mut enqueued = 0;
            for start in (0..urls).step_by(BATCH) {
                let batch = (start..(start + BATCH).min(urls))
                    .map(|i| FrontierEntry::link(url(&rules, i), 1, "http://seed.example/"));
                enqueued += frontier
                    .offer_all(batch)?
                    .into_iter()
                    .filter(|o| *o == OfferOutcome::Enqueued)
                    .count();
            }
            anyhow::ensure!(enqueued == urls, "{enqueued} of {urls} enqueued");
            // A repeat of every 10th URL must be caught.
            let repeats = (0..urls)
                .step_by(10)
                .map(|i| FrontierEntry::link(url(&rules, i), 1, "http://seed.example/"));
            let caught = frontier
                .offer_all(repeats)?
                .into_iter()
                .filter(|o| *o == OfferOutcome::AlreadySeen)
                .count();
            anyhow::ensure!(caught == urls.div_ceil(10), "repeats not caught");
            frontier.flush()?;
            disk = db.size_on_disk()?;
        }
        _ => {
            let mut seen: HashSet<String> = HashSet::new();
            for i in 0..urls {
                seen.insert(url(&rules, i).as_str().to_string());
            }
            anyhow::ensure!(seen.len() == urls, "hash set lost URLs");
        }
    }
    println!(
        "{} {:.1} {:.1} {}",
        mode,
        started.elapsed().as_secs_f64(),
        peak_rss_mb(),
        disk
    );
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let urls: usize = args
        .iter()
        .position(|a| a == "--urls")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000_000);
    if let Some(i) = args.iter().position(|a| a == "--child") {
        return child(args.get(i + 1).map_or("sled", String::as_str), urls);
    }
    let exe = std::env::current_exe()?;
    let mut rows = Vec::new();
    for mode in ["sled", "hashset"] {
        let output = std::process::Command::new(&exe)
            .args(["--child", mode, "--urls", &urls.to_string()])
            .output()?;
        anyhow::ensure!(
            output.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let line = String::from_utf8_lossy(&output.stdout).trim().to_string();
        let fields: Vec<&str> = line.split_whitespace().collect();
        rows.push((
            mode,
            fields
                .get(1)
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(f64::NAN),
            fields
                .get(2)
                .and_then(|v| v.parse::<f64>().ok())
                .unwrap_or(f64::NAN),
            fields
                .get(3)
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0),
        ));
    }
    println!("### Seen-URL set at scale: {urls} distinct URLs over {HOSTS} hosts\n");
    println!("| seen set | seconds | URLs/s | peak RSS MB | RSS bytes/URL | disk MB |");
    println!("|---|---|---|---|---|---|");
    for (mode, seconds, rss, disk) in &rows {
        let name = match *mode {
            "sled" => "dedupcrawl `Frontier` (sled, 64 MB cache; queues too)",
            _ => "peer: in-memory `HashSet<String>` of the canonical URLs",
        };
        println!(
            "| {name} | {seconds:.1} | {:.0} | {rss:.0} | {:.0} | {:.0} |",
            urls as f64 / seconds,
            rss * 1024.0 * 1024.0 / urls as f64,
            *disk as f64 / 1e6
        );
    }
    let (sled_rss, set_rss) = (rows[0].2, rows[1].2);
    println!(
        "\nPeak RSS of the persistent frontier: {:.2}× the in-memory set's.",
        sled_rss / set_rss
    );
    Ok(())
}
