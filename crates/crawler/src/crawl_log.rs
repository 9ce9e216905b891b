//! `OUT/crawl.log.jsonl`: one JSON line per URL decision.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::CrawlError;

/// What the crawler decided for one URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// New content: WARC `response` (+ `request`).
    Archived,
    /// Same payload (WARC `revisit`) or same normalized text as `duplicate_of`.
    ExactDuplicate,
    /// Resemblance with `duplicate_of` at least the threshold (or `rel=canonical` elsewhere).
    NearDuplicate,
    /// Contained in `duplicate_of`.
    Contained,
    /// 304 to a conditional GET (recrawl): WARC `revisit` (server-not-modified).
    NotModified,
    /// Recrawl: 200 with the payload of the URL's previous version: WARC `revisit`
    /// (identical-payload-digest).
    Unchanged,
    /// Recrawl: 404/410 for a URL an earlier round fetched.
    Gone,
    RobotsDisallowed,
    OutOfScope,
    /// A `200` page that resembles its host's answer to a path that cannot exist (`resembles`
    /// names that probe URL, `similarity` the resemblance): not archived, links not followed.
    #[serde(rename = "soft_404")]
    Soft404,
    /// Fetched but not archived by policy (noindex, non-HTML skipped, redirect not followed).
    Filtered,
    /// Failed for good; `error` says why.
    Error,
    /// Not fetched: an active URL rule learned from duplicates (`rule`) maps the URL onto
    /// `duplicate_of`, a page archived as new (`crate::url_rules`). Its links are not
    /// enqueued.
    UrlDuplicate,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Archived => "archived",
            Decision::ExactDuplicate => "exact_duplicate",
            Decision::NearDuplicate => "near_duplicate",
            Decision::Contained => "contained",
            Decision::NotModified => "not_modified",
            Decision::Unchanged => "unchanged",
            Decision::Gone => "gone",
            Decision::RobotsDisallowed => "robots_disallowed",
            Decision::OutOfScope => "out_of_scope",
            Decision::Soft404 => "soft_404",
            Decision::Filtered => "filtered",
            Decision::Error => "error",
            Decision::UrlDuplicate => "url_duplicate",
        }
    }
}

/// `note` of the `error` line each seed of a host gets when the host is given up for the
/// run. Such a line is not final: the next run tries the URL again and logs what it finds.
pub const HOST_GIVEN_UP_NOTE: &str = "host given up for this run; its URLs stay queued";

/// One line of the crawl log. The first nine fields are always present (null when unknown);
/// `error`, `note` and `bytes` only when they say something.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogLine {
    /// RFC 3339 UTC time of the decision.
    pub ts: String,
    pub url: String,
    /// HTTP status, when a response was received.
    pub status: Option<u16>,
    pub decision: Decision,
    pub duplicate_of: Option<String>,
    pub similarity: Option<f64>,
    /// `sha1:BASE32` of the payload, when one was received.
    pub content_digest: Option<String>,
    pub depth: u32,
    /// The page (or sitemap, or redirecting URL) the URL was found on.
    pub via: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Extra detail: `noindex`, `truncated at N bytes`, `redirect to URL`, `rel=canonical` ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Payload bytes received.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// On an archived page: the archived pages it contains (parts of a story fetched before
    /// its all-on-one-page version), most contained first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contains: Vec<String>,
    /// The crawl round of the decision: 1 for the first crawl, one more per `recrawl`.
    #[serde(default = "first_round")]
    pub round: u32,
    /// Recrawl: the payload digest of the URL's previous version, on a page that changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_digest: Option<String>,
    /// Recrawl: resemblance of a changed page with its previous version (exact, of the compared shingles;
    /// absent for non-HTML or when the previous version had no signature).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_similarity: Option<f64>,
    /// `soft_404`: the probe URL (a random path on the host) whose answer the page resembles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resembles: Option<String>,
    /// On a page the dedup decided (archived, a duplicate, a soft 404, a canonical page): the
    /// mechanism that decided and its figures, as the decision produced them
    /// (docs/formats.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<dedupcrawl_index::Reason>,
    /// On a duplicate: how many of its link targets, ones its original does not link to, were
    /// followed (the duplicate-links rule; absent when none were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links_followed: Option<u32>,
    /// Where the URL was found when not in the markup of `via`: `"script"` (a page URL in a
    /// script's string literals), `"script_file"` (a `<script src>` fetched for its links).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found_in: Option<String>,
    /// `true` on a page rendered by the browser (`crawl.render`): its text and links are the
    /// rendered DOM's, which the WARC keeps as a `conversion` record.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rendered: Option<bool>,
    /// On a `url_duplicate` line, and on a page fetched to verify a rule: the URL rule that
    /// maps the URL onto `duplicate_of` (`drop-param ref`, `segment print`, ...; several
    /// joined by `; `).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
}

fn first_round() -> u32 {
    1
}

impl LogLine {
    pub fn new(
        url: impl Into<String>,
        decision: Decision,
        depth: u32,
        via: Option<String>,
    ) -> Self {
        LogLine {
            ts: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            url: url.into(),
            status: None,
            decision,
            duplicate_of: None,
            similarity: None,
            content_digest: None,
            depth,
            via,
            error: None,
            note: None,
            bytes: None,
            contains: Vec::new(),
            round: 1,
            previous_digest: None,
            change_similarity: None,
            resembles: None,
            reason: None,
            links_followed: None,
            found_in: None,
            rendered: None,
            rule: None,
        }
    }
}

/// Appends lines, each with a single `write_all` (a process kill never leaves half a line
/// except in the rare torn write, which [`CrawlLog::open_from`] cuts off).
pub struct CrawlLog {
    path: PathBuf,
    file: File,
    /// Bytes in the file.
    len: u64,
}

/// What [`CrawlLog::open_from`] read of an existing log.
#[derive(Debug, Default)]
pub struct CrawlLogTail {
    /// The lines from the offset on.
    pub lines: Vec<LogLine>,
    /// Bytes read to find them (the torn-tail check included).
    pub bytes_read: u64,
    /// Whether they start at the offset asked for (`false`: the offset was past the end or
    /// not at a line start, and the whole log was read).
    pub from_offset: bool,
}

impl CrawlLog {
    /// Opens for appending, cutting a torn last line, and returns the whole lines from byte
    /// `offset` on (a crawl-log checkpoint: what the crawl state already counted). The bytes
    /// before `offset` are not read; an offset that is not the start of a line of this file
    /// reads it all.
    pub fn open_from(path: &Path, offset: u64) -> Result<(CrawlLog, CrawlLogTail), CrawlError> {
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| CrawlError::io("open crawl log", path, e))?;
        let (len, tail) = read_and_repair(&mut file, offset)
            .map_err(|e| CrawlError::io("read crawl log", path, e))?;
        Ok((
            CrawlLog {
                path: path.to_path_buf(),
                file,
                len,
            },
            tail,
        ))
    }

    pub fn append(&mut self, line: &LogLine) -> Result<(), CrawlError> {
        let mut text = serde_json::to_string(line).unwrap_or_default();
        text.push('\n');
        self.file
            .write_all(text.as_bytes())
            .map_err(|e| CrawlError::io("write crawl log", &self.path, e))?;
        self.len += text.len() as u64;
        Ok(())
    }

    /// Bytes in the log (whole lines).
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn sync(&mut self) -> Result<(), CrawlError> {
        self.file
            .sync_data()
            .map_err(|e| CrawlError::io("sync crawl log", &self.path, e))
    }
}

/// Cuts a torn last line (reading backwards from the end to the last newline), then reads
/// the lines from `offset` on. Returns the file's new length and what was read.
fn read_and_repair(file: &mut File, offset: u64) -> std::io::Result<(u64, CrawlLogTail)> {
    // A line is a few hundred bytes: the torn-tail check reads one or two chunks.
    const CHUNK: u64 = 4 * 1024;
    let length = file.seek(SeekFrom::End(0))?;
    let mut bytes_read = 0u64;
    // The end of the last whole line.
    let mut keep = 0u64;
    let mut end = length;
    let mut chunk = Vec::new();
    while end > 0 {
        let start = end.saturating_sub(CHUNK);
        chunk.resize((end - start) as usize, 0);
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut chunk)?;
        bytes_read += chunk.len() as u64;
        if let Some(i) = chunk.iter().rposition(|&b| b == b'\n') {
            keep = start + i as u64 + 1;
            break;
        }
        end = start;
    }
    if keep < length {
        file.set_len(keep)?;
    }
    // Resume at the offset only when it starts a line of this file.
    let mut from = offset.min(keep);
    let mut from_offset = from == offset;
    if from > 0 {
        let mut before = [0u8; 1];
        file.seek(SeekFrom::Start(from - 1))?;
        file.read_exact(&mut before)?;
        bytes_read += 1;
        if before[0] != b'\n' {
            from = 0;
            from_offset = false;
        }
    }
    file.seek(SeekFrom::Start(from))?;
    let mut content = Vec::with_capacity((keep - from) as usize);
    (&mut *file).take(keep - from).read_to_end(&mut content)?;
    bytes_read += content.len() as u64;
    let mut lines = Vec::new();
    for line in BufReader::new(&content[..]).lines() {
        let line = line?;
        if let Ok(parsed) = serde_json::from_str::<LogLine>(&line) {
            lines.push(parsed);
        }
    }
    Ok((
        keep,
        CrawlLogTail {
            lines,
            bytes_read,
            from_offset,
        },
    ))
}

/// Reads a crawl log (for tests and tools).
pub fn read_crawl_log(path: &Path) -> Result<Vec<LogLine>, CrawlError> {
    let file = File::open(path).map_err(|e| CrawlError::io("open crawl log", path, e))?;
    let mut lines = Vec::new();
    for (number, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| CrawlError::io("read crawl log", path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        let parsed =
            serde_json::from_str::<LogLine>(&line).map_err(|e| CrawlError::CrawlLogLine {
                path: path.to_path_buf(),
                line: number + 1,
                message: e.to_string(),
            })?;
        lines.push(parsed);
    }
    Ok(lines)
}

/// The crawl log's `found_in` of a URL that came to the frontier as `kind`.
pub(crate) fn found_in(kind: dedupcrawl_frontier::EntryKind) -> Option<String> {
    match kind {
        dedupcrawl_frontier::EntryKind::Script => Some("script_file".to_string()),
        dedupcrawl_frontier::EntryKind::ScriptLink => Some("script".to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opening from an offset reads the lines after it (and a little of the end, for the
    /// torn-tail check), not the lines before.
    #[test]
    fn open_from_reads_only_what_follows_the_offset_and_cuts_a_torn_line() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("crawl.log.jsonl");
        let (mut log, tail) = CrawlLog::open_from(&path, 0).unwrap_or_else(|e| panic!("{e}"));
        assert!(tail.lines.is_empty());
        for i in 0..10_000 {
            let line = LogLine::new(format!("http://a.example/{i}"), Decision::Archived, 0, None);
            log.append(&line).unwrap_or_else(|e| panic!("{e}"));
        }
        let offset = log.len();
        for i in 0..3 {
            let line = LogLine::new(format!("http://b.example/{i}"), Decision::Filtered, 1, None);
            log.append(&line).unwrap_or_else(|e| panic!("{e}"));
        }
        let whole = log.len();
        drop(log);
        // A torn write after the last line.
        let mut file = OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap_or_else(|e| panic!("{e}"));
        file.write_all(b"{\"ts\":\"2026")
            .unwrap_or_else(|e| panic!("{e}"));
        drop(file);
        let (log, tail) = CrawlLog::open_from(&path, offset).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(log.len(), whole, "the torn line is cut");
        assert_eq!(tail.lines.len(), 3);
        assert!(tail.from_offset);
        assert!(
            tail.bytes_read < 2 * (whole - offset) + 8 * 1024,
            "read {} of {whole} bytes",
            tail.bytes_read
        );
        assert!(whole > 1_000_000, "{whole}");
        // An offset inside a line: the whole log is read.
        let (_, tail) = CrawlLog::open_from(&path, offset - 5).unwrap_or_else(|e| panic!("{e}"));
        assert!(!tail.from_offset);
        assert_eq!(tail.lines.len(), 10_003);
    }

    /// The crawl log's JSON and the metrics labels (`as_str`) name each decision alike.
    #[test]
    fn json_names_are_the_decision_strings() {
        for decision in [
            Decision::Archived,
            Decision::ExactDuplicate,
            Decision::NearDuplicate,
            Decision::Contained,
            Decision::NotModified,
            Decision::Unchanged,
            Decision::Gone,
            Decision::RobotsDisallowed,
            Decision::OutOfScope,
            Decision::Soft404,
            Decision::Filtered,
            Decision::Error,
            Decision::UrlDuplicate,
        ] {
            let json = serde_json::to_string(&decision).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", decision.as_str()));
        }
    }
}
