//! A crawl always ends and says why: a refused port, a listener that never answers and TLS
//! asked of a plain-HTTP port, next to a healthy host. Each broken host is given up for the
//! run after `fetch.host_max_failures` failures in a row, its seed gets an `error` line, the
//! report lists it, the healthy host is archived in full, and a second run tries the broken
//! hosts again (their URLs stayed queued).

use crate::common;

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use dedupcrawl_crawler::{
    CrawlConfig, CrawlReport, Decision, HOST_GIVEN_UP_NOTE, LogLine, run_crawl,
};
use dedupcrawl_testsite::hostile::{BlackHole, HostileHost, page_paths, refused_port};

/// Pages of the healthy host.
const HEALTHY_PAGES: usize = 60;
/// A crawl of these hosts with the test timeouts below ends well within this.
const BOUND: Duration = Duration::from_secs(40);

fn config(seeds: Vec<String>, out: &Path) -> CrawlConfig {
    let mut config = common::config_for(seeds, out);
    config.fetch.host_max_backoff = 1.0;
    config
}

async fn crawl_within(config: CrawlConfig, bound: Duration) -> (CrawlReport, Duration) {
    let started = Instant::now();
    let report = tokio::time::timeout(bound, run_crawl(config))
        .await
        .unwrap_or_else(|_| panic!("the crawl did not end by itself within {bound:?}"))
        .expect("crawl");
    (report, started.elapsed())
}

fn lines_by_url(lines: &[LogLine]) -> HashMap<&str, Vec<&LogLine>> {
    let mut by_url: HashMap<&str, Vec<&LogLine>> = HashMap::new();
    for line in lines {
        by_url.entry(line.url.as_str()).or_default().push(line);
    }
    by_url
}

fn given_up_reason<'a>(report: &'a CrawlReport, authority: &str) -> &'a str {
    report
        .given_up_hosts
        .iter()
        .find(|h| h.host == authority)
        .map(|h| h.reason.as_str())
        .unwrap_or_else(|| panic!("{authority} is not listed as given up: {report:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_hosts_are_given_up_and_the_healthy_host_is_archived_in_full() {
    let healthy = HostileHost::pages(HEALTHY_PAGES)
        .await
        .expect("healthy host");
    let refused = refused_port().expect("free port");
    let black_hole = BlackHole::start().await.expect("black hole");
    let plain = HostileHost::pages(2).await.expect("plain host");
    let refused_url = format!("http://127.0.0.1:{refused}/");
    let broken = [
        (refused_url.clone(), format!("127.0.0.1:{refused}")),
        (
            black_hole.url(),
            black_hole.url()[7..].trim_end_matches('/').to_string(),
        ),
        (plain.https_url(), plain.authority()),
    ];
    let mut seeds = vec![healthy.url()];
    seeds.extend(broken.iter().map(|(url, _)| url.clone()));
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");

    let (report, took) = crawl_within(config(seeds.clone(), &out), BOUND).await;
    assert!(report.finished, "{report:?}");
    assert!(!report.every_seed_host_given_up);
    assert_eq!(
        report.given_up_hosts.len(),
        3,
        "{:?}",
        report.given_up_hosts
    );
    for host in &report.given_up_hosts {
        assert_eq!(host.tries, 3, "{host:?}");
    }
    assert_eq!(given_up_reason(&report, &broken[0].1), "connection refused");
    // The head limit (connect + read timeout) and total_timeout are both 2 s here: either ends it.
    let black_hole_reason = given_up_reason(&report, &broken[1].1);
    assert!(
        black_hole_reason.starts_with("no response within")
            || black_hole_reason.starts_with("fetch not done within total_timeout"),
        "{report:?}"
    );
    assert!(
        given_up_reason(&report, &broken[2].1).starts_with("TLS handshake failed"),
        "{report:?}"
    );
    assert!(black_hole.accepted() >= 3, "each try connected");

    let lines = common::crawl_log(&out);
    let by_url = lines_by_url(&lines);
    for path in page_paths(HEALTHY_PAGES) {
        let url = format!("{}{}", healthy.url().trim_end_matches('/'), path);
        let decisions: Vec<Decision> = by_url
            .get(url.as_str())
            .map(|l| l.iter().map(|l| l.decision).collect())
            .unwrap_or_default();
        assert_eq!(decisions, vec![Decision::Archived], "{url}");
    }
    for (seed, _) in &broken {
        let seed_lines = by_url
            .get(seed.as_str())
            .expect("a line for the broken seed");
        assert_eq!(seed_lines.len(), 1, "{seed_lines:?}");
        let line = seed_lines[0];
        assert_eq!(line.decision, Decision::Error);
        assert_eq!(line.note.as_deref(), Some(HOST_GIVEN_UP_NOTE));
        let error = line.error.as_deref().unwrap_or_default();
        assert!(
            error.starts_with("host unreachable: ") && error.contains("(3 tries over "),
            "{error}"
        );
    }
    let report_json = std::fs::read_to_string(out.join("report.json")).expect("report.json");
    let report_json: serde_json::Value = serde_json::from_str(&report_json).expect("JSON");
    assert_eq!(
        report_json["given_up_hosts"].as_array().map(Vec::len),
        Some(3)
    );
    assert!(report.summary().contains("hosts given up in this run"));
    eprintln!("first run: {took:?}");

    // A second run tries the given-up hosts again (their seeds stayed queued) and fetches
    // nothing of the healthy host twice.
    let healthy_requests = healthy.served().len();
    let accepted = black_hole.accepted();
    let (again, _) = crawl_within(config(seeds, &out), BOUND).await;
    assert_eq!(again.given_up_hosts.len(), 3, "{:?}", again.given_up_hosts);
    assert!(black_hole.accepted() >= accepted + 3);
    assert_eq!(
        healthy.served().len(),
        healthy_requests,
        "healthy host fetched again"
    );
    let lines = common::crawl_log(&out);
    let by_url = lines_by_url(&lines);
    for (seed, _) in &broken {
        assert_eq!(
            by_url[seed.as_str()].len(),
            2,
            "one error line per run: {seed}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn when_every_seed_host_is_given_up_the_report_says_so() {
    let refused = refused_port().expect("free port");
    let plain = HostileHost::pages(2).await.expect("plain host");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let seeds = vec![format!("http://127.0.0.1:{refused}/"), plain.https_url()];
    let (report, _) = crawl_within(config(seeds, &out), BOUND).await;
    assert!(report.every_seed_host_given_up, "{report:?}");
    assert_eq!(report.total.archived, 0);
    assert_eq!(report.total.errors, 2);
}
