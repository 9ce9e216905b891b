//! The files of a crawl's output directory (`OUT/`), and its WARC files.

use std::path::{Path, PathBuf};

use crate::error::CrawlError;

/// Paths of a crawl's output directory.
#[derive(Debug, Clone)]
pub struct OutputPaths {
    pub root: PathBuf,
    pub warc_dir: PathBuf,
    pub crawl_log: PathBuf,
    pub cdxj: PathBuf,
    pub cdxj_unsorted: PathBuf,
    pub state: PathBuf,
    pub report: PathBuf,
}

impl OutputPaths {
    pub fn new(root: &Path) -> OutputPaths {
        OutputPaths {
            root: root.to_path_buf(),
            warc_dir: root.join("warc"),
            crawl_log: root.join("crawl.log.jsonl"),
            cdxj: root.join("index.cdxj"),
            cdxj_unsorted: root.join("state").join("index.cdxj.unsorted"),
            state: root.join("state"),
            report: root.join("report.json"),
        }
    }

    /// `OUT/report.round-N.json`: the report of round `round` (`report.json` is the latest
    /// run's; this copy stays when later rounds run).
    pub fn round_report(&self, round: u32) -> PathBuf {
        self.root.join(format!("report.round-{round}.json"))
    }
}

/// Lists the `.warc.gz` / `.warc` files of a directory, sorted by name (= by serial).
pub fn warc_files(dir: &Path) -> Result<Vec<PathBuf>, CrawlError> {
    let mut files = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(files),
        Err(e) => return Err(CrawlError::io("list", dir, e)),
    };
    for entry in entries {
        let path = entry.map_err(|e| CrawlError::io("list", dir, e))?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".warc.gz") || name.ends_with(".warc") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}
