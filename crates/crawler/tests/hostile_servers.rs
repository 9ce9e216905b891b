//! Hostile servers (issue 15), all in one crawl so the peak resident set of this process
//! (`VmHWM`, reset through `/proc/self/clear_refs` before the crawl) bounds them together:
//! gzip and brotli bombs, an endless chunked body, a 1 MB header section, 10,000 header
//! lines, a `Content-Length` shorter than the body, redirects to `file:`, `ftp:` and `data:`
//! and from a "public" host (127.0.0.2, listed in `crawl.public_addresses`) into 127.0.0.1,
//! invalid UTF-8 in hrefs, a 50 MB sitemap, a 10 MB robots.txt whose rules sit 400 KiB in,
//! robots.txt answering 503 and 403. Each case has its crawl-log line checked.
//!
//! Covered elsewhere (issue 18): a body that drips one byte a second and a 4 MiB header
//! section sent slowly (`hostile_pages.rs`, slowloris), a `Content-Length` longer than the
//! body (`cut_short.rs`), 500,000 links on one page (`hostile_pages.rs`,
//! `crates/cli/tests/link_flood_rss.rs`).

#![cfg(target_os = "linux")]

mod common;

use common::line_for;

use std::net::IpAddr;
use std::time::{Duration, Instant};

use dedupcrawl_crawler::{Decision, LogLine, run_crawl};
use dedupcrawl_testsite::hostile_site::{HostileSite, PUBLIC_ADDRESS};

/// `crawl.max_memory_mb` of the crawl, and the bound on its peak resident set.
const MAX_MEMORY_MB: u64 = 256;
/// The whole crawl ends within this.
const TIME_LIMIT: Duration = Duration::from_secs(120);

fn note(line: &LogLine) -> &str {
    line.note.as_deref().unwrap_or_default()
}

/// Peak resident set of this process since the last reset, in MiB.
fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("read /proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM line");
    let kib: f64 = line["VmHWM:".len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .expect("VmHWM in kB");
    kib / 1024.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_servers_end_with_clear_log_lines_and_bounded_memory() {
    let site = HostileSite::start().await.expect("hostile hosts");
    let HostileSite {
        main,
        robots_5xx,
        robots_4xx,
        robots_10mb,
        ..
    } = &site;
    let main_url = main.url();
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let public_seed = site.public_seed();
    let mut config = common::config_for(site.seeds(), &out);
    config.crawl.max_memory_mb = MAX_MEMORY_MB;
    config.crawl.public_addresses = vec![IpAddr::V4(PUBLIC_ADDRESS)];
    config.crawl.per_host = 2;
    // The defaults: 10 MiB bodies, so the bombs and the endless body are cut by the limit.
    config.fetch.max_body_bytes = 10 * 1024 * 1024;
    config.fetch.total_timeout = 10.0;
    config.fetch.read_timeout = 5.0;
    config.fetch.max_attempts = 2;
    config.fetch.host_max_backoff = 0.5;
    config.fetch.robots_retry = 0.5;

    std::fs::write("/proc/self/clear_refs", "5").expect("reset VmHWM");
    let before = peak_rss_mib();
    let started = Instant::now();
    let report = tokio::time::timeout(TIME_LIMIT, run_crawl(config))
        .await
        .expect("the crawl ends by itself")
        .expect("crawl");
    let took = started.elapsed();
    let peak = peak_rss_mib();
    eprintln!("hostile crawl: {took:?}, peak RSS {peak:.1} MiB (before {before:.1} MiB)");
    assert!(report.finished);
    assert!(
        peak < MAX_MEMORY_MB as f64,
        "peak RSS {peak:.1} MiB over crawl.max_memory_mb = {MAX_MEMORY_MB}"
    );

    let lines = common::crawl_log(&out);
    for line in &lines {
        eprintln!(
            "{} {:?} {:?} err={:?} note={:?} bytes={:?}",
            line.url, line.decision, line.status, line.error, line.note, line.bytes
        );
    }
    let url = |path: &str| format!("{main_url}{path}");
    const LIMIT: u64 = 10 * 1024 * 1024;
    for path in ["gzip-bomb", "brotli-bomb", "endless-chunked"] {
        let line = line_for(&lines, &url(path));
        // The two bombs decode to the same zeros: one is archived, the other its duplicate.
        assert!(
            matches!(line.decision, Decision::Archived | Decision::ExactDuplicate),
            "{line:?}"
        );
        assert_eq!(line.bytes, Some(LIMIT), "{line:?}");
        assert!(
            note(line).contains(&format!("truncated at {LIMIT} bytes")),
            "{line:?}"
        );
    }
    for path in ["header-1mb", "headers-10000"] {
        let line = line_for(&lines, &url(path));
        assert_eq!(line.decision, Decision::Error, "{line:?}");
        assert!(
            line.error
                .as_deref()
                .is_some_and(|e| e.contains("message head is too large")),
            "the error names the header section: {line:?}"
        );
    }
    let shorter = line_for(&lines, &url("length-shorter"));
    assert_eq!(shorter.decision, Decision::Archived, "{shorter:?}");
    assert_eq!(
        shorter.bytes,
        Some(1000),
        "Content-Length is believed: {shorter:?}"
    );
    for (path, scheme) in [
        ("redirect-file", "file"),
        ("redirect-ftp", "ftp"),
        ("redirect-data", "data"),
    ] {
        let line = line_for(&lines, &url(path));
        assert!(
            note(line).contains(&format!("the `{scheme}:` scheme is not fetched")),
            "{line:?}"
        );
    }
    assert!(!lines.iter().any(|l| l.url.starts_with("file:")
        || l.url.starts_with("ftp:")
        || l.url.starts_with("data:")));
    let to_loopback = line_for(&lines, &public_seed);
    assert!(
        note(to_loopback).contains("refused: a public host (127.0.0.2) may not redirect into a loopback address (127.0.0.1)"),
        "{to_loopback:?}"
    );
    assert!(
        !main.served().iter().any(|s| s.path == "/page/9"),
        "the loopback target was never fetched"
    );
    let bad_utf8 = line_for(&lines, &url("bad-utf8"));
    assert_eq!(bad_utf8.decision, Decision::Archived, "{bad_utf8:?}");
    let replaced = lines
        .iter()
        .find(|l| l.url.contains("/utf8-"))
        .expect("the link with invalid UTF-8 is taken");
    assert!(
        replaced.url.contains("%EF%BF%BD"),
        "invalid bytes become U+FFFD, percent-encoded: {replaced:?}"
    );

    // 50 MB sitemap: read up to fetch.max_body_bytes, its URLs taken.
    let from_sitemap = line_for(&lines, &url("from-sitemap"));
    assert_eq!(
        from_sitemap.decision,
        Decision::Archived,
        "{from_sitemap:?}"
    );
    assert_eq!(
        from_sitemap.via.as_deref(),
        Some(url("sitemap.xml").as_str())
    );

    // 10 MB robots.txt: the rules 400 KiB in are read.
    let secret = line_for(&lines, &format!("{}secret", robots_10mb.url()));
    assert_eq!(secret.decision, Decision::RobotsDisallowed, "{secret:?}");
    let open = line_for(&lines, &format!("{}open", robots_10mb.url()));
    assert_eq!(open.decision, Decision::Archived, "{open:?}");
    assert!(!robots_10mb.served().iter().any(|s| s.path == "/secret"));
    // robots.txt 503: nothing else fetched from the host.
    assert!(
        robots_5xx.served().iter().all(|s| s.path == "/robots.txt"),
        "{:?}",
        robots_5xx.served()
    );
    let seed_5xx = line_for(&lines, &robots_5xx.url());
    assert_eq!(seed_5xx.decision, Decision::Error, "{seed_5xx:?}");
    assert!(
        seed_5xx
            .error
            .as_deref()
            .is_some_and(|e| e.contains("robots.txt answered 503")),
        "{seed_5xx:?}"
    );
    // robots.txt 403: allow all, although its body disallows everything.
    let seed_4xx = line_for(&lines, &robots_4xx.url());
    assert_eq!(seed_4xx.decision, Decision::Archived, "{seed_4xx:?}");

    assert!(took < TIME_LIMIT);
}
