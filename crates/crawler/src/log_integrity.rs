//! The crawl log checked when a crawl opens: lines that do not parse (corrupt bytes) are
//! moved to `OUT/damaged/`, and an archived page whose line the log lost (the log cut short,
//! damaged or deleted) gets its `archived` line back from its WARC record. When the log
//! changed, or is shorter than its checkpoint says, the crawl reads it whole again.

use std::collections::HashSet;
use std::io::Write;

use crate::archive_integrity::ArchiveScan;
use crate::crawl_log::{Decision, LogLine};
use crate::crawl_state::CrawlStateStore;
use crate::error::CrawlError;
use crate::output_paths::OutputPaths;

/// `note` of a crawl-log line restored from a WARC record.
pub(crate) const RESTORED_LINE_NOTE: &str =
    "line restored from the WARC record (the crawl log had lost it)";

/// What [`mend_crawl_log`] did.
#[derive(Debug, Default)]
pub(crate) struct LogMending {
    /// Lines that did not parse, moved to `OUT/damaged/`.
    pub(crate) lines_moved_out: usize,
    /// `archived` lines restored from WARC records.
    pub(crate) lines_restored: usize,
    /// The offset the crawl reads the log from: the checkpoint's, or 0 when the log is not
    /// the one the checkpoint counted any more.
    pub(crate) read_from: u64,
}

/// Mends the crawl log (see the module); `checkpoint` is the offset its checkpoint covers.
pub(crate) fn mend_crawl_log(
    paths: &OutputPaths,
    scan: &ArchiveScan,
    crawl_state: &dyn CrawlStateStore,
    checkpoint: u64,
    round: u32,
) -> Result<LogMending, CrawlError> {
    let bytes = match std::fs::read(&paths.crawl_log) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(CrawlError::io("read crawl log", &paths.crawl_log, e)),
    };
    // Whole lines only: a torn last line is the log's own to cut (`CrawlLog::open_from`).
    let whole = bytes
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(&bytes[..0], |end| &bytes[..=end]);
    let (good, bad): (Vec<&[u8]>, Vec<&[u8]>) = whole
        .split_inclusive(|&b| b == b'\n')
        .partition(|line| serde_json::from_slice::<LogLine>(line).is_ok());
    let mut mending = LogMending {
        lines_moved_out: bad.len(),
        read_from: checkpoint,
        ..LogMending::default()
    };
    if !bad.is_empty() {
        move_bad_lines(paths, &bad)?;
    }
    // Lines are restored only when the log lost some it had: a page archived by a crawl
    // killed before its line was written is fetched and logged again, as a resume does.
    let damaged = !bad.is_empty() || (whole.len() as u64) < checkpoint;
    let restored = if damaged {
        let logged: HashSet<String> = good
            .iter()
            .filter_map(|line| serde_json::from_slice::<LogLine>(line).ok())
            .map(|line| line.url)
            .collect();
        restored_lines(scan, crawl_state, &logged, round)?
    } else {
        Vec::new()
    };
    mending.lines_restored = restored.len();
    // Rewritten without the bad lines (and, before restored lines are appended, without a
    // torn last line).
    if !bad.is_empty() || (!restored.is_empty() && whole.len() < bytes.len()) {
        rewrite_log(paths, &good)?;
    }
    if !restored.is_empty() {
        append_lines(paths, &restored)?;
    }
    if damaged {
        mending.read_from = 0;
    }
    Ok(mending)
}

/// An `archived` line for each good response whose URL has no line in the log.
fn restored_lines(
    scan: &ArchiveScan,
    crawl_state: &dyn CrawlStateStore,
    logged: &HashSet<String>,
    round: u32,
) -> Result<Vec<LogLine>, CrawlError> {
    let mut restored = Vec::new();
    let mut done = HashSet::new();
    for facts in scan.response_facts() {
        if logged.contains(&facts.url) || !done.insert(facts.url.clone()) {
            continue;
        }
        let mut line = LogLine::new(facts.url.clone(), Decision::Archived, 0, None);
        if let Some(date) = facts.date {
            line.ts = date.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        }
        line.status = facts.status;
        line.content_digest = facts.payload_digest.clone();
        line.bytes = Some(facts.bytes);
        line.note = Some(RESTORED_LINE_NOTE.to_string());
        line.round = crawl_state
            .archived_record(&facts.url)?
            .map_or(round, |record| record.round);
        restored.push(line);
    }
    Ok(restored)
}

fn move_bad_lines(paths: &OutputPaths, bad: &[&[u8]]) -> Result<(), CrawlError> {
    let damaged = paths.root.join("damaged");
    std::fs::create_dir_all(&damaged)
        .map_err(|e| CrawlError::io("create directory", &damaged, e))?;
    let aside = damaged.join(format!(
        "crawl.log.jsonl.lines-{}",
        chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
    ));
    std::fs::write(&aside, bad.concat()).map_err(|e| CrawlError::io("write", &aside, e))
}

fn rewrite_log(paths: &OutputPaths, good: &[&[u8]]) -> Result<(), CrawlError> {
    let temp = paths.crawl_log.with_extension("jsonl.mending");
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(&good.concat())?;
        file.sync_all()?;
        std::fs::rename(&temp, &paths.crawl_log)
    };
    write().map_err(|e| CrawlError::io("rewrite crawl log", &paths.crawl_log, e))
}

fn append_lines(paths: &OutputPaths, lines: &[LogLine]) -> Result<(), CrawlError> {
    let mut text = String::new();
    for line in lines {
        text.push_str(&serde_json::to_string(line).unwrap_or_default());
        text.push('\n');
    }
    let append = || -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&paths.crawl_log)?;
        file.write_all(text.as_bytes())?;
        file.sync_data()
    };
    append().map_err(|e| CrawlError::io("write crawl log", &paths.crawl_log, e))
}
