//! The seen-URL set: every URL the frontier was ever offered, as a 128-bit hash, in two tiers
//! so that millions of URLs cost about 1.3 bytes of RAM each (sled needs 200 or more).
//!
//! Files in the frontier's directory (`OUT/state/seen/` in a crawl):
//!
//! | file | content |
//! |---|---|
//! | `recent-<epoch>.bin` | the **recent** tier: keys (16 bytes each) offered since the last compaction, in offer order; also held in RAM (at most [`DEFAULT_RECENT_LIMIT`]) |
//! | `run-<generation>.bin` | a **settled** run: keys sorted ascending, no header |
//!
//! The sled tree `frontier_meta` says which files are live: `seen_wal_epoch`, `seen_wal_len`
//! (committed bytes of the recent file) and `seen_run/<generation>` (key count). In RAM each
//! run keeps a Bloom filter (10 bits a key, ~1% false positives) and the first key of each
//! 4 KiB block (16 bytes per 256 keys): a lookup costs nothing when the filter says no and one
//! 4 KiB read when it says maybe.
//!
//! **Consistency with the queue.** New keys are written to the recent file first, then the
//! caller's sled transaction (queue entries + counters) records the new committed length. On
//! open the file is cut back to the recorded length, so after `kill -9` the seen set holds
//! exactly the URLs whose offers sled kept: no URL is seen without being queued or done.
//!
//! **Compaction.** When the recent tier is full, its keys are merged with the newest runs
//! (logarithmic merging: a new run absorbs older runs at most twice its size, so there are
//! O(log n) runs and each key is rewritten O(log n) times) into a new run file, which is
//! fsynced; one sled batch then lists it, unlists the merged runs and starts a new recent file;
//! after a flush the old files are deleted. Files no listing names (a compaction cut short)
//! are deleted at open.
//!
//! Why not a sled tree: uniformly random 16-byte keys touch every page of a tree, and sled 0.34
//! keeps per-page state in RAM whatever its cache size (measured once: 1 M keys took 225 MB
//! RSS and 4 M took 585 MB, with a 64 MB cache); big batches over such a tree also made it deadlock once in testing.
//! Why hand-written: the recent file's length rides in the queue's own sled transaction, and
//! the keys are already uniform hashes (the Bloom filter, [`HashBloomFilter`], takes its probe
//! positions from the key bits); no crate offers that.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, RwLock};

use dedupcrawl_sketch::HashBloomFilter;
use sled::{Batch, Tree};

use crate::error::FrontierError;

/// The key of a URL in the seen set (XXH3-128 of the canonical URL, big-endian).
pub(crate) type SeenKey = [u8; 16];

/// The seen-set key of a URL: 128 bits of xxh3 of its canonical form (every backend uses it).
pub(crate) fn seen_key(url: &crate::canonical::CanonicalUrl) -> SeenKey {
    xxhash_rust::xxh3::xxh3_128(url.as_str().as_bytes()).to_be_bytes()
}

/// `frontier_meta` key: committed length in bytes of the recent file (u64 BE).
pub(crate) const META_WAL_LEN: &[u8] = b"seen_wal_len";
const META_WAL_EPOCH: &[u8] = b"seen_wal_epoch";
const META_RUN_PREFIX: &[u8] = b"seen_run/";
/// The sled tree of the first layout, which kept every key; imported as a run on open.
const LEGACY_TREE: &str = "frontier_seen";

/// Recent-tier size that triggers a compaction: one compaction per 65k new URLs, ~3 MB of RAM.
pub const DEFAULT_RECENT_LIMIT: u64 = 65_536;
const KEYS_PER_BLOCK: usize = 256;
const KEY_BYTES: usize = 16;
const BLOCK_BYTES: usize = KEYS_PER_BLOCK * KEY_BYTES;
const FILE_BUFFER: usize = 1 << 20;

/// Opens (creating it if needed) a file of the seen set for reading and writing; `fresh`
/// empties it.
fn open_seen_file(dir: &Path, name: &str, fresh: bool) -> Result<File, FrontierError> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(fresh)
        .open(dir.join(name))
        .map_err(|error| seen_io(if fresh { "create" } else { "open" }, name, error))
}

/// Binary search of a block (sorted 16-byte keys).
fn block_contains(block: &[u8], key: &SeenKey) -> bool {
    let (mut low, mut high) = (0, block.len() / KEY_BYTES);
    while low < high {
        let middle = (low + high) / 2;
        match block[middle * KEY_BYTES..(middle + 1) * KEY_BYTES].cmp(&key[..]) {
            std::cmp::Ordering::Less => low = middle + 1,
            std::cmp::Ordering::Greater => high = middle,
            std::cmp::Ordering::Equal => return true,
        }
    }
    false
}

/// One immutable sorted run, as held in RAM.
struct SettledRun {
    generation: u64,
    len: u64,
    file: File,
    bloom: HashBloomFilter,
    /// First key of each block, for finding the one block that may hold a key.
    block_first_keys: Vec<u128>,
}

impl SettledRun {
    fn contains(&self, key: &SeenKey) -> Result<bool, FrontierError> {
        let wanted = u128::from_be_bytes(*key);
        if !self.bloom.may_contain(wanted) {
            return Ok(false);
        }
        let block = self
            .block_first_keys
            .partition_point(|&first| first <= wanted);
        let Some(block) = block.checked_sub(1) else {
            return Ok(false);
        };
        let start = (block * KEYS_PER_BLOCK) as u64;
        let keys = (self.len - start).min(KEYS_PER_BLOCK as u64) as usize;
        let mut buffer = [0u8; BLOCK_BYTES];
        let bytes = &mut buffer[..keys * KEY_BYTES];
        self.file
            .read_exact_at(bytes, start * KEY_BYTES as u64)
            .map_err(|error| seen_io("read", &run_name(self.generation), error))?;
        Ok(block_contains(bytes, key))
    }
}

fn run_name(generation: u64) -> String {
    format!("run-{generation}.bin")
}

fn recent_name(epoch: u64) -> String {
    format!("recent-{epoch}.bin")
}

fn seen_io(action: &str, file: &str, error: std::io::Error) -> FrontierError {
    FrontierError::Corrupt(format!(
        "seen-URL set: cannot {action} {file}: {error} (check the disk and the permissions of \
         OUT/state/seen/)"
    ))
}

fn run_meta_key(generation: u64) -> Vec<u8> {
    let mut key = META_RUN_PREFIX.to_vec();
    key.extend_from_slice(&generation.to_be_bytes());
    key
}

fn read_u64(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_be_bytes(bytes.try_into().ok()?))
}

/// Reads 16-byte keys from a file in order.
struct KeyReader {
    reader: BufReader<File>,
    remaining: u64,
    name: String,
}

impl KeyReader {
    fn next_key(&mut self) -> Result<Option<u128>, FrontierError> {
        if self.remaining == 0 {
            return Ok(None);
        }
        let mut key = [0u8; KEY_BYTES];
        self.reader
            .read_exact(&mut key)
            .map_err(|error| seen_io("read", &self.name, error))?;
        self.remaining -= 1;
        Ok(Some(u128::from_be_bytes(key)))
    }
}

/// Writes a run file from keys pushed in ascending order (duplicates dropped), building its
/// Bloom filter and block index on the way.
struct RunWriter {
    writer: BufWriter<File>,
    name: String,
    run: SettledRun,
    last: Option<u128>,
}

impl RunWriter {
    fn create(dir: &Path, generation: u64, expected_keys: u64) -> Result<RunWriter, FrontierError> {
        let name = run_name(generation);
        let file = open_seen_file(dir, &name, true)?;
        let reader = file
            .try_clone()
            .map_err(|error| seen_io("open", &name, error))?;
        Ok(RunWriter {
            writer: BufWriter::with_capacity(FILE_BUFFER, file),
            name,
            run: SettledRun {
                generation,
                len: 0,
                file: reader,
                bloom: HashBloomFilter::for_keys(expected_keys),
                block_first_keys: Vec::new(),
            },
            last: None,
        })
    }

    fn push(&mut self, key: u128) -> Result<(), FrontierError> {
        if let Some(last) = self.last {
            if key == last {
                return Ok(()); // the same URL in two inputs
            }
            if key < last {
                return Err(FrontierError::Corrupt(format!(
                    "seen-URL set: an input of {} is not sorted; the crawl state is damaged: \
                     start a new crawl in a fresh output directory",
                    self.name
                )));
            }
        }
        self.last = Some(key);
        if self.run.len.is_multiple_of(KEYS_PER_BLOCK as u64) {
            self.run.block_first_keys.push(key);
        }
        self.writer
            .write_all(&key.to_be_bytes())
            .map_err(|error| seen_io("write", &self.name, error))?;
        self.run.bloom.insert(key);
        self.run.len += 1;
        Ok(())
    }

    /// Flushes and fsyncs the file.
    fn finish(self) -> Result<SettledRun, FrontierError> {
        let name = self.name;
        let file = self
            .writer
            .into_inner()
            .map_err(|error| seen_io("write", &name, error.into_error()))?;
        file.sync_all()
            .map_err(|error| seen_io("sync", &name, error))?;
        Ok(self.run)
    }
}

/// The recent tier: keys in RAM, and the file they are committed to.
struct RecentTier {
    keys: HashSet<u128>,
    file: File,
    epoch: u64,
    /// Committed bytes (as recorded in sled).
    committed_len: u64,
}

/// Counts of the seen set, for stats and benchmarks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SeenSetStats {
    /// Keys in the recent tier.
    pub recent: u64,
    /// Keys in settled runs.
    pub settled: u64,
    /// Number of settled runs.
    pub runs: usize,
    /// RAM held for the settled runs (Bloom filters and block indexes), in bytes.
    pub settled_memory_bytes: usize,
}

/// The two-tier seen set (see the module doc). The caller serialises writers ([`stage`],
/// [`committed`]) and records [`META_WAL_LEN`] in the same sled transaction as its queue
/// changes.
///
/// [`stage`]: SeenUrlSet::stage
/// [`committed`]: SeenUrlSet::committed
pub(crate) struct SeenUrlSet {
    dir: PathBuf,
    meta: Tree,
    recent: RwLock<RecentTier>,
    settled: RwLock<Vec<SettledRun>>,
    recent_limit: AtomicU64,
    /// Serialises compactions with `stage`/`committed` callers that forgot the frontier lock.
    writer: Mutex<()>,
}

impl SeenUrlSet {
    /// Opens the files listed in `meta` (a tree of `db`) under `dir`, cuts the recent file back
    /// to its committed length, deletes files no listing names, and imports the sled tree of
    /// the first layout if there is one.
    pub(crate) fn open(db: &sled::Db, meta: Tree, dir: &Path) -> Result<SeenUrlSet, FrontierError> {
        std::fs::create_dir_all(dir)
            .map_err(|error| seen_io("create", &dir.display().to_string(), error))?;
        let epoch = meta
            .get(META_WAL_EPOCH)?
            .and_then(|v| read_u64(&v))
            .unwrap_or(0);
        let mut committed_len = meta
            .get(META_WAL_LEN)?
            .and_then(|v| read_u64(&v))
            .unwrap_or(0);
        let mut runs = Vec::new();
        for item in meta.scan_prefix(META_RUN_PREFIX) {
            let (key, value) = item?;
            let (Some(generation), Some(len)) =
                (read_u64(&key[META_RUN_PREFIX.len()..]), read_u64(&value))
            else {
                return Err(FrontierError::Corrupt(
                    "bad seen-set run entry in frontier_meta".into(),
                ));
            };
            runs.push(load_run(dir, generation, len)?);
        }
        let name = recent_name(epoch);
        let file = open_seen_file(dir, &name, false)?;
        let on_disk = file
            .metadata()
            .map_err(|error| seen_io("stat", &name, error))?
            .len();
        if on_disk < committed_len {
            // Only an OS crash or a full disk does this (kill -9 keeps written data): the lost
            // URLs may be queued again and fetched twice; the archive's resume check still
            // keeps them from being archived twice.
            tracing::warn!(
                file = %dir.join(&name).display(),
                committed_len,
                on_disk,
                "the seen set's recent file is shorter than recorded; some URLs may be fetched again"
            );
            committed_len = on_disk - on_disk % KEY_BYTES as u64;
        }
        // Bytes past the committed length belong to offers sled did not keep.
        file.set_len(committed_len)
            .map_err(|error| seen_io("truncate", &name, error))?;
        let mut bytes = vec![0u8; committed_len as usize];
        file.read_exact_at(&mut bytes, 0)
            .map_err(|error| seen_io("read", &name, error))?;
        let keys: HashSet<u128> = bytes
            .chunks_exact(KEY_BYTES)
            .map(|chunk| u128::from_be_bytes(chunk.try_into().unwrap_or_default()))
            .collect();
        remove_unlisted_files(dir, &name, &runs);
        let set = SeenUrlSet {
            dir: dir.to_path_buf(),
            meta,
            recent: RwLock::new(RecentTier {
                keys,
                file,
                epoch,
                committed_len,
            }),
            settled: RwLock::new(runs),
            recent_limit: AtomicU64::new(DEFAULT_RECENT_LIMIT),
            writer: Mutex::new(()),
        };
        set.import_legacy_tree(db)?;
        Ok(set)
    }

    /// The first layout kept every key in the sled tree `frontier_seen`: its keys become a run.
    fn import_legacy_tree(&self, db: &sled::Db) -> Result<(), FrontierError> {
        if !db
            .tree_names()
            .iter()
            .any(|name| name == LEGACY_TREE.as_bytes())
        {
            return Ok(());
        }
        let legacy = db.open_tree(LEGACY_TREE)?;
        let mut keys = Vec::new();
        for key in legacy.iter().keys() {
            if let Ok(key) = <[u8; KEY_BYTES]>::try_from(key?.as_ref()) {
                keys.push(u128::from_be_bytes(key));
            }
        }
        if !keys.is_empty() {
            tracing::info!(keys = keys.len(), "moving the seen-URL set out of sled");
            self.compact_with(keys)?;
        }
        db.drop_tree(LEGACY_TREE)?;
        Ok(())
    }

    /// Sets the recent-tier size that triggers a compaction (tests use small values).
    pub(crate) fn set_recent_limit(&self, limit: u64) {
        self.recent_limit.store(limit.max(1), Ordering::Relaxed);
    }

    /// Whether the key is in either tier.
    pub(crate) fn contains(&self, key: &SeenKey) -> Result<bool, FrontierError> {
        if read_lock(&self.recent)
            .keys
            .contains(&u128::from_be_bytes(*key))
        {
            return Ok(true);
        }
        for run in read_lock(&self.settled).iter().rev() {
            if run.contains(key)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Writes new keys after the committed part of the recent file and returns the length the
    /// caller records under [`META_WAL_LEN`] in its transaction. Until [`SeenUrlSet::committed`]
    /// they do not count: the next `stage` overwrites them if the transaction failed.
    pub(crate) fn stage(&self, keys: &[SeenKey]) -> Result<u64, FrontierError> {
        let recent = read_lock(&self.recent);
        let bytes: Vec<u8> = keys.concat();
        recent
            .file
            .write_all_at(&bytes, recent.committed_len)
            .map_err(|error| seen_io("write", &recent_name(recent.epoch), error))?;
        Ok(recent.committed_len + bytes.len() as u64)
    }

    /// The caller's transaction recorded `committed_len`: the keys join the recent tier, which
    /// is compacted when full.
    pub(crate) fn committed(
        &self,
        keys: &[SeenKey],
        committed_len: u64,
    ) -> Result<(), FrontierError> {
        let full = {
            let mut recent = write_lock(&self.recent);
            recent.committed_len = committed_len;
            recent
                .keys
                .extend(keys.iter().map(|key| u128::from_be_bytes(*key)));
            recent.keys.len() as u64 >= self.recent_limit.load(Ordering::Relaxed)
        };
        if full {
            let keys: Vec<u128> = read_lock(&self.recent).keys.iter().copied().collect();
            self.compact_with(keys)?;
        }
        Ok(())
    }

    /// Merges `keys` (the recent tier, or imported keys) with the newest runs into a new run,
    /// lists it and starts an empty recent file.
    fn compact_with(&self, mut keys: Vec<u128>) -> Result<(), FrontierError> {
        let _writer = self
            .writer
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        keys.sort_unstable();
        keys.dedup();
        let (merge_from, merged, expected, generation) = {
            let runs = read_lock(&self.settled);
            let mut expected = keys.len() as u64;
            let mut merge_from = runs.len();
            while merge_from > 0 && runs[merge_from - 1].len <= 2 * expected {
                merge_from -= 1;
                expected += runs[merge_from].len;
            }
            let merged: Vec<(u64, u64)> = runs[merge_from..]
                .iter()
                .map(|r| (r.generation, r.len))
                .collect();
            let generation = runs.iter().map(|r| r.generation + 1).max().unwrap_or(1);
            (merge_from, merged, expected, generation)
        };
        let mut writer = RunWriter::create(&self.dir, generation, expected)?;
        let mut sources = Vec::with_capacity(merged.len());
        for &(old, len) in &merged {
            let name = run_name(old);
            let file =
                File::open(self.dir.join(&name)).map_err(|error| seen_io("open", &name, error))?;
            sources.push(KeyReader {
                reader: BufReader::with_capacity(FILE_BUFFER, file),
                remaining: len,
                name,
            });
        }
        let mut heads: Vec<Option<u128>> = Vec::with_capacity(sources.len());
        for source in &mut sources {
            heads.push(source.next_key()?);
        }
        let mut fresh = keys.iter().copied().peekable();
        loop {
            let smallest_run = heads
                .iter()
                .enumerate()
                .filter_map(|(index, head)| head.map(|key| (index, key)))
                .min_by_key(|&(_, key)| key);
            match (fresh.peek().copied(), smallest_run) {
                (None, None) => break,
                (Some(key), run) if run.is_none_or(|(_, run_key)| key <= run_key) => {
                    writer.push(key)?;
                    fresh.next();
                }
                (_, Some((index, key))) => {
                    writer.push(key)?;
                    heads[index] = sources[index].next_key()?;
                }
                (Some(_), None) => unreachable!("handled by the guarded arm"),
            }
        }
        let run = writer.finish()?;
        let run_len = run.len;
        let old_epoch = read_lock(&self.recent).epoch;
        let epoch = old_epoch + 1;
        let name = recent_name(epoch);
        let new_recent = open_seen_file(&self.dir, &name, true)?;
        // The new names must survive an OS crash before sled refers to them.
        if let Ok(dir) = File::open(&self.dir) {
            let _ = dir.sync_all();
        }
        let mut listing = Batch::default();
        for &(old, _) in &merged {
            listing.remove(run_meta_key(old));
        }
        listing.insert(run_meta_key(generation), &run_len.to_be_bytes());
        listing.insert(META_WAL_EPOCH, &epoch.to_be_bytes());
        listing.insert(META_WAL_LEN, &0u64.to_be_bytes());
        self.meta.apply_batch(listing)?;
        // The old files may go only once sled can no longer roll back to them.
        self.meta.flush()?;
        // Run first, then the recent keys: a concurrent lookup never misses a key.
        {
            let mut runs = write_lock(&self.settled);
            runs.truncate(merge_from);
            runs.push(run);
        }
        {
            let mut recent = write_lock(&self.recent);
            recent.keys.clear();
            recent.file = new_recent;
            recent.epoch = epoch;
            recent.committed_len = 0;
        }
        for (old, _) in merged {
            let _ = std::fs::remove_file(self.dir.join(run_name(old)));
        }
        let _ = std::fs::remove_file(self.dir.join(recent_name(old_epoch)));
        tracing::debug!(generation, keys = run_len, "compacted the seen-URL set");
        Ok(())
    }

    /// Counts for stats.
    pub(crate) fn stats(&self) -> SeenSetStats {
        let runs = read_lock(&self.settled);
        SeenSetStats {
            recent: read_lock(&self.recent).keys.len() as u64,
            settled: runs.iter().map(|run| run.len).sum(),
            runs: runs.len(),
            settled_memory_bytes: runs
                .iter()
                .map(|run| run.bloom.memory_bytes() + run.block_first_keys.len() * KEY_BYTES)
                .sum(),
        }
    }
}

fn read_lock<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn write_lock<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Opens a listed run and rebuilds its filter and block index by reading it once.
fn load_run(dir: &Path, generation: u64, len: u64) -> Result<SettledRun, FrontierError> {
    let name = run_name(generation);
    let file = File::open(dir.join(&name)).map_err(|error| {
        FrontierError::Corrupt(format!(
            "seen-URL set: run file {} is missing ({error}); the crawl state is damaged: start \
             a new crawl in a fresh output directory",
            dir.join(&name).display()
        ))
    })?;
    let size = file
        .metadata()
        .map_err(|error| seen_io("stat", &name, error))?
        .len();
    if size != len * KEY_BYTES as u64 {
        return Err(FrontierError::Corrupt(format!(
            "seen-URL set: run file {} has {size} bytes, expected {} ({len} URLs); the crawl \
             state is damaged: start a new crawl in a fresh output directory",
            dir.join(&name).display(),
            len * KEY_BYTES as u64
        )));
    }
    let mut run = SettledRun {
        generation,
        len,
        file: file
            .try_clone()
            .map_err(|error| seen_io("open", &name, error))?,
        bloom: HashBloomFilter::for_keys(len),
        block_first_keys: Vec::with_capacity((len as usize).div_ceil(KEYS_PER_BLOCK)),
    };
    let mut reader = KeyReader {
        reader: BufReader::with_capacity(FILE_BUFFER, file),
        remaining: len,
        name,
    };
    let mut index = 0u64;
    while let Some(key) = reader.next_key()? {
        if index.is_multiple_of(KEYS_PER_BLOCK as u64) {
            run.block_first_keys.push(key);
        }
        run.bloom.insert(key);
        index += 1;
    }
    Ok(run)
}

/// Deletes `run-*.bin` and `recent-*.bin` files that the listing does not name.
fn remove_unlisted_files(dir: &Path, recent: &str, runs: &[SettledRun]) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours =
            (name.starts_with("run-") || name.starts_with("recent-")) && name.ends_with(".bin");
        let listed = name == recent || runs.iter().any(|run| run_name(run.generation) == name);
        if ours && !listed {
            tracing::info!(file = %name, "removing a seen-set file of an unfinished compaction");
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u64) -> SeenKey {
        xxhash_rust::xxh3::xxh3_128(&i.to_le_bytes()).to_be_bytes()
    }

    struct Store {
        dir: tempfile::TempDir,
        db: sled::Db,
        set: SeenUrlSet,
    }

    fn open(dir: tempfile::TempDir) -> Store {
        // Waits for the lock a just-dropped handle's threads may still hold.
        let db = dedupcrawl_index::open_sled_waiting_for_lock(&dir.path().join("db")).unwrap();
        let meta = db.open_tree("frontier_meta").unwrap();
        let set = SeenUrlSet::open(&db, meta, &dir.path().join("seen")).unwrap();
        Store { dir, db, set }
    }

    /// What the frontier does: stage, record the length in sled, commit.
    fn insert(store: &Store, range: std::ops::Range<u64>) {
        for i in range {
            let keys = [key(i)];
            let len = store.set.stage(&keys).unwrap();
            store
                .set
                .meta
                .insert(META_WAL_LEN, &len.to_be_bytes())
                .unwrap();
            store.set.committed(&keys, len).unwrap();
        }
    }

    fn reopen(store: Store) -> Store {
        store.db.flush().unwrap();
        let Store { dir, db, set } = store;
        drop(set);
        drop(db);
        open(dir)
    }

    #[test]
    fn keys_survive_compactions_merges_and_reopen() {
        let store = open(tempfile::tempdir().unwrap());
        store.set.set_recent_limit(1000);
        insert(&store, 0..10_500);
        let stats = store.set.stats();
        assert_eq!((stats.recent, stats.settled), (500, 10_000), "{stats:?}");
        // Logarithmic merging: far fewer runs than compactions (10).
        assert!(stats.runs <= 4, "{stats:?}");
        for i in 0..10_500 {
            assert!(store.set.contains(&key(i)).unwrap(), "key {i} lost");
        }
        let false_positives = (1_000_000..1_010_000)
            .filter(|&i| store.set.contains(&key(i)).unwrap())
            .count();
        assert_eq!(false_positives, 0, "a never-inserted key was reported seen");
        let files = std::fs::read_dir(store.dir.path().join("seen"))
            .unwrap()
            .count();
        assert_eq!(
            files,
            stats.runs + 1,
            "old runs and recent files are deleted"
        );

        let store = reopen(store);
        assert_eq!(store.set.stats(), stats);
        assert!((0..10_500).all(|i| store.set.contains(&key(i)).unwrap()));
        assert!(!store.set.contains(&key(2_000_000)).unwrap());
    }

    #[test]
    fn staged_keys_that_sled_did_not_record_are_dropped_on_open() {
        let store = open(tempfile::tempdir().unwrap());
        insert(&store, 0..10);
        // Staged (written to the file) but the transaction never happened: a crash between.
        store.set.stage(&[key(99)]).unwrap();
        let store = reopen(store);
        assert!(store.set.contains(&key(9)).unwrap());
        assert!(!store.set.contains(&key(99)).unwrap());
        let recent = store.dir.path().join("seen").join(recent_name(0));
        assert_eq!(std::fs::metadata(recent).unwrap().len(), 10 * 16);
    }

    #[test]
    fn files_of_an_unfinished_compaction_are_removed_on_open() {
        let store = open(tempfile::tempdir().unwrap());
        insert(&store, 0..10);
        // A compaction that died after writing its run, before listing it.
        let mut writer = RunWriter::create(&store.dir.path().join("seen"), 7, 300).unwrap();
        for i in 0..300u128 {
            writer.push(i).unwrap();
        }
        writer.finish().unwrap();
        std::fs::write(store.dir.path().join("seen").join(recent_name(1)), b"").unwrap();
        let store = reopen(store);
        let mut names: Vec<String> = std::fs::read_dir(store.dir.path().join("seen"))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, vec![recent_name(0)]);
        assert!(!store.set.contains(&5u128.to_be_bytes()).unwrap());
        assert!(store.set.contains(&key(3)).unwrap());
    }

    #[test]
    fn a_damaged_run_is_a_clear_error() {
        let store = open(tempfile::tempdir().unwrap());
        store.set.set_recent_limit(600);
        insert(&store, 0..600);
        assert_eq!(store.set.stats().runs, 1);
        let run = store.dir.path().join("seen").join(run_name(1));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&run)
            .unwrap()
            .set_len(100)
            .unwrap();
        store.db.flush().unwrap();
        let Store { dir, db, set } = store;
        drop(set);
        let meta = db.open_tree("frontier_meta").unwrap();
        let error = SeenUrlSet::open(&db, meta, &dir.path().join("seen"))
            .err()
            .expect("a damaged run must not open");
        let message = error.to_string();
        assert!(message.contains("run-1.bin has 100 bytes"), "{message}");
        assert!(message.contains("fresh output directory"), "{message}");
    }

    #[test]
    fn the_sled_tree_of_the_first_layout_is_imported() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = dedupcrawl_index::open_sled_waiting_for_lock(&dir.path().join("db")).unwrap();
            let legacy = db.open_tree(LEGACY_TREE).unwrap();
            for i in 0..1000 {
                legacy.insert(key(i), &[]).unwrap();
            }
            db.flush().unwrap();
        }
        let store = open(dir);
        assert_eq!(store.set.stats().settled, 1000);
        assert!((0..1000).all(|i| store.set.contains(&key(i)).unwrap()));
        assert!(
            !store
                .db
                .tree_names()
                .iter()
                .any(|n| n == LEGACY_TREE.as_bytes())
        );
    }
}
