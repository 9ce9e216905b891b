//! Error types of the crate.
//!
//! [`ArchiveError`] is returned by the writer, the CDXJ functions and `repair_tail`.
//! [`ReadError`] is what the reader yields for a damaged part of a WARC file; it always names the
//! file and the byte offset so an operator can find the damage, and the reader carries on after it.

use std::io;
use std::path::{Path, PathBuf};

use crate::record::{DigestField, WarcRecord};

/// Errors of writing WARC/CDXJ files and of file-level operations.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// An I/O operation on `path` failed.
    #[error("{operation} {path}: {source}")]
    Io {
        /// What was being done ("write", "open", ...).
        operation: &'static str,
        /// The file or directory concerned.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The caller passed something that cannot be written as given (a header value with a line
    /// break, a target URI with whitespace, ...).
    #[error("invalid input: {0}")]
    InvalidInput(String),
    /// An identical-payload revisit was requested for a body whose digest is not the original's.
    #[error(
        "revisit of {target_uri}: the payload digest {computed} differs from the original's {original}"
    )]
    RevisitDigestMismatch {
        /// URI of the capture that was to be written as a revisit.
        target_uri: String,
        /// Digest of the body handed in.
        computed: String,
        /// Digest the caller gave for the original.
        original: String,
    },
    /// `repair_tail` found nothing it can safely cut (not a WARC file, or a damaged gzip stream
    /// holding several records).
    #[error("cannot repair {path}: {reason}")]
    CannotRepair {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

impl ArchiveError {
    pub(crate) fn io(operation: &'static str, path: &Path, source: io::Error) -> Self {
        ArchiveError::Io {
            operation,
            path: path.to_path_buf(),
            source,
        }
    }
}

/// A problem found while reading a WARC file. Every variant names the file and the offset of the
/// damaged record (for `.warc.gz`: the start of its gzip member). Except for [`ReadError::Io`],
/// the reader continues with the next good record after yielding one of these.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Reading the file itself failed (not a format problem); iteration stops.
    #[error("{file}: read error at offset {offset}: {source}")]
    Io {
        /// The file.
        file: PathBuf,
        /// Where the read failed (compressed offset for `.warc.gz`).
        offset: u64,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A gzip member that does not decompress (corrupt data, bad CRC, torn member at the end of
    /// the file, or bytes that are not gzip at all).
    #[error("{file}: bad gzip member at offset {offset}: {reason}; {}", resync_text(*.resumed_at))]
    BadGzipMember {
        /// The file.
        file: PathBuf,
        /// Start of the bad member.
        offset: u64,
        /// What the decompressor said.
        reason: String,
        /// Offset of the next good member the reader skipped to, if any.
        resumed_at: Option<u64>,
    },
    /// The bytes decompress (or were not compressed) but are not a well-formed WARC record.
    #[error("{file}: malformed record at offset {offset}: {reason}; {}", resync_text(*.resumed_at))]
    MalformedRecord {
        /// The file.
        file: PathBuf,
        /// Start of the record (or of its gzip member).
        offset: u64,
        /// What is wrong.
        reason: String,
        /// Offset of the next record the reader skipped to, if any.
        resumed_at: Option<u64>,
    },
    /// A record's declared digest does not match its content. The record is attached so a caller
    /// that wants the data anyway still has it.
    #[error(
        "{file}: record {record_id} at offset {offset}: {field} {declared} does not match the content (computed {computed})"
    )]
    DigestMismatch {
        /// The file.
        file: PathBuf,
        /// Start of the record (or of its gzip member).
        offset: u64,
        /// `WARC-Record-ID` of the record.
        record_id: String,
        /// Which digest failed.
        field: DigestField,
        /// The declared value.
        declared: String,
        /// What the content hashes to (`sha1:` base32).
        computed: String,
        /// The record as read.
        record: Box<WarcRecord>,
    },
}

fn resync_text(resumed_at: Option<u64>) -> String {
    match resumed_at {
        Some(offset) => format!("resumed at offset {offset}"),
        None => "no further record found".to_string(),
    }
}

impl ReadError {
    /// The file the problem is in.
    pub fn file(&self) -> &Path {
        match self {
            ReadError::Io { file, .. }
            | ReadError::BadGzipMember { file, .. }
            | ReadError::MalformedRecord { file, .. }
            | ReadError::DigestMismatch { file, .. } => file,
        }
    }

    /// The offset of the damaged record or member.
    pub fn offset(&self) -> u64 {
        match self {
            ReadError::Io { offset, .. }
            | ReadError::BadGzipMember { offset, .. }
            | ReadError::MalformedRecord { offset, .. }
            | ReadError::DigestMismatch { offset, .. } => *offset,
        }
    }
}
