//! pywb-compatible CDXJ index lines, an append-then-sort index writer, and indexing of existing
//! WARC files.
//!
//! A line is `SURT_KEY TIMESTAMP14 JSON`, the JSON formatted exactly as `cdxj-indexer` (Python
//! `json.dumps`: `", "` and `": "` separators, non-ASCII escaped) with the fields `url`, `mime`,
//! `status`, `digest`, `length`, `offset`, `filename` in that order, absent ones left out:
//!
//! ```text
//! com,example)/path?a=b 20261122051500 {"url": "https://example.com/path?a=b", "mime": "text/html", "status": "200", "digest": "sha1:...", "length": "1234", "offset": "0", "filename": "x.warc.gz"}
//! ```
//! Indexed like cdxj-indexer's defaults: `response`, `revisit` (mime `warc/revisit`),
//! `resource` and `metadata` records, except those whose Content-Type is
//! `application/warc-fields`.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::digest::sha1_digest;
use crate::error::{ArchiveError, ReadError};
use crate::headers::RecordType;
use crate::reader::{ReaderOptions, WarcReader};
use crate::record::WarcRecord;
use crate::surt::surt;
use crate::writer::{CONTENT_TYPE_WARC_FIELDS, RecordLocation, mime_of_content_type};

/// One CDXJ index line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CdxjEntry {
    /// SURT key of `url` (see [`surt`]).
    pub surt_key: String,
    /// `YYYYMMDDhhmmss` of the `WARC-Date`.
    pub timestamp: String,
    /// `WARC-Target-URI`.
    pub url: String,
    /// Media type (`warc/revisit` for revisits).
    pub mime: Option<String>,
    /// HTTP status.
    pub status: Option<String>,
    /// Payload digest.
    pub digest: Option<String>,
    /// Stored record length.
    pub length: u64,
    /// Record offset.
    pub offset: u64,
    /// WARC file name.
    pub filename: String,
}

fn is_indexed(record_type: RecordType, content_type: Option<&str>) -> bool {
    match record_type {
        RecordType::Response | RecordType::Revisit => true,
        RecordType::Resource | RecordType::Metadata => {
            content_type.map(str::trim) != Some(CONTENT_TYPE_WARC_FIELDS)
        }
        _ => false,
    }
}

impl CdxjEntry {
    /// The entry for a record just written; `None` for records pywb does not index
    /// (`request`, `warcinfo`, `application/warc-fields` metadata).
    pub fn from_location(location: &RecordLocation) -> Option<Self> {
        if !is_indexed(location.record_type, location.mime.as_deref()) {
            return None;
        }
        Some(CdxjEntry {
            surt_key: surt(&location.target_uri),
            timestamp: location.warc_date.format("%Y%m%d%H%M%S").to_string(),
            url: location.target_uri.clone(),
            mime: location.mime.clone(),
            status: location.http_status.map(|status| status.to_string()),
            digest: Some(location.payload_digest.clone()),
            length: location.length,
            offset: location.offset,
            filename: location.file_name.clone(),
        })
    }

    /// The entry for a record read from `filename`; `None` for records not indexed, records
    /// without target URI or date, and records inside a multi-record gzip stream (no length).
    pub fn from_record(record: &WarcRecord, filename: &str) -> Option<Self> {
        let record_type = record.record_type();
        if !is_indexed(record_type, record.content_type()) {
            return None;
        }
        let url = record.target_uri()?.to_string();
        let timestamp = record.date()?.format("%Y%m%d%H%M%S").to_string();
        let length = record.length?;
        let http = if record.is_http() {
            record.http_response().ok()
        } else {
            None
        };
        let mime = if record_type == RecordType::Revisit {
            Some("warc/revisit".to_string())
        } else if record.is_http() {
            http.as_ref()
                .and_then(|response| response.header("content-type"))
                .map(|value| mime_of_content_type(&String::from_utf8_lossy(value)))
        } else {
            record.content_type().map(mime_of_content_type)
        };
        let status = http.as_ref().map(|response| response.status.to_string());
        let digest = match record.headers.get("WARC-Payload-Digest") {
            Some(declared) => declared.trim().to_string(),
            None => sha1_digest(record.payload()),
        };
        Some(CdxjEntry {
            surt_key: surt(&url),
            timestamp,
            url,
            mime,
            status,
            digest: Some(digest),
            length,
            offset: record.offset,
            filename: filename.to_string(),
        })
    }

    /// The line, without the newline.
    pub fn to_line(&self) -> String {
        let mut json = String::with_capacity(256);
        json.push('{');
        let mut first = true;
        let mut field = |name: &str, value: &str| {
            if !first {
                json.push_str(", ");
            }
            first = false;
            push_python_json_string(&mut json, name);
            json.push_str(": ");
            push_python_json_string(&mut json, value);
        };
        field("url", &self.url);
        if let Some(mime) = &self.mime {
            field("mime", mime);
        }
        if let Some(status) = &self.status {
            field("status", status);
        }
        if let Some(digest) = &self.digest {
            field("digest", digest);
        }
        field("length", &self.length.to_string());
        field("offset", &self.offset.to_string());
        field("filename", &self.filename);
        json.push('}');
        format!("{} {} {}", self.surt_key, self.timestamp, json)
    }

    /// Parses a CDXJ line (any JSON formatting).
    pub fn parse(line: &str) -> Option<Self> {
        let mut parts = line.trim_end().splitn(3, ' ');
        let surt_key = parts.next()?.to_string();
        let timestamp = parts.next()?.to_string();
        let json: serde_json::Value = serde_json::from_str(parts.next()?).ok()?;
        let text = |name: &str| json.get(name).and_then(|v| v.as_str()).map(str::to_string);
        let number = |name: &str| {
            json.get(name).and_then(|v| match v {
                serde_json::Value::String(s) => s.parse().ok(),
                other => other.as_u64(),
            })
        };
        Some(CdxjEntry {
            surt_key,
            timestamp,
            url: text("url")?,
            mime: text("mime"),
            status: text("status"),
            digest: text("digest"),
            length: number("length")?,
            offset: number("offset")?,
            filename: text("filename")?,
        })
    }
}

/// A JSON string as Python's `json.dumps` (ensure_ascii) writes it.
fn push_python_json_string(out: &mut String, value: &str) {
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    out.push('"');
}

/// Appends CDXJ lines while a crawl runs; [`CdxjWriter::finish`] writes the sorted index.
pub struct CdxjWriter {
    path: PathBuf,
    out: BufWriter<File>,
}

impl CdxjWriter {
    /// Opens (or creates) the append file `path`. A torn last line left by a crash is cut off
    /// so new lines never join it.
    pub fn open_append(path: impl Into<PathBuf>) -> Result<Self, ArchiveError> {
        let path = path.into();
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .map_err(|e| ArchiveError::io("open", &path, e))?;
        cut_torn_last_line(&mut file).map_err(|e| ArchiveError::io("repair", &path, e))?;
        Ok(CdxjWriter {
            path,
            out: BufWriter::new(file),
        })
    }

    /// The append file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one line.
    pub fn append(&mut self, entry: &CdxjEntry) -> Result<(), ArchiveError> {
        let mut line = entry.to_line();
        line.push('\n');
        self.out
            .write_all(line.as_bytes())
            .map_err(|e| ArchiveError::io("write", &self.path, e))
    }

    /// Appends the line for a record just written, if pywb indexes that kind of record;
    /// returns whether a line was written.
    pub fn append_location(&mut self, location: &RecordLocation) -> Result<bool, ArchiveError> {
        match CdxjEntry::from_location(location) {
            Some(entry) => self.append(&entry).map(|()| true),
            None => Ok(false),
        }
    }

    /// Flushes and fsyncs the append file.
    pub fn flush(&mut self) -> Result<(), ArchiveError> {
        self.out
            .flush()
            .and_then(|()| self.out.get_ref().sync_data())
            .map_err(|e| ArchiveError::io("sync", &self.path, e))
    }

    /// Writes the sorted, de-duplicated index to `sorted_path` (atomically: temp file + rename)
    /// and returns its number of lines. The append file is kept.
    pub fn finish(mut self, sorted_path: impl AsRef<Path>) -> Result<usize, ArchiveError> {
        self.flush()?;
        sort_cdxj_file(&self.path, sorted_path.as_ref())
    }
}

impl std::fmt::Debug for CdxjWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CdxjWriter")
            .field("path", &self.path)
            .finish()
    }
}

fn cut_torn_last_line(file: &mut File) -> std::io::Result<()> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(());
    }
    // Look back in blocks for the last newline.
    let mut end = len;
    let mut block = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(block.len() as u64);
        let size = (end - start) as usize;
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut block[..size])?;
        if let Some(newline) = block[..size].iter().rposition(|&b| b == b'\n') {
            let keep = start + newline as u64 + 1;
            if keep < len {
                file.set_len(keep)?;
            }
            return Ok(());
        }
        end = start;
    }
    file.set_len(0)
}

/// Sorts the CDXJ lines of `unsorted` as byte strings (the order pywb binary-searches),
/// drops duplicate lines and a torn last line, and writes `sorted` atomically. Returns the
/// number of lines written.
pub fn sort_cdxj_file(unsorted: &Path, sorted: &Path) -> Result<usize, ArchiveError> {
    let data = fs::read(unsorted).map_err(|e| ArchiveError::io("read", unsorted, e))?;
    write_sorted_lines(&data, sorted)
}

fn write_sorted_lines(data: &[u8], sorted: &Path) -> Result<usize, ArchiveError> {
    // One buffer plus (start, end) pairs: no allocation per line.
    let complete = match data.iter().rposition(|&b| b == b'\n') {
        Some(last_newline) => &data[..=last_newline],
        None => &data[..0],
    };
    let mut lines: Vec<&[u8]> = complete
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .collect();
    lines.sort_unstable();
    lines.dedup();
    let temp_path = {
        let mut name = sorted
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_default();
        name.push(".tmp");
        sorted.with_file_name(name)
    };
    let write = || -> std::io::Result<()> {
        let mut out = BufWriter::new(File::create(&temp_path)?);
        for line in &lines {
            out.write_all(line)?;
            out.write_all(b"\n")?;
        }
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        fs::rename(&temp_path, sorted)
    };
    write().map_err(|e| ArchiveError::io("write", sorted, e))?;
    Ok(lines.len())
}

/// What [`build_cdxj`] did.
#[derive(Debug, Default)]
pub struct CdxjBuildReport {
    /// Lines in the index.
    pub lines: usize,
    /// Records read (indexed or not).
    pub records_read: u64,
    /// Damage found in the WARC files (the index covers every good record).
    pub problems: Vec<ReadError>,
}

/// Indexes WARC files into a sorted CDXJ file at `out`, as `cdxj-indexer` would (file names
/// without directories).
pub fn build_cdxj(
    warc_files: &[impl AsRef<Path>],
    out: impl AsRef<Path>,
) -> Result<CdxjBuildReport, ArchiveError> {
    let mut report = CdxjBuildReport::default();
    let mut buffer = Vec::new();
    for path in warc_files {
        let path = path.as_ref();
        let file_name = path
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        for item in WarcReader::open_with_options(path, ReaderOptions::default())? {
            match item {
                Ok(record) => {
                    report.records_read += 1;
                    if let Some(entry) = CdxjEntry::from_record(&record, &file_name) {
                        buffer.extend_from_slice(entry.to_line().as_bytes());
                        buffer.push(b'\n');
                    }
                }
                Err(ReadError::Io { source, .. }) => {
                    return Err(ArchiveError::io("read", path, source));
                }
                Err(problem) => report.problems.push(problem),
            }
        }
    }
    report.lines = write_sorted_lines(&buffer, out.as_ref())?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_formatted_like_python() {
        let entry = CdxjEntry {
            surt_key: "com,example)/".into(),
            timestamp: "20261122051500".into(),
            url: "http://example.com/é\"𝄞".into(),
            mime: Some("text/html".into()),
            status: None,
            digest: Some("sha1:X".into()),
            length: 10,
            offset: 0,
            filename: "a.warc.gz".into(),
        };
        let line = entry.to_line();
        assert_eq!(
            line,
            r#"com,example)/ 20261122051500 {"url": "http://example.com/\u00e9\"\ud834\udd1e", "mime": "text/html", "digest": "sha1:X", "length": "10", "offset": "0", "filename": "a.warc.gz"}"#
        );
        assert_eq!(CdxjEntry::parse(&line), Some(entry));
    }

    #[test]
    fn append_then_sort() {
        let dir = tempfile::tempdir().unwrap();
        let append = dir.path().join("index.cdxj.part");
        // A torn line from a crash is cut when the file is reopened.
        fs::write(&append, "b 2 {}\npartial").unwrap();
        let mut writer = CdxjWriter::open_append(&append).unwrap();
        let entry = |key: &str| CdxjEntry {
            surt_key: key.into(),
            timestamp: "20260101000000".into(),
            url: "u".into(),
            mime: None,
            status: None,
            digest: None,
            length: 1,
            offset: 0,
            filename: "f".into(),
        };
        writer.append(&entry("c)/")).unwrap();
        writer.append(&entry("a)/")).unwrap();
        writer.append(&entry("a)/")).unwrap();
        let sorted = dir.path().join("index.cdxj");
        assert_eq!(writer.finish(&sorted).unwrap(), 3);
        let text = fs::read_to_string(&sorted).unwrap();
        let keys: Vec<&str> = text.lines().map(|l| l.split(' ').next().unwrap()).collect();
        assert_eq!(keys, ["a)/", "b", "c)/"]);
    }
}
