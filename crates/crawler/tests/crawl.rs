//! End-to-end crawl of the fixture site, asserting on the crawl log, the WARC files read back
//! and the site's request log.

use crate::common;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use dedupcrawl_archive::RecordType;
use dedupcrawl_crawler::{Decision, run_crawl};
use dedupcrawl_testsite::{DupKind, TestSite};

use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_of_the_fixture_site() {
    let site = TestSite::start_with(site_options())
        .await
        .expect("site starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let started = Instant::now();
    let report = run_crawl(test_config(&site, &out))
        .await
        .expect("crawl runs");
    eprintln!("crawl took {:?}\n{}", started.elapsed(), report.summary());
    assert!(report.finished);

    let expected = site.expected();
    let lines = crawl_log(&out);
    let last = last_line_per_url(&lines);
    let records = read_warcs(&out);
    let responses = responses_per_url(&records);
    let requests = site.request_log();

    let mut failures = archive_problems(&expected, &out);
    // Exact copy: a revisit record naming the original.
    let copy_group = expected
        .duplicate_groups
        .iter()
        .find(|g| g.kind == DupKind::ExactCopy)
        .expect("exact copy group");
    let revisits: Vec<&Stored> = records
        .iter()
        .filter(|r| r.record_type == RecordType::Revisit)
        .collect();
    if !revisits.iter().any(|r| {
        copy_group.members.contains(&r.target_uri)
            && r.header("WARC-Profile")
                .is_some_and(|p| p.ends_with("identical-payload-digest"))
            && r.header("WARC-Refers-To-Target-URI")
                .is_some_and(|t| copy_group.members.iter().any(|m| m == t))
    }) {
        failures.push(format!(
            "no identical-payload revisit for {:?}: {revisits:?}",
            copy_group.members
        ));
    }

    // No disallowed or nofollow URL requested.
    let requested: HashSet<String> = requests.iter().map(|r| r.url()).collect();
    for url in expected.must_not_fetch() {
        if requested.contains(&url) {
            failures.push(format!("fetched forbidden {url}"));
        }
    }
    // Crawl delay per host: request starts on host A at least ~Crawl-delay apart.
    let delay = Duration::from_secs_f64(expected.crawl_delay.unwrap_or(0.0));
    let host_a = url::Url::parse(&expected.main_url).expect("url");
    let host_a = format!(
        "{}:{}",
        host_a.host_str().unwrap_or(""),
        host_a.port().unwrap_or(80)
    );
    let host_a_requests: Vec<_> = requests.iter().filter(|r| r.host == host_a).collect();
    // The log has arrival times, not send times: one request held up on a loaded machine
    // arrives late and makes the next gap short. So the delay is checked over runs of
    // DELAY_RUN gaps, which one late arrival shortens by at most ARRIVAL_SLACK; a crawler
    // that ignored the delay would fall short by most of DELAY_RUN delays.
    const DELAY_RUN: usize = 8;
    const ARRIVAL_SLACK: Duration = Duration::from_millis(60);
    for run in host_a_requests.windows(DELAY_RUN + 1) {
        let (first, last) = (run[0], run[DELAY_RUN]);
        let span = last.at.duration_since(first.at);
        if span + ARRIVAL_SLACK < delay * DELAY_RUN as u32 {
            failures.push(format!(
                "{DELAY_RUN} requests on host A in {span:?} (delay {delay:?}): {} to {}",
                first.path_and_query, last.path_and_query
            ));
        }
    }
    // Calendar trap stops after a few pages.
    let calendar_fetches = requests
        .iter()
        .filter(|r| r.url().starts_with(&expected.calendar.url_prefix))
        .count();
    if calendar_fetches > expected.calendar.max_fetches_if_deduplicating {
        failures.push(format!("calendar fetched {calendar_fetches} times"));
    }
    // No URL fetched twice except retried ones (tracking/session variants canonicalize to one).
    let retried: HashSet<&str> = expected
        .retry_pages
        .iter()
        .map(|p| p.url.as_str())
        .collect();
    let mut fetch_counts: HashMap<String, usize> = HashMap::new();
    for r in &requests {
        *fetch_counts.entry(r.url()).or_default() += 1;
    }
    for (url, count) in &fetch_counts {
        let allowed = if retried.contains(url.as_str())
            || *url == expected.slow_page
            || *url == expected.truncated_page
        {
            3
        } else {
            1
        };
        if *count > allowed {
            failures.push(format!("{url} fetched {count} times"));
        }
    }
    for group in expected
        .duplicate_groups
        .iter()
        .filter(|g| g.kind == DupKind::UrlVariant)
    {
        let fetched_variants = group
            .members
            .iter()
            .filter(|m| requested.contains(*m))
            .count();
        if fetched_variants > 1 {
            failures.push(format!(
                "variants of {} fetched {fetched_variants} times",
                group.representative
            ));
        }
    }
    // Redirect chain followed, loop stopped.
    for (hop, status) in expected
        .redirect_chain
        .iter()
        .zip(&expected.redirect_statuses)
    {
        match last.get(hop) {
            Some(line) if line.status == Some(*status) => {}
            other => failures.push(format!("redirect hop {hop}: {other:?}")),
        }
    }
    let chain_end = expected.redirect_chain.last().expect("chain");
    if responses.get(chain_end).copied().unwrap_or(0) != 1 {
        failures.push(format!("redirect chain end {chain_end} not archived"));
    }
    for hop in &expected.redirect_loop {
        let count = fetch_counts.get(hop).copied().unwrap_or(0);
        if count != 1 {
            failures.push(format!("loop member {hop} fetched {count} times"));
        }
    }
    // 429 Retry-After honoured: the retry came at least Retry-After later.
    for page in &expected.retry_pages {
        let times: Vec<Instant> = requests
            .iter()
            .filter(|r| r.url() == page.url)
            .map(|r| r.at)
            .collect();
        if times.len() != page.failures.len() + 1 {
            failures.push(format!("{} requested {} times", page.url, times.len()));
        }
        // A Retry-After HTTP-date (the 503) has one-second resolution: up to 1 s less.
        let granularity = if page.failures.first() == Some(&503) {
            1000
        } else {
            50
        };
        if let (Some(secs), [first, second, ..]) = (page.retry_after_secs, times.as_slice())
            && second.duration_since(*first) + Duration::from_millis(granularity)
                < Duration::from_secs(secs)
        {
            failures.push(format!(
                "{} retried after {:?}",
                page.url,
                second.duration_since(*first)
            ));
        }
        if responses.get(&page.url).copied().unwrap_or(0) != 1 {
            failures.push(format!("{} not archived after retries", page.url));
        }
    }
    // Charsets decoded: the archived pages are logged archived (decoding is checked by dedup
    // text) and the sample text is found in the decoded payload.
    for page in &expected.charset_pages {
        let Some(record) = records
            .iter()
            .find(|r| r.record_type == RecordType::Response && r.target_uri == page.url)
        else {
            failures.push(format!("charset page {} not archived", page.url));
            continue;
        };
        let decoded = dedupcrawl_fetch::decode_bytes(&record.payload, None, true);
        let header_charset = if page.url.ends_with("latin1") {
            Some(&b"text/html; charset=ISO-8859-1"[..])
        } else {
            None
        };
        let decoded = if header_charset.is_some() {
            dedupcrawl_fetch::decode_bytes(&record.payload, header_charset, true)
        } else {
            decoded
        };
        if !decoded.text.contains(page.sample) {
            failures.push(format!(
                "charset page {} does not decode to its sample",
                page.url
            ));
        }
    }
    // Huge page truncated and logged; slow page timeout logged; others unaffected.
    match last.get(&expected.huge_page) {
        Some(line)
            if line
                .note
                .as_deref()
                .is_some_and(|n| n.contains("truncated")) => {}
        other => failures.push(format!("huge page: {other:?}")),
    }
    match last.get(&expected.slow_page) {
        Some(line)
            if line.decision == Decision::Error
                && line.error.as_deref().is_some_and(|e| e.contains("time")) => {}
        other => failures.push(format!("slow page: {other:?}")),
    }
    // Sitemap orphan found and archived.
    for url in &expected.orphan_from_sitemap {
        if responses.get(url).copied().unwrap_or(0) != 1 {
            failures.push(format!(
                "sitemap orphan {url} not archived: {:?}",
                last.get(url)
            ));
        }
    }
    // Non-HTML files archived (default policy) without being parsed; the PDF is disallowed.
    for file in &expected.non_html {
        let archived = responses.get(&file.url).copied().unwrap_or(0);
        let wanted = usize::from(!expected.disallowed.contains(&file.url));
        if archived != wanted {
            failures.push(format!("non-HTML {}: {archived} responses", file.url));
        }
    }
    // noindex pages fetched, not archived.
    for url in &expected.noindex_pages {
        if !requested.contains(url) || responses.contains_key(url) {
            failures.push(format!(
                "noindex page {url}: fetched {}, archived {}",
                requested.contains(url),
                responses.contains_key(url)
            ));
        }
    }
    // Every log line is well-formed: duplicates name an original.
    for line in &lines {
        if matches!(
            line.decision,
            Decision::ExactDuplicate | Decision::NearDuplicate | Decision::Contained
        ) && line.duplicate_of.is_none()
        {
            failures.push(format!("duplicate without original: {line:?}"));
        }
        if line.decision == Decision::Error && line.error.is_none() {
            failures.push(format!("error without text: {line:?}"));
        }
    }
    // Outputs exist.
    assert!(out.join("index.cdxj").exists());
    assert!(out.join("report.json").exists());
    assert!(report.total.archived >= expected.distinct_pages.len() as u64 - 10);

    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
