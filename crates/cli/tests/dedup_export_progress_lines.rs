//! `dedup` and `export` with stderr not a terminal (a pipe here): plain progress lines
//! (`dedupcrawl: progress: N/M <unit> (rate)`) every `DEDUPCRAWL_PROGRESS_EVERY` seconds (10 by
//! default); `--quiet` prints none; a value that is not a number of seconds is a warning.

use crate::common;

use std::process::{Command, Output};

use dedupcrawl_crawler::run_crawl;
use dedupcrawl_testsite::TestSite;

fn dedupcrawl(args: &[&str], every: &str) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .args(args)
        .env("DEDUPCRAWL_PROGRESS_EVERY", every)
        .env_remove("RUST_LOG")
        .output()
        .expect("run dedupcrawl");
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The progress lines of a run, each checked to name the count, the unit and the rate.
fn progress_lines(output: &Output, unit: &str) -> Vec<String> {
    let stderr = String::from_utf8_lossy(&output.stderr);
    let lines: Vec<String> = stderr
        .lines()
        .filter(|l| l.starts_with("dedupcrawl: progress: "))
        .map(str::to_string)
        .collect();
    for line in &lines {
        assert!(line.contains(&format!(" {unit} (")), "{unit} in {line}");
        assert!(line.contains("/s)"), "rate in {line}");
    }
    lines
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dedup_and_export_log_progress_lines_off_a_terminal_and_quiet_silences_them() {
    let site = TestSite::start_with(common::site_options()).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("crawl");
    run_crawl(common::test_config(&site, &out))
        .await
        .expect("crawl finishes");
    let out = out.to_str().unwrap().to_string();

    // export: a line each time the bar is drawn (period 0).
    let jsonl = work.path().join("pages.jsonl");
    let export = |quiet: bool, every: &str| {
        let mut args = vec![
            "export",
            out.as_str(),
            "--format",
            "jsonl",
            "--to",
            jsonl.to_str().unwrap(),
        ];
        if quiet {
            args.push("--quiet");
        }
        dedupcrawl(&args, every)
    };
    let lines = progress_lines(&export(false, "0"), "WARC files");
    assert!(!lines.is_empty(), "no progress line from export");
    assert!(progress_lines(&export(true, "0"), "WARC files").is_empty());
    // The default period (10 s) is longer than this export: no line.
    assert!(progress_lines(&export(false, "10"), "WARC files").is_empty());

    // dedup of the crawl's WARC files and of a directory of pages.
    let warcs: Vec<String> = dedupcrawl_crawler::warc_files(&work.path().join("crawl/warc"))
        .unwrap()
        .into_iter()
        .map(|p| p.to_str().unwrap().to_string())
        .collect();
    let index = work.path().join("index");
    let mut args = vec!["dedup", "--index", index.to_str().unwrap()];
    for warc in &warcs {
        args.extend(["--warc", warc.as_str()]);
    }
    let lines = progress_lines(&dedupcrawl(&args, "0"), "WARC files");
    assert!(!lines.is_empty(), "no progress line from dedup --warc");

    let pages = work.path().join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    for i in 0..40 {
        std::fs::write(
            pages.join(format!("p{i}.html")),
            format!("<html><body><p>page {i} of a directory of pages</p></body></html>"),
        )
        .unwrap();
    }
    let dedup_pages = |index: &str, quiet: bool, every: &str| {
        let index = work.path().join(index);
        let mut args = vec![
            "dedup",
            pages.to_str().unwrap(),
            "--index",
            index.to_str().unwrap(),
        ];
        if quiet {
            args.push("--quiet");
        }
        dedupcrawl(&args, every)
    };
    let lines = progress_lines(&dedup_pages("index-files", false, "0"), "files");
    assert!(!lines.is_empty(), "no progress line from dedup of files");
    assert!(progress_lines(&dedup_pages("index-quiet", true, "0"), "files").is_empty());

    // A period that is not a number of seconds: the default, with a warning naming it.
    let bad = dedup_pages("index-bad", false, "soon");
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(
        stderr.contains("DEDUPCRAWL_PROGRESS_EVERY") && stderr.contains("soon"),
        "{stderr}"
    );
}
