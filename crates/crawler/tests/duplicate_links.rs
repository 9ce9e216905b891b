//! The duplicate-links rule on a host whose pages share their words but not their links
//! ([`ListingSite`]): every item of a paged listing on a heavy template is reached through its
//! pages, each a duplicate of the first that lists other items, while a calendar whose day
//! pages differ only by their previous/next links stops after the first days. Without the rule
//! (`crawl.duplicate_links_max_hops = 0`) the items of the listing's later pages are never
//! fetched: the case tests the rule.

use std::collections::HashMap;

use dedupcrawl_crawler::{Decision, LogLine, read_crawl_log, run_crawl};
use dedupcrawl_testsite::{ITEMS_PER_PAGE, ListingSite};

use crate::common;

async fn crawl(site: &ListingSite, max_hops: u8) -> HashMap<String, LogLine> {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut config = common::config_for(vec![site.seed()], &out);
    config.crawl.duplicate_links_max_hops = max_hops;
    config.crawl.sitemaps = false;
    config.crawl.soft_404_probes = 0;
    run_crawl(config).await.expect("crawl runs");
    read_crawl_log(&out.join("crawl.log.jsonl"))
        .expect("crawl log")
        .into_iter()
        .map(|line| (line.url.clone(), line))
        .collect()
}

#[test]
fn a_duplicate_s_new_links_are_followed_and_a_calendar_stops() {
    common::runtime().block_on(async {
        let site = ListingSite::start().await.expect("site starts");
        let lines = crawl(&site, 8).await;
        let items = site.items();
        let missing: Vec<&String> = items
            .iter()
            .filter(|item| {
                lines
                    .get(item.as_str())
                    .is_none_or(|line| line.decision != Decision::Archived)
            })
            .collect();
        assert!(missing.is_empty(), "items not archived: {missing:?}");
        for page in &site.listing_pages()[1..] {
            let line = &lines[page.as_str()];
            assert!(
                matches!(
                    line.decision,
                    Decision::ExactDuplicate | Decision::NearDuplicate
                ),
                "{page}: {line:?}"
            );
            assert!(
                line.links_followed
                    .is_some_and(|n| n as usize >= ITEMS_PER_PAGE),
                "{page} follows its items: {line:?}"
            );
        }
        let days = lines
            .keys()
            .filter(|url| url.starts_with(&site.calendar_prefix()))
            .count();
        assert!(days <= 4, "{days} calendar days fetched");

        let without = crawl(&site, 0).await;
        let reached = site
            .items()
            .iter()
            .filter(|item| without.contains_key(item.as_str()))
            .count();
        assert_eq!(
            reached, ITEMS_PER_PAGE,
            "without the rule only the first page's items are reached"
        );
    });
}
