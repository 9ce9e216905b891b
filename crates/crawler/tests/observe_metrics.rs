//! `/metrics` during and after a crawl of the fixture site, parsed by a real OpenMetrics
//! parser (prometheus_client from PyPI): it parses while the crawl runs, and at the end its
//! counters equal `report.json`.

use crate::common;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use dedupcrawl_crawler::{CrawlReport, HostReport, run_observed_crawl};
use dedupcrawl_observe::{CrawlObserver, Dashboard};
use dedupcrawl_testsite::TestSite;
use serde::Deserialize;

use common::*;

#[derive(Debug, Deserialize)]
struct Sample {
    family: String,
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

/// Scrapes `/metrics` with the Python parser; panics if it does not parse.
fn scrape(address: SocketAddr) -> Vec<Sample> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/openmetrics_to_json.py");
    let output = Command::new("python3")
        .arg(&script)
        .arg(format!("http://{address}/metrics"))
        .output()
        .expect("run python3 (scripts/install-test-tools installs prometheus_client)");
    assert!(
        output.status.success(),
        "/metrics did not parse: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("parser output is JSON")
}

fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    samples
        .iter()
        .find(|s| {
            s.name == name
                && labels.len() == s.labels.len()
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
}

fn decisions(report: &HostReport) -> [(&'static str, u64); 9] {
    [
        ("archived", report.archived),
        ("exact_duplicate", report.exact_duplicates),
        ("near_duplicate", report.near_duplicates),
        ("contained", report.contained),
        ("not_modified", report.not_modified),
        ("robots_disallowed", report.robots_disallowed),
        ("out_of_scope", report.out_of_scope),
        ("filtered", report.filtered),
        ("error", report.errors),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_parse_during_the_crawl_and_equal_the_report_at_the_end() {
    let site = TestSite::start_with(site_options())
        .await
        .expect("site starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");

    let mut dashboard = Dashboard::new();
    let observer: Arc<CrawlObserver> = dashboard.add_crawl("fixture", false);
    let (listener, token) = dedupcrawl_observe::bind("127.0.0.1:0".parse().unwrap(), None)
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(dedupcrawl_observe::serve(
        listener,
        dashboard.router(token),
        async move {
            let _ = stopped.await;
        },
    ));
    let crawl = tokio::spawn(run_observed_crawl(
        test_config(&site, &out),
        Arc::clone(&observer),
    ));

    // While the crawl runs: wait for its first decisions, then scrape.
    let mut during = None;
    while !crawl.is_finished() {
        if observer.snapshot().total.fetched > 0 {
            during = Some(
                tokio::task::spawn_blocking(move || scrape(address))
                    .await
                    .unwrap(),
            );
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let report = crawl.await.expect("crawl task").expect("crawl runs");
    assert!(report.finished, "{}", report.summary());
    let during = during.expect("the crawl ran long enough to be scraped while running");
    assert!(
        during
            .iter()
            .any(|s| s.family == "dedupcrawl_pages" && s.value > 0.0),
        "pages counted while running"
    );

    let after = tokio::task::spawn_blocking(move || scrape(address))
        .await
        .unwrap();
    let _ = stop.send(());
    server.await.expect("server task").expect("server ran");

    let written: CrawlReport =
        serde_json::from_slice(&std::fs::read(out.join("report.json")).expect("report.json"))
            .expect("report.json parses");
    assert_eq!(written.total, report.total);
    let mut mismatches = Vec::new();
    for (host, counts) in &written.hosts {
        for (decision, expected) in decisions(counts) {
            let got = value(
                &after,
                "dedupcrawl_pages_total",
                &[("host", host), ("decision", decision)],
            )
            .unwrap_or(0.0);
            if got != expected as f64 {
                mismatches.push(format!(
                    "{host} {decision}: metrics {got}, report {expected}"
                ));
            }
        }
        for (name, expected) in [
            ("dedupcrawl_fetched_bytes_total", counts.bytes_fetched),
            ("dedupcrawl_saved_bytes_total", counts.bytes_saved),
        ] {
            let got = value(&after, name, &[("host", host)]).unwrap_or(0.0);
            if got != expected as f64 {
                mismatches.push(format!("{host} {name}: metrics {got}, report {expected}"));
            }
        }
    }
    let pages_sum: f64 = after
        .iter()
        .filter(|s| s.name == "dedupcrawl_pages_total")
        .map(|s| s.value)
        .sum();
    let report_sum: u64 = decisions(&written.total).iter().map(|(_, n)| n).sum();
    if pages_sum != report_sum as f64 {
        mismatches.push(format!(
            "sum of pages_total {pages_sum}, report {report_sum}"
        ));
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");

    // Histograms, gauges and status counts are there with their units.
    let fetches = value(&after, "dedupcrawl_fetch_duration_seconds_count", &[]).expect("latency");
    assert!(fetches >= written.total.fetched as f64, "every fetch timed");
    let sized = value(&after, "dedupcrawl_page_size_bytes_count", &[]).expect("page size");
    let responses: f64 = after
        .iter()
        .filter(|s| s.name == "dedupcrawl_http_responses_total")
        .map(|s| s.value)
        .sum();
    assert_eq!(sized, responses, "one page size per response");
    // The fixture site answers 429 with Retry-After and 5xx before it recovers.
    let retry_later: f64 = after
        .iter()
        .filter(|s| {
            s.name == "dedupcrawl_http_responses_total"
                && s.labels
                    .get("code")
                    .is_some_and(|c| c == "429" || c.starts_with('5'))
        })
        .map(|s| s.value)
        .sum();
    assert!(retry_later > 0.0, "429/5xx responses counted");
    let documents = value(&after, "dedupcrawl_index_documents", &[]).expect("index gauge");
    assert!(documents > 0.0, "index size sampled");
    let warc = value(&after, "dedupcrawl_warc_bytes", &[]).expect("warc gauge");
    let on_disk: u64 = dedupcrawl_crawler::warc_files(&out.join("warc"))
        .expect("WARC files")
        .iter()
        .map(|f| std::fs::metadata(f).expect("size").len())
        .sum();
    assert_eq!(warc, on_disk as f64, "WARC bytes after the crawl");
    assert!(value(&after, "dedupcrawl_frontier_queued_urls", &[]).is_some());
}
