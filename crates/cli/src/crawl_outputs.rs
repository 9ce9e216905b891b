//! The output directories of one crawl read as one: a single `--out` of a crawl, or the
//! `--out` of each worker of a crawl shared through PostgreSQL (`export`, `clusters`). Their
//! crawl logs are read one after another and their WARC files in directory order, each file's
//! directory known by its index (the *source*), so a reader can tell a URL met again in another
//! directory from a later version in the same one. Instead of the directories, a crawl in
//! PostgreSQL can be named (`--store URL --crawl NAME`): each worker records its `--out` there
//! when it starts.

use std::io::BufRead as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::export::CrawlLogLine;

/// Which crawl a reading command reads: its OUT directories, or its name in PostgreSQL.
#[derive(clap::Args)]
pub struct OutputsArgs {
    /// The crawl's output directory. Several: the `--out` of each worker of one crawl, read
    /// as one crawl (outputs that default to OUT/... go to the first).
    #[arg(required_unless_present = "store", value_name = "OUT")]
    pub outs: Vec<PathBuf>,
    /// Instead of OUT directories: the PostgreSQL database of a crawl (with --crawl). Every
    /// worker's OUT directory is read, as the worker recorded it when it started (they must be
    /// reachable at those paths from here).
    #[arg(
        long,
        value_name = "postgres://USER@HOST:PORT/DB",
        requires = "crawl",
        conflicts_with = "outs"
    )]
    pub store: Option<String>,
    /// The crawl's name in --store.
    #[arg(long, value_name = "NAME", requires = "store")]
    pub crawl: Option<String>,
}

/// One or more crawl output directories, in the order given (the first gets default outputs).
pub struct CrawlOutputs {
    dirs: Vec<PathBuf>,
}

impl CrawlOutputs {
    /// The directories as given on the command line; the same directory twice is an error
    /// (its pages would be read twice).
    pub fn new(dirs: Vec<PathBuf>) -> anyhow::Result<CrawlOutputs> {
        anyhow::ensure!(
            !dirs.is_empty(),
            "no crawl output directory given: name at least one OUT"
        );
        let mut seen = std::collections::HashSet::new();
        for dir in &dirs {
            // A directory that does not exist is reported by the first read, with its name.
            let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
            anyhow::ensure!(
                seen.insert(key),
                "{} is given twice: name each worker's OUT directory once",
                dir.display()
            );
        }
        Ok(CrawlOutputs { dirs })
    }

    /// The directories `args` names, or those the workers of the crawl `--store`/`--crawl`
    /// recorded (in worker-name order).
    pub fn from_args(args: &OutputsArgs) -> anyhow::Result<CrawlOutputs> {
        let (Some(store), Some(crawl)) = (&args.store, &args.crawl) else {
            return CrawlOutputs::new(args.outs.clone());
        };
        let mut config = dedupcrawl_crawler::CrawlConfig::default();
        config.store.url = Some(store.clone());
        config.store.crawl = Some(crawl.clone());
        let mut dirs = dedupcrawl_crawler::crawl_output_dirs(&config)
            .with_context(|| format!("cannot read the workers of crawl {crawl:?} in --store"))?;
        // A worker renamed between two runs into the same OUT recorded it twice.
        let mut seen = std::collections::HashSet::new();
        dirs.retain(|dir| seen.insert(dir.clone()));
        anyhow::ensure!(
            !dirs.is_empty(),
            "no worker of crawl {crawl:?} recorded its OUT directory in --store (no such crawl, \
             or crawled by an older dedupcrawl): give the OUT directories instead"
        );
        let missing: Vec<String> = dirs
            .iter()
            .filter(|dir| !dir.join("crawl.log.jsonl").is_file())
            .map(|dir| dir.display().to_string())
            .collect();
        anyhow::ensure!(
            missing.is_empty(),
            "the OUT directories of crawl {crawl:?} recorded in --store are not readable here: \
             {}; give the OUT directories (copies of them) instead",
            missing.join(", ")
        );
        CrawlOutputs::new(dirs)
    }

    /// The first directory: where outputs that default to `OUT/...` go.
    pub fn first(&self) -> &Path {
        &self.dirs[0]
    }

    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The directories for a human: `a` or `a, b`.
    pub fn describe(&self) -> String {
        self.dirs
            .iter()
            .map(|dir| dir.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Every crawl-log line of every directory: `found(source, line)`, directory by directory,
    /// each log in file order. A line that is not a crawl-log line (a torn last line after a
    /// kill) is skipped, with a warning when `warn_unreadable`.
    pub fn each_log_line(
        &self,
        warn_unreadable: bool,
        mut found: impl FnMut(usize, CrawlLogLine),
    ) -> anyhow::Result<()> {
        for (source, dir) in self.dirs.iter().enumerate() {
            each_log_line_in(dir, warn_unreadable, |line| found(source, line))?;
        }
        Ok(())
    }

    /// Every WARC file of every directory with its source: directory by directory, each in
    /// name (= time, serial) order.
    pub fn warc_files(&self) -> anyhow::Result<Vec<(usize, PathBuf)>> {
        let mut files = Vec::new();
        for (source, dir) in self.dirs.iter().enumerate() {
            files.extend(
                crawl_warc_files(dir)?
                    .into_iter()
                    .map(|file| (source, file)),
            );
        }
        Ok(files)
    }
}

/// The crawl-log lines of the crawl in `out` (see [`CrawlOutputs::each_log_line`]).
pub fn each_log_line_in(
    out: &Path,
    warn_unreadable: bool,
    mut found: impl FnMut(CrawlLogLine),
) -> anyhow::Result<()> {
    let path = out.join("crawl.log.jsonl");
    let file = std::fs::File::open(&path).with_context(|| {
        format!(
            "cannot read {}: is {} a crawl output directory?",
            path.display(),
            out.display()
        )
    })?;
    for (number, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("cannot read {}", path.display()))?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<CrawlLogLine>(&line) {
            Ok(entry) => found(entry),
            Err(_) if warn_unreadable => eprintln!(
                "dedupcrawl: warning: {} line {}: not a crawl-log line, skipped",
                path.display(),
                number + 1
            ),
            Err(_) => {}
        }
    }
    Ok(())
}

/// The crawl's WARC files in name (= time, serial) order.
pub fn crawl_warc_files(out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let dir = out.join("warc");
    anyhow::ensure!(
        dir.is_dir(),
        "cannot list {}: is {} a crawl output directory?",
        dir.display(),
        out.display()
    );
    Ok(dedupcrawl_crawler::warc_files(&dir)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_directory_twice_is_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let again = dir.path().join(".");
        let error = CrawlOutputs::new(vec![dir.path().to_path_buf(), again])
            .err()
            .expect("refused");
        assert!(error.to_string().contains("given twice"), "{error}");
        assert!(CrawlOutputs::new(Vec::new()).is_err());
    }

    #[test]
    fn log_lines_come_directory_by_directory_with_their_source() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let line = |url: &str| serde_json::json!({"url": url, "decision": "archived"}).to_string();
        std::fs::write(
            a.path().join("crawl.log.jsonl"),
            [line("http://h/1"), line("http://h/2")].join("\n"),
        )
        .unwrap();
        // A torn last line is skipped.
        std::fs::write(
            b.path().join("crawl.log.jsonl"),
            format!("{}\n{{\"url\": \"http://h/", line("http://h/3")),
        )
        .unwrap();
        let outputs =
            CrawlOutputs::new(vec![a.path().to_path_buf(), b.path().to_path_buf()]).unwrap();
        let mut seen = Vec::new();
        outputs
            .each_log_line(false, |source, line| seen.push((source, line.url)))
            .unwrap();
        assert_eq!(
            seen,
            [
                (0, "http://h/1".to_string()),
                (0, "http://h/2".to_string()),
                (1, "http://h/3".to_string())
            ]
        );
    }
}
