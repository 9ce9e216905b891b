//! Cutting a torn tail off a WARC file after a crash.

use std::fs::OpenOptions;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::{ArchiveError, ReadError};
use crate::reader::{ReaderOptions, WarcReader};

/// What [`repair_tail`] found and did.
#[derive(Debug)]
pub struct RepairReport {
    /// The file.
    pub path: PathBuf,
    /// Its length before.
    pub original_len: u64,
    /// Its length after (end of the last complete, valid record).
    pub new_len: u64,
    /// Complete records kept.
    pub records_kept: u64,
    /// The problem found in the part that was cut off, if anything was cut.
    pub cut_reason: Option<String>,
    /// Damage before the last valid record: not cut (that would lose good records), but the
    /// file still contains it.
    pub damage_kept: Vec<ReadError>,
}

impl RepairReport {
    /// Bytes removed from the end.
    pub fn bytes_cut(&self) -> u64 {
        self.original_len - self.new_len
    }
}

/// Scans a `.warc.gz` (member by member) or `.warc` file and truncates it just after the last
/// complete, valid record, cutting off a torn final record or gzip member. Digests are not
/// checked (a torn record fails structurally). A file that does not even start like a WARC
/// file is refused rather than emptied.
pub fn repair_tail(path: impl AsRef<Path>) -> Result<RepairReport, ArchiveError> {
    let path = path.as_ref();
    let original_len = std::fs::metadata(path)
        .map_err(|e| ArchiveError::io("stat", path, e))?
        .len();
    let mut good_end = 0u64;
    let mut record_offsets = Vec::new();
    // Records read since the last known record end: inside a gzip stream holding several
    // records, where no cut point exists.
    let mut records_without_end = 0u64;
    let mut problems: Vec<ReadError> = Vec::new();
    let reader = WarcReader::open_with_options(path, ReaderOptions::default())?;
    for item in reader {
        match item {
            Ok(record) => {
                record_offsets.push(record.offset);
                match record.end_offset {
                    Some(end) => {
                        good_end = good_end.max(end);
                        records_without_end = 0;
                    }
                    None => records_without_end += 1,
                }
            }
            Err(ReadError::Io { source, .. }) => {
                return Err(ArchiveError::io("read", path, source));
            }
            Err(problem) => problems.push(problem),
        }
    }
    if good_end == 0 && original_len > 0 && !starts_like_warc(path)? {
        return Err(ArchiveError::CannotRepair {
            path: path.to_path_buf(),
            reason: "neither gzip nor WARC data at the start; not truncating".to_string(),
        });
    }
    if records_without_end > 0 && good_end < original_len {
        return Err(ArchiveError::CannotRepair {
            path: path.to_path_buf(),
            reason: format!(
                "{records_without_end} records sit in a damaged gzip stream holding several \
                 records; there is no record boundary to cut at"
            ),
        });
    }
    let records_kept = record_offsets
        .iter()
        .filter(|&&offset| offset < good_end)
        .count() as u64;
    // Problems at or after the cut point are what gets removed.
    let (cut, damage_kept): (Vec<ReadError>, Vec<ReadError>) = problems
        .into_iter()
        .partition(|problem| problem.offset() >= good_end);
    let cut_reason = (good_end < original_len).then(|| {
        cut.first().map_or_else(
            || "trailing bytes that are not a record".to_string(),
            ToString::to_string,
        )
    });
    if good_end < original_len {
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| ArchiveError::io("open for repair", path, e))?;
        file.set_len(good_end)
            .and_then(|()| file.sync_all())
            .map_err(|e| ArchiveError::io("truncate", path, e))?;
    }
    Ok(RepairReport {
        path: path.to_path_buf(),
        original_len,
        new_len: good_end,
        records_kept,
        cut_reason,
        damage_kept,
    })
}

fn starts_like_warc(path: &Path) -> Result<bool, ArchiveError> {
    let mut start = [0u8; 5];
    let mut file = std::fs::File::open(path).map_err(|e| ArchiveError::io("open", path, e))?;
    let mut filled = 0;
    while filled < start.len() {
        match file.read(&mut start[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) => return Err(ArchiveError::io("read", path, e)),
        }
    }
    let start = &start[..filled];
    Ok(start.starts_with(&[0x1f, 0x8b])
        || b"WARC/".starts_with(start)
        || start.starts_with(b"WARC/"))
}
