//! A server killed mid-crawl and started again on the same port: its host resumes, within
//! the run when it is back before `fetch.host_max_failures` failures in a row, else on the
//! next run (its URLs stayed queued). Nothing is fetched twice (requests counted per path by
//! the server, over both of its lives) and every page is archived exactly once.

use crate::common;

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use dedupcrawl_crawler::{CrawlConfig, CrawlReport, Decision, run_crawl};
use dedupcrawl_testsite::hostile::{Behaviour, HostileHost, page_behaviour, page_paths};

const PAGES: usize = 40;
/// The server dies when this page is asked for (depth 2: some pages come before it, some
/// after).
const DIES_AT: &str = "/page/12";
const BOUND: Duration = Duration::from_secs(60);

/// The healthy pages; the first life of the server dies at [`DIES_AT`].
async fn server(port: u16, dies: bool) -> HostileHost {
    HostileHost::start_on(port, move |path| {
        if dies && path == DIES_AT {
            Behaviour::Die
        } else {
            page_behaviour(path, PAGES)
        }
    })
    .await
    .expect("server")
}

fn config(seed: String, out: &Path, host_max_failures: u32) -> CrawlConfig {
    let mut config = common::config_for(vec![seed], out);
    config.fetch.host_max_failures = host_max_failures;
    config.fetch.retry_backoff = 0.2;
    config.fetch.host_max_backoff = 1.0;
    config
}

async fn crawl(config: CrawlConfig) -> CrawlReport {
    tokio::time::timeout(BOUND, run_crawl(config))
        .await
        .unwrap_or_else(|_| panic!("the crawl did not end by itself within {BOUND:?}"))
        .expect("crawl")
}

/// Completed answers per path over the server's lives.
fn requests_per_path(lives: &[&HostileHost]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for life in lives {
        for served in life.served() {
            *counts.entry(served.path).or_default() += 1;
        }
    }
    counts
}

/// Every page archived exactly once: one `archived` line and one WARC response each.
fn assert_archived_once(out: &Path, base: &str) {
    let lines = common::crawl_log(out);
    let responses = common::responses_per_url(&common::read_warcs(out));
    for path in page_paths(PAGES) {
        let url = format!("{}{path}", base.trim_end_matches('/'));
        let decisions: Vec<Decision> = lines
            .iter()
            .filter(|l| l.url == url)
            .map(|l| l.decision)
            .collect();
        assert_eq!(decisions, vec![Decision::Archived], "{url}");
        assert_eq!(
            responses.get(&url).copied(),
            Some(1),
            "WARC responses of {url}"
        );
    }
    for (url, count) in &responses {
        assert_eq!(*count, 1, "{url} archived {count} times");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_back_within_the_run_is_resumed_and_nothing_is_fetched_twice() {
    let first = server(0, true).await;
    let port = first.port();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    // Back after 0.5 s: within 8 failures in a row (pauses 0.2, 0.4, 0.8, 1 s...).
    let mut config = config(first.url(), &out, 8);
    // The URL in flight when the server died fails on each try while it is down.
    config.fetch.max_attempts = 10;

    let restart = async {
        tokio::time::timeout(BOUND, first.stopped())
            .await
            .expect("the crawl reached the page the server dies at");
        tokio::time::sleep(Duration::from_millis(500)).await;
        server(port, false).await
    };
    let (report, second) = tokio::join!(crawl(config), restart);

    assert!(report.finished, "{report:?}");
    assert!(
        report.given_up_hosts.is_empty(),
        "back in time, not given up: {:?}",
        report.given_up_hosts
    );
    let before = first.served().len();
    let after = second.served().len();
    assert!(
        before > 0 && after > 0,
        "the server died mid-crawl: {before} answers before, {after} after"
    );
    let requests = requests_per_path(&[&first, &second]);
    for (path, count) in &requests {
        assert_eq!(*count, 1, "{path} fetched {count} times");
    }
    assert!(
        !first.served().iter().any(|s| s.path == DIES_AT),
        "the first life never answered {DIES_AT}"
    );
    assert_archived_once(&out, &first.url());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_given_up_for_the_run_is_resumed_by_the_next_run() {
    let first = server(0, true).await;
    let port = first.port();
    let seed = first.url();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");

    // The server stays dead: the run gives its host up after 2 failures in a row and ends.
    let report = crawl(config(seed.clone(), &out, 2)).await;
    assert!(first.served().iter().all(|s| s.path != DIES_AT));
    assert_eq!(report.given_up_hosts.len(), 1, "{report:?}");
    let given_up = &report.given_up_hosts[0];
    assert_eq!(given_up.host, format!("127.0.0.1:{port}"));
    assert_eq!(given_up.tries, 2);
    assert!(report.every_seed_host_given_up);
    let archived_first = report.total.archived;
    assert!(
        archived_first > 0 && (archived_first as usize) < PAGES,
        "killed mid-crawl: {archived_first} of {PAGES} pages archived in the first run"
    );

    // Started again on its port: the next run takes the queued URLs up.
    let second = server(port, false).await;
    let again = crawl(config(seed.clone(), &out, 2)).await;
    assert!(again.finished, "{again:?}");
    assert!(
        again.given_up_hosts.is_empty(),
        "{:?}",
        again.given_up_hosts
    );
    assert!(!again.every_seed_host_given_up);

    let requests = requests_per_path(&[&first, &second]);
    for (path, count) in &requests {
        // robots.txt is read once per run.
        let expected = if path == "/robots.txt" { 2 } else { 1 };
        assert_eq!(*count, expected, "{path} fetched {count} times");
    }
    let second_pages = second
        .served()
        .iter()
        .filter(|s| s.path.starts_with("/page/"))
        .count();
    assert_eq!(
        archived_first as usize + second_pages,
        PAGES,
        "the second run fetched exactly the pages the first did not"
    );
    assert_archived_once(&out, &seed);
}
