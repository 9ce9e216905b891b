//! Helpers shared by the crawl tests: a test-sized config, reading the crawl log and the WARCs.

#![allow(dead_code)]

pub mod child_crawl;
pub mod class_scores;
pub mod served_text;
pub mod soft_404_checks;

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use dedupcrawl_archive::{RecordType, WarcReader};
use dedupcrawl_crawler::Decision;
use dedupcrawl_crawler::{CrawlConfig, LogLine, read_crawl_log, warc_files};
use dedupcrawl_testsite::{DupKind, Expectations, TestSite, TestSiteOptions};

/// A two-thread runtime for a test that crawls a fixture in-process.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// The fixture site with test-sized delays.
pub fn site_options() -> TestSiteOptions {
    TestSiteOptions {
        crawl_delay: Some(0.05),
        retry_after_secs: 1,
        slow_delay: Duration::from_secs(3),
        huge_bytes: 30 * 1024 * 1024,
        separate_ips: true,
    }
}

/// A crawl of both hosts of the site, fast but polite enough to test politeness.
pub fn test_config(site: &TestSite, out: &Path) -> CrawlConfig {
    config_for(vec![site.main_url(), site.host_b_url()], out)
}

/// Workers of one crawl on PostgreSQL: one in-process engine per `out` ([`test_config`] of
/// `site`), all on the crawl `crawl` of the server `server`, running.
pub fn spawn_postgres_workers(
    site: &TestSite,
    outs: &[std::path::PathBuf],
    server: &str,
    crawl: &str,
) -> Vec<
    tokio::task::JoinHandle<
        Result<dedupcrawl_crawler::CrawlReport, dedupcrawl_crawler::CrawlError>,
    >,
> {
    outs.iter()
        .map(|out| {
            let mut config = test_config(site, out);
            config.store.url = Some(server.to_string());
            config.store.crawl = Some(crawl.to_string());
            tokio::spawn(dedupcrawl_crawler::run_crawl(config))
        })
        .collect()
}

/// [`test_config`] from the seeds alone (for a child process).
pub fn config_for(seeds: Vec<String>, out: &Path) -> CrawlConfig {
    let mut config = CrawlConfig::default();
    config.crawl.out = out.to_path_buf();
    config.crawl.seeds = seeds;
    config.crawl.delay = 0.0;
    config.crawl.concurrency = 8;
    config.crawl.progress = false;
    config.fetch.read_timeout = 1.0;
    config.fetch.total_timeout = 2.0;
    config.fetch.connect_timeout = 1.0;
    config.fetch.max_body_bytes = 2 * 1024 * 1024;
    config.fetch.retry_backoff = 0.2;
    config.fetch.max_retry_after = 5.0;
    config.fetch.robots_retry = 1.0;
    config
}

/// One WARC record, simplified.
#[derive(Debug, Clone)]
pub struct Stored {
    pub record_type: RecordType,
    pub target_uri: String,
    pub payload: Vec<u8>,
    pub headers: Vec<(String, String)>,
}

impl Stored {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Every record of every WARC file of a crawl, in order; panics on damage.
pub fn read_warcs(out: &Path) -> Vec<Stored> {
    let mut records = Vec::new();
    for file in warc_files(&out.join("warc")).expect("list WARCs") {
        for record in WarcReader::open(&file).expect("open WARC") {
            let record = record.unwrap_or_else(|e| panic!("damaged WARC {}: {e}", file.display()));
            let payload = if record.record_type() == RecordType::Response {
                record
                    .http_response()
                    .map(|r| r.payload.to_vec())
                    .unwrap_or_default()
            } else if record.record_type() == RecordType::Conversion {
                record.block.to_vec()
            } else {
                Vec::new()
            };
            records.push(Stored {
                record_type: record.record_type(),
                target_uri: record.target_uri().unwrap_or_default().to_string(),
                headers: record
                    .headers
                    .iter()
                    .map(|(n, v)| (n.to_string(), v.to_string()))
                    .collect(),
                payload,
            });
        }
    }
    records
}

/// URL → number of `response` records.
pub fn responses_per_url(records: &[Stored]) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for record in records {
        if record.record_type == RecordType::Response {
            *counts.entry(record.target_uri.clone()).or_default() += 1;
        }
    }
    counts
}

pub fn crawl_log(out: &Path) -> Vec<LogLine> {
    read_crawl_log(&out.join("crawl.log.jsonl")).expect("crawl log readable")
}

/// The one line logged for `url`; panics if there is none or more than one.
pub fn line_for<'a>(lines: &'a [LogLine], url: &str) -> &'a LogLine {
    let found: Vec<&LogLine> = lines.iter().filter(|l| l.url == url).collect();
    assert_eq!(found.len(), 1, "one line for {url}: {found:?}");
    found[0]
}

/// The last line logged for each URL.
pub fn last_line_per_url(lines: &[LogLine]) -> HashMap<String, LogLine> {
    lines
        .iter()
        .map(|line| (line.url.clone(), line.clone()))
        .collect()
}

/// Every distinct page archived exactly once; each duplicate group has exactly one archived
/// member and its other logged members name an original. Returns the problems found.
pub fn archive_problems(expected: &Expectations, out: &Path) -> Vec<String> {
    let lines = crawl_log(out);
    let last = last_line_per_url(&lines);
    let records = read_warcs(out);
    let responses = responses_per_url(&records);
    let mut failures = Vec::new();
    for (url, count) in &responses {
        if *count != 1 {
            failures.push(format!("{url}: {count} response records"));
        }
    }
    for url in &expected.distinct_pages {
        let count = responses.get(url).copied().unwrap_or(0);
        if expected.group_of(url).is_none() && count != 1 {
            failures.push(format!(
                "{url}: {count} responses, log: {:?}",
                last.get(url)
            ));
        }
    }
    for group in &expected.duplicate_groups {
        let archived: Vec<&String> = group
            .members
            .iter()
            .filter(|m| responses.get(*m).copied().unwrap_or(0) > 0)
            .collect();
        if archived.len() != 1 {
            failures.push(format!(
                "group {:?} {:?}: archived {archived:?}",
                group.kind, group.members
            ));
            continue;
        }
        if group.kind == DupKind::UrlVariant {
            continue;
        }
        for member in group.members.iter().filter(|m| *m != archived[0]) {
            let Some(line) = last.get(member) else {
                continue; // a calendar day never reached
            };
            let ok = line.duplicate_of.is_some()
                && (line.similarity.is_some() || group.kind == DupKind::CanonicalLink)
                && matches!(
                    line.decision,
                    Decision::ExactDuplicate | Decision::NearDuplicate | Decision::Contained
                );
            if !ok {
                failures.push(format!("duplicate {member} logged as {line:?}"));
            }
        }
    }
    failures
}

/// What is wrong with the archives of the workers of one shared crawl (`outs`, one per
/// worker): every response archived once across all of them, every distinct page archived,
/// and each duplicate group archived once.
pub fn shared_crawl_problems(expected: &Expectations, outs: &[std::path::PathBuf]) -> Vec<String> {
    let mut responses: HashMap<String, usize> = HashMap::new();
    for out in outs {
        for (url, count) in responses_per_url(&read_warcs(out)) {
            *responses.entry(url).or_default() += count;
        }
    }
    let mut failures = Vec::new();
    for (url, count) in &responses {
        if *count != 1 {
            failures.push(format!(
                "{url}: {count} response records across the workers"
            ));
        }
    }
    for url in &expected.distinct_pages {
        let count = responses.get(url).copied().unwrap_or(0);
        if expected.group_of(url).is_none() && count != 1 {
            failures.push(format!("{url}: {count} responses across the workers"));
        }
    }
    for group in &expected.duplicate_groups {
        let archived = group
            .members
            .iter()
            .filter(|m| responses.get(*m).copied().unwrap_or(0) > 0)
            .count();
        if archived != 1 {
            failures.push(format!(
                "group {:?} {:?}: {archived} archived",
                group.kind, group.members
            ));
        }
    }
    failures
}
