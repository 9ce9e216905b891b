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

use std::net::{IpAddr, Ipv4Addr};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use dedupcrawl_crawler::{Decision, LogLine, run_crawl};
use dedupcrawl_testsite::hostile::{Behaviour, HostileHost, page_html};
use dedupcrawl_testsite::hostile_streams::{
    Stream, empty_status, lying_length, many_headers, raw_answer, redirect_to,
};

/// Decoded size of the bombs: 10 GB.
const BOMB_BYTES: u64 = 10_000_000_000;
/// `crawl.max_memory_mb` of the crawl, and the bound on its peak resident set.
const MAX_MEMORY_MB: u64 = 256;
/// The whole crawl ends within this.
const TIME_LIMIT: Duration = Duration::from_secs(120);

const HOSTILE_PATHS: [&str; 10] = [
    "gzip-bomb",
    "brotli-bomb",
    "endless-chunked",
    "header-1mb",
    "headers-10000",
    "length-shorter",
    "redirect-file",
    "redirect-ftp",
    "redirect-data",
    "bad-utf8",
];

/// A page of its own prose (`k`: no two are near duplicates) linking `paths`.
fn links_page(k: usize, title: &str, paths: &[&str]) -> String {
    let links: String = paths
        .iter()
        .map(|p| format!("<a href=\"/{p}\">{p}</a>\n"))
        .collect();
    format!(
        "<!doctype html><html><head><title>{title}</title></head><body><main>{}</main>{links}\
         </body></html>",
        page_html(k, 1)
    )
}

fn main_route(path: &str, base: &str) -> Behaviour {
    match path {
        "/" => {
            let mut paths = HOSTILE_PATHS.to_vec();
            paths.extend(["page/1", "page/2"]);
            Behaviour::Html(links_page(30, "Hostile", &paths))
        }
        "/robots.txt" => Behaviour::NotFound,
        // One URL found nowhere else, then a known page over and over (the frontier has
        // seen it: nothing more is fetched).
        "/sitemap.xml" => Behaviour::Stream(Stream::Sitemap {
            bytes: 50 * 1024 * 1024,
            first: vec![format!("{base}from-sitemap")],
            repeat: format!("{base}page/1"),
        }),
        "/from-sitemap" => Behaviour::Html(page_html(40, 1)),
        "/gzip-bomb" => Behaviour::Stream(Stream::GzipBomb {
            decoded: BOMB_BYTES,
        }),
        "/brotli-bomb" => Behaviour::Stream(Stream::BrotliBomb {
            decoded: BOMB_BYTES,
        }),
        "/endless-chunked" => Behaviour::Stream(Stream::EndlessChunked),
        "/header-1mb" => Behaviour::HugeHeader {
            bytes: 1024 * 1024,
            chunk: 8 * 1024,
            interval: Duration::ZERO,
        },
        "/headers-10000" => Behaviour::Raw(many_headers(10_000, &page_html(3, 1))),
        "/length-shorter" => {
            let body = page_html(4, 1);
            Behaviour::Raw(lying_length(1000, body.as_bytes()))
        }
        "/redirect-file" => Behaviour::Raw(redirect_to("file:///etc/passwd")),
        "/redirect-ftp" => Behaviour::Raw(redirect_to("ftp://127.0.0.1/pub/file")),
        "/redirect-data" => Behaviour::Raw(redirect_to("data:text/html,<h1>hi</h1>")),
        "/bad-utf8" => {
            let mut body = page_html(5, 1).into_bytes();
            let at = body.len() - "</body></html>".len();
            body.splice(at..at, b"<a href=\"/utf8-\xff\xfe-\xc3(\">bad</a>".iter().copied());
            Behaviour::Raw(raw_answer(
                "200 OK",
                &[
                    "Content-Type: text/html; charset=utf-8".into(),
                    format!("Content-Length: {}", body.len()),
                ],
                &body,
            ))
        }
        _ => match path
            .strip_prefix("/page/")
            .and_then(|k| k.parse::<usize>().ok())
        {
            Some(k) => Behaviour::Html(page_html(100 + k, 1)),
            None => Behaviour::NotFound,
        },
    }
}

fn line_for<'a>(lines: &'a [LogLine], url: &str) -> &'a LogLine {
    let found: Vec<&LogLine> = lines.iter().filter(|l| l.url == url).collect();
    assert_eq!(found.len(), 1, "one line for {url}: {found:?}");
    found[0]
}

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
    // The sitemap's URLs are on the main host: its base is only known once it listens.
    let base = Arc::new(OnceLock::<String>::new());
    let main = HostileHost::start_at(Ipv4Addr::LOCALHOST, 0, {
        let base = Arc::clone(&base);
        move |path| main_route(path, base.get().map_or("", String::as_str))
    })
    .await
    .expect("main host");
    let main_url = main.url();
    base.set(main_url.clone()).expect("set once");
    let public_ip = Ipv4Addr::new(127, 0, 0, 2);
    let loopback_target = format!("{main_url}page/9");
    let public = HostileHost::start_at(public_ip, 0, {
        let target = loopback_target.clone();
        move |path| match path {
            "/to-loopback" => Behaviour::Raw(redirect_to(&target)),
            _ => Behaviour::NotFound,
        }
    })
    .await
    .expect("public host");
    let robots_5xx = HostileHost::start(|path| match path {
        "/robots.txt" => Behaviour::Raw(empty_status("503 Service Unavailable")),
        _ => Behaviour::Html(page_html(20, 1)),
    })
    .await
    .expect("robots 5xx host");
    let robots_4xx = HostileHost::start(|path| match path {
        // RFC 9309: a 4xx means no rules, whatever the body says.
        "/robots.txt" => Behaviour::Raw(raw_answer(
            "403 Forbidden",
            &["Content-Length: 25".into()],
            b"User-agent: *\nDisallow: /",
        )),
        "/" => Behaviour::Html(page_html(21, 1)),
        _ => Behaviour::NotFound,
    })
    .await
    .expect("robots 4xx host");
    let robots_10mb = HostileHost::start(|path| match path {
        "/robots.txt" => Behaviour::Stream(Stream::Robots {
            bytes: 10 * 1024 * 1024,
            before: 400 * 1024,
            rules: "User-agent: *\nDisallow: /secret\n".into(),
        }),
        "/" => Behaviour::Html(links_page(31, "Big robots", &["secret", "open"])),
        "/open" => Behaviour::Html(page_html(22, 1)),
        "/secret" => Behaviour::Html(page_html(23, 1)),
        _ => Behaviour::NotFound,
    })
    .await
    .expect("robots 10 MB host");

    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let public_seed = format!("{}to-loopback", public.url());
    let mut config = common::config_for(
        vec![
            main_url.clone(),
            public_seed.clone(),
            robots_5xx.url(),
            robots_4xx.url(),
            robots_10mb.url(),
        ],
        &out,
    );
    config.crawl.max_memory_mb = MAX_MEMORY_MB;
    config.crawl.public_addresses = vec![IpAddr::V4(public_ip)];
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
    assert_eq!(shorter.bytes, Some(1000), "Content-Length is believed: {shorter:?}");
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
    assert_eq!(from_sitemap.decision, Decision::Archived, "{from_sitemap:?}");
    assert_eq!(from_sitemap.via.as_deref(), Some(url("sitemap.xml").as_str()));

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
