//! Errors of the crawl engine.

use std::path::PathBuf;

/// Everything that can stop a crawl (failed pages are logged, not errors).
#[derive(Debug, thiserror::Error)]
pub enum CrawlError {
    /// The configuration file could not be read.
    #[error("cannot read config file {path}: {source}")]
    ConfigRead {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The configuration is not valid TOML, has an unknown key or a value of the wrong type.
    #[error("invalid config{}: {message}", path.as_ref().map(|p| format!(" {}", p.display())).unwrap_or_default())]
    ConfigParse {
        path: Option<PathBuf>,
        message: String,
    },
    /// A crawl-log line is not valid JSON of the documented shape.
    #[error("{path}: bad crawl log line {line}: {message}")]
    CrawlLogLine {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// A value is out of range or inconsistent; the message names the key.
    #[error("invalid config value: {0}")]
    ConfigValue(String),
    /// A state directory or output file could not be written.
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The state of a crawl whose crawl log has lines is empty: lost or replaced.
    #[error(
        "the crawl state in {state} is empty but the crawl log {log} holds {lines} lines: the \
         state was lost or damaged; run `dedupcrawl repair {out}` to rebuild it from the crawl \
         log and the WARC files, then run the crawl again"
    )]
    StateLost {
        state: String,
        log: PathBuf,
        lines: usize,
        out: PathBuf,
    },
    /// The embedded state does not open (its files are damaged).
    #[error(
        "the crawl state in {state} cannot be opened ({message}); run `dedupcrawl repair {out}` \
         to rebuild it from the crawl log and the WARC files (the damaged state is kept aside)"
    )]
    StateDamaged {
        state: PathBuf,
        message: String,
        out: PathBuf,
    },
    #[error("crawl state (sled) failed: {0}")]
    State(#[from] sled::Error),
    #[error("crawl state (PostgreSQL) cannot {action}: {source}")]
    StatePostgres {
        action: &'static str,
        #[source]
        source: sqlx::Error,
    },
    #[error("crawl state: {0}")]
    StateUnreachable(#[source] dedupcrawl_reconnect::Unreachable),
    #[error(transparent)]
    Frontier(#[from] dedupcrawl_frontier::FrontierError),
    #[error(transparent)]
    Index(#[from] dedupcrawl_index::IndexError),
    #[error("WARC archive: {0}")]
    Archive(#[from] dedupcrawl_archive::ArchiveError),
    #[error(transparent)]
    Fetch(#[from] dedupcrawl_fetch::FetchError),
    /// Another process crawls into this output directory (it holds `OUT/crawl.lock`).
    #[error(
        "{} is in use by another crawl (its lock {} is held): wait for it to finish, or use \
         another --out",
        out.display(),
        lock.display()
    )]
    OutputLocked { out: PathBuf, lock: PathBuf },
    /// The crawl was interrupted (SIGINT, SIGTERM) before this step: it did not start. Not a
    /// failure: the URL stays in the frontier for the next run.
    #[error("interrupted: the crawl is stopping")]
    Interrupted,
    /// Another `dedupcrawl schedule` holds this schedule's state (`place` says where).
    #[error(
        "another `dedupcrawl schedule` runs on {place}: stop it first, or give this schedule {remedy}"
    )]
    ScheduleRunning { place: String, remedy: &'static str },
    /// A worker task panicked or was cancelled.
    #[error("crawl worker failed: {0}")]
    Worker(String),
}

impl From<dedupcrawl_reconnect::CallPanicked> for CrawlError {
    fn from(panicked: dedupcrawl_reconnect::CallPanicked) -> Self {
        CrawlError::Worker(panicked.to_string())
    }
}

impl CrawlError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        CrawlError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

dedupcrawl_reconnect::impl_connection_loss!(
    CrawlError,
    CrawlError::StatePostgres,
    CrawlError::StateUnreachable
);
