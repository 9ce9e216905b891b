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

mod compaction;
mod entry;
mod recent;
mod run_file;
use compaction::*;
pub(crate) use entry::Table;
use entry::*;
use recent::*;
use run_file::*;

use std::path::{Path, PathBuf};

use dedupcrawl_sketch::mix64;
use rustc_hash::FxHashMap;

use crate::IndexError;
use crate::record::DocumentId;

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

impl Drop for LookupTables {
    fn drop(&mut self) {
        // Its runs are kept if it finishes; if not, the next open replays the documents.
        let _ = self.finish_compaction();
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
