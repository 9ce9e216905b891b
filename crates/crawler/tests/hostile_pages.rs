//! Hostile pages do not hold a crawl hostage: a body dripping one byte a second and a
//! header section of 4 MiB end within `fetch.total_timeout` (the connection is let go, the
//! host's slot freed, the host's other pages crawled), and a page of 500,000 links gives at
//! most `crawl.max_links_per_page` of them to the frontier, saying so in the crawl log.

use crate::common;

use std::time::{Duration, Instant};

use dedupcrawl_crawler::{CrawlReport, Decision, LogLine, run_crawl};
use dedupcrawl_testsite::hostile::{Behaviour, HostileHost, link_flood_html, page_html};

const TOTAL_TIMEOUT: f64 = 2.0;
/// How late after `total_timeout` the server may see the connection closed.
const CLOSE_SLACK: Duration = Duration::from_millis(1500);

fn line_for<'a>(lines: &'a [LogLine], url: &str) -> &'a LogLine {
    let found: Vec<&LogLine> = lines.iter().filter(|l| l.url == url).collect();
    assert_eq!(found.len(), 1, "one line for {url}: {found:?}");
    found[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dripping_body_and_a_huge_header_section_end_within_total_timeout() {
    let host = HostileHost::start(|path| match path {
        "/" => Behaviour::Html(format!(
            "<html><body><main>{}</main><a href=\"/drip\">drip</a> \
             <a href=\"/big-header\">big header</a>{}</body></html>",
            page_html(0, 1),
            (1..=5)
                .map(|k| format!("<a href=\"/page/{k}\">{k}</a>"))
                .collect::<String>()
        )),
        "/drip" => Behaviour::Drip {
            length: 10_000,
            interval: Duration::from_secs(1),
        },
        "/big-header" => Behaviour::HugeHeader {
            bytes: 4 * 1024 * 1024,
            chunk: 1024,
            interval: Duration::from_millis(2),
        },
        _ => match path
            .strip_prefix("/page/")
            .and_then(|k| k.parse::<usize>().ok())
        {
            Some(k) => Behaviour::Html(page_html(k, 6)),
            None => Behaviour::NotFound,
        },
    })
    .await
    .expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut config = common::config_for(vec![host.url()], &out);
    config.crawl.per_host = 1;
    config.fetch.total_timeout = TOTAL_TIMEOUT;
    // Longer than total_timeout: only the total limit can end the drip and the header.
    config.fetch.read_timeout = 5.0;
    config.fetch.max_attempts = 2;
    config.fetch.host_max_backoff = 1.0;

    let started = Instant::now();
    let report: CrawlReport = tokio::time::timeout(Duration::from_secs(40), run_crawl(config))
        .await
        .expect("the crawl ends by itself")
        .expect("crawl");
    eprintln!("crawl took {:?}", started.elapsed());
    assert!(report.finished);
    assert!(
        report.given_up_hosts.is_empty(),
        "{:?}",
        report.given_up_hosts
    );

    let lines = common::crawl_log(&out);
    let base = host.url();
    for k in 1..=5 {
        let url = format!("{base}page/{k}");
        assert_eq!(line_for(&lines, &url).decision, Decision::Archived, "{url}");
    }
    for path in ["drip", "big-header"] {
        let line = line_for(&lines, &format!("{base}{path}"));
        assert_eq!(line.decision, Decision::Error, "{line:?}");
        assert_eq!(
            line.note.as_deref(),
            Some("gave up after 2 tries"),
            "{line:?}"
        );
    }
    let served = host.served();
    let drips = served.iter().filter(|s| s.path == "/drip").count();
    assert_eq!(drips, 2, "tried twice");
    let limit = Duration::from_secs_f64(TOTAL_TIMEOUT) + CLOSE_SLACK;
    for request in &served {
        assert!(
            request.held() <= limit,
            "{} held its connection {:?} (total_timeout {TOTAL_TIMEOUT} s)",
            request.path,
            request.held()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_500000_links_gives_the_frontier_at_most_max_links_per_page() {
    const LINKS: usize = 500_000;
    const CAP: usize = 5_000;
    let flood = link_flood_html(LINKS);
    let host = HostileHost::start(move |path| match path {
        "/" => Behaviour::Html(flood.clone()),
        _ => Behaviour::NotFound,
    })
    .await
    .expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut config = common::config_for(vec![host.url()], &out);
    assert_eq!(config.crawl.max_links_per_page, CAP, "the default");
    config.fetch.max_body_bytes = 64 * 1024 * 1024;
    config.fetch.total_timeout = 30.0;
    config.fetch.read_timeout = 10.0;
    // Every taken link gets an out_of_scope line: countable without fetching them.
    config.scope.deny_patterns = vec!["/flood/".into()];

    let started = Instant::now();
    let report = tokio::time::timeout(Duration::from_secs(120), run_crawl(config))
        .await
        .expect("the crawl ends by itself")
        .expect("crawl");
    let took = started.elapsed();
    eprintln!("crawl of a {LINKS}-link page took {took:?}");
    assert!(report.finished);
    let lines = common::crawl_log(&out);
    let page = line_for(&lines, &host.url());
    assert_eq!(page.decision, Decision::Archived);
    let note = page.note.as_deref().unwrap_or_default();
    assert!(
        note.contains(&format!("took the first {CAP} of {LINKS}")),
        "{note}"
    );
    let taken = lines
        .iter()
        .filter(|l| l.decision == Decision::OutOfScope && l.url.contains("/flood/"))
        .count();
    assert_eq!(taken, CAP);
    assert!(
        lines.iter().any(|l| l.url.ends_with("/flood/4999"))
            && !lines.iter().any(|l| l.url.ends_with("/flood/5000")),
        "the first links in document order are taken"
    );
}
