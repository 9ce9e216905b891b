//! The seen-URL set at scale: N distinct URLs (default 4,000,000, over 1,000 hosts, offered in
//! page-sized batches; every one is new, so all N also sit in the host queues) go into the
//! persistent frontier, at N/4 and at N, and the process's peak RSS is compared with a peer
//! measured in the same run: the same canonical URLs kept in an in-memory `HashSet<String>`
//! (what a crawler without a persistent seen set does). The growth of RSS from N/4 to N per
//! added URL shows whether memory is bounded.
//!
//! `bench-frontier [--urls N]` runs each side as a child process and prints a Markdown table;
//! `bench-frontier --child frontier|hashset --urls N` is one side.

use std::collections::HashSet;
use std::time::Instant;

use dedupcrawl_frontier::{
    CanonicalUrl, CanonicalizationRules, Frontier, FrontierEntry, FrontierStore, OfferOutcome,
    PolitenessConfig,
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
    let mut seen_set_ram = 0u64;
    match mode {
        "frontier" => {
            let dir = tempfile::tempdir()?;
            let db = sled::Config::new()
                .path(dir.path())
                .cache_capacity(64 * 1024 * 1024)
                .open()?;
            let frontier =
                Frontier::open(&db, dir.path().join("seen"), PolitenessConfig::default())?;
            let mut enqueued = 0;
            for start in (0..urls).step_by(BATCH) {
                let batch = (start..(start + BATCH).min(urls))
                    .map(|i| FrontierEntry::link(url(&rules, i), 1, "http://seed.example/"))
                    .collect();
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
                .map(|i| FrontierEntry::link(url(&rules, i), 1, "http://seed.example/"))
                .collect();
            let caught = frontier
                .offer_all(repeats)?
                .into_iter()
                .filter(|o| *o == OfferOutcome::AlreadySeen)
                .count();
            anyhow::ensure!(caught == urls.div_ceil(10), "repeats not caught");
            frontier.flush()?;
            disk = db.size_on_disk()? + dir_size(&dir.path().join("seen"));
            let seen = frontier.seen_set_stats();
            // Recent keys sit in a HashSet<u128>: ~32 bytes each with its table overhead.
            seen_set_ram = seen.settled_memory_bytes as u64 + seen.recent * 32;
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
        "{} {:.1} {:.1} {} {}",
        mode,
        started.elapsed().as_secs_f64(),
        peak_rss_mb(),
        disk,
        seen_set_ram
    );
    Ok(())
}

struct Row {
    mode: &'static str,
    urls: usize,
    seconds: f64,
    rss_mb: f64,
    disk: u64,
    seen_set_ram: u64,
}

fn run_child(mode: &'static str, urls: usize) -> anyhow::Result<Row> {
    let output = std::process::Command::new(std::env::current_exe()?)
        .args(["--child", mode, "--urls", &urls.to_string()])
        .output()?;
    anyhow::ensure!(
        output.status.success(),
        "{mode}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = String::from_utf8_lossy(&output.stdout).trim().to_string();
    let fields: Vec<&str> = line.split_whitespace().collect();
    let field = |i: usize| fields.get(i).copied().unwrap_or("");
    Ok(Row {
        mode,
        urls,
        seconds: field(1).parse().unwrap_or(f64::NAN),
        rss_mb: field(2).parse().unwrap_or(f64::NAN),
        disk: field(3).parse().unwrap_or(0),
        seen_set_ram: field(4).parse().unwrap_or(0),
    })
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let urls: usize = args
        .iter()
        .position(|a| a == "--urls")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(4_000_000);
    if let Some(i) = args.iter().position(|a| a == "--child") {
        return child(args.get(i + 1).map_or("frontier", String::as_str), urls);
    }
    let rows = [
        run_child("frontier", urls / 4)?,
        run_child("frontier", urls)?,
        run_child("hashset", urls / 4)?,
        run_child("hashset", urls)?,
    ];
    println!("### Seen-URL set at scale: up to {urls} distinct URLs over {HOSTS} hosts\n");
    println!(
        "| seen set | URLs | seconds | URLs/s | peak RSS MB | RSS bytes/URL | seen-set RAM MB | disk MB |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for row in &rows {
        let name = match row.mode {
            "frontier" => {
                "dedupcrawl `Frontier` (sled 64 MB cache + seen runs; all URLs queued too)"
            }
            _ => "peer: in-memory `HashSet<String>` of the canonical URLs",
        };
        let seen_ram = if row.mode == "frontier" {
            format!("{:.1}", row.seen_set_ram as f64 / 1e6)
        } else {
            "(all of it)".to_string()
        };
        println!(
            "| {name} | {} | {:.1} | {:.0} | {:.0} | {:.0} | {seen_ram} | {:.0} |",
            row.urls,
            row.seconds,
            row.urls as f64 / row.seconds,
            row.rss_mb,
            row.rss_mb * 1024.0 * 1024.0 / row.urls as f64,
            row.disk as f64 / 1e6
        );
    }
    let growth = |small: &Row, large: &Row| {
        (large.rss_mb - small.rss_mb) * 1024.0 * 1024.0 / (large.urls - small.urls) as f64
    };
    println!(
        "\nRSS growth from {} to {urls} URLs: frontier {:.0} bytes/URL, in-memory set {:.0} bytes/URL \
         ({:.2}x). Peak RSS at {urls}: frontier {:.2}x the in-memory set.",
        urls / 4,
        growth(&rows[0], &rows[1]),
        growth(&rows[2], &rows[3]),
        growth(&rows[0], &rows[1]) / growth(&rows[2], &rows[3]),
        rows[1].rss_mb / rows[3].rss_mb
    );
    Ok(())
}

fn dir_size(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|entry| entry.metadata().ok())
                .map(|metadata| metadata.len())
                .sum()
        })
        .unwrap_or(0)
}
