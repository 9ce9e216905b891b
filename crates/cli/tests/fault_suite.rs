//! The fault suite: each file of a finished crawl's OUT (every WARC file, `index.cdxj`, the
//! crawl log, each file of `state/`) truncated to half its length, corrupted (64 bytes in its
//! middle overwritten) or deleted; then the crawl is run again (after `dedupcrawl repair` when
//! the resume asks for it) and exported. After each: every distinct page of the fixture is in
//! the export once, warcio accepts every WARC file, every CDXJ line points at a record of its
//! file, the crawl log's archived pages are the export. PostgreSQL state: the WARC, CDXJ and
//! crawl-log faults. Each case prints its cost (a row of docs/operations.md's table).

use crate::archive_faults::{
    dedupcrawl, distinct_urls, fixture_config, fixture_site, integrity_problems, truncate,
};
use crate::common;

use std::path::{Path, PathBuf};

use dedupcrawl_crawler::{CrawlConfig, CrawlReport, run_crawl, warc_files};
use dedupcrawl_testsite::MutatingSite;

#[derive(Debug, Clone, Copy)]
enum Fault {
    Truncate,
    Corrupt,
    Delete,
}

fn apply(fault: Fault, path: &Path) {
    let length = std::fs::metadata(path).expect("file to damage").len();
    match fault {
        Fault::Truncate => truncate(path, length / 2),
        Fault::Corrupt => {
            let mut bytes = std::fs::read(path).expect("read");
            let start = (length as usize / 2).min(bytes.len().saturating_sub(1));
            let end = (start + 64).min(bytes.len());
            for byte in &mut bytes[start..end] {
                *byte ^= 0xA5;
            }
            std::fs::write(path, bytes).expect("write");
        }
        Fault::Delete => std::fs::remove_file(path).expect("delete"),
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create copy");
    for entry in std::fs::read_dir(from).expect("list") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// Every file under `dir`, relative to it.
fn files_under(dir: &Path, root: &Path, files: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("list") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files_under(&path, root, files);
        } else {
            files.push(path.strip_prefix(root).expect("inside").to_path_buf());
        }
    }
}

/// The resume after a fault: the crawl again, after `repair` when it asks for it. Returns the
/// report and whether the state was repaired.
fn resume(
    runtime: &tokio::runtime::Runtime,
    config: &CrawlConfig,
) -> Result<(CrawlReport, bool), String> {
    match runtime.block_on(run_crawl(config.clone())) {
        Ok(report) => Ok((report, false)),
        Err(error) if error.to_string().contains("dedupcrawl repair") => {
            let out = config.crawl.out.to_str().expect("utf-8");
            let repair = dedupcrawl(&["repair", out]);
            if !repair.status.success() {
                return Err(format!(
                    "repair failed: {}",
                    String::from_utf8_lossy(&repair.stderr)
                ));
            }
            let report = runtime
                .block_on(run_crawl(config.clone()))
                .map_err(|e| format!("crawl after repair: {e}"))?;
            Ok((report, true))
        }
        Err(error) => Err(format!("resume failed: {error}")),
    }
}

/// One case: `fault` on `file` (relative to OUT) of a copy of `pristine`; its problems.
fn run_case(
    runtime: &tokio::runtime::Runtime,
    site: &MutatingSite,
    pristine: &Path,
    work: &Path,
    file: &Path,
    fault: Fault,
) -> Vec<String> {
    let name = format!("{}-{fault:?}", file.display()).replace('/', "_");
    let out = work.join(name);
    copy_tree(pristine, &out);
    apply(fault, &out.join(file));
    let config = fixture_config(site, &out);
    let case = format!("{fault:?} {}", file.display());
    match resume(runtime, &config) {
        Err(problem) => vec![format!("{case}: {problem}")],
        Ok((report, repaired)) => {
            let scan = &report.resume_scan;
            println!(
                "| {case} | {} pages fetched again | state {} | {} crawl-log lines restored, {} moved out |",
                scan.pages_lost,
                if repaired {
                    "rebuilt by repair"
                } else {
                    "kept"
                },
                scan.log_lines_restored,
                scan.log_lines_moved
            );
            integrity_problems(&out, &distinct_urls(site))
                .into_iter()
                .map(|problem| format!("{case}: {problem}"))
                .collect()
        }
    }
}

/// A finished crawl of the fixture in `work/pristine`, with its saved configuration.
fn pristine_crawl(runtime: &tokio::runtime::Runtime, site: &MutatingSite, work: &Path) -> PathBuf {
    let out = work.join("pristine");
    let config = fixture_config(site, &out);
    crate::archive_faults::crawl(runtime, &config);
    let text = toml::to_string(&config).expect("config as TOML");
    std::fs::write(out.join("crawl.toml"), text).expect("write crawl.toml");
    out
}

/// Every fault on every file `select` picks (relative paths of OUT).
fn suite(select: impl Fn(&Path) -> bool) {
    let runtime = common::runtime();
    let site = fixture_site(&runtime);
    let work = tempfile::tempdir().expect("tempdir");
    let pristine = pristine_crawl(&runtime, &site, work.path());
    let mut files = Vec::new();
    files_under(&pristine, &pristine, &mut files);
    files.retain(|file| select(file));
    files.sort();
    assert!(!files.is_empty(), "no file selected");
    let mut problems = Vec::new();
    for file in &files {
        for fault in [Fault::Truncate, Fault::Corrupt, Fault::Delete] {
            problems.extend(run_case(
                &runtime,
                &site,
                &pristine,
                work.path(),
                file,
                fault,
            ));
        }
    }
    assert_eq!(problems, Vec::<String>::new());
}

#[test]
fn faults_of_the_warc_files() {
    suite(|file| file.starts_with("warc"));
}

#[test]
fn faults_of_the_cdxj_and_the_crawl_log() {
    suite(|file| file == Path::new("index.cdxj") || file == Path::new("crawl.log.jsonl"));
}

#[test]
fn faults_of_the_state_files() {
    suite(|file| file.starts_with("state"));
}

/// The WARC, CDXJ and crawl-log faults with the state in PostgreSQL: a crawl of its own per
/// case (the state is the database's, not a file to copy).
#[test]
fn faults_of_the_archive_and_log_with_postgres_state() {
    let server = std::env::var("DEDUPCRAWL_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!("DEDUPCRAWL_TEST_POSTGRES is not set: run through ./scripts/test or ./scripts/with-postgres")
    });
    let runtime = common::runtime();
    let site = fixture_site(&runtime);
    let work = tempfile::tempdir().expect("tempdir");
    let mut problems = Vec::new();
    let targets = ["warc", "index.cdxj", "crawl.log.jsonl"];
    for (number, target) in targets.iter().enumerate() {
        for fault in [Fault::Truncate, Fault::Corrupt, Fault::Delete] {
            let out = work.path().join(format!("pg-{number}-{fault:?}"));
            let mut config = fixture_config(&site, &out);
            config.store.url = Some(server.clone());
            config.store.crawl = Some(format!(
                "fault-suite-{}-{number}-{fault:?}-{}",
                std::process::id(),
                chrono::Utc::now().timestamp_micros()
            ));
            crate::archive_faults::crawl(&runtime, &config);
            let file = if *target == "warc" {
                warc_files(&out.join("warc")).expect("WARC files")[0].clone()
            } else {
                out.join(target)
            };
            apply(fault, &file);
            let case = format!("PostgreSQL {fault:?} {target}");
            match resume(&runtime, &config) {
                Err(problem) => problems.push(format!("{case}: {problem}")),
                Ok((report, _)) => {
                    println!(
                        "| {case} | {} pages fetched again |",
                        report.resume_scan.pages_lost
                    );
                    problems.extend(
                        integrity_problems(&out, &distinct_urls(&site))
                            .into_iter()
                            .map(|problem| format!("{case}: {problem}")),
                    );
                }
            }
        }
    }
    assert_eq!(problems, Vec::<String>::new());
}
