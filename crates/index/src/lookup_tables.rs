//! The embedded index's lookup tables (LSH buckets, exact-digest keys, containment postings)
//! as sorted runs on disk with a small filter in RAM: about 20 bytes of RAM per document
//! instead of ~450 in hash maps.
//!
//! Every table maps a 64-bit key to document ids. Entries are `(key, id)`:
//!
//! * **recent** entries (at most [`DEFAULT_RECENT_LIMIT`] over all tables) sit in RAM hash
//!   maps. They need no file of their own: the document log is their write-ahead log, and an
//!   index that opens replays the documents the runs do not cover.
//! * **runs**: files `<table>-<generation>.run` in the lookup directory, entries sorted by
//!   `(key, id)`, 12 bytes each (key u64 LE, id u32 LE), no header; the key is the table's key
//!   mixed by [`mix64`] (a bijection, so no two keys meet, and uniform, so a run's filter is
//!   built in key order without cache misses while the run is written). In RAM each run keeps a
//!   [`BlockedBloomFilter`] over its keys ([`FILTER_BITS_PER_KEY`] bits a key, one cache line
//!   per probe) and the first key of each block of [`ENTRIES_PER_BLOCK`] entries (0.125 bytes
//!   an entry). A probe costs nothing when the filter says no and one 768-byte `pread` (rarely
//!   two) when it says maybe.
//!
//! The index's sled tree lists the runs (`Mlookup_run/` + table + generation → entries and the
//! CRC-32 of the file), the
//! layout the keys were computed with (`Mlookup_layout`: LSH bands × rows; another layout
//! makes the runs useless, so they are dropped and rebuilt from the log), and
//! `Mlookup_covered`: every document with a smaller id is in the runs.
//!
//! **Compaction** (when the recent entries reach the limit): per table, the recent entries
//! are merged with the newest runs (logarithmic merging, as the seen-URL set does: a new run
//! absorbs the older runs at most twice its size, so there are O(log n) runs) and written,
//! on a thread of its own: the frozen entries stay searchable, in RAM, until the new runs
//! replace them. Then one sled batch lists the new runs, unlists the merged ones and moves
//! the covered bound.
//! A thread of its own flushes sled and then deletes the merged files, so that sled cannot
//! roll back to a listing that names a deleted file (the flush waits for the disk; decisions
//! do not wait for it). Files no listing names (a compaction cut short, a deletion that did
//! not happen) are deleted when the index opens. The caller compacts only when every document it
//! indexed is committed to the log (the covered bound never passes the log).
//!
//! **Runs are a cache of the log.** They are not fsynced: a run that is missing, of the wrong
//! size or whose CRC does not match (an OS crash), runs of another layout and runs that cover
//! documents the log lost all make the index drop every run and rebuild them from the log.
//!
//! **Same answers as the hash maps.** Members of a key come back in id order (the order of
//! insertion: ids are dense and ascending), removed documents are left out by the caller's
//! liveness check, and each table keeps at most its cap of members per key (the lowest ids,
//! as the capped maps kept the first inserted): a merge drops the entries past the cap.
//!
//! Why hand-written: the entries are fixed-size and their keys are hashes already, their
//! write-ahead log is the document log, and the design fixes sled as the one store; an LSM
//! crate would bring a second store with its own journal for what is a sorted array and a
//! filter.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use dedupcrawl_sketch::{BlockedBloomFilter, mix64};
use rustc_hash::FxHashMap;

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

const TABLES: [Table; 4] = [
    Table::Buckets,
    Table::Payloads,
    Table::Tokens,
    Table::Postings,
];

impl Table {
    fn name(self) -> &'static str {
        match self {
            Table::Buckets => "buckets",
            Table::Payloads => "payloads",
            Table::Tokens => "tokens",
            Table::Postings => "postings",
        }
    }

    /// Members kept per key (the lowest ids). The digest tables answer with their first live
    /// member; a few more keep the answer when one is removed.
    fn cap(self) -> usize {
        match self {
            Table::Buckets => MAX_BUCKET_MEMBERS,
            Table::Postings => MAX_POSTINGS_PER_SAMPLE,
            Table::Payloads | Table::Tokens => 16,
        }
    }
}

const ENTRY_BYTES: usize = 12;
pub(crate) const ENTRIES_PER_BLOCK: usize = 64;
const BLOCK_BYTES: usize = ENTRIES_PER_BLOCK * ENTRY_BYTES;
/// Filter bits a key: about 0.6 % false positives (one wasted `pread`).
pub(crate) const FILTER_BITS_PER_KEY: u64 = 12;
/// Recent entries (all tables) that trigger a compaction: ~14,000 documents of 18 entries,
/// a few MB of hash maps.
pub(crate) const DEFAULT_RECENT_LIMIT: usize = 1 << 17;
const FILE_BUFFER: usize = 1 << 20;

const META_LAYOUT: &[u8] = b"Mlookup_layout";
const META_COVERED: &[u8] = b"Mlookup_covered";
const META_RUN_PREFIX: &[u8] = b"Mlookup_run/";

fn run_name(table: Table, generation: u64) -> String {
    format!("{}-{generation}.run", table.name())
}

/// A listing's value: entries (u64 BE) and CRC-32 (u32 BE).
fn run_meta_value(run: &Run) -> Vec<u8> {
    let mut value = run.entries.to_be_bytes().to_vec();
    value.extend_from_slice(&run.crc.to_be_bytes());
    value
}

fn run_meta_key(table: Table, generation: u64) -> Vec<u8> {
    let mut key = META_RUN_PREFIX.to_vec();
    key.push(table as u8);
    key.extend_from_slice(&generation.to_be_bytes());
    key
}

fn io_error(path: &Path, action: &str, source: std::io::Error) -> IndexError {
    IndexError::Log {
        path: path.display().to_string(),
        action: action.to_string(),
        source,
    }
}

fn entry_key(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().unwrap_or_default())
}

fn entry_id(bytes: &[u8]) -> DocumentId {
    u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default())
}

/// One immutable sorted run, as held in RAM.
struct Run {
    generation: u64,
    entries: u64,
    /// CRC-32 of the file, recorded in the listing and checked when the run is loaded.
    crc: u32,
    path: PathBuf,
    file: File,
    filter: BlockedBloomFilter,
    /// First key of each block.
    fences: Vec<u64>,
}

impl Run {
    /// Appends the ids stored under `key` (ascending) to `out`.
    fn members(&self, key: u64, out: &mut Vec<DocumentId>) -> Result<(), IndexError> {
        if !self.filter.may_contain(key) {
            return Ok(());
        }
        // The key's entries may begin at the end of the block before the first block that
        // starts at or past it.
        let mut entry =
            (self.fences.partition_point(|&first| first < key).max(1) - 1) * ENTRIES_PER_BLOCK;
        let mut buffer = [0u8; BLOCK_BYTES];
        while (entry as u64) < self.entries {
            let count = (self.entries - entry as u64).min(ENTRIES_PER_BLOCK as u64) as usize;
            let bytes = &mut buffer[..count * ENTRY_BYTES];
            self.file
                .read_exact_at(bytes, (entry * ENTRY_BYTES) as u64)
                .map_err(|error| io_error(&self.path, "read", error))?;
            for raw in bytes.chunks_exact(ENTRY_BYTES) {
                let found = entry_key(raw);
                if found > key {
                    return Ok(());
                }
                if found == key {
                    out.push(entry_id(raw));
                }
            }
            entry += count;
        }
        Ok(())
    }

    fn memory_bytes(&self) -> usize {
        self.filter.memory_bytes() + self.fences.len() * 8
    }
}

/// Writes a run from entries pushed in `(key, id)` order, keeping at most `cap` per key, and
/// builds its filter and fences on the way.
struct RunWriter {
    writer: File,
    /// Entries not yet written (CRC-32 and `write` over large chunks).
    buffer: Vec<u8>,
    written: u64,
    crc: crc32fast::Hasher,
    run: Run,
    cap: usize,
    last: Option<(u64, DocumentId)>,
    same_key: usize,
}

impl RunWriter {
    fn create(
        dir: &Path,
        table: Table,
        generation: u64,
        expected: u64,
    ) -> Result<Self, IndexError> {
        let path = dir.join(run_name(table, generation));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(|error| io_error(&path, "create", error))?;
        let reader = file
            .try_clone()
            .map_err(|error| io_error(&path, "open", error))?;
        Ok(RunWriter {
            writer: file,
            buffer: Vec::with_capacity(FILE_BUFFER),
            written: 0,
            crc: crc32fast::Hasher::new(),
            run: Run {
                generation,
                entries: 0,
                crc: 0,
                path,
                file: reader,
                filter: BlockedBloomFilter::for_keys(expected, FILTER_BITS_PER_KEY),
                fences: Vec::new(),
            },
            cap: table.cap(),
            last: None,
            same_key: 0,
        })
    }

    fn push(&mut self, key: u64, id: DocumentId) -> Result<(), IndexError> {
        match self.last {
            Some(last) if (key, id) == last => return Ok(()),
            Some(last) if (key, id) < last => {
                return Err(IndexError::CorruptRecord {
                    key: self.run.path.display().to_string(),
                    reason: "a lookup run being merged is not sorted; delete the index \
                             directory (or the crawl's state/) and start over"
                        .into(),
                });
            }
            Some((last_key, _)) if last_key == key => {
                if self.same_key >= self.cap {
                    return Ok(());
                }
                self.same_key += 1;
            }
            _ => {
                self.same_key = 1;
                self.run.filter.insert(key);
            }
        }
        self.last = Some((key, id));
        if self.run.entries.is_multiple_of(ENTRIES_PER_BLOCK as u64) {
            self.run.fences.push(key);
        }
        self.buffer.extend_from_slice(&key.to_le_bytes());
        self.buffer.extend_from_slice(&id.to_le_bytes());
        self.run.entries += 1;
        if self.buffer.len() + ENTRY_BYTES > FILE_BUFFER {
            self.write_buffer()?;
        }
        Ok(())
    }

    fn write_buffer(&mut self) -> Result<(), IndexError> {
        self.crc.update(&self.buffer);
        self.writer
            .write_all_at(&self.buffer, self.written)
            .map_err(|error| io_error(&self.run.path, "write", error))?;
        self.written += self.buffer.len() as u64;
        self.buffer.clear();
        Ok(())
    }

    /// Writes the rest to the file (not fsynced: a run damaged by an OS crash is rebuilt).
    fn finish(mut self) -> Result<Run, IndexError> {
        self.write_buffer()?;
        let mut run = self.run;
        run.crc = self.crc.finalize();
        Ok(run)
    }
}

/// One sorted input of a merge: the entries of a run file, read in large chunks, or the
/// recent entries.
struct MergeInput {
    /// The current chunk, decoded.
    chunk: Vec<(u64, DocumentId)>,
    at: usize,
    /// The rest of the run file (`None` for the recent entries, all in `chunk`).
    file: Option<(File, PathBuf)>,
    offset: u64,
    remaining: u64,
}

impl MergeInput {
    fn of_run(path: &Path, entries: u64) -> Result<Self, IndexError> {
        let file = File::open(path).map_err(|error| io_error(path, "open", error))?;
        let mut input = MergeInput {
            chunk: Vec::new(),
            at: 0,
            file: Some((file, path.to_path_buf())),
            offset: 0,
            remaining: entries,
        };
        input.refill()?;
        Ok(input)
    }

    fn of_entries(entries: Vec<(u64, DocumentId)>) -> Self {
        MergeInput {
            chunk: entries,
            at: 0,
            file: None,
            offset: 0,
            remaining: 0,
        }
    }

    #[inline]
    fn head(&self) -> Option<(u64, DocumentId)> {
        self.chunk.get(self.at).copied()
    }

    #[inline]
    fn advance(&mut self) -> Result<(), IndexError> {
        self.at += 1;
        if self.at == self.chunk.len() && self.remaining > 0 {
            self.refill()?;
        }
        Ok(())
    }

    fn refill(&mut self) -> Result<(), IndexError> {
        let Some((file, path)) = &self.file else {
            return Ok(());
        };
        let count = self.remaining.min((FILE_BUFFER / ENTRY_BYTES) as u64) as usize;
        let mut bytes = vec![0u8; count * ENTRY_BYTES];
        file.read_exact_at(&mut bytes, self.offset)
            .map_err(|error| io_error(path, "read", error))?;
        self.chunk.clear();
        self.chunk.extend(
            bytes
                .chunks_exact(ENTRY_BYTES)
                .map(|raw| (entry_key(raw), entry_id(raw))),
        );
        self.at = 0;
        self.offset += bytes.len() as u64;
        self.remaining -= count as u64;
        Ok(())
    }
}

/// The recent entries of one table: first member per key, further ones apart.
#[derive(Default)]
struct RecentEntries {
    first: FxHashMap<u64, DocumentId>,
    more: FxHashMap<u64, Vec<DocumentId>>,
}

impl RecentEntries {
    fn insert(&mut self, key: u64, id: DocumentId, cap: usize) -> bool {
        match self.first.entry(key) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(id);
                true
            }
            std::collections::hash_map::Entry::Occupied(_) => {
                let more = self.more.entry(key).or_default();
                if more.len() + 1 < cap {
                    more.push(id);
                    true
                } else {
                    false
                }
            }
        }
    }

    fn members(&self, key: u64, out: &mut Vec<DocumentId>) {
        if let Some(&first) = self.first.get(&key) {
            out.push(first);
            if let Some(more) = self.more.get(&key) {
                out.extend_from_slice(more);
            }
        }
    }

    /// Every entry, sorted by `(key, id)`.
    fn sorted(&self) -> Vec<(u64, DocumentId)> {
        let mut entries: Vec<(u64, DocumentId)> =
            self.first.iter().map(|(&key, &id)| (key, id)).collect();
        for (&key, ids) in &self.more {
            entries.extend(ids.iter().map(|&id| (key, id)));
        }
        sort_uniform(entries)
    }

    fn len(&self) -> usize {
        self.first.len() + self.more.values().map(Vec::len).sum::<usize>()
    }
}

/// Sorts entries whose keys are uniform (mixed) by `(key, id)`: one counting pass on the top
/// bits of the key puts each entry in its bucket (a few entries each), then each bucket is
/// sorted. Several times faster than a comparison sort of the whole (compactions sort ~250,000
/// entries each).
fn sort_uniform(entries: Vec<(u64, DocumentId)>) -> Vec<(u64, DocumentId)> {
    if entries.len() < 64 {
        let mut entries = entries;
        entries.sort_unstable();
        return entries;
    }
    let bits = (usize::BITS - entries.len().leading_zeros()).min(24);
    let shift = 64 - bits;
    let mut starts = vec![0usize; (1 << bits) + 1];
    for &(key, _) in &entries {
        starts[(key >> shift) as usize + 1] += 1;
    }
    for bucket in 1..starts.len() {
        starts[bucket] += starts[bucket - 1];
    }
    let mut next = starts.clone();
    let mut sorted = vec![(0u64, 0 as DocumentId); entries.len()];
    for entry in entries {
        let bucket = (entry.0 >> shift) as usize;
        sorted[next[bucket]] = entry;
        next[bucket] += 1;
    }
    for bucket in starts.windows(2) {
        if bucket[1] - bucket[0] > 1 {
            sorted[bucket[0]..bucket[1]].sort_unstable();
        }
    }
    sorted
}

/// All tables: recent entries and runs (see the module doc).
pub(crate) struct LookupTables {
    dir: PathBuf,
    recent: [RecentEntries; 4],
    runs: [Vec<Run>; 4],
    recent_len: usize,
    recent_limit: usize,
    next_generation: u64,
    covered: DocumentId,
    /// Per table, the entries a running compaction writes, searched until its runs replace
    /// them.
    frozen: [std::sync::Arc<RecentEntries>; 4],
    pending: Option<PendingCompaction>,
    tree: sled::Tree,
    /// Deletes the files of merged runs once sled is flushed (see the module doc).
    deleter: ObsoleteRunDeleter,
}

/// A compaction running on its own thread.
struct PendingCompaction {
    covered: DocumentId,
    thread: std::thread::JoinHandle<Result<Vec<MergedRun>, IndexError>>,
}

/// A run a compaction wrote, and the runs of its table it replaces (`merge_from..`).
struct MergedRun {
    table: Table,
    merge_from: usize,
    run: Run,
}

/// What a compaction merges for one table.
struct MergeJob {
    table: Table,
    entries: std::sync::Arc<RecentEntries>,
    /// The runs merged in: path and entries.
    runs: Vec<(PathBuf, u64)>,
    merge_from: usize,
    generation: u64,
    expected: u64,
}

impl MergeJob {
    fn run(self, dir: &Path) -> Result<MergedRun, IndexError> {
        let mut writer = RunWriter::create(dir, self.table, self.generation, self.expected)?;
        let mut inputs = vec![MergeInput::of_entries(self.entries.sorted())];
        for (path, entries) in &self.runs {
            inputs.push(MergeInput::of_run(path, *entries)?);
        }
        loop {
            let mut smallest: Option<(usize, (u64, DocumentId))> = None;
            for (index, input) in inputs.iter().enumerate() {
                if let Some(head) = input.head()
                    && smallest.is_none_or(|(_, best)| head < best)
                {
                    smallest = Some((index, head));
                }
            }
            let Some((index, (key, id))) = smallest else {
                break;
            };
            writer.push(key, id)?;
            inputs[index].advance()?;
        }
        Ok(MergedRun {
            table: self.table,
            merge_from: self.merge_from,
            run: writer.finish()?,
        })
    }
}

impl Drop for LookupTables {
    fn drop(&mut self) {
        // Its runs are kept if it finishes; if not, the next open replays the documents.
        let _ = self.finish_compaction();
    }
}

/// A thread that flushes sled and then deletes the files of merged runs, so that sled cannot
/// roll back to a listing that names a deleted file. The flush waits for the disk; decisions
/// need not wait for it. Batches that arrive during a flush share the next one.
struct ObsoleteRunDeleter {
    tree: sled::Tree,
    sender: Option<std::sync::mpsc::Sender<Vec<PathBuf>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ObsoleteRunDeleter {
    fn new(tree: &sled::Tree) -> Self {
        ObsoleteRunDeleter {
            tree: tree.clone(),
            sender: None,
            thread: None,
        }
    }

    fn delete_after_flush(&mut self, files: Vec<PathBuf>) {
        if files.is_empty() {
            return;
        }
        let sender = self.sender.get_or_insert_with(|| {
            let (sender, receiver) = std::sync::mpsc::channel::<Vec<PathBuf>>();
            let tree = self.tree.clone();
            self.thread = std::thread::Builder::new()
                .name("index-run-deleter".into())
                .spawn(move || {
                    while let Ok(mut files) = receiver.recv() {
                        while let Ok(more) = receiver.try_recv() {
                            files.extend(more);
                        }
                        // Not flushed: the files stay, and the next open deletes them.
                        if tree.flush().is_ok() {
                            for file in files {
                                let _ = std::fs::remove_file(file);
                            }
                        }
                    }
                })
                .ok();
            sender
        });
        let _ = sender.send(files);
    }
}

impl Drop for ObsoleteRunDeleter {
    fn drop(&mut self) {
        self.sender = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Counts of the lookup tables, for stats and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct LookupStats {
    pub(crate) bucket_entries: u64,
    pub(crate) runs: usize,
    pub(crate) recent_entries: usize,
    pub(crate) bytes_on_disk: u64,
    pub(crate) filter_memory_bytes: usize,
}

/// A run listed in the meta tree: its table, its generation, and its size (bytes, entries)
/// when the listing records one.
type ListedRun = (Table, u64, Option<(u64, u32)>);

impl LookupTables {
    /// Opens the runs listed in `tree` under `dir`. Runs of another `layout`, or that claim to
    /// cover documents the log does not have (`id_bound`: a log that lost its tail), are
    /// dropped. Returns the tables and the bound below which documents are covered: the
    /// caller replays the log's documents from there on.
    pub(crate) fn open(
        dir: &Path,
        tree: &sled::Tree,
        layout: &str,
        id_bound: DocumentId,
    ) -> Result<LookupTables, IndexError> {
        std::fs::create_dir_all(dir).map_err(|error| io_error(dir, "create", error))?;
        let stored_layout = tree.get(META_LAYOUT)?;
        let covered = tree
            .get(META_COVERED)?
            .and_then(|v| Some(u32::from_le_bytes(v.as_ref().try_into().ok()?)))
            .unwrap_or(0);
        let mut listed: Vec<ListedRun> = Vec::new();
        for item in tree.scan_prefix(META_RUN_PREFIX) {
            let (key, value) = item?;
            let rest = &key[META_RUN_PREFIX.len()..];
            let table = rest
                .first()
                .and_then(|&t| TABLES.iter().copied().find(|table| *table as u8 == t));
            let generation = rest
                .get(1..)
                .and_then(|g| Some(u64::from_be_bytes(g.try_into().ok()?)));
            let (Some(table), Some(generation)) = (table, generation) else {
                continue;
            };
            let size = (value.len() == 12).then(|| {
                (
                    u64::from_be_bytes(value[..8].try_into().unwrap_or_default()),
                    u32::from_be_bytes(value[8..].try_into().unwrap_or_default()),
                )
            });
            listed.push((table, generation, size));
        }
        listed.sort_by_key(|&(table, generation, _)| (table as u8, generation));
        let mut tables = LookupTables {
            dir: dir.to_path_buf(),
            recent: Default::default(),
            runs: Default::default(),
            recent_len: 0,
            recent_limit: DEFAULT_RECENT_LIMIT,
            next_generation: listed.iter().map(|r| r.1 + 1).max().unwrap_or(1),
            covered,
            frozen: Default::default(),
            pending: None,
            tree: tree.clone(),
            deleter: ObsoleteRunDeleter::new(tree),
        };
        let mut problem = if stored_layout.as_deref() != Some(layout.as_bytes()) {
            (!listed.is_empty()).then(|| "they were written for other LSH bands".to_string())
        } else if covered > id_bound {
            Some(format!(
                "they cover {covered} documents, the document log holds {id_bound}"
            ))
        } else {
            None
        };
        if problem.is_none() {
            for &(table, generation, size) in &listed {
                match size.map(|(entries, crc)| load_run(dir, table, generation, entries, crc)) {
                    Some(Ok(run)) => tables.runs[table as usize].push(run),
                    Some(Err(reason)) => {
                        problem = Some(reason);
                        break;
                    }
                    None => {
                        problem = Some(format!(
                            "the listing of {} is damaged",
                            run_name(table, generation)
                        ));
                        break;
                    }
                }
            }
        }
        if problem.is_some() || stored_layout.as_deref() != Some(layout.as_bytes()) {
            if let Some(problem) = &problem {
                tracing::warn!(
                    dir = %dir.display(),
                    problem,
                    "the index's lookup runs cannot be used: rebuilding them from the document log"
                );
            }
            tables.runs = Default::default();
            tables.covered = 0;
            let mut batch = sled::Batch::default();
            for &(table, generation, _) in &listed {
                batch.remove(run_meta_key(table, generation));
            }
            batch.insert(META_LAYOUT, layout.as_bytes());
            batch.insert(META_COVERED, &0u32.to_le_bytes());
            tree.apply_batch(batch)?;
        }
        tables.remove_unlisted_files();
        Ok(tables)
    }

    /// Documents with an id below this are in the runs.
    pub(crate) fn covered(&self) -> DocumentId {
        self.covered
    }

    /// Sets the recent-entry count that triggers a compaction (tests use small values).
    #[cfg(test)]
    pub(crate) fn set_recent_limit(&mut self, limit: usize) {
        self.recent_limit = limit.max(1);
    }

    /// Whether the recent entries should be written as runs.
    pub(crate) fn wants_compaction(&self) -> bool {
        self.recent_len >= self.recent_limit
    }

    pub(crate) fn insert(&mut self, table: Table, key: u64, id: DocumentId) {
        if self.recent[table as usize].insert(mix64(key), id, table.cap()) {
            self.recent_len += 1;
        }
    }

    /// Starts loading the filter blocks `key` will probe (one per run), so that the probes of
    /// several keys wait for memory at the same time rather than one after the other.
    pub(crate) fn prefetch(&self, table: Table, key: u64) {
        let key = mix64(key);
        for run in &self.runs[table as usize] {
            run.filter.prefetch(key);
        }
    }

    /// The members of `key` that `live` accepts, in id order, at most the table's cap.
    #[cfg(test)]
    pub(crate) fn members(
        &self,
        table: Table,
        key: u64,
        live: impl Fn(DocumentId) -> bool,
    ) -> Result<Vec<DocumentId>, IndexError> {
        let mut out = Vec::new();
        self.members_into(table, key, live, &mut out)?;
        Ok(out)
    }

    /// [`members`](Self::members) into `out` (cleared first), which callers reuse.
    pub(crate) fn members_into(
        &self,
        table: Table,
        key: u64,
        live: impl Fn(DocumentId) -> bool,
        out: &mut Vec<DocumentId>,
    ) -> Result<(), IndexError> {
        let key = mix64(key);
        out.clear();
        for run in &self.runs[table as usize] {
            run.members(key, out)?;
        }
        self.frozen[table as usize].members(key, out);
        self.recent[table as usize].members(key, out);
        // Runs hold older documents than the runs after them and the recent entries: `out` is
        // in id order unless a run was rebuilt from the log.
        if !out.is_sorted() {
            out.sort_unstable();
            out.dedup();
        }
        out.retain(|&id| live(id));
        out.truncate(table.cap());
        Ok(())
    }

    /// Starts writing the recent entries as runs (merged with the newest runs of each table),
    /// on a thread of its own; the entries stay searchable (frozen) until the runs replace
    /// them. When done, the runs are listed and documents below `covered` count as covered.
    /// Every document below `covered` must be committed to the document log. A compaction
    /// still running is waited for first.
    pub(crate) fn compact(&mut self, covered: DocumentId) -> Result<(), IndexError> {
        self.finish_compaction()?;
        let mut jobs = Vec::new();
        for table in TABLES {
            let recent = &mut self.recent[table as usize];
            // The next recent entries will be about as many: no rehashing while they grow.
            let next = RecentEntries {
                first: FxHashMap::with_capacity_and_hasher(recent.first.len(), Default::default()),
                more: FxHashMap::default(),
            };
            let entries = std::mem::replace(recent, next);
            if entries.first.is_empty() {
                continue;
            }
            let runs = &self.runs[table as usize];
            let mut expected = entries.len() as u64;
            let mut merge_from = runs.len();
            while merge_from > 0 && runs[merge_from - 1].entries <= 2 * expected {
                merge_from -= 1;
                expected += runs[merge_from].entries;
            }
            let entries = std::sync::Arc::new(entries);
            self.frozen[table as usize] = entries.clone();
            jobs.push(MergeJob {
                table,
                entries,
                runs: runs[merge_from..]
                    .iter()
                    .map(|run| (run.path.clone(), run.entries))
                    .collect(),
                merge_from,
                generation: self.next_generation,
                expected,
            });
            self.next_generation += 1;
        }
        self.recent_len = 0;
        let dir = self.dir.clone();
        let thread = std::thread::Builder::new()
            .name("index-compaction".into())
            .spawn(move || jobs.into_iter().map(|job| job.run(&dir)).collect())
            .map_err(|error| io_error(&self.dir, "start a compaction thread for", error))?;
        self.pending = Some(PendingCompaction { covered, thread });
        Ok(())
    }

    /// Installs a finished compaction (does not wait for one still running).
    pub(crate) fn poll_compaction(&mut self) -> Result<(), IndexError> {
        if self
            .pending
            .as_ref()
            .is_some_and(|pending| pending.thread.is_finished())
        {
            self.finish_compaction()?;
        }
        Ok(())
    }

    /// Waits for a running compaction and installs its runs: one sled batch lists them,
    /// unlists the runs they merged and moves the covered bound.
    pub(crate) fn finish_compaction(&mut self) -> Result<(), IndexError> {
        let Some(pending) = self.pending.take() else {
            return Ok(());
        };
        let merged = pending.thread.join().map_err(|_| IndexError::Log {
            path: self.dir.display().to_string(),
            action: "compact the lookup runs in".into(),
            source: std::io::Error::other("the compaction thread panicked"),
        })??;
        let mut batch = sled::Batch::default();
        for merged in &merged {
            for old in &self.runs[merged.table as usize][merged.merge_from..] {
                batch.remove(run_meta_key(merged.table, old.generation));
            }
            batch.insert(
                run_meta_key(merged.table, merged.run.generation),
                run_meta_value(&merged.run),
            );
        }
        batch.insert(META_COVERED, &pending.covered.to_le_bytes());
        self.tree.apply_batch(batch)?;
        let mut obsolete = Vec::new();
        for merged in merged {
            let runs = &mut self.runs[merged.table as usize];
            obsolete.extend(runs.drain(merged.merge_from..).map(|old| old.path));
            runs.push(merged.run);
            self.frozen[merged.table as usize] = Default::default();
        }
        self.covered = pending.covered;
        self.deleter.delete_after_flush(obsolete);
        Ok(())
    }

    pub(crate) fn stats(&self) -> LookupStats {
        let all_runs = self.runs.iter().flatten();
        LookupStats {
            bucket_entries: self.runs[Table::Buckets as usize]
                .iter()
                .map(|run| run.entries)
                .sum::<u64>()
                + self.frozen[Table::Buckets as usize].len() as u64
                + self.recent[Table::Buckets as usize].len() as u64,
            runs: self.runs.iter().map(Vec::len).sum(),
            recent_entries: self.recent_len,
            bytes_on_disk: all_runs
                .clone()
                .map(|run| run.entries * ENTRY_BYTES as u64)
                .sum(),
            filter_memory_bytes: all_runs.map(Run::memory_bytes).sum(),
        }
    }

    /// Deletes `*.run` files that no listing names.
    fn remove_unlisted_files(&self) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let listed = self
                .runs
                .iter()
                .flatten()
                .any(|run| run.path.file_name().is_some_and(|n| n == name.as_str()));
            if name.ends_with(".run") && !listed {
                tracing::info!(file = %name, "removing an index lookup run no listing names");
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Opens a listed run and rebuilds its filter and fences by reading it once; `Err` says why
/// it cannot be used.
fn load_run(
    dir: &Path,
    table: Table,
    generation: u64,
    entries: u64,
    crc: u32,
) -> Result<Run, String> {
    let name = run_name(table, generation);
    let path = dir.join(&name);
    let file = File::open(&path).map_err(|error| format!("{name} cannot be opened: {error}"))?;
    let size = file
        .metadata()
        .map_err(|error| format!("{name}: {error}"))?
        .len();
    if size != entries * ENTRY_BYTES as u64 {
        return Err(format!(
            "{name} has {size} bytes, its listing says {entries} entries of {ENTRY_BYTES}"
        ));
    }
    let mut run = Run {
        generation,
        entries,
        crc,
        path: path.clone(),
        file,
        filter: BlockedBloomFilter::for_keys(entries, FILTER_BITS_PER_KEY),
        fences: Vec::with_capacity((entries as usize).div_ceil(ENTRIES_PER_BLOCK)),
    };
    let mut reader = run
        .file
        .try_clone()
        .map_err(|error| format!("{name}: {error}"))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut chunk = vec![0u8; FILE_BUFFER / ENTRY_BYTES * ENTRY_BYTES];
    let mut index = 0u64;
    let mut last_key = None;
    while index < entries {
        let count = (entries - index).min((chunk.len() / ENTRY_BYTES) as u64) as usize;
        let bytes = &mut chunk[..count * ENTRY_BYTES];
        reader
            .read_exact(bytes)
            .map_err(|error| format!("{name} cannot be read: {error}"))?;
        hasher.update(bytes);
        for raw in bytes.chunks_exact(ENTRY_BYTES) {
            let key = entry_key(raw);
            if index.is_multiple_of(ENTRIES_PER_BLOCK as u64) {
                run.fences.push(key);
            }
            if last_key != Some(key) {
                run.filter.insert(key);
                last_key = Some(key);
            }
            index += 1;
        }
    }
    if hasher.finalize() != crc {
        return Err(format!("{name} does not match its checksum"));
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    struct Store {
        dir: tempfile::TempDir,
        db: sled::Db,
        tree: sled::Tree,
    }

    /// A file of `dir` (the only run, in these tests).
    fn first_file(dir: &Path) -> std::path::PathBuf {
        std::fs::read_dir(dir)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path()
    }

    fn store() -> Store {
        let dir = tempfile::tempdir().unwrap();
        let db = crate::open_sled_waiting_for_lock(&dir.path().join("db")).unwrap();
        let tree = db.open_tree("dedup_index").unwrap();
        Store { dir, db, tree }
    }

    fn open(store: &Store, layout: &str, id_bound: DocumentId) -> LookupTables {
        LookupTables::open(
            &store.dir.path().join("lookup"),
            &store.tree,
            layout,
            id_bound,
        )
        .unwrap()
    }

    /// Keys from a small range, so that many keys get several members (and some pass the cap).
    fn key_of(i: u32) -> u64 {
        dedupcrawl_sketch::mix64(u64::from(i % 700)) & !0xF
    }

    /// What the tables must answer: every member in id order, at most the cap, live only.
    fn expected(
        model: &BTreeMap<(u8, u64), Vec<DocumentId>>,
        table: Table,
        key: u64,
        live: impl Fn(DocumentId) -> bool,
    ) -> Vec<DocumentId> {
        let mut ids: Vec<DocumentId> = model.get(&(table as u8, key)).cloned().unwrap_or_default();
        ids.truncate(table.cap());
        ids.retain(|&id| live(id));
        ids
    }

    #[test]
    fn runs_answer_like_the_maps_through_compactions_merges_and_reopen() {
        let store = store();
        let mut tables = open(&store, "layout-1", 0);
        tables.set_recent_limit(500);
        let mut model: BTreeMap<(u8, u64), Vec<DocumentId>> = BTreeMap::new();
        let live = |id: DocumentId| id % 97 != 5;
        for id in 0..20_000u32 {
            for (table, key) in [
                (Table::Buckets, key_of(id)),
                (Table::Buckets, key_of(id.wrapping_mul(7)) ^ 1),
                (Table::Postings, key_of(id / 3)),
                (Table::Payloads, u64::from(id) << 20),
            ] {
                tables.insert(table, key, id);
                model.entry((table as u8, key)).or_default().push(id);
            }
            if tables.wants_compaction() {
                tables.compact(id + 1).unwrap();
            }
        }
        let check = |tables: &LookupTables| {
            for (&(table, key), _) in model.iter() {
                let table = TABLES[table as usize];
                assert_eq!(
                    tables.members(table, key, live).unwrap(),
                    expected(&model, table, key, live),
                    "{table:?} {key:x}"
                );
            }
            // Keys never inserted have no members.
            for i in 0..2_000u64 {
                assert!(
                    tables
                        .members(Table::Buckets, i << 40 | 3, live)
                        .unwrap()
                        .is_empty()
                );
            }
        };
        // With a compaction still running (its entries frozen), then with it installed.
        check(&tables);
        tables.finish_compaction().unwrap();
        check(&tables);
        let stats = tables.stats();
        assert!(stats.runs >= 4 && stats.runs <= 4 * 8, "{stats:?}");
        // Reopened: the runs cover what was compacted; the caller replays the rest.
        let covered = tables.covered();
        assert!(covered > 19_000, "{covered}");
        drop(tables);
        let mut reopened = open(&store, "layout-1", 20_000);
        assert_eq!(reopened.covered(), covered);
        for id in covered..20_000 {
            for (table, key) in [
                (Table::Buckets, key_of(id)),
                (Table::Buckets, key_of(id.wrapping_mul(7)) ^ 1),
                (Table::Postings, key_of(id / 3)),
                (Table::Payloads, u64::from(id) << 20),
            ] {
                reopened.insert(table, key, id);
            }
        }
        check(&reopened);
        let files = std::fs::read_dir(store.dir.path().join("lookup"))
            .unwrap()
            .count();
        assert_eq!(files, reopened.stats().runs, "merged runs are deleted");
    }

    #[test]
    fn a_key_keeps_its_first_members_up_to_the_cap_across_runs() {
        let store = store();
        let mut tables = open(&store, "l", 0);
        tables.set_recent_limit(100);
        for id in 0..3_000u32 {
            tables.insert(Table::Postings, 42, id);
            tables.insert(Table::Buckets, 43, id);
            if tables.wants_compaction() {
                tables.compact(id + 1).unwrap();
            }
        }
        tables.finish_compaction().unwrap();
        let first = |cap: u32| (0..cap).collect::<Vec<_>>();
        assert_eq!(
            tables.members(Table::Postings, 42, |_| true).unwrap(),
            first(256)
        );
        assert_eq!(
            tables.members(Table::Buckets, 43, |_| true).unwrap(),
            first(1024)
        );
        // Merges dropped the entries past the cap: the runs stay small.
        assert!(
            tables.stats().bytes_on_disk < 2 * (256 + 1024) * 12 * 8,
            "{:?}",
            tables.stats()
        );
    }

    #[test]
    fn another_layout_or_a_log_behind_the_runs_drops_them() {
        let store = store();
        let mut tables = open(&store, "layout-1", 0);
        for id in 0..100 {
            tables.insert(Table::Buckets, 7, id);
        }
        tables.compact(100).unwrap();
        tables.finish_compaction().unwrap();
        drop(tables);
        // The log lost documents the runs cover (a power loss): the runs are dropped.
        let tables = open(&store, "layout-1", 50);
        assert_eq!((tables.covered(), tables.stats().runs), (0, 0));
        assert!(
            tables
                .members(Table::Buckets, 7, |_| true)
                .unwrap()
                .is_empty()
        );
        drop(tables);
        let mut tables = open(&store, "layout-1", 0);
        tables.insert(Table::Buckets, 7, 0);
        tables.compact(1).unwrap();
        tables.finish_compaction().unwrap();
        drop(tables);
        let tables = open(&store, "layout-2", 1);
        assert_eq!((tables.covered(), tables.stats().runs), (0, 0));
        let files = std::fs::read_dir(store.dir.path().join("lookup"))
            .unwrap()
            .count();
        assert_eq!(files, 0);
        drop(store.db);
    }

    #[test]
    fn files_of_an_unfinished_compaction_are_removed_and_damaged_runs_are_dropped() {
        let store = store();
        let mut tables = open(&store, "l", 0);
        tables.insert(Table::Tokens, 9, 1);
        tables.compact(2).unwrap();
        tables.finish_compaction().unwrap();
        drop(tables);
        let lookup = store.dir.path().join("lookup");
        std::fs::write(lookup.join("buckets-99.run"), [0u8; 24]).unwrap();
        let tables = open(&store, "l", 2);
        assert_eq!(tables.members(Table::Tokens, 9, |_| true).unwrap(), vec![1]);
        assert!(!lookup.join("buckets-99.run").exists());
        drop(tables);
        // A run of the right size whose bytes changed (an OS crash before it reached the
        // disk), then one cut short: the caller rebuilds from the log.
        let run = first_file(&lookup);
        let mut bytes = std::fs::read(&run).unwrap();
        bytes[10] ^= 1;
        std::fs::write(&run, &bytes).unwrap();
        let tables = open(&store, "l", 2);
        assert_eq!((tables.covered(), tables.stats().runs), (0, 0));
        assert!(!run.exists(), "the dropped run's file is deleted");
        let mut tables = tables;
        tables.insert(Table::Tokens, 9, 1);
        tables.compact(2).unwrap();
        tables.finish_compaction().unwrap();
        drop(tables);
        let run = first_file(&lookup);
        std::fs::write(&run, [0u8; 5]).unwrap();
        let tables = open(&store, "l", 2);
        assert_eq!((tables.covered(), tables.stats().runs), (0, 0));
    }
}
