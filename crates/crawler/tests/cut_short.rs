//! A connection closed mid-body (a `Content-Length` larger than what is sent, then the
//! connection closed): the page is retried as `fetch.max_attempts` says and then gets its
//! `error` line; the host answered, so it is not given up; the crawl ends and a healthy host
//! next to it is archived in full.

use crate::common;

use std::time::{Duration, Instant};

use dedupcrawl_crawler::{Decision, LogLine, run_crawl};
use dedupcrawl_testsite::hostile::{Behaviour, HostileHost, page_html, page_paths};

const HEALTHY_PAGES: usize = 30;
/// Pages of the host with one page cut short: `/` and `/page/1` … `/page/5`.
const CUT_HOST_PAGES: usize = 6;
const CUT_PATH: &str = "/page/3";
/// Its pages' prose is that of healthy pages from this number on.
const FIRST_PAGE: usize = 1000;
const SENT: usize = 500;
const BOUND: Duration = Duration::from_secs(40);

fn lines_for<'a>(lines: &'a [LogLine], url: &str) -> Vec<&'a LogLine> {
    lines.iter().filter(|l| l.url == url).collect()
}

fn assert_gave_up_after_three_tries(lines: &[LogLine], url: &str) {
    let found = lines_for(lines, url);
    assert_eq!(found.len(), 1, "one line for {url}: {found:?}");
    let line = found[0];
    assert_eq!(line.decision, Decision::Error, "{line:?}");
    assert_eq!(
        line.note.as_deref(),
        Some("gave up after 3 tries"),
        "{line:?}"
    );
    let error = line.error.as_deref().unwrap_or_default();
    assert!(
        error.starts_with("connection broke while reading the body of "),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_cut_short_is_retried_then_logged_and_the_crawl_ends() {
    let healthy = HostileHost::pages(HEALTHY_PAGES).await.expect("healthy");
    // Pages of their own (the healthy host's prose is keyed by page number).
    let page = |k: usize| page_html(FIRST_PAGE + k, 0);
    let cut_page = page(3);
    assert!(cut_page.len() > SENT);
    let links: String = (1..CUT_HOST_PAGES)
        .map(|k| format!("<a href=\"/page/{k}\">page {k}</a>"))
        .collect();
    let home = page(0).replace("</body>", &format!("{links}</body>"));
    let one_cut = HostileHost::start(move |path| {
        let k = path
            .strip_prefix("/page/")
            .and_then(|k| k.parse::<usize>().ok())
            .filter(|&k| k > 0 && k < CUT_HOST_PAGES);
        match (path, k) {
            (CUT_PATH, _) => Behaviour::CutShort {
                announced: cut_page.len() as u64,
                body: cut_page[..SENT].to_string(),
            },
            ("/", _) => Behaviour::Html(home.clone()),
            (_, Some(k)) => Behaviour::Html(page(k)),
            _ => Behaviour::NotFound,
        }
    })
    .await
    .expect("host with one page cut short");
    // Every page of this one is cut short (robots.txt is a plain 404).
    let all_cut = HostileHost::start(|path| match path {
        "/robots.txt" => Behaviour::NotFound,
        _ => Behaviour::CutShort {
            announced: 5000,
            body: "<html><body><p>cut".into(),
        },
    })
    .await
    .expect("host with every page cut short");

    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let seeds = vec![healthy.url(), one_cut.url(), all_cut.url()];
    let config = common::config_for(seeds, &out);
    assert_eq!(config.fetch.max_attempts, 3, "the default");
    let started = Instant::now();
    let report = tokio::time::timeout(BOUND, run_crawl(config))
        .await
        .unwrap_or_else(|_| panic!("the crawl did not end by itself within {BOUND:?}"))
        .expect("crawl");
    eprintln!("crawl took {:?}", started.elapsed());
    assert!(report.finished, "{report:?}");
    assert!(
        report.given_up_hosts.is_empty(),
        "hosts that answer are not given up: {:?}",
        report.given_up_hosts
    );

    let lines = common::crawl_log(&out);
    let responses = common::responses_per_url(&common::read_warcs(&out));
    for (host, pages, skip) in [
        (&healthy, HEALTHY_PAGES, None),
        (&one_cut, CUT_HOST_PAGES, Some(CUT_PATH)),
    ] {
        for path in page_paths(pages) {
            if Some(path.as_str()) == skip {
                continue;
            }
            let url = format!("{}{}", host.url().trim_end_matches('/'), path);
            let decisions: Vec<Decision> =
                lines_for(&lines, &url).iter().map(|l| l.decision).collect();
            assert_eq!(decisions, vec![Decision::Archived], "{url}");
            assert_eq!(responses.get(&url).copied(), Some(1), "{url}");
        }
    }

    let cut_url = format!("{}{}", one_cut.url().trim_end_matches('/'), CUT_PATH);
    assert_gave_up_after_three_tries(&lines, &cut_url);
    let error = lines_for(&lines, &cut_url)[0]
        .error
        .clone()
        .unwrap_or_default();
    assert!(error.contains(&format!("after {SENT} bytes")), "{error}");
    assert!(
        !responses.contains_key(&cut_url),
        "a cut body is not archived"
    );
    let tries = one_cut
        .served()
        .iter()
        .filter(|s| s.path == CUT_PATH)
        .count();
    assert_eq!(tries, 3, "tried max_attempts times");

    // The seed of the host that cuts everything has its error line.
    assert_gave_up_after_three_tries(&lines, &all_cut.url());
    let seed_tries = all_cut.served().iter().filter(|s| s.path == "/").count();
    assert_eq!(seed_tries, 3);
}
