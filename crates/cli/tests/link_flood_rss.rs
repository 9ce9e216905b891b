//! A link flood does not blow up memory (issue 18): `dedupcrawl crawl` of one page with
//! 500,000 links peaks within 50 MB of the same crawl of a normal page. Both crawls run the
//! binary as a child process, one after the other, and read its peak RSS from `wait4`'s
//! rusage (`ru_maxrss`, that child alone); both are capped at one page (`max_pages = 1`) so
//! the only difference is the page: its links are extracted, capped and enqueued.

#![cfg(all(target_os = "linux", target_env = "gnu"))]

use std::path::Path;
use std::process::{Command, Stdio};

use dedupcrawl_testsite::hostile::{Behaviour, HostileHost, link_flood_html, page_html};

const LINKS: usize = 500_000;
/// The bound of issue 18.
const MAX_EXTRA_BYTES: u64 = 50 * 1024 * 1024;

/// One page per crawl; a body limit above the flood's ~15 MB so all its links arrive.
const CONFIG: &str = "[crawl]\nprogress = false\nmax_pages = 1\nsitemaps = false\n\n\
                      [fetch]\nmax_body_bytes = 33554432\ntotal_timeout = 120.0\n\
                      read_timeout = 30.0\n";

/// Runs `dedupcrawl crawl` of `seed` and returns its peak RSS in bytes.
#[expect(
    clippy::zombie_processes,
    reason = "the child is reaped by wait4, which also gives its rusage"
)]
fn crawl_peak_rss(dir: &Path, seed: &str) -> u64 {
    let config = dir.join("crawl.toml");
    std::fs::write(&config, CONFIG).expect("write config");
    let child = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .arg("crawl")
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(dir.join("out"))
        .args(["--delay", "0", "--seed", seed])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run dedupcrawl crawl");
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain data, zeroed is a valid value; wait4 writes it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own child, not waited for elsewhere (the Child is never waited on).
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "dedupcrawl crawl failed: status {status:#x}"
    );
    // Linux reports ru_maxrss in KiB.
    usage.ru_maxrss as u64 * 1024
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

#[test]
fn peak_rss_of_a_500000_link_page_is_within_50_mb_of_a_normal_page() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let flood = link_flood_html(LINKS);
    let flood_bytes = flood.len();
    let host = runtime
        .block_on(HostileHost::start(move |path| match path {
            "/normal" => Behaviour::Html(page_html(1, 100)),
            "/flood" => Behaviour::Html(flood.clone()),
            _ => Behaviour::NotFound,
        }))
        .expect("host");

    let normal_dir = tempfile::tempdir().expect("tempdir");
    let normal = crawl_peak_rss(normal_dir.path(), &format!("{}normal", host.url()));
    let flood_dir = tempfile::tempdir().expect("tempdir");
    let flooded = crawl_peak_rss(flood_dir.path(), &format!("{}flood", host.url()));

    let log =
        std::fs::read_to_string(flood_dir.path().join("out/crawl.log.jsonl")).expect("crawl log");
    assert!(
        log.contains(&format!("of {LINKS} (crawl.max_links_per_page)")),
        "the flood page's line notes the links left out: {}",
        log.lines().next().unwrap_or_default()
    );
    let extra = flooded.saturating_sub(normal);
    eprintln!(
        "| page | body | peak RSS |\n|---|---|---|\n| normal | {} B | {:.1} MiB |\n\
         | {LINKS} links | {:.1} MiB | {:.1} MiB |\ndifference {:.1} MiB (bound {:.0} MiB), \
         ratio {:.2}",
        page_html(1, 100).len(),
        mib(normal),
        mib(flood_bytes as u64),
        mib(flooded),
        mib(extra),
        mib(MAX_EXTRA_BYTES),
        flooded as f64 / normal as f64
    );
    assert!(
        extra <= MAX_EXTRA_BYTES,
        "peak RSS {:.1} MiB on the flood page vs {:.1} MiB on a normal page: {:.1} MiB more",
        mib(flooded),
        mib(normal),
        mib(extra)
    );
}
