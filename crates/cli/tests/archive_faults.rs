//! The archive and the state agree after a WARC file is cut short: the crawl run again moves
//! the torn bytes aside, fetches the lost pages again and rewrites `index.cdxj`; `export`
//! refuses a damaged archive (or, with `--allow-damaged`, names every page it leaves out).
//! The fixture and the checks are shared with the fault suite (`fault_suite.rs`).

use crate::common;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dedupcrawl_archive::{CdxjEntry, ReaderOptions, read_record_at};
use dedupcrawl_crawler::{CrawlConfig, CrawlReport, Decision, run_crawl, warc_files};
use dedupcrawl_testsite::{MutatingSite, Validation, text};

/// Distinct pages of the fixture: `/` and `/p/1` … `/p/14`.
pub const DISTINCT_PAGES: usize = 15;

/// A small site: `/` links 14 pages of distinct text and one exact duplicate of `/p/1`.
pub fn fixture_site(runtime: &tokio::runtime::Runtime) -> MutatingSite {
    let site = runtime.block_on(MutatingSite::start()).expect("site");
    let pages: Vec<String> = (1..DISTINCT_PAGES).map(|k| format!("/p/{k}")).collect();
    let mut links: Vec<&str> = pages.iter().map(String::as_str).collect();
    links.push("/copy-of-1");
    site.put("/", "Home", &text(100, 120), &links, Validation::None);
    for (k, page) in pages.iter().enumerate() {
        let body = text(k as u64 + 1, 220);
        site.put(
            page,
            &format!("Page {}", k + 1),
            &body,
            &["/"],
            Validation::None,
        );
    }
    site.put(
        "/copy-of-1",
        "Page 1",
        &text(1, 220),
        &["/"],
        Validation::None,
    );
    site
}

/// The distinct pages of the fixture, as the crawl names them.
pub fn distinct_urls(site: &MutatingSite) -> HashSet<String> {
    let mut urls: HashSet<String> = (1..DISTINCT_PAGES)
        .map(|k| site.url(&format!("/p/{k}")))
        .collect();
    urls.insert(site.url("/"));
    urls
}

pub fn fixture_config(site: &MutatingSite, out: &Path) -> CrawlConfig {
    common::config_for(vec![site.url("/")], out)
}

pub fn crawl(runtime: &tokio::runtime::Runtime, config: &CrawlConfig) -> CrawlReport {
    runtime
        .block_on(run_crawl(config.clone()))
        .unwrap_or_else(|e| panic!("crawl of {}: {e}", config.crawl.out.display()))
}

pub fn dedupcrawl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .args(args)
        .output()
        .expect("dedupcrawl runs")
}

/// `export --format jsonl` of `out`: the exported URLs in order, or the failed command's
/// stderr.
pub fn export_urls(out: &Path, extra: &[&str]) -> Result<Vec<String>, String> {
    export_with_stderr(out, extra).map(|(urls, _)| urls)
}

/// [`export_urls`] with the stderr of a command that succeeded.
pub fn export_with_stderr(out: &Path, extra: &[&str]) -> Result<(Vec<String>, String), String> {
    let to = out.with_extension("export.jsonl");
    let mut args = vec![
        "export",
        out.to_str().expect("utf-8 path"),
        "--format",
        "jsonl",
        "--to",
        to.to_str().expect("utf-8 path"),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    let output = dedupcrawl(&args);
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    let text = std::fs::read_to_string(&to).expect("export written");
    let urls = text
        .lines()
        .map(|line| {
            let page: serde_json::Value = serde_json::from_str(line).expect("JSON line");
            page["url"].as_str().expect("url").to_string()
        })
        .collect();
    Ok((urls, String::from_utf8_lossy(&output.stderr).into_owned()))
}

/// The problems of a crawl's OUT after a fault and a resume, against the fixture's distinct
/// pages: each exported once, warcio accepts every WARC file, every CDXJ line points at a
/// record of its file, the crawl log's archived pages are the export.
pub fn integrity_problems(out: &Path, expected: &HashSet<String>) -> Vec<String> {
    let mut problems = Vec::new();
    match export_urls(out, &[]) {
        Err(stderr) => problems.push(format!("export failed: {stderr}")),
        Ok(urls) => {
            let mut times: HashMap<&str, usize> = HashMap::new();
            for url in &urls {
                *times.entry(url.as_str()).or_default() += 1;
            }
            let exported: HashSet<String> = urls.iter().cloned().collect();
            if &exported != expected {
                problems.push(format!(
                    "export is not the distinct pages: missing {:?}, extra {:?}",
                    expected.difference(&exported).collect::<Vec<_>>(),
                    exported.difference(expected).collect::<Vec<_>>()
                ));
            }
            let twice: Vec<_> = times.iter().filter(|(_, n)| **n > 1).collect();
            if !twice.is_empty() {
                problems.push(format!("exported more than once: {twice:?}"));
            }
            let archived = archived_in_log(out);
            if archived != exported {
                problems.push(format!(
                    "crawl log's archived pages differ from the export: log only {:?}, export only {:?}",
                    archived.difference(&exported).collect::<Vec<_>>(),
                    exported.difference(&archived).collect::<Vec<_>>()
                ));
            }
        }
    }
    let files = warc_files(&out.join("warc")).expect("WARC files listed");
    if files.is_empty() {
        problems.push("no WARC file".into());
    } else if let Some(failure) = common::child_crawl::warcio_check(&files) {
        problems.push(failure);
    }
    problems.extend(cdxj_problems(out));
    problems
}

/// URLs with an `archived` line in the crawl log (lines that do not parse skipped).
pub fn archived_in_log(out: &Path) -> HashSet<String> {
    let text = std::fs::read(out.join("crawl.log.jsonl")).unwrap_or_default();
    String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|line| serde_json::from_str::<dedupcrawl_crawler::LogLine>(line).ok())
        .filter(|line| line.decision == Decision::Archived)
        .map(|line| line.url)
        .collect()
}

/// Lines of `index.cdxj` that do not point inside their file at a record of their URL.
pub fn cdxj_problems(out: &Path) -> Vec<String> {
    let Ok(index) = std::fs::read_to_string(out.join("index.cdxj")) else {
        return vec!["no index.cdxj".into()];
    };
    let mut problems = Vec::new();
    for line in index.lines() {
        let Some(entry) = CdxjEntry::parse(line) else {
            problems.push(format!("not a CDXJ line: {line}"));
            continue;
        };
        let path: PathBuf = out.join("warc").join(&entry.filename);
        let length = std::fs::metadata(&path).map_or(0, |m| m.len());
        if entry.offset + entry.length > length {
            problems.push(format!("{line}: past the end of its file ({length} bytes)"));
            continue;
        }
        match read_record_at(&path, entry.offset, ReaderOptions::default()) {
            Ok(record) if record.target_uri() == Some(entry.url.as_str()) => {}
            Ok(record) => problems.push(format!("{line}: points at {:?}", record.target_uri())),
            Err(error) => problems.push(format!("{line}: {error}")),
        }
    }
    problems
}

/// Cuts `path` to `length` bytes.
pub fn truncate(path: &Path, length: u64) {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open to truncate");
    file.set_len(length).expect("truncate");
}

fn the_warc_file(out: &Path) -> PathBuf {
    let files = warc_files(&out.join("warc")).expect("WARC files listed");
    assert_eq!(files.len(), 1, "one WARC file: {files:?}");
    files[0].clone()
}

/// Page paths the site answered with 200, by how often.
fn page_fetches(site: &MutatingSite) -> HashMap<String, usize> {
    let mut fetches = HashMap::new();
    for (path, status) in site.requests() {
        if status == 200 && (path == "/" || path.starts_with("/p/")) {
            *fetches.entry(path).or_default() += 1;
        }
    }
    fetches
}

/// The reproduction: a WARC cut in the middle of its records, the same crawl again.
#[test]
fn a_warc_cut_short_is_mended_and_its_lost_pages_fetched_again() {
    let runtime = common::runtime();
    let site = fixture_site(&runtime);
    let work = tempfile::tempdir().expect("tempdir");
    let out = work.path().join("crawl");
    let config = fixture_config(&site, &out);
    let first = crawl(&runtime, &config);
    assert_eq!(first.total.archived, DISTINCT_PAGES as u64, "{first:?}");
    let expected = distinct_urls(&site);
    assert_eq!(integrity_problems(&out, &expected), Vec::<String>::new());

    let warc = the_warc_file(&out);
    let length = std::fs::metadata(&warc).expect("size").len();
    truncate(&warc, length / 2);
    let damaged = export_urls(&out, &[]).expect_err("export refuses a damaged archive");
    assert!(
        damaged.contains("is damaged") && damaged.contains("--allow-damaged"),
        "{damaged}"
    );
    let (partial, warnings) =
        export_with_stderr(&out, &["--allow-damaged"]).expect("export --allow-damaged");
    let left_out: Vec<&String> = expected.iter().filter(|u| !partial.contains(u)).collect();
    for url in &left_out {
        assert!(
            warnings.contains(&format!("page left out (its record is lost): {url}")),
            "{url} not named: {warnings}"
        );
    }
    assert!(
        !left_out.is_empty(),
        "half the WARC file cut, nothing left out"
    );

    site.clear_requests();
    let second = crawl(&runtime, &config);
    let scan = &second.resume_scan;
    assert_eq!(scan.pages_lost, left_out.len() as u64, "{scan:?}");
    assert!(scan.damaged_bytes_moved > 0, "{scan:?}");
    assert!(
        second.summary().contains("fetched again"),
        "{}",
        second.summary()
    );
    assert_eq!(
        second.total.archived, DISTINCT_PAGES as u64,
        "the summary counts each page once: {second:?}"
    );
    let fetched = page_fetches(&site);
    for url in &left_out {
        let path = url.trim_start_matches(&site.url(""));
        assert_eq!(
            fetched.get(path),
            Some(&1),
            "{path} fetched again once: {fetched:?}"
        );
    }
    assert_eq!(
        fetched.len(),
        left_out.len(),
        "only lost pages fetched: {fetched:?}"
    );
    assert_eq!(integrity_problems(&out, &expected), Vec::<String>::new());
    assert!(out.join("damaged").read_dir().expect("damaged/").count() > 0);
}
