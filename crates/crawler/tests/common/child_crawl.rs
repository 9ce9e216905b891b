//! A crawl in a child process that a test can kill with SIGKILL: the test binary re-executes
//! itself with [`CHILD_ENV`] set, running only the caller's module's test named
//! `resume_child_process`, which calls [`child_entry`] and crawls the seeds into OUT.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dedupcrawl_crawler::{CrawlConfig, run_crawl};

use super::config_for;

/// `SEEDS|OUT` (seeds comma-separated) for the child.
pub const CHILD_ENV: &str = "DEDUPCRAWL_RESUME_CHILD";

/// Child mode: runs the crawl the environment names; a no-op in a normal test run.
pub fn child_entry() {
    let Ok(spec) = std::env::var(CHILD_ENV) else {
        return;
    };
    let mut parts = spec.split('|');
    let seeds: Vec<String> = parts
        .next()
        .unwrap_or_default()
        .split(',')
        .map(str::to_string)
        .collect();
    let out = parts.next().expect("OUT in the spec");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let report = runtime
        .block_on(run_crawl(child_config(seeds, Path::new(out))))
        .expect("child crawl");
    assert!(report.finished);
}

/// The children checkpoint the state every 50 ms, so the kills also land between checkpoints
/// and resumes start from them.
pub fn child_config(seeds: Vec<String>, out: &Path) -> CrawlConfig {
    let mut config = config_for(seeds, out);
    config.crawl.checkpoint_every = 0.05;
    config
}

pub fn log_lines(out: &Path) -> usize {
    std::fs::read_to_string(out.join("crawl.log.jsonl"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

/// When the child is killed.
#[derive(Debug, Clone, Copy)]
pub enum KillAt {
    /// Once the crawl log has this many lines.
    Lines(usize),
    /// This long after the child started (mid robots/sitemap fetch or mid page).
    Millis(u64),
    /// Never: run to the end.
    Never,
}

/// How a child run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChildEnd {
    /// Exited by itself with status 0.
    Finished,
    /// Exited by itself with another status.
    Failed,
    /// Killed at the moment asked.
    Killed,
}

/// Runs the child crawl of `spec` (`SEEDS|OUT`, see [`CHILD_ENV`]) and kills it (SIGKILL) at
/// `kill_at`; its stderr goes to `OUT.child{run}.stderr`. `child_test`: the full name (with
/// its module) of the test that calls [`child_entry`], e.g. `resume::resume_child_process`.
pub async fn run_child(
    child_test: &str,
    spec: &str,
    out: &Path,
    kill_at: KillAt,
    run: usize,
) -> ChildEnd {
    let stderr = std::fs::File::create(out.with_extension(format!("child{run}.stderr")))
        .expect("stderr file");
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([child_test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, spec)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("spawn child crawl");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait child") {
            return if status.success() {
                ChildEnd::Finished
            } else {
                ChildEnd::Failed
            };
        }
        let kill = match kill_at {
            KillAt::Lines(lines) => log_lines(out) >= lines,
            KillAt::Millis(ms) => started.elapsed() >= Duration::from_millis(ms),
            KillAt::Never => false,
        };
        if kill {
            child.kill().expect("SIGKILL child");
            child.wait().expect("reap child");
            return ChildEnd::Killed;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "child crawl hangs"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// `warcio check` on the files; a failure's output.
pub fn warcio_check(files: &[std::path::PathBuf]) -> Option<String> {
    let output = Command::new("warcio")
        .arg("check")
        .args(files)
        .output()
        .expect("warcio runs (scripts/install-test-tools installs it)");
    (!output.status.success()).then(|| {
        format!(
            "warcio check failed: {}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}
