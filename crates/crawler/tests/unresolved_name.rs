//! A seed whose name does not resolve, through the fetcher's resolve table with
//! `fetch.resolve_only` (no DNS query leaves the machine; the healthy host is reached by a
//! name of the table): the name's host is given up after `fetch.host_max_failures` tries,
//! its seed gets an error line saying "name does not resolve", the healthy host is archived
//! in full, the crawl ends, and a second run tries the name again.

use crate::common;

use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::time::Duration;

use dedupcrawl_crawler::{
    CrawlConfig, CrawlReport, Decision, HOST_GIVEN_UP_NOTE, LogLine, run_crawl,
};
use dedupcrawl_testsite::hostile::{BlackHole, HostileHost, page_paths};

const HEALTHY_PAGES: usize = 20;
const BOUND: Duration = Duration::from_secs(40);
/// RFC 6761: never resolves anywhere.
const NOWHERE: &str = "nowhere.invalid";

fn config(seeds: Vec<String>, out: &Path) -> CrawlConfig {
    let mut config = common::config_for(seeds, out);
    config.fetch.host_max_backoff = 1.0;
    config
        .fetch
        .resolve
        .insert("healthy.test".into(), IpAddr::V4(Ipv4Addr::LOCALHOST));
    config.fetch.resolve_only = true;
    config
}

async fn crawl(config: CrawlConfig) -> CrawlReport {
    tokio::time::timeout(BOUND, run_crawl(config))
        .await
        .unwrap_or_else(|_| panic!("the crawl did not end by itself within {BOUND:?}"))
        .expect("crawl")
}

fn lines_for<'a>(lines: &'a [LogLine], url: &str) -> Vec<&'a LogLine> {
    lines.iter().filter(|l| l.url == url).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_that_does_not_resolve_is_given_up_with_its_reason() {
    let healthy = HostileHost::pages(HEALTHY_PAGES).await.expect("healthy");
    let healthy_seed = format!("http://healthy.test:{}/", healthy.port());
    // Something listens on the port the unresolvable name asks for: were the name resolved
    // to this machine, the listener would see it.
    let listener = BlackHole::start().await.expect("listener");
    let port = listener.url()[7..]
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .and_then(|p| p.parse::<u16>().ok())
        .expect("port");
    let nowhere_seed = format!("http://{NOWHERE}:{port}/");
    let seeds = vec![healthy_seed.clone(), nowhere_seed.clone()];
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");

    let report = crawl(config(seeds.clone(), &out)).await;
    assert!(report.finished, "{report:?}");
    assert!(!report.every_seed_host_given_up);
    assert_eq!(
        report.given_up_hosts.len(),
        1,
        "{:?}",
        report.given_up_hosts
    );
    let given_up = &report.given_up_hosts[0];
    assert_eq!(given_up.host, format!("{NOWHERE}:{port}"));
    assert_eq!(given_up.tries, 3);
    assert!(
        given_up.reason.starts_with("name does not resolve")
            && given_up.reason.contains("resolve_only sends no DNS query"),
        "answered by the resolve table, not by DNS: {given_up:?}"
    );
    assert_eq!(listener.accepted(), 0, "nothing connected");

    let lines = common::crawl_log(&out);
    let seed_lines = lines_for(&lines, &nowhere_seed);
    assert_eq!(seed_lines.len(), 1, "{seed_lines:?}");
    assert_eq!(seed_lines[0].decision, Decision::Error);
    assert_eq!(seed_lines[0].note.as_deref(), Some(HOST_GIVEN_UP_NOTE));
    let error = seed_lines[0].error.as_deref().unwrap_or_default();
    assert!(
        error.starts_with("host unreachable: name does not resolve")
            && error.contains("(3 tries over "),
        "{error}"
    );
    for path in page_paths(HEALTHY_PAGES) {
        let url = format!("{}{}", healthy_seed.trim_end_matches('/'), path);
        let decisions: Vec<Decision> = lines_for(&lines, &url).iter().map(|l| l.decision).collect();
        assert_eq!(decisions, vec![Decision::Archived], "{url}");
    }
    assert!(
        report.summary().contains(NOWHERE),
        "the summary names the host: {}",
        report.summary()
    );

    // The seed stayed queued: the next run tries the name again, and only it.
    let served = healthy.served().len();
    let again = crawl(config(seeds, &out)).await;
    assert_eq!(again.given_up_hosts.len(), 1, "{:?}", again.given_up_hosts);
    assert_eq!(
        healthy.served().len(),
        served,
        "nothing of the healthy host is fetched again"
    );
    let lines = common::crawl_log(&out);
    assert_eq!(
        lines_for(&lines, &nowhere_seed).len(),
        2,
        "one error line per run"
    );
}
