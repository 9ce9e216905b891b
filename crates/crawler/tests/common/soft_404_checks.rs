//! Checks of a crawl of the soft-404 shop ([`Soft404Site`]), shared by the embedded and the
//! PostgreSQL crawl tests.

use std::collections::HashSet;
use std::path::Path;

use dedupcrawl_archive::RecordType;
use dedupcrawl_crawler::{CrawlConfig, Decision, run_crawl};
use dedupcrawl_testsite::{Soft404Site, Soft404Truth};

use super::{config_for, crawl_log, last_line_per_url, read_warcs, responses_per_url};

/// The paths of the shop's soft-404 probes: requests for a random hex path.
pub fn probe_paths(site: &Soft404Site) -> Vec<String> {
    site.requested_paths()
        .into_iter()
        .filter(|path| {
            let hex: String = path.trim_end_matches(".html").replace('/', "");
            hex.len() == 24 && hex.chars().all(|c| c.is_ascii_hexdigit())
        })
        .collect()
}

/// Problems with the soft-404 shop's pages in a finished crawl in `out`.
pub fn shop_problems(truth: &Soft404Truth, site: &Soft404Site, out: &Path) -> Vec<String> {
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

/// A crawl of the shop stopped by its page budget, then resumed: the resumed run reads
/// robots.txt again but takes the probe from the crawl state (no new probe) and still finds
/// every soft 404. `store` sets the crawl's store.
pub async fn resumed_crawl_keeps_the_probe(out: &Path, store: &dyn Fn(&mut CrawlConfig)) {
    let shop = Soft404Site::start().await.expect("soft-404 shop starts");
    let truth = shop.truth().clone();
    let mut config = config_for(vec![truth.seed.clone()], out);
    store(&mut config);
    config.crawl.max_pages = Some(2);
    let first = run_crawl(config).await.expect("first run");
    assert!(!first.finished, "stopped by the page budget");
    assert_eq!(probe_paths(&shop).len(), 2, "probed once");

    let mut config = config_for(vec![truth.seed.clone()], out);
    store(&mut config);
    let second = run_crawl(config).await.expect("resumed run");
    assert!(second.finished);
    let robots = shop
        .requested_paths()
        .iter()
        .filter(|p| *p == "/robots.txt")
        .count();
    assert!(robots >= 2, "the resumed run read robots.txt again");
    assert_eq!(probe_paths(&shop).len(), 2, "not probed again on resume");
    let problems = shop_problems(&truth, &shop, out);
    assert!(problems.is_empty(), "{problems:#?}");
}
