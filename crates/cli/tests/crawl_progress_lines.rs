//! `crawl` with stderr not a terminal (a pipe here): a plain progress log line every
//! `crawl.progress_every` seconds (pages/s, queued, decisions, bytes saved); `--quiet` has none.

use std::path::Path;
use std::process::Output;

use dedupcrawl_testsite::hostile::HostileHost;

use crate::support;

/// 20 pages one per 0.05 s take at least a second: several 0.2 s periods.
const CONFIG: &str = "[crawl]\nprogress_every = 0.2\n";

fn crawl(dir: &Path, name: &str, seed: &str, quiet: bool) -> Output {
    let mut command = support::crawl_command(dir, CONFIG, name);
    command.args(["--delay", "0.05", "--seed", seed]);
    if quiet {
        command.arg("--quiet");
    }
    command.env_remove("RUST_LOG");
    command.output().expect("run dedupcrawl crawl")
}

#[test]
fn a_crawl_without_a_terminal_logs_progress_lines_and_quiet_silences_them() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let host = runtime.block_on(HostileHost::pages(20)).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");

    let piped = crawl(dir.path(), "piped", &host.url(), false);
    assert!(piped.status.success());
    let stderr = String::from_utf8_lossy(&piped.stderr);
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("progress: "))
        .collect();
    assert!(lines.len() >= 2, "progress lines: {stderr}");
    for line in &lines {
        for part in [
            "INFO",
            "fetched ",
            "/s)",
            "archived ",
            "duplicates ",
            "queued ",
            "bytes saved ",
        ] {
            assert!(line.contains(part), "{part} in {line}");
        }
    }

    let quiet = crawl(dir.path(), "quiet", &host.url(), true);
    assert!(quiet.status.success());
    let quiet_err = String::from_utf8_lossy(&quiet.stderr);
    assert!(
        !quiet_err.contains("progress: "),
        "--quiet printed: {quiet_err}"
    );
}
