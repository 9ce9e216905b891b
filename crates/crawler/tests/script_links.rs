//! Links from scripts (`crawl.script_links`) on [`ScriptNavigationSite`]: every page that only
//! a script names (a book's table of contents in a script file, an app's views in an inline
//! script) is archived, each script file is fetched once, and no string of a script that names
//! no page costs a fetch (no script-found URL answers 4xx). Off, none of those pages is
//! reached: the case tests the mechanism.

use std::collections::HashMap;

use dedupcrawl_crawler::{Decision, LogLine, read_crawl_log, run_crawl};
use dedupcrawl_testsite::ScriptNavigationSite;

use crate::common;

async fn crawl(site: &ScriptNavigationSite, script_links: bool) -> Vec<LogLine> {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut config = common::config_for(vec![site.seed()], &out);
    config.crawl.script_links = script_links;
    config.crawl.sitemaps = false;
    config.crawl.soft_404_probes = 0;
    run_crawl(config).await.expect("crawl runs");
    read_crawl_log(&out.join("crawl.log.jsonl")).expect("crawl log")
}

#[test]
fn pages_named_only_by_scripts_are_reached_and_nothing_else_is_fetched() {
    common::runtime().block_on(async {
        let site = ScriptNavigationSite::start().await.expect("site starts");
        let lines = crawl(&site, true).await;
        let by_url: HashMap<&str, &LogLine> =
            lines.iter().map(|line| (line.url.as_str(), line)).collect();
        for url in site.script_only_pages() {
            let line = by_url
                .get(url.as_str())
                .unwrap_or_else(|| panic!("{url} not reached"));
            assert_eq!(line.decision, Decision::Archived, "{line:?}");
            assert_eq!(line.found_in.as_deref(), Some("script"), "{line:?}");
        }
        for url in site.script_files() {
            let fetches = lines.iter().filter(|line| line.url == url).count();
            assert_eq!(fetches, 1, "{url} fetched {fetches} times");
            assert_eq!(
                by_url[url.as_str()].found_in.as_deref(),
                Some("script_file")
            );
        }
        let failed: Vec<&LogLine> = lines
            .iter()
            .filter(|line| line.status.is_some_and(|status| status >= 400))
            .collect();
        assert!(failed.is_empty(), "fetches that named no page: {failed:#?}");
        assert!(
            lines.iter().all(|line| !line.url.contains("cdn.invalid")),
            "a script on another host is neither fetched nor logged"
        );
    });
}

#[test]
fn without_script_links_the_script_only_pages_are_not_reached() {
    common::runtime().block_on(async {
        let site = ScriptNavigationSite::start().await.expect("site starts");
        let lines = crawl(&site, false).await;
        for url in site.script_only_pages().iter().chain(&site.script_files()) {
            assert!(
                lines.iter().all(|line| &line.url != url),
                "{url} reached without script links"
            );
        }
    });
}
