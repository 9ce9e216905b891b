//! Soft 404s end to end (issue 14): a crawl of the soft-404 shop ([`Soft404Site`]: `200`
//! "page not found" for any unknown path, heavy template) together with hosts that answer
//! unknown paths with a real 404 (the issue-10 class hosts, among them the heavy-template
//! shop, and the fixture's host B). Every missing page of the soft-404 shop must come out
//! `soft_404`, unarchived and with its links not followed; every real page must be archived;
//! no other page may be called a soft 404.

use crate::common;

use std::collections::HashSet;

use dedupcrawl_crawler::{Decision, LogLine, run_crawl};
use dedupcrawl_testsite::{ClassesSite, Soft404Site, TestSite};

use common::soft_404_checks::{probe_paths, shop_problems};
use common::*;

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
    let shop_host = truth.seed.trim_end_matches('/');
    let other_lines = lines
        .iter()
        .filter(|l| !l.url.starts_with(shop_host))
        .count();
    let min_resemblance = soft
        .iter()
        .filter_map(|l| l.similarity)
        .fold(1.0_f64, f64::min);
    eprintln!(
        "soft-404 fixture: {}/{} soft 404s found (least resemblance {min_resemblance:.3}), \
         {} false hits, {other_lines} lines of the other hosts; real pages: {}; probes: \
         {probes:?}",
        soft.len() - false_hits.len(),
        truth.soft_404s.len(),
        false_hits.len(),
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
/// answer comes from the crawl state (sled), and still finds every soft 404. The PostgreSQL
/// twin is in `postgres_crawl.rs`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_crawl_keeps_the_probe_and_does_not_probe_again() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    common::soft_404_checks::resumed_crawl_keeps_the_probe(&out, &|_| {}).await;
}
