//! `crawl --quiet`: no info log lines on stderr (they are there without it); the summary is
//! still printed.

use std::path::Path;
use std::process::{Command, Output};

use dedupcrawl_testsite::hostile::HostileHost;

fn crawl(out: &Path, seed: &str, quiet: bool) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"));
    command
        .arg("crawl")
        .arg("--out")
        .arg(out)
        .args(["--delay", "0", "--seed", seed])
        // Logs the dashboard's address at info level: a line to silence even on a tiny crawl.
        .args(["--serve", "127.0.0.1:0"]);
    if quiet {
        command.arg("--quiet");
    }
    // RUST_LOG would override the level: the test checks the flag alone.
    command.env_remove("RUST_LOG");
    command.output().expect("run dedupcrawl crawl")
}

#[test]
fn quiet_silences_info_lines_and_keeps_the_summary() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let host = runtime.block_on(HostileHost::pages(3)).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");

    let loud = crawl(&dir.path().join("loud"), &host.url(), false);
    assert!(loud.status.success());
    let loud_err = String::from_utf8_lossy(&loud.stderr);
    assert!(
        loud_err.contains("INFO"),
        "info lines without --quiet: {loud_err}"
    );

    let quiet = crawl(&dir.path().join("quiet"), &host.url(), true);
    assert!(quiet.status.success());
    let quiet_err = String::from_utf8_lossy(&quiet.stderr);
    assert!(!quiet_err.contains("INFO"), "--quiet printed: {quiet_err}");
    assert!(String::from_utf8_lossy(&quiet.stdout).contains("TOTAL"));
}
