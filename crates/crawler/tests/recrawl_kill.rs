//! A recrawl killed with SIGKILL in the middle of its round resumes: the next `recrawl` finishes
//! the same round, every URL gets one line in it, and no revisit or new version is written
//! twice.
//!
//! The recrawl runs in a child process: this test binary re-executed with
//! `DEDUPCRAWL_RECRAWL_CHILD` set, which makes `recrawl_child_process` run the round.

use crate::common;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dedupcrawl_archive::RecordType;
use dedupcrawl_crawler::{CrawlConfig, Decision, run_crawl, run_recrawl};
use dedupcrawl_testsite::{MutatingSite, Validation, text};

use common::*;

const CHILD_ENV: &str = "DEDUPCRAWL_RECRAWL_CHILD";
const PAGES: u64 = 60;

/// One request every 30 ms: the round takes about 2 s, long enough to be killed mid-way.
fn config(seed: String, out: &Path, delay: f64) -> CrawlConfig {
    let mut config = config_for(vec![seed], out);
    config.crawl.sitemaps = false;
    config.crawl.delay = delay;
    config.crawl.checkpoint_every = 0.05;
    config
}

/// Child mode: `SEED|OUT` in the environment; runs the recrawl. A no-op in a normal test run.
#[test]
fn recrawl_child_process() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let (seed, out) = spec.split_once('|').expect("SEED|OUT");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime
        .block_on(run_recrawl(
            config(seed.to_string(), Path::new(out), 0.03),
            true,
        ))
        .expect("child recrawl");
}

fn round_lines(out: &Path, round: u32) -> Vec<dedupcrawl_crawler::LogLine> {
    crawl_log(out)
        .into_iter()
        .filter(|line| line.round == round)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recrawl_killed_mid_round_resumes_without_writing_anything_twice() {
    let site = MutatingSite::start().await.unwrap();
    let paths: Vec<String> = (0..PAGES).map(|n| format!("/page/{n}")).collect();
    let links: Vec<&str> = paths.iter().map(String::as_str).collect();
    let validation = |n: u64| {
        if n.is_multiple_of(2) {
            Validation::StrongEtag
        } else {
            Validation::None
        }
    };
    for (n, path) in paths.iter().enumerate() {
        let n = n as u64;
        site.put(path, path, &text(n, 200), &["/"], validation(n));
    }
    site.put(
        "/",
        "Home",
        &text(1000, 100),
        &links,
        Validation::StrongEtag,
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    run_crawl(config(site.url("/"), &out, 0.0)).await.unwrap();
    // Every tenth page is rewritten for round 2.
    for (n, path) in paths
        .iter()
        .enumerate()
        .filter(|(n, _)| n.is_multiple_of(10))
    {
        site.put(
            path,
            path,
            &text(5000 + n as u64, 200),
            &["/"],
            validation(n as u64),
        );
    }

    let stderr = std::fs::File::create(dir.path().join("child.stderr")).unwrap();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "recrawl_kill::recrawl_child_process",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, format!("{}|{}", site.url("/"), out.display()))
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let started = Instant::now();
    while round_lines(&out, 2).len() < 20 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the child ended before the kill"
        );
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the child recrawl hangs"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = round_lines(&out, 2).len();
    assert!(before < PAGES as usize, "killed mid-round ({before} lines)");

    let report = run_recrawl(config(site.url("/"), &out, 0.0), true)
        .await
        .unwrap();
    assert!(report.finished);
    let lines = round_lines(&out, 2);
    let mut per_url: HashMap<&str, usize> = HashMap::new();
    for line in &lines {
        *per_url.entry(line.url.as_str()).or_default() += 1;
    }
    assert!(
        per_url.values().all(|count| *count == 1),
        "one line per URL: {per_url:?}"
    );
    assert_eq!(per_url.len(), PAGES as usize + 1, "every URL of the round");
    assert!(
        round_lines(&out, 3).is_empty(),
        "the resume finished round 2, no round 3"
    );

    let records = read_warcs(&out);
    for (n, path) in paths.iter().enumerate() {
        let url = site.url(path);
        let of_type = |kind: RecordType| {
            records
                .iter()
                .filter(|r| r.record_type == kind && r.target_uri == url)
                .count()
        };
        let line = lines.iter().find(|l| l.url == url).unwrap();
        if n.is_multiple_of(10) {
            assert_eq!(line.decision, Decision::Archived, "{line:?}");
            assert_eq!(of_type(RecordType::Response), 2, "{url}: two versions");
            assert_eq!(of_type(RecordType::Revisit), 0, "{url}");
        } else {
            let expected = if n.is_multiple_of(2) {
                Decision::NotModified
            } else {
                Decision::Unchanged
            };
            assert_eq!(line.decision, expected, "{line:?}");
            assert_eq!(of_type(RecordType::Response), 1, "{url}");
            assert_eq!(
                of_type(RecordType::Revisit),
                1,
                "{url}: one revisit for the round"
            );
        }
    }
    for file in dedupcrawl_crawler::warc_files(&out.join("warc")).unwrap() {
        let check = Command::new("warcio")
            .arg("check")
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "warcio check {}: {check:?}",
            file.display()
        );
    }
}
