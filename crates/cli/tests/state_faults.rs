//! A lost state is detected and rebuilt, and the commands that only read a crawl leave it as
//! it is: a resume on a deleted `state/db` stops and points at `dedupcrawl repair`, which
//! rebuilds the state so the crawl continues without fetching anything again; `overlap`,
//! `why` and `export` on a read-only OUT change no file of it; `dedup --warc --index
//! OUT/state` refuses a crawl's state without advising to delete it.

use crate::archive_faults::{
    crawl, dedupcrawl, distinct_urls, fixture_config, fixture_site, integrity_problems,
};
use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dedupcrawl_crawler::{CrawlConfig, run_crawl};

/// `dir` and everything under it.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut paths = vec![dir.to_path_buf()];
    if dir.is_dir() {
        for entry in std::fs::read_dir(dir).expect("list") {
            paths.extend(walk(&entry.expect("entry").path()));
        }
    }
    paths
}

/// Every file under `dir` with a digest of its bytes (and its mode bits).
pub fn tree_digest(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for path in walk(dir) {
        let relative = path
            .strip_prefix(dir)
            .expect("inside")
            .display()
            .to_string();
        let metadata = std::fs::symlink_metadata(&path).expect("metadata");
        let digest = if metadata.is_file() {
            let bytes = std::fs::read(&path).expect("read");
            dedupcrawl_archive::sha1_digest(&bytes)
        } else {
            "dir".to_string()
        };
        files.insert(
            relative,
            format!("{digest} {:o}", metadata.permissions_mode()),
        );
    }
    files
}

trait Mode {
    fn permissions_mode(&self) -> u32;
}

impl Mode for std::fs::Metadata {
    fn permissions_mode(&self) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        self.permissions().mode()
    }
}

/// The crawl's configuration saved in OUT, as `dedupcrawl crawl` saves it (`repair` reads it).
fn save_config(config: &CrawlConfig) {
    let text = toml::to_string(config).expect("config as TOML");
    std::fs::write(config.crawl.out.join("crawl.toml"), text).expect("write crawl.toml");
}

fn set_read_only(dir: &Path, read_only: bool) {
    use std::os::unix::fs::PermissionsExt;
    for path in walk(dir) {
        let mut permissions = std::fs::metadata(&path).expect("metadata").permissions();
        let mode = permissions.mode();
        permissions.set_mode(if read_only {
            mode & !0o222
        } else {
            mode | 0o200
        });
        std::fs::set_permissions(&path, permissions).expect("chmod");
    }
}

fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn a_deleted_state_stops_the_resume_and_repair_rebuilds_it() {
    let runtime = common::runtime();
    let site = fixture_site(&runtime);
    let work = tempfile::tempdir().expect("tempdir");
    let out = work.path().join("crawl");
    let config = fixture_config(&site, &out);
    crawl(&runtime, &config);
    save_config(&config);
    std::fs::remove_file(out.join("state").join("db")).expect("delete state/db");

    let error = runtime
        .block_on(run_crawl(config.clone()))
        .expect_err("a resume on a lost state stops")
        .to_string();
    assert!(error.contains("dedupcrawl repair"), "{error}");
    assert!(!error.contains("delete"), "{error}");

    let repair = dedupcrawl(&["repair", out.to_str().expect("utf-8")]);
    assert!(repair.status.success(), "{}", stderr_of(&repair));
    let aside = std::fs::read_dir(&out)
        .expect("list OUT")
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("state.before-repair-")
        })
        .count();
    assert_eq!(aside, 1, "the old state is kept aside");

    site.clear_requests();
    let resumed = crawl(&runtime, &config);
    let pages_fetched: Vec<_> = site
        .requests()
        .into_iter()
        .filter(|(path, status)| *status == 200 && (path == "/" || path.starts_with("/p/")))
        .collect();
    assert_eq!(
        pages_fetched,
        Vec::new(),
        "a repaired crawl fetches nothing again"
    );
    // The round's report, counted again from the crawl log.
    assert_eq!(resumed.total.archived, 15, "{resumed:?}");
    let expected = distinct_urls(&site);
    assert_eq!(integrity_problems(&out, &expected), Vec::<String>::new());
}

/// A state lost halfway through a crawl: `repair` queues the links of the archived pages not
/// decided yet, and the crawl run again archives the rest, each page once.
#[test]
fn repair_of_a_crawl_stopped_halfway_queues_what_was_left_to_fetch() {
    let runtime = common::runtime();
    let site = fixture_site(&runtime);
    let work = tempfile::tempdir().expect("tempdir");
    let out = work.path().join("crawl");
    let mut config = fixture_config(&site, &out);
    config.crawl.max_pages = Some(4);
    let first = crawl(&runtime, &config);
    assert!(!first.finished && first.total.archived < 15, "{first:?}");
    save_config(&config);
    std::fs::remove_file(out.join("state").join("db")).expect("delete state/db");
    let repair = dedupcrawl(&["repair", out.to_str().expect("utf-8")]);
    assert!(repair.status.success(), "{}", stderr_of(&repair));
    config.crawl.max_pages = None;
    let second = crawl(&runtime, &config);
    assert!(second.finished, "{second:?}");
    let expected = distinct_urls(&site);
    assert_eq!(integrity_problems(&out, &expected), Vec::<String>::new());
}

#[test]
fn read_only_commands_change_no_file_of_a_read_only_crawl() {
    let runtime = common::runtime();
    let site = fixture_site(&runtime);
    let work = tempfile::tempdir().expect("tempdir");
    let out = work.path().join("crawl");
    let config = fixture_config(&site, &out);
    crawl(&runtime, &config);
    save_config(&config);
    let out_str = out.to_str().expect("utf-8");
    set_read_only(&out, true);
    let before = tree_digest(&out);
    let export_to = work.path().join("export.jsonl");
    // A duplicate: why reads the compared texts from the index (in the state).
    let page_url = site.url("/copy-of-1");
    let commands: Vec<Vec<&str>> = vec![
        vec!["overlap", out_str, out_str, "--json"],
        vec!["why", out_str, &page_url],
        vec![
            "export",
            out_str,
            "--format",
            "jsonl",
            "--to",
            export_to.to_str().expect("utf-8"),
            "--quiet",
        ],
    ];
    for args in commands {
        let output = dedupcrawl(&args);
        assert!(output.status.success(), "{args:?}: {}", stderr_of(&output));
        assert_eq!(tree_digest(&out), before, "{args:?} changed OUT");
    }
    set_read_only(&out, false);
}

#[test]
fn dedup_refuses_a_crawl_state_as_its_index_and_leaves_it_alone() {
    let runtime = common::runtime();
    let site = fixture_site(&runtime);
    let work = tempfile::tempdir().expect("tempdir");
    let out = work.path().join("crawl");
    crawl(&runtime, &fixture_config(&site, &out));
    let before = tree_digest(&out);
    let warc = out.join("warc");
    let index = out.join("state");
    let output = dedupcrawl(&[
        "dedup",
        "--warc",
        warc.to_str().expect("utf-8"),
        "--index",
        index.to_str().expect("utf-8"),
    ]);
    let stderr = stderr_of(&output);
    assert!(!output.status.success(), "dedup opened a crawl's state");
    assert!(stderr.contains("state of a crawl"), "{stderr}");
    assert!(
        !stderr.contains("delete") && !stderr.contains("start over"),
        "{stderr}"
    );
    assert_eq!(tree_digest(&out), before, "dedup changed OUT");
}
