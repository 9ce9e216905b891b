//! What a lookup table's entries are: the tables, the 12-byte entry layout, run file names and their listing keys.

use std::path::Path;

use crate::IndexError;
use crate::record::DocumentId;
use crate::storage::{MAX_BUCKET_MEMBERS, MAX_POSTINGS_PER_SAMPLE};

/// One lookup table of the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Table {
    /// LSH buckets: `band << 32 | bucket key` → every document (originals and members).
    Buckets = 0,
    /// 64 bits of the payload SHA-1 → documents.
    Payloads = 1,
    /// 64 bits of the token digest → documents.
    Tokens = 2,
    /// Containment postings: sampled shingle → originals.
    Postings = 3,
}

pub(super) const TABLES: [Table; 4] = [
    Table::Buckets,
    Table::Payloads,
    Table::Tokens,
    Table::Postings,
];

impl Table {
    pub(super) fn name(self) -> &'static str {
        match self {
            Table::Buckets => "buckets",
            Table::Payloads => "payloads",
            Table::Tokens => "tokens",
            Table::Postings => "postings",
        }
    }

    /// Members kept per key (the lowest ids). The digest tables answer with their first live
    /// member; a few more keep the answer when one is removed.
    pub(super) fn cap(self) -> usize {
        match self {
            Table::Buckets => MAX_BUCKET_MEMBERS,
            Table::Postings => MAX_POSTINGS_PER_SAMPLE,
            Table::Payloads | Table::Tokens => 16,
        }
    }
}

pub(super) const ENTRY_BYTES: usize = 12;
/// Entries a fence covers: a lookup reads 192 bytes (three cache lines) around its key.
pub(crate) const ENTRIES_PER_BLOCK: usize = 16;
pub(super) const BLOCK_BYTES: usize = ENTRIES_PER_BLOCK * ENTRY_BYTES;
/// Filter bits a key: about 0.6 % false positives (one wasted `pread`).
pub(crate) const FILTER_BITS_PER_KEY: u64 = 12;
/// Recent entries (all tables) that trigger a compaction: ~14,000 documents of 18 entries,
/// a few MB of hash maps.
pub(crate) const DEFAULT_RECENT_LIMIT: usize = 1 << 17;
pub(super) const FILE_BUFFER: usize = 1 << 20;

pub(super) const META_LAYOUT: &[u8] = b"Mlookup_layout";
pub(super) const META_COVERED: &[u8] = b"Mlookup_covered";
pub(super) const META_RUN_PREFIX: &[u8] = b"Mlookup_run/";

pub(super) fn run_name(table: Table, generation: u64) -> String {
    format!("{}-{generation}.run", table.name())
}

pub(super) fn run_meta_key(table: Table, generation: u64) -> Vec<u8> {
    let mut key = META_RUN_PREFIX.to_vec();
    key.push(table as u8);
    key.extend_from_slice(&generation.to_be_bytes());
    key
}

pub(super) fn io_error(path: &Path, action: &str, source: std::io::Error) -> IndexError {
    IndexError::Log {
        path: path.display().to_string(),
        action: action.to_string(),
        source,
    }
}

pub(super) fn entry_key(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default())
}

pub(super) fn entry_id(bytes: &[u8]) -> DocumentId {
    u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default())
}
