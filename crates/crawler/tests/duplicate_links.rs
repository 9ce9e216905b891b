//! The duplicate-links rule on a host whose pages share their words but not their links
//! ([`ListingSite`]): every item of a paged listing on a heavy template is reached through its
//! pages, each a duplicate of the first that lists other items, while a calendar whose day
//! pages differ only by their previous/next links stops after the first days. Without the rule
//! (`crawl.duplicate_links_max_hops = 0`) the items of the listing's later pages are never
//! fetched: the case tests the rule. A listing reached through a copy's one new link (the
//! printable home page's link to the archive) is followed too, so the archive's items are
//! reached. Following every duplicate's links (both thresholds 0) reaches no page the rule
//! misses but the calendar's endless days.

use std::collections::HashMap;

use dedupcrawl_crawler::{Decision, LogLine, read_crawl_log, run_crawl};
use dedupcrawl_testsite::{ITEMS_PER_PAGE, ListingSite};

use crate::common;

/// How a crawl treats a duplicate's links.
enum DuplicateLinks {
    /// The rule with this hop limit.
    Rule { max_hops: u8 },
    /// Every link of every duplicate (both thresholds 0), stopped after `max_pages` fetches.
    Every { max_pages: u64 },
}

async fn crawl(site: &ListingSite, links: DuplicateLinks) -> HashMap<String, LogLine> {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut config = common::config_for(vec![site.seed()], &out);
    match links {
        DuplicateLinks::Rule { max_hops } => config.crawl.duplicate_links_max_hops = max_hops,
        DuplicateLinks::Every { max_pages } => {
            config.crawl.duplicate_links_min_share = 0.0;
            config.crawl.duplicate_links_min_count = 0;
            config.crawl.max_pages = Some(max_pages);
        }
    }
    config.crawl.sitemaps = false;
    config.crawl.soft_404_probes = 0;
    run_crawl(config).await.expect("crawl runs");
    read_crawl_log(&out.join("crawl.log.jsonl"))
        .expect("crawl log")
        .into_iter()
        .map(|line| (line.url.clone(), line))
        .collect()
}

/// The `pages` the crawl of `lines` did not archive.
fn not_archived(lines: &HashMap<String, LogLine>, pages: Vec<String>) -> Vec<String> {
    pages
        .into_iter()
        .filter(|page| {
            lines
                .get(page.as_str())
                .is_none_or(|line| line.decision != Decision::Archived)
        })
        .collect()
}

#[test]
fn a_duplicate_s_new_links_are_followed_and_a_calendar_stops() {
    common::runtime().block_on(async {
        let site = ListingSite::start().await.expect("site starts");
        let lines = crawl(&site, DuplicateLinks::Rule { max_hops: 8 }).await;
        let missing = not_archived(&lines, site.items());
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
        let archive_missing = not_archived(&lines, site.archive_items());
        let [printable, archive] = site.archive_path();
        assert!(
            archive_missing.is_empty(),
            "archive items not archived: {archive_missing:?}; {:?}; {:?}",
            lines.get(printable.as_str()),
            lines.get(archive.as_str())
        );
        for (page, followed) in [(printable, 1), (archive, ITEMS_PER_PAGE)] {
            let line = &lines[page.as_str()];
            assert!(
                line.duplicate_of.is_some()
                    && line.links_followed.is_some_and(|n| n as usize >= followed),
                "{page} is a copy that follows {followed} links: {line:?}"
            );
        }
        let days = lines
            .keys()
            .filter(|url| url.starts_with(&site.calendar_prefix()))
            .count();
        assert!(days <= 4, "{days} calendar days fetched");

        let without = crawl(&site, DuplicateLinks::Rule { max_hops: 0 }).await;
        let reached = site
            .items()
            .iter()
            .filter(|item| without.contains_key(item.as_str()))
            .count();
        assert_eq!(
            reached, ITEMS_PER_PAGE,
            "without the rule only the first page's items are reached"
        );

        // Following every duplicate's link reaches nothing more, but the calendar's days.
        let every = crawl(&site, DuplicateLinks::Every { max_pages: 200 }).await;
        let calendar = site.calendar_prefix();
        let every_days = every
            .keys()
            .filter(|url| url.starts_with(&calendar))
            .count();
        assert!(
            every_days > 20,
            "every link followed walks the calendar: {every_days} days"
        );
        let only_by_every: Vec<&String> = every
            .keys()
            .filter(|url| !url.starts_with(&calendar) && !lines.contains_key(url.as_str()))
            .collect();
        assert!(
            only_by_every.is_empty(),
            "reached only when every duplicate's links are followed: {only_by_every:?}"
        );
    });
}
