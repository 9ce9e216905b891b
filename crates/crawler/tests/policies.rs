//! Non-default policies: a page budget that stops the crawl (and a second run that continues
//! it), oversize bodies skipped, non-HTML skipped, near duplicates kept as metadata records.

use crate::common;

use dedupcrawl_archive::RecordType;
use dedupcrawl_crawler::{Decision, NearDuplicatePolicy, NonHtmlPolicy, Oversize, run_crawl};
use dedupcrawl_testsite::{DupKind, TestSite};

use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budget_then_continue_with_skip_and_metadata_policies() {
    let site = TestSite::start_with(site_options())
        .await
        .expect("site starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let configure = |max_pages: Option<u64>| {
        let mut config = test_config(&site, &out);
        config.crawl.max_pages = max_pages;
        config.fetch.oversize = Oversize::Skip;
        config.archive.non_html = NonHtmlPolicy::Skip;
        config.archive.near_duplicates = NearDuplicatePolicy::Metadata;
        config
    };

    // A budget of 25 pages stops the crawl early.
    let first = run_crawl(configure(Some(25))).await.expect("first run");
    assert!(
        !first.finished,
        "the budget stops the crawl before the frontier is empty"
    );
    let fetched_first = first.total.fetched;
    assert!(
        (25..=25 + 8).contains(&fetched_first),
        "at most the budget plus the fetches in flight: {fetched_first}"
    );

    // The same command without the budget continues to the end.
    let second = run_crawl(configure(None)).await.expect("second run");
    assert!(second.finished);
    assert!(second.total.fetched > fetched_first);

    let expected = site.expected();
    let mut failures = archive_problems(&expected, &out);
    let last = last_line_per_url(&crawl_log(&out));
    let records = read_warcs(&out);

    // Oversize skipped: logged as an error naming the limit, nothing archived.
    match last.get(&expected.huge_page) {
        Some(line)
            if line.decision == Decision::Error
                && line.error.as_deref().is_some_and(|e| e.contains("limit")) => {}
        other => failures.push(format!("huge page under skip: {other:?}")),
    }
    // Non-HTML skipped: fetched, logged as filtered, not archived.
    for file in &expected.non_html {
        if expected.disallowed.contains(&file.url) {
            continue;
        }
        match last.get(&file.url) {
            Some(line) if line.decision == Decision::Filtered => {}
            other => failures.push(format!("non-HTML {}: {other:?}", file.url)),
        }
        if records.iter().any(|r| r.target_uri == file.url) {
            failures.push(format!("non-HTML {} archived", file.url));
        }
    }
    // Near duplicates: a metadata record naming the original.
    for group in expected
        .duplicate_groups
        .iter()
        .filter(|g| g.kind == DupKind::NearDuplicate)
    {
        for member in &group.members {
            let Some(line) = last.get(member) else {
                continue;
            };
            if line.decision != Decision::NearDuplicate && line.decision != Decision::Contained {
                continue;
            }
            let has_metadata = records
                .iter()
                .any(|r| r.record_type == RecordType::Metadata && r.target_uri == *member);
            if !has_metadata {
                failures.push(format!("near duplicate {member} has no metadata record"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
