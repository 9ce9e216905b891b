//! `dedupcrawl crawl` exit statuses with broken hosts, run as a cron user would: 0 when
//! anything was crawled (given-up hosts listed in the summary), 4 when every seed host was
//! given up.

use std::path::Path;
use std::process::Output;

use dedupcrawl_testsite::hostile::{HostileHost, refused_port};

use crate::support;

/// Short timeouts so the broken hosts are given up in about a second.
const CONFIG: &str = "[crawl]\nprogress = false\n\n[fetch]\nconnect_timeout = 1.0\n\
                      read_timeout = 1.0\ntotal_timeout = 2.0\nretry_backoff = 0.2\n\
                      host_max_backoff = 1.0\n";

fn crawl(dir: &Path, seeds: &[String]) -> Output {
    let mut command = support::crawl_command(dir, CONFIG, "out");
    command.args(["--delay", "0"]);
    for seed in seeds {
        command.arg("--seed").arg(seed);
    }
    command.output().expect("run dedupcrawl crawl")
}

#[test]
fn exit_status_is_0_when_anything_was_crawled_and_4_when_every_seed_host_was_given_up() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let healthy = runtime
        .block_on(HostileHost::pages(5))
        .expect("healthy host");
    let plain = runtime.block_on(HostileHost::pages(1)).expect("plain host");
    let refused = format!("http://127.0.0.1:{}/", refused_port().expect("free port"));

    let dir = tempfile::tempdir().expect("tempdir");
    let output = crawl(dir.path(), &[healthy.url(), refused.clone()]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("hosts given up in this run"), "{stdout}");
    assert!(
        stdout.contains("host unreachable: connection refused (3 tries over"),
        "{stdout}"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let output = crawl(dir.path(), &[refused, plain.https_url()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("every seed host was given up"), "{stderr}");
}
