//! What a person sees on the dashboard, checked against the data: headless Chromium renders the
//! page (over the DevTools protocol, see `support/browser.rs`), the test reads every table cell
//! under its heading (the header cell at the same column index), the totals cards, the
//! alignment of each column's text with its heading, and the points of the pages-per-second
//! chart read off its axes, and compares them with `report.json`, the crawl log and the dedup
//! index.
//!
//! * A finished crawl under `dedupcrawl serve OUT`: every host row equals `report.json`, every
//!   card its total, "in index" the index's own count, the recent decisions the crawl log's
//!   last lines, the chart the crawl log's decisions per second.
//! * A running crawl under `dedupcrawl crawl --serve`: the page shows the crawl log up to the
//!   newest decision it lists (the observer sees lines in the order they are logged), so every
//!   count, row and chart point equals what the first lines of the finished crawl log give.
//!
//! Every mismatch is listed (not only the first); the screenshot of the checked page and what
//! was read from it go to `CARGO_TARGET_TMPDIR/dashboard_cells/TEST/`.

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use dedupcrawl_crawler::{CrawlConfig, CrawlReport, HostReport, LogLine, read_crawl_log};
use dedupcrawl_testsite::{TestSite, TestSiteOptions};
use serde::{Deserialize, Serialize};
use support::browser::{Tab, free_address, wait_for};

mod checks;
mod page;
use checks::*;
use page::*;

const CONFIG: &str = "[crawl]\nprogress = false\n\n[fetch]\nconnect_timeout = 1.0\n\
                      read_timeout = 1.0\ntotal_timeout = 2.0\nretry_backoff = 0.2\n\
                      max_retry_after = 5.0\nrobots_retry = 1.0\nmax_body_bytes = 2097152\n";

/// The viewport of the screenshot.
const VIEWPORT: (u32, u32) = (1400, 1000);

/// Decisions the "Recent decisions" table lists (`dedupcrawl_observe::RECENT`).
const RECENT: usize = 100;

/// The test's output directory (kept after the run).
fn output_dir(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("dashboard_cells")
        .join(test);
    std::fs::create_dir_all(&dir).expect("output dir");
    dir
}

/// Keeps the screenshot of the checked page and what was read from it; fails with every
/// finding.
fn report_findings(test: &str, findings: Findings, seen: &Seen, screenshot: &[u8]) {
    let dir = output_dir(test);
    let picture = dir.join("dashboard.png");
    std::fs::write(&picture, screenshot).expect("write screenshot");
    std::fs::write(
        dir.join("seen.json"),
        serde_json::to_string_pretty(seen).expect("JSON"),
    )
    .expect("write seen.json");
    assert!(
        findings.0.is_empty(),
        "{} mismatches between the page and the data (screenshot {}, page read {}):\n{}",
        findings.0.len(),
        picture.display(),
        dir.join("seen.json").display(),
        findings.0.join("\n")
    );
    assert!(
        screenshot.starts_with(b"\x89PNG"),
        "the screenshot is no PNG"
    );
}

/// The documents in the crawl's dedup index, by the index itself (the crawl has ended).
fn index_documents(out: &Path) -> u64 {
    let mut config = CrawlConfig::load(&out.join("crawl.toml")).expect("the crawl's saved config");
    config.crawl.out = out.to_path_buf();
    dedupcrawl_crawler::open_crawl_index(&config)
        .expect("open the crawl's index")
        .stats()
        .expect("index stats")
        .documents
}

fn warc_bytes(out: &Path) -> u64 {
    dedupcrawl_crawler::warc_files(&out.join("warc"))
        .expect("WARC files")
        .iter()
        .map(|file| std::fs::metadata(file).expect("WARC file").len())
        .sum()
}

fn start_site(runtime: &tokio::runtime::Runtime, crawl_delay: f64) -> TestSite {
    runtime
        .block_on(TestSite::start_with(TestSiteOptions {
            crawl_delay: Some(crawl_delay),
            retry_after_secs: 1,
            slow_delay: Duration::from_secs(3),
            huge_bytes: 3 * 1024 * 1024,
            separate_ips: true,
        }))
        .expect("site starts")
}

fn crawl_command(dir: &Path, out: &Path, site: &TestSite) -> Command {
    let config = dir.join("crawl.toml");
    std::fs::write(&config, CONFIG).expect("config");
    let mut command = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"));
    command
        .arg("crawl")
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(out)
        .args(["--delay", "0", "--seed"])
        .arg(site.main_url())
        .arg("--seed")
        .arg(site.host_b_url());
    command
}

struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_shows_every_count_of_a_finished_crawl_under_its_heading() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = start_site(&runtime, 0.05);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    support::run(&mut crawl_command(dir.path(), &out, &site));
    let address = free_address();
    let mut serve = KillOnDrop(
        Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
            .arg("serve")
            .arg(&out)
            .arg("--listen")
            .arg(address.to_string())
            .spawn()
            .expect("start serve"),
    );
    wait_for(address, &mut serve.0);
    let mut tab = Tab::open(&format!("http://{address}/"), VIEWPORT.0, VIEWPORT.1);
    let seen = read_page_when(
        &mut tab,
        |seen| seen.status == "finished" && !seen.hosts.rows.is_empty(),
        || None,
    );
    let screenshot = tab.screenshot();
    drop(tab);

    let lines = read_crawl_log(&out.join("crawl.log.jsonl")).expect("crawl log");
    let report: CrawlReport =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report"))
            .expect("report parses");
    let report_json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report"))
            .expect("report parses");
    let documents = index_documents(&out);
    assert!(documents > 0, "the fixture crawl indexed pages");
    let expected = Expected {
        report: &report,
        lines: &lines,
        index_documents: IndexSize::Exactly(documents),
        finished: Some(FinishedCrawl {
            warc_bytes: warc_bytes(&out),
        }),
    };
    let mut findings = check_page(&seen, &expected);
    if report_json["index_documents"] != serde_json::json!(documents) {
        findings.add(format!(
            "report.json: index_documents is {}, the index holds {documents}",
            report_json["index_documents"]
        ));
    }
    report_findings(
        "serve_shows_every_count_of_a_finished_crawl_under_its_heading",
        findings,
        &seen,
        &screenshot,
    );
}

#[test]
fn crawl_serve_shows_the_crawl_log_so_far_under_its_headings() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    // Host A's crawl delay keeps the crawl running for several seconds.
    let site = start_site(&runtime, 0.1);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let address = free_address();
    let mut crawl = KillOnDrop(
        crawl_command(dir.path(), &out, &site)
            .arg("--serve")
            .arg(address.to_string())
            .spawn()
            .expect("start crawl"),
    );
    wait_for(address, &mut crawl.0);
    let mut tab = Tab::open(&format!("http://{address}/"), VIEWPORT.0, VIEWPORT.1);
    // A page well into the crawl (it fetches 134 pages, host A's at most 10 a second): several
    // seconds of decisions, the index sampled since pages were archived.
    let seen = read_page_when(
        &mut tab,
        |seen| {
            seen.status == "running"
                && seen.card("fetched").and_then(count_of).unwrap_or(0) >= 40
                && seen.card("in index").and_then(count_of).unwrap_or(0) > 0
        },
        || {
            crawl
                .0
                .try_wait()
                .expect("crawl")
                .map(|status| format!("the crawl ended ({status}) before the page was read"))
        },
    );
    let screenshot = tab.screenshot();
    drop(tab);
    let status = crawl.0.wait().expect("crawl");
    assert!(status.success(), "crawl: {status}");

    let lines = read_crawl_log(&out.join("crawl.log.jsonl")).expect("crawl log");
    // The newest decision listed is the last line of the log the page shows.
    let url_column = seen
        .recent
        .headings
        .iter()
        .position(|heading| heading.text == "url")
        .expect("recent decisions have a url column");
    let newest = &seen.recent.rows[0][url_column].text;
    let shown = lines
        .iter()
        .position(|line| &line.url == newest)
        .unwrap_or_else(|| panic!("{newest} (newest on the page) is not in the crawl log"))
        + 1;
    let mut report = CrawlReport::default();
    for line in &lines[..shown] {
        report.add(line);
    }
    let expected = Expected {
        report: &report,
        lines: &lines[..shown],
        index_documents: IndexSize::AtMost(index_documents(&out)),
        finished: None,
    };
    let findings = check_page(&seen, &expected);
    report_findings(
        "crawl_serve_shows_the_crawl_log_so_far_under_its_headings",
        findings,
        &seen,
        &screenshot,
    );
}
