//! Soft 404s end to end (issue 14): a crawl of the soft-404 shop ([`Soft404Site`]: `200`
//! "page not found" for any unknown path, heavy template) together with hosts that answer
//! unknown paths with a real 404 (the issue-10 class hosts, among them the heavy-template
//! shop, and the fixture's host B). Every missing page of the soft-404 shop must come out
//! `soft_404`, unarchived and with its links not followed; every real page must be archived;
//! no other page may be called a soft 404.

mod common;

use std::collections::HashSet;
use std::path::Path;

use dedupcrawl_archive::RecordType;
use dedupcrawl_crawler::{Decision, LogLine, run_crawl};
use dedupcrawl_testsite::{ClassesSite, Soft404Site, Soft404Truth, TestSite};

use common::*;

/// The paths of the shop's soft-404 probes: requests for a random hex path.
fn probe_paths(site: &Soft404Site) -> Vec<String> {
    site.requested_paths()
        .into_iter()
        .filter(|path| {
            let hex: String = path.trim_end_matches(".html").replace('/', "");
            hex.len() == 24 && hex.chars().all(|c| c.is_ascii_hexdigit())
        })
        .collect()
}

/// Problems with the soft-404 shop's pages in a finished crawl in `out`.
fn shop_problems(truth: &Soft404Truth, site: &Soft404Site, out: &Path) -> Vec<String> {
    let lines = crawl_log(out);
    let last = last_line_per_url(&lines);
    let records = read_warcs(out);
    let responses = responses_per_url(&records);
    let archived_uris: HashSet<&str> = records
        .iter()
        .filter(|r| r.record_type != RecordType::Warcinfo)
        .map(|r| r.target_uri.as_str())
        .collect();
    let mut problems = Vec::new();
    for url in &truth.soft_404s {
        match last.get(url) {
            Some(line) if line.decision == Decision::Soft404 && line.resembles.is_some() => {}
            other => problems.push(format!("{url} not logged soft_404: {other:?}")),
        }
        if archived_uris.contains(url.as_str()) {
            problems.push(format!("soft 404 {url} has a WARC record"));
        }
    }
    for url in &truth.real_pages {
        match last.get(url).map(|l| l.decision) {
            Some(Decision::Archived) => {}
            other => problems.push(format!("real page {url} not archived: {other:?}")),
        }
        if responses.get(url).copied().unwrap_or(0) != 1 {
            problems.push(format!("real page {url} has no single response record"));
        }
    }
    let lost = &truth.only_linked_from_soft_404;
    if site
        .requested_paths()
        .iter()
        .any(|p| lost.ends_with(p.as_str()))
        || last.contains_key(lost)
    {
        problems.push(format!("{lost}, linked only from soft 404s, was fetched"));
    }
    problems
}

fn soft_404_lines(lines: &[LogLine]) -> Vec<&LogLine> {
    lines
        .iter()
        .filter(|l| l.decision == Decision::Soft404)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soft_404s_are_logged_and_dropped_with_zero_false_hits() {
    let shop = Soft404Site::start().await.expect("soft-404 shop starts");
    let classes = ClassesSite::start().await.expect("class hosts start");
    let fixture = TestSite::start_with(site_options())
        .await
        .expect("fixture starts");
    let truth = shop.truth().clone();
    let mut seeds = classes.truth().seeds.clone();
    seeds.push(truth.seed.clone());
    seeds.push(fixture.host_b_url());
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let report = run_crawl(config_for(seeds, &out))
        .await
        .expect("crawl runs");
    eprintln!("{}", report.summary());

    let mut problems = shop_problems(&truth, &shop, &out);
    let lines = crawl_log(&out);
    let expected: HashSet<&str> = truth.soft_404s.iter().map(String::as_str).collect();
    let soft = soft_404_lines(&lines);
    let false_hits: Vec<&&LogLine> = soft
        .iter()
        .filter(|l| !expected.contains(l.url.as_str()))
        .collect();
    for line in &false_hits {
        problems.push(format!(
            "false soft 404: {} (resembles {:?}, {:?})",
            line.url, line.resembles, line.similarity
        ));
    }
    let probes = probe_paths(&shop);
    if probes.len() != 2 {
        problems.push(format!(
            "the shop was probed {} times: {probes:?}",
            probes.len()
        ));
    }
    eprintln!(
        "soft-404 fixture: {}/{} soft 404s found, {} false hits over {} lines; real pages \
         archived: {}; probes: {probes:?}",
        soft.len() - false_hits.len(),
        truth.soft_404s.len(),
        false_hits.len(),
        lines.len(),
        truth.real_pages.len()
    );
    assert_eq!(
        report.total.soft_404,
        soft.len() as u64,
        "report counts them"
    );
    assert!(report.finished);
    assert!(problems.is_empty(), "{problems:#?}");
}

/// A crawl stopped by its page budget and resumed does not probe the host again: the probe's
/// answer comes from the crawl state, and still finds every soft 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_crawl_keeps_the_probe_and_does_not_probe_again() {
    let shop = Soft404Site::start().await.expect("soft-404 shop starts");
    let truth = shop.truth().clone();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut config = config_for(vec![truth.seed.clone()], &out);
    config.crawl.max_pages = Some(2);
    let first = run_crawl(config).await.expect("first run");
    assert!(!first.finished, "stopped by the page budget");
    assert_eq!(probe_paths(&shop).len(), 2, "probed once");

    let second = run_crawl(config_for(vec![truth.seed.clone()], &out))
        .await
        .expect("resumed run");
    assert!(second.finished);
    assert!(
        shop.requested_paths()
            .iter()
            .filter(|p| *p == "/robots.txt")
            .count()
            >= 2,
        "the resumed run read robots.txt again"
    );
    assert_eq!(probe_paths(&shop).len(), 2, "not probed again on resume");
    let problems = shop_problems(&truth, &shop, &out);
    assert!(problems.is_empty(), "{problems:#?}");
}
