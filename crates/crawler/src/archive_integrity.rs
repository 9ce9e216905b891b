//! The archive checked record by record: every WARC file of `OUT/warc/` is read with its
//! digests verified, and what is not a good record (a record cut off, bytes that do not
//! decompress, a digest that does not match) is a damaged region. A crawl that opens mends
//! the files ([`mend_warc_files`]: the damaged bytes are moved to `OUT/damaged/`, the good
//! records kept in place) and rewrites `index.cdxj` from the records that are there; the
//! read-only commands check ([`check_archive`]) and report the damage instead.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use dedupcrawl_archive::{CdxjEntry, ReadError, ReaderOptions, RecordType, WarcReader};

use crate::crawl_log::{Decision, LogLine};
use crate::error::CrawlError;
use crate::output_paths::{OutputPaths, warc_files};

/// Bytes of a WARC file that are not a good record.
#[derive(Debug, Clone, PartialEq)]
pub struct DamagedRegion {
    /// The WARC file's name.
    pub file: String,
    pub offset: u64,
    pub length: u64,
    /// What the reader found there.
    pub reason: String,
}

/// One good record of a WARC file.
#[derive(Debug, Clone)]
struct GoodRecord {
    offset: u64,
    end: u64,
    record_type: RecordType,
    target: Option<String>,
    record_id: Option<String>,
    cdxj: Option<CdxjEntry>,
    /// A `response` record's date, HTTP status and payload digest (a crawl-log line lost
    /// from the log is restored from them).
    response: Option<ResponseFacts>,
}

/// What a crawl-log line says of an archived response, as its record holds it.
#[derive(Debug, Clone)]
pub(crate) struct ResponseFacts {
    pub(crate) url: String,
    pub(crate) date: Option<chrono::DateTime<chrono::Utc>>,
    pub(crate) status: Option<u16>,
    pub(crate) payload_digest: Option<String>,
    pub(crate) bytes: u64,
}

fn response_facts(record: &dedupcrawl_archive::WarcRecord) -> Option<ResponseFacts> {
    if record.record_type() != RecordType::Response {
        return None;
    }
    let response = record.http_response().ok();
    Some(ResponseFacts {
        url: record.target_uri()?.to_string(),
        date: record.date(),
        status: response.as_ref().map(|r| r.status),
        payload_digest: record
            .headers
            .get("WARC-Payload-Digest")
            .map(str::to_string),
        bytes: response.map_or(0, |r| r.payload.len() as u64),
    })
}

/// What one WARC file holds.
#[derive(Debug)]
struct FileScan {
    path: PathBuf,
    name: String,
    good: Vec<GoodRecord>,
    damage: Vec<DamagedRegion>,
    /// Some record has no known end (several records in one gzip stream): no cut point.
    unbounded: bool,
}

/// Reads one WARC file: its good records, and the byte ranges between them as damage.
fn scan_file(path: &Path) -> Result<FileScan, CrawlError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let length = std::fs::metadata(path)
        .map_err(|e| CrawlError::io("read the size of", path, e))?
        .len();
    let options = ReaderOptions {
        verify_digests: true,
        ..ReaderOptions::default()
    };
    let mut good = Vec::new();
    let mut problems: Vec<(u64, String)> = Vec::new();
    let mut unbounded = false;
    for item in WarcReader::open_with_options(path, options)? {
        match item {
            Ok(record) => {
                let Some(end) = record.end_offset else {
                    unbounded = true;
                    continue;
                };
                good.push(GoodRecord {
                    offset: record.offset,
                    end,
                    record_type: record.record_type(),
                    target: record.target_uri().map(str::to_string),
                    record_id: record.record_id().map(str::to_string),
                    cdxj: CdxjEntry::from_record(&record, &name),
                    response: response_facts(&record),
                });
            }
            Err(ReadError::Io { source, .. }) => {
                return Err(CrawlError::io("read", path, source));
            }
            Err(problem) => problems.push((problem.offset(), problem.to_string())),
        }
    }
    good.sort_by_key(|record| record.offset);
    let damage = gaps(&name, length, &good, &problems);
    Ok(FileScan {
        path: path.to_path_buf(),
        name,
        good,
        damage,
        unbounded,
    })
}

/// The byte ranges of a file of `length` bytes that no good record covers, each with the
/// first problem the reader reported inside it.
fn gaps(
    name: &str,
    length: u64,
    good: &[GoodRecord],
    problems: &[(u64, String)],
) -> Vec<DamagedRegion> {
    let mut regions = Vec::new();
    let mut position = 0u64;
    let bounds = good
        .iter()
        .map(|record| (record.offset, record.end))
        .chain(std::iter::once((length, length)));
    for (start, end) in bounds {
        if start > position {
            let reason = problems
                .iter()
                .find(|(offset, _)| (position..start).contains(offset))
                .map_or_else(
                    || "bytes that are not a complete record".to_string(),
                    |(_, reason)| reason.clone(),
                );
            regions.push(DamagedRegion {
                file: name.to_string(),
                offset: position,
                length: start - position,
                reason,
            });
        }
        position = position.max(end);
    }
    regions
}

/// What the WARC files of a crawl hold.
#[derive(Debug)]
pub(crate) struct ArchiveScan {
    files: Vec<FileScan>,
}

impl ArchiveScan {
    pub(crate) fn read(warc_dir: &Path) -> Result<ArchiveScan, CrawlError> {
        let files = warc_files(warc_dir)?
            .iter()
            .map(|path| scan_file(path))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ArchiveScan { files })
    }

    pub(crate) fn damage(&self) -> Vec<DamagedRegion> {
        self.files
            .iter()
            .flat_map(|file| file.damage.iter().cloned())
            .collect()
    }

    /// Per URL, the record ids of its good `response` records.
    pub(crate) fn responses(&self) -> HashMap<String, Vec<Option<String>>> {
        let mut responses: HashMap<String, Vec<Option<String>>> = HashMap::new();
        for record in self.files.iter().flat_map(|file| &file.good) {
            if record.record_type == RecordType::Response
                && let Some(target) = &record.target
            {
                responses
                    .entry(target.clone())
                    .or_default()
                    .push(record.record_id.clone());
            }
        }
        responses
    }

    /// Every good `response` record, in file order.
    pub(crate) fn response_facts(&self) -> impl Iterator<Item = &ResponseFacts> {
        self.files
            .iter()
            .flat_map(|file| &file.good)
            .filter_map(|record| record.response.as_ref())
    }

    /// The CDXJ entries of every good record that has one.
    fn cdxj_entries(&self) -> impl Iterator<Item = &CdxjEntry> {
        self.files
            .iter()
            .flat_map(|file| &file.good)
            .filter_map(|record| record.cdxj.as_ref())
    }
}

/// What [`mend_warc_files`] did.
#[derive(Debug, Default)]
pub(crate) struct Mending {
    /// The damaged regions moved out of the WARC files.
    pub(crate) moved_out: Vec<DamagedRegion>,
    /// Damage left in place (no record boundary to cut at).
    pub(crate) left: Vec<DamagedRegion>,
}

/// Moves every damaged region out of the WARC files (into `OUT/damaged/FILE.at-OFFSET`), so
/// the files hold good records only, and returns the archive as it is then. A file left with
/// no good record is removed (its bytes are in `OUT/damaged/`).
pub(crate) fn mend_warc_files(paths: &OutputPaths) -> Result<(ArchiveScan, Mending), CrawlError> {
    let scan = ArchiveScan::read(&paths.warc_dir)?;
    let mut mending = Mending::default();
    let mut files = Vec::with_capacity(scan.files.len());
    for file in scan.files {
        if file.damage.is_empty() {
            files.push(file);
            continue;
        }
        if file.unbounded {
            mending.left.extend(file.damage.iter().cloned());
            files.push(file);
            continue;
        }
        let damaged_dir = paths.root.join("damaged");
        std::fs::create_dir_all(&damaged_dir)
            .map_err(|e| CrawlError::io("create directory", &damaged_dir, e))?;
        for region in &file.damage {
            let aside = damaged_dir.join(format!("{}.at-{}", file.name, region.offset));
            copy_range(&file.path, region.offset, region.length, &aside)?;
        }
        keep_good_records(&file)?;
        mending.moved_out.extend(file.damage.iter().cloned());
        if file.good.is_empty() {
            std::fs::remove_file(&file.path)
                .map_err(|e| CrawlError::io("remove", &file.path, e))?;
        } else {
            files.push(scan_file(&file.path)?);
        }
    }
    Ok((ArchiveScan { files }, mending))
}

/// Copies `length` bytes at `offset` of `from` into a new file `to`.
fn copy_range(from: &Path, offset: u64, length: u64, to: &Path) -> Result<(), CrawlError> {
    let copy = || -> std::io::Result<()> {
        let mut input = File::open(from)?;
        input.seek(SeekFrom::Start(offset))?;
        let mut output = File::create(to)?;
        std::io::copy(&mut input.take(length), &mut output)?;
        output.sync_all()
    };
    copy().map_err(|e| CrawlError::io("copy damaged bytes to", to, e))
}

/// Rewrites a file with its good records only (a temporary file renamed over it).
fn keep_good_records(file: &FileScan) -> Result<(), CrawlError> {
    let temp = file.path.with_extension("mending");
    let rewrite = || -> std::io::Result<()> {
        let mut input = File::open(&file.path)?;
        let mut output = std::io::BufWriter::new(File::create(&temp)?);
        for record in &file.good {
            input.seek(SeekFrom::Start(record.offset))?;
            std::io::copy(
                &mut (&mut input).take(record.end - record.offset),
                &mut output,
            )?;
        }
        let output = output.into_inner().map_err(|e| e.into_error())?;
        output.sync_all()?;
        std::fs::rename(&temp, &file.path)
    };
    rewrite().map_err(|e| CrawlError::io("rewrite the good records of", &file.path, e))
}

/// Where a CDXJ line points: file name, offset, length.
type Location = (String, u64, u64);

fn location_of(entry: &CdxjEntry) -> Location {
    (entry.filename.clone(), entry.offset, entry.length)
}

/// The lines of `index.cdxj` and of the unsorted lines in `state/` the crawl appends to.
fn cdxj_lines_on_disk(paths: &OutputPaths) -> Vec<String> {
    let mut lines = read_lines(&paths.cdxj);
    lines.extend(read_lines(&paths.cdxj_unsorted));
    lines
}

/// Splits CDXJ lines into those pointing at a good record of `scan` and the count of those
/// that do not (outside their file, at damaged bytes, or not a CDXJ line at all).
fn matching_lines(scan: &ArchiveScan, lines: Vec<String>) -> (Vec<String>, usize) {
    let records: HashSet<Location> = scan.cdxj_entries().map(location_of).collect();
    let (good, stale): (Vec<String>, Vec<String>) = lines.into_iter().partition(|line| {
        CdxjEntry::parse(line).is_some_and(|entry| records.contains(&location_of(&entry)))
    });
    (good, stale.len())
}

/// Makes `index.cdxj` (and the unsorted lines in `state/`) match the records the WARC files
/// hold: lines pointing at no good record are dropped, records without a line get one. Leaves
/// both files alone when they match. Returns how many lines were dropped and added.
pub(crate) fn rewrite_cdxj(
    paths: &OutputPaths,
    scan: &ArchiveScan,
) -> Result<(usize, usize), CrawlError> {
    let (mut lines, stale) = matching_lines(scan, cdxj_lines_on_disk(paths));
    let indexed: HashSet<Location> = lines
        .iter()
        .filter_map(|line| CdxjEntry::parse(line))
        .map(|entry| location_of(&entry))
        .collect();
    let before = lines.len();
    lines.extend(
        scan.cdxj_entries()
            .filter(|entry| !indexed.contains(&location_of(entry)))
            .map(CdxjEntry::to_line),
    );
    let added = lines.len() - before;
    if stale == 0 && added == 0 {
        return Ok((0, 0));
    }
    let write = || -> std::io::Result<()> {
        let mut out = std::io::BufWriter::new(File::create(&paths.cdxj_unsorted)?);
        for line in &lines {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    };
    write().map_err(|e| CrawlError::io("write", &paths.cdxj_unsorted, e))?;
    dedupcrawl_archive::sort_cdxj_file(&paths.cdxj_unsorted, &paths.cdxj)?;
    Ok((stale, added))
}

/// The lines of a file, none when it is missing; bytes that are not UTF-8 are replaced.
pub(crate) fn read_lines(path: &Path) -> Vec<String> {
    let Ok(file) = File::open(path) else {
        return Vec::new();
    };
    BufReader::new(file)
        .split(b'\n')
        .map_while(Result::ok)
        .map(|line| String::from_utf8_lossy(&line).into_owned())
        .filter(|line| !line.is_empty())
        .collect()
}

/// Calls `each` with every crawl-log line that parses (a damaged line is skipped, not fatal),
/// reading the log as a stream.
pub(crate) fn each_log_line(path: &Path, mut each: impl FnMut(LogLine)) {
    let Ok(file) = File::open(path) else {
        return;
    };
    for line in BufReader::new(file).split(b'\n').map_while(Result::ok) {
        if let Ok(parsed) = serde_json::from_slice::<LogLine>(&line) {
            each(parsed);
        }
    }
}

/// The crawl-log lines that parse.
pub(crate) fn lenient_log_lines(path: &Path) -> Vec<LogLine> {
    let mut lines = Vec::new();
    each_log_line(path, |line| lines.push(line));
    lines
}

/// Per URL, its last `archived` crawl-log line (only those are kept in memory).
pub(crate) fn archived_lines(path: &Path) -> HashMap<String, LogLine> {
    let mut archived = HashMap::new();
    each_log_line(path, |line| {
        if line.decision == Decision::Archived {
            archived.insert(line.url.clone(), line);
        }
    });
    archived
}

/// What a read-only command found in a crawl's output directory.
#[derive(Debug, Default)]
pub struct ArchiveCheck {
    /// Bytes of WARC files that are not good records.
    pub damaged: Vec<DamagedRegion>,
    /// Pages the crawl log says are archived that have no good `response` record.
    pub lost_pages: Vec<String>,
    /// `index.cdxj` lines that point outside their file or at no record there.
    pub stale_cdxj_lines: usize,
}

impl ArchiveCheck {
    pub fn is_clean(&self) -> bool {
        self.damaged.is_empty() && self.lost_pages.is_empty() && self.stale_cdxj_lines == 0
    }

    /// One line per problem, for an error message or a warning.
    pub fn describe(&self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .damaged
            .iter()
            .map(|region| {
                format!(
                    "{}: {} damaged bytes at offset {}: {}",
                    region.file, region.length, region.offset, region.reason
                )
            })
            .collect();
        lines.extend(
            self.lost_pages
                .iter()
                .map(|url| format!("{url}: archived per the crawl log, no good WARC record")),
        );
        if self.stale_cdxj_lines > 0 {
            lines.push(format!(
                "index.cdxj: {} lines point at no record of their WARC file",
                self.stale_cdxj_lines
            ));
        }
        lines
    }
}

/// Checks a crawl's output directory without writing to it: the WARC files record by
/// record, the crawl log's archived pages against them, `index.cdxj` against both.
pub fn check_archive(out: &Path) -> Result<ArchiveCheck, CrawlError> {
    let paths = OutputPaths::new(out);
    let scan = ArchiveScan::read(&paths.warc_dir)?;
    let responses = scan.responses();
    let mut lost_pages: Vec<String> = archived_lines(&paths.crawl_log)
        .into_keys()
        .filter(|url| !responses.contains_key(url))
        .collect();
    lost_pages.sort();
    // index.cdxj alone: the unsorted lines in state/ are the crawl's own, sorted in at its end.
    let (_, stale_cdxj_lines) = matching_lines(&scan, read_lines(&paths.cdxj));
    Ok(ArchiveCheck {
        damaged: scan.damage(),
        lost_pages,
        stale_cdxj_lines,
    })
}
