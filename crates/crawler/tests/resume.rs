//! Kill -9 a real crawl process at several points, resume it to the end, and check that every
//! distinct page is archived exactly once, no URL is missing and the WARC files are valid.
//!
//! The crawl runs in a child process: this test binary re-executed with
//! `DEDUPCRAWL_RESUME_CHILD` set, which makes `resume_child_process` run the crawl.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use dedupcrawl_crawler::{Decision, run_crawl, warc_files};
use dedupcrawl_testsite::TestSite;

use common::*;

const CHILD_ENV: &str = "DEDUPCRAWL_RESUME_CHILD";

/// Child mode: `SEEDS|OUT` in the environment; runs the crawl. A no-op in a normal test run.
#[test]
fn resume_child_process() {
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
fn child_config(seeds: Vec<String>, out: &Path) -> dedupcrawl_crawler::CrawlConfig {
    let mut config = config_for(seeds, out);
    config.crawl.checkpoint_every = 0.05;
    config
}

fn log_lines(out: &Path) -> usize {
    std::fs::read_to_string(out.join("crawl.log.jsonl"))
        .map(|s| s.lines().count())
        .unwrap_or(0)
}

/// When the child is killed.
#[derive(Debug, Clone, Copy)]
enum KillAt {
    /// Once the crawl log has this many lines.
    Lines(usize),
    /// This long after the child started (mid robots/sitemap fetch or mid page).
    Millis(u64),
    /// Never: run to the end.
    Never,
}

/// Runs the child crawl and kills it (SIGKILL) at `kill_at`. Returns whether the child exited
/// by itself successfully.
async fn run_child(spec: &str, out: &Path, kill_at: KillAt, run: usize) -> bool {
    let stderr = std::fs::File::create(out.with_extension(format!("child{run}.stderr")))
        .expect("stderr file");
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "resume_child_process",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, spec)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .expect("spawn child crawl");
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("wait child") {
            return status.success();
        }
        let kill = match kill_at {
            KillAt::Lines(lines) => log_lines(out) >= lines,
            KillAt::Millis(ms) => started.elapsed() >= Duration::from_millis(ms),
            KillAt::Never => false,
        };
        if kill {
            child.kill().expect("SIGKILL child");
            child.wait().expect("reap child");
            return false;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "child crawl hangs"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_nine_and_resume_archives_every_page_once() {
    let site = TestSite::start_with(site_options())
        .await
        .expect("site starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).expect("out dir");
    let spec = format!(
        "{},{}|{}",
        site.main_url(),
        site.host_b_url(),
        out.display()
    );
    let mut run = 0;
    let kills = [
        KillAt::Millis(300),
        KillAt::Lines(3),
        KillAt::Lines(20),
        KillAt::Millis(1200),
        KillAt::Lines(45),
        KillAt::Lines(80),
        KillAt::Lines(110),
    ];
    for kill_at in kills {
        run += 1;
        let finished = run_child(&spec, &out, kill_at, run).await;
        assert!(
            !finished,
            "run {run}: the child finished before {kill_at:?}"
        );
    }
    run += 1;
    assert!(
        run_child(&spec, &out, KillAt::Never, run).await,
        "the resumed crawl must finish with exit status 0 (see {}.child{run}.stderr)",
        out.display()
    );

    // One more run: the finished crawl's last checkpoint covers every WARC record, so the
    // resume skips the earlier files whole and reads nothing of the last one.
    let seeds = vec![site.main_url(), site.host_b_url()];
    let again = run_crawl(child_config(seeds, &out))
        .await
        .expect("a finished crawl runs again");
    let files_before = warc_files(&out.join("warc")).expect("warcs").len() as u64;
    assert!(
        again.resume_scan.files_skipped + 2 >= files_before && again.resume_scan.records_read <= 1,
        "the resume read what the checkpoint covers: {:?} ({files_before} files)",
        again.resume_scan
    );
    assert!(
        again.resume_scan.bytes_skipped > 0,
        "{:?}",
        again.resume_scan
    );

    let expected = site.expected();
    let mut failures = archive_problems(&expected, &out);
    // No URL lost: every distinct page has a decision in the log.
    let last = last_line_per_url(&crawl_log(&out));
    for url in &expected.distinct_pages {
        if expected.group_of(url).is_none()
            && last
                .get(url)
                .is_none_or(|l| l.decision != Decision::Archived)
        {
            failures.push(format!("{url} missing from the log: {:?}", last.get(url)));
        }
    }
    // The CDXJ index has one line per indexed record, even for records re-indexed on resume.
    let cdxj = std::fs::read_to_string(out.join("index.cdxj")).expect("index.cdxj");
    let mut positions = std::collections::HashSet::new();
    for line in cdxj.lines() {
        let entry = dedupcrawl_archive::CdxjEntry::parse(line).expect("valid CDXJ line");
        if !positions.insert((entry.filename.clone(), entry.offset)) {
            failures.push(format!("CDXJ record indexed twice: {line}"));
        }
    }
    assert!(positions.len() >= expected.distinct_pages.len());
    // The WARC files are valid for warcio.
    let files = warc_files(&out.join("warc")).expect("warcs");
    assert!(
        files.len() >= 6,
        "each run starts a new WARC file: {files:?}"
    );
    match Command::new("warcio").arg("check").args(&files).output() {
        Ok(output) => {
            if !output.status.success() {
                failures.push(format!(
                    "warcio check failed: {}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                ));
            }
        }
        Err(error) => eprintln!("warcio not available ({error}); run scripts/install-test-tools"),
    }
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
