//! The embedded backend: a document log for the records, a sled tree for the rest.
//!
//! * The [`DocumentLog`] (`documents.log` next to the sled files, or the path the crawl gives)
//!   holds every document's record: signature, MOD_m sample, small shingle set, name, digests,
//!   and for a cluster member the decision it got.
//! * The sled tree holds `M` + name → meta: format version, signature settings, and
//!   `Mlog_length`, the log's committed length, written in one batch per group of documents.
//!   (Indexes of formats 2 and 3 also hold `H` + host hash + block fingerprint → count, the
//!   block counts of their older documents: read, never written.)
//! * The lookup tables ([`LookupTables`], files next to the log): the LSH band buckets, the
//!   containment postings and the exact-digest keys (64 bits of the payload SHA-1 and of the
//!   token digest → id; a hit is verified against the full digest in the record), as sorted
//!   runs on disk with a Bloom filter in RAM (12 bits an entry, ~20 bytes a document), the
//!   newest entries in RAM. The runs are a cache of the log: written with a band layout, they
//!   are rebuilt from the log when the layout changes.
//! * In memory, rebuilt from the log when the index opens: the per-host block counts
//!   ([`BlockCounts`], ~1.3 bytes per distinct block) and each document's place in the log
//!   (8 bytes).
//!
//! Containment postings are each document's `POSTED_SAMPLES` (16) most divisible sampled
//! shingles: those are the ones every document containing it samples too (a value 0 mod 2^j
//! is in the sample of every document whose modulus divides 2^j). Only the signature settings
//! (k, shingle size, MinHash flavour) are fixed for the life of an index.
//!
//! Near duplicates and contained pages are indexed too, as *members* of a cluster: their
//! records and LSH buckets (no postings, no block counts), so a later page is linked to the
//! most similar earlier page, original or member (see `find_near`).
//!
//! An index of another format version is refused with an error that says to rebuild it (there
//! are no users of older formats before 1.0, so none is migrated).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::block_counts::BlockCounts;
use crate::block_postings::record_posting_values;
use crate::decision::{DecisionAlgorithm, payload_digest_key, token_digest_key};
use crate::document_log::DocumentLog;
use crate::lookup_tables::{LookupTables, Table};
use crate::record::{DocumentId, StoredDocument};
use crate::storage::{FORMAT_VERSION, IndexStorage, signature_settings};
use crate::{DedupDecision, DedupIndex, DocumentFingerprint, IndexConfig, IndexError, IndexStats};

const META_FORMAT: &[u8] = b"Mformat";
const META_SIGNATURE: &[u8] = b"Msignature";
const META_LOG_LENGTH: &[u8] = b"Mlog_length";
/// The log's file name in an index directory of its own.
pub const DOCUMENT_LOG_FILE: &str = "documents.log";

/// Opens a sled database with a 64 MiB page cache, waiting up to 5 s for its file lock (see
/// [`open_sled_config_waiting_for_lock`]).
pub fn open_sled_waiting_for_lock(path: &Path) -> Result<sled::Db, IndexError> {
    open_sled_config_waiting_for_lock(
        &sled::Config::new()
            .path(path)
            .cache_capacity(64 * 1024 * 1024),
        path,
    )
}

/// Opens the sled database `config` describes (at `path`), waiting up to 5 s for its file
/// lock: a process that was just killed (or a handle just dropped, whose flusher thread is
/// still ending) holds it for a moment. Still locked after that is [`IndexError::Locked`].
pub fn open_sled_config_waiting_for_lock(
    config: &sled::Config,
    path: &Path,
) -> Result<sled::Db, IndexError> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match config.open() {
            Ok(db) => return Ok(db),
            Err(sled::Error::Io(error))
                if error.to_string().contains("could not acquire lock")
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(25));
            }
            Err(sled::Error::Io(error)) if error.to_string().contains("could not acquire lock") => {
                return Err(IndexError::Locked {
                    path: path.display().to_string(),
                });
            }
            Err(error) => return Err(error.into()),
        }
    }
}

/// The sled-backed [`DedupIndex`].
pub struct SledDedupIndex {
    db: sled::Db,
    tree: sled::Tree,
    config: IndexConfig,
    path: String,
    state: Mutex<IndexState>,
    /// Documents per group commit: [`GROUP_COMMIT_DOCUMENTS`] for an index in its own
    /// directory, 1 inside a shared database (see [`SledDedupIndex::open_in`]).
    group_commit: usize,
}

/// Documents whose writes are grouped into one log write and one sled batch. One batch per
/// document costs sled a log reservation and its flusher a wake-up each time; grouping keeps
/// the contract ("durable after a reported insert and a flush") and every document stays
/// atomic (a crash loses whole documents of the group not yet committed, never part of one).
const GROUP_COMMIT_DOCUMENTS: usize = 256;

/// Everything a check reads and writes, behind one lock: a check-and-insert is atomic.
struct IndexState {
    lookup: LookupTables,
    /// Originals (cluster members not counted).
    documents: u64,
    block_counts: BlockCounts,
    /// Ids are dense: the next one is [`DocumentLog::id_bound`].
    log: DocumentLog,
    /// Documents appended since the last commit.
    staged_documents: usize,
}

/// The LSH bucket key of a band: band and the low 32 bits of its hash (a chance collision only
/// adds a candidate, and every candidate is verified).
fn bucket_key(band: usize, key: u64) -> u64 {
    (band as u64) << 32 | u64::from(key as u32)
}

/// What the lookup runs depend on: another layout makes them useless (they are rebuilt).
fn lookup_layout(config: &IndexConfig) -> String {
    format!(
        "buckets: bands={} rows={} xxh3-band-v1 low 32 bits; signature bits {}",
        config.lsh.bands,
        config.lsh.rows,
        crate::record::SIGNATURE_BITS
    )
}

/// Where the lookup runs of the log at `log_path` live: `documents.log` → `documents.lookup/`.
fn lookup_dir(log_path: &Path) -> PathBuf {
    log_path.with_extension("lookup")
}

/// Counts a stored document (originals only: members are not posted for containment and do
/// not count pages for the template).
fn count(documents: &mut u64, block_counts: &mut BlockCounts, document: &StoredDocument) {
    if document.link.is_none() {
        *documents += 1;
        block_counts.add_page(&document.host, &document.blocks);
    }
}

/// Adds a stored document's keys to the lookup tables.
fn index_keys(lookup: &mut LookupTables, config: &IndexConfig, document: &StoredDocument) {
    if let Some(signature) = &document.signature {
        for (band, key) in config.lsh.band_keys(signature).into_iter().enumerate() {
            lookup.insert(Table::Buckets, bucket_key(band, key), document.id);
        }
    }
    lookup.insert(
        Table::Payloads,
        payload_digest_key(&document.payload),
        document.id,
    );
    if let Some(tokens) = &document.tokens {
        lookup.insert(Table::Tokens, token_digest_key(tokens), document.id);
    }
    for value in record_posting_values(document) {
        lookup.insert(Table::Postings, value, document.id);
    }
}

impl std::fmt::Debug for SledDedupIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SledDedupIndex")
            .field("path", &self.path)
            .field("config", &self.config)
            .finish()
    }
}

impl SledDedupIndex {
    /// Opens (or creates) an index in its own directory: the sled files and
    /// [`DOCUMENT_LOG_FILE`].
    pub fn open(path: &Path, config: IndexConfig) -> Result<Self, IndexError> {
        let db = open_sled_waiting_for_lock(path)?;
        let mut index = Self::open_in(db, &path.join(DOCUMENT_LOG_FILE), config)?;
        index.path = path.display().to_string();
        index.group_commit = GROUP_COMMIT_DOCUMENTS;
        Ok(index)
    }

    /// Opens the index inside an existing sled database (the crawl's `state/`), as the tree
    /// `dedup_index`, with its document log at `log_path`. Each document is committed at once
    /// (no group commit): the owner of a shared database relies on sled's own periodic flush
    /// to make every insert durable (the crawler's resume reconciles the rest from its WARC
    /// files).
    pub fn open_in(db: sled::Db, log_path: &Path, config: IndexConfig) -> Result<Self, IndexError> {
        let path = log_path.display().to_string();
        let tree = db.open_tree("dedup_index")?;
        let signature_settings = signature_settings(&config);
        let format = tree
            .get(META_FORMAT)?
            .map(|v| String::from_utf8_lossy(&v).into_owned());
        match format.as_deref() {
            Some(FORMAT_VERSION) => {
                let stored = tree
                    .get(META_SIGNATURE)?
                    .map(|v| String::from_utf8_lossy(&v).into_owned())
                    .unwrap_or_default();
                if stored != signature_settings {
                    return Err(IndexError::ParameterMismatch {
                        path,
                        stored,
                        requested: signature_settings,
                    });
                }
            }
            Some(found) => {
                return Err(IndexError::IncompatibleFormat {
                    path,
                    found: found.to_string(),
                    expected: FORMAT_VERSION.to_string(),
                });
            }
            None => {
                let mut batch = sled::Batch::default();
                batch.insert(META_FORMAT, FORMAT_VERSION.as_bytes());
                batch.insert(META_SIGNATURE, signature_settings.as_bytes());
                batch.insert(META_LOG_LENGTH, &0u64.to_le_bytes());
                tree.apply_batch(batch)?;
            }
        }
        let committed = match tree.get(META_LOG_LENGTH)? {
            Some(v) => Some(u64::from_le_bytes(v.as_ref().try_into().map_err(|_| {
                IndexError::CorruptRecord {
                    key: "log_length".into(),
                    reason: "not a u64".into(),
                }
            })?)),
            None => Some(0),
        };
        if let Some(bytes) = committed.filter(|&c| c > 0)
            && !log_path.exists()
        {
            return Err(IndexError::MissingLog { path, bytes });
        }
        let log = DocumentLog::open(log_path, committed)?;
        if committed.is_some_and(|c| c > log.end()) {
            // The log lost its tail (see `DocumentLog::open`): frames appended from here on
            // must not count as committed before a commit says so.
            tree.insert(META_LOG_LENGTH, &log.end().to_le_bytes())?;
        }
        let mut lookup = LookupTables::open(
            &lookup_dir(log_path),
            &tree,
            &lookup_layout(&config),
            log.id_bound(),
        )?;
        let mut documents = 0;
        let mut block_counts = BlockCounts::default();
        let covered = lookup.covered();
        log.for_each_live(0, |document| {
            count(&mut documents, &mut block_counts, &document);
            if document.id >= covered {
                index_keys(&mut lookup, &config, &document);
                if lookup.wants_compaction() {
                    // Replayed documents are committed: they may be covered.
                    lookup.compact(document.id + 1)?;
                }
            }
            Ok(())
        })?;
        let state = IndexState {
            lookup,
            documents,
            block_counts,
            log,
            staged_documents: 0,
        };
        Ok(SledDedupIndex {
            db,
            tree,
            config,
            path,
            state: Mutex::new(state),
            group_commit: 1,
        })
    }

    pub fn config(&self) -> &IndexConfig {
        &self.config
    }

    /// Sets how many lookup entries stay in RAM before they are written as runs.
    #[cfg(test)]
    fn set_lookup_recent_limit(&self, limit: usize) {
        self.lock().lookup.set_recent_limit(limit);
    }

    /// Where the document log lives.
    pub fn log_path(&self) -> PathBuf {
        self.lock().log.path().to_path_buf()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, IndexState> {
        // A panic while holding the lock leaves the state consistent with the store at the
        // last commit, so a poisoned lock is safe to reuse.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ends one document (its log frames are already appended); commits the group when it is
    /// full.
    fn stage(&self, state: &mut IndexState) -> Result<(), IndexError> {
        state.staged_documents += 1;
        if state.staged_documents >= self.group_commit {
            self.commit(state)?;
        }
        Ok(())
    }

    /// Writes the log's new frames, then records its new length in sled: that write is the
    /// commit point.
    fn commit(&self, state: &mut IndexState) -> Result<(), IndexError> {
        if state.staged_documents == 0 {
            return Ok(());
        }
        state.log.write()?;
        self.tree
            .insert(META_LOG_LENGTH, &state.log.end().to_le_bytes())?;
        state.staged_documents = 0;
        state.lookup.poll_compaction()?;
        if state.lookup.wants_compaction() {
            // Everything indexed is committed now.
            state.lookup.compact(state.log.id_bound())?;
        }
        Ok(())
    }

    /// Runs `body` on this index's storage, under the lock.
    fn with_storage<T>(
        &self,
        body: impl FnOnce(&mut LockedStorage<'_>) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        let mut guard = self.lock();
        body(&mut LockedStorage {
            index: self,
            state: &mut guard,
        })
    }

    /// One decision under the lock: the algorithm over this index's storage.
    fn check(&self, doc: &DocumentFingerprint, insert: bool) -> Result<DedupDecision, IndexError> {
        let algorithm = DecisionAlgorithm {
            config: &self.config,
        };
        self.with_storage(|storage| algorithm.check(storage, doc, insert))
    }
}

/// The embedded storage as the decision algorithm sees it, while the index's lock is held.
struct LockedStorage<'a> {
    index: &'a SledDedupIndex,
    state: &'a mut IndexState,
}

impl LockedStorage<'_> {
    /// The live members of `key` in `table`, in id order, into `out`.
    fn members_into(
        &self,
        table: Table,
        key: u64,
        out: &mut Vec<DocumentId>,
    ) -> Result<(), IndexError> {
        let log = &self.state.log;
        self.state
            .lookup
            .members_into(table, key, |id| log.is_stored(id), out)
    }

    /// The live members of `key` in `table`, in id order.
    fn members(&self, table: Table, key: u64) -> Result<Vec<DocumentId>, IndexError> {
        let mut out = Vec::new();
        self.members_into(table, key, &mut out)?;
        Ok(out)
    }
}

impl IndexStorage for LockedStorage<'_> {
    fn document(&self, id: DocumentId) -> Result<Option<StoredDocument>, IndexError> {
        self.state.log.read(id)
    }

    fn bucket_members(&self, band_keys: &[u64]) -> Result<Vec<Vec<DocumentId>>, IndexError> {
        for (band, &key) in band_keys.iter().enumerate() {
            self.state
                .lookup
                .prefetch(Table::Buckets, bucket_key(band, key));
        }
        let mut members = Vec::with_capacity(band_keys.len());
        for (band, &key) in band_keys.iter().enumerate() {
            let mut bucket = Vec::new();
            self.members_into(Table::Buckets, bucket_key(band, key), &mut bucket)?;
            members.push(bucket);
        }
        Ok(members)
    }

    fn posting_members(&self, sample_value: u64) -> Result<Vec<DocumentId>, IndexError> {
        self.members(Table::Postings, sample_value)
    }

    fn digest_matches(
        &self,
        payload_key: u64,
        token_key: Option<u64>,
    ) -> Result<(Option<DocumentId>, Option<DocumentId>), IndexError> {
        // Both keys' filter blocks are loaded at once (see `bucket_members`).
        let lookup = &self.state.lookup;
        lookup.prefetch(Table::Payloads, payload_key);
        if let Some(key) = token_key {
            lookup.prefetch(Table::Tokens, key);
        }
        crate::storage::digest_matches_one_by_one(self, payload_key, token_key)
    }

    fn payload_match(&self, key: u64) -> Result<Option<DocumentId>, IndexError> {
        Ok(self.members(Table::Payloads, key)?.first().copied())
    }

    fn token_match(&self, key: u64) -> Result<Option<DocumentId>, IndexError> {
        Ok(self.members(Table::Tokens, key)?.first().copied())
    }

    fn next_id(&self) -> Result<DocumentId, IndexError> {
        Ok(self.state.log.id_bound())
    }

    fn append(&mut self, record: StoredDocument) -> Result<(), IndexError> {
        self.state.log.append(&record)?;
        let state = &mut *self.state;
        count(&mut state.documents, &mut state.block_counts, &record);
        index_keys(&mut state.lookup, &self.index.config, &record);
        self.index.stage(self.state)
    }

    fn block_page_counts(&self, host: &str, fingerprints: &[u64]) -> Result<Vec<u32>, IndexError> {
        Ok(fingerprints
            .iter()
            .map(|&fingerprint| self.state.block_counts.count(host, fingerprint))
            .collect())
    }

    fn host_page_count(&self, host: &str) -> Result<u32, IndexError> {
        Ok(self.state.block_counts.host_pages(host))
    }
}

impl Drop for SledDedupIndex {
    fn drop(&mut self) {
        // A clean shutdown keeps everything staged; errors here have nowhere to go (callers
        // that need to know call `flush`).
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self.commit(&mut state);
    }
}

impl DedupIndex for SledDedupIndex {
    fn check_and_insert(
        &self,
        document: &DocumentFingerprint,
    ) -> Result<DedupDecision, IndexError> {
        self.check(document, true)
    }

    fn lookup(&self, document: &DocumentFingerprint) -> Result<DedupDecision, IndexError> {
        self.check(document, false)
    }

    fn remove(&self, id: DocumentId) -> Result<bool, IndexError> {
        let mut guard = self.lock();
        let state = &mut *guard;
        let Some(document) = state.log.read(id)? else {
            return Ok(false);
        };
        state.log.remove(id)?;
        // Its lookup entries stay: lookups skip documents the log does not hold.
        if document.link.is_none() {
            state.documents = state.documents.saturating_sub(1);
        }
        self.stage(state)?;
        Ok(true)
    }

    fn document(&self, id: DocumentId) -> Result<Option<StoredDocument>, IndexError> {
        self.lock().log.read(id)
    }

    fn block_page_counts(&self, host: &str, fingerprints: &[u64]) -> Result<Vec<u32>, IndexError> {
        self.with_storage(|storage| storage.block_page_counts(host, fingerprints))
    }

    fn host_document_count(&self, host: &str) -> Result<u32, IndexError> {
        self.with_storage(|storage| storage.host_page_count(host))
    }

    fn stats(&self) -> Result<IndexStats, IndexError> {
        let state = self.lock();
        let lookup = state.lookup.stats();
        Ok(IndexStats {
            documents: state.documents,
            id_bound: state.log.id_bound(),
            band_buckets: lookup.bucket_entries,
            bytes_on_disk: self.db.size_on_disk()? + state.log.end() + lookup.bytes_on_disk,
        })
    }

    fn flush(&self) -> Result<(), IndexError> {
        {
            let mut state = self.lock();
            self.commit(&mut state)?;
            // Both on disk when this returns: the log first, then sled (whose own periodic
            // flush may have persisted the commit point earlier: `DocumentLog::open` copes).
            state.log.sync()?;
        }
        self.db.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use dedupcrawl_sketch::{MinHasher, PayloadDigest, TokenDigest, mix64, shingle_set};

    use super::*;

    /// Document `i` of a corpus with near duplicates (an earlier text with a few tokens
    /// changed), exact copies (same payload) and copies with the same text (same tokens).
    fn document(hasher: &MinHasher, i: u64) -> DocumentFingerprint {
        let base = match i % 10 {
            3 | 7 if i > 20 => mix64(i) % (i - 10),
            _ => i,
        };
        let mut tokens: Vec<u64> = (0..150 + mix64(base) % 300)
            .map(|t| mix64(base ^ t << 20))
            .collect();
        if base != i {
            for change in 0..1 + i % 6 {
                let at = (mix64(i ^ change) % tokens.len() as u64) as usize;
                tokens[at] = mix64(i + change);
            }
        }
        let payload = if i % 10 == 5 && i > 20 { i - 1 } else { i };
        let text = if i % 10 == 9 && i > 20 { i - 2 } else { i };
        let shingles = shingle_set(&tokens, 5);
        DocumentFingerprint {
            tokens: Some(TokenDigest::of(&[text])),
            signature: hasher.signature(&shingles),
            ..DocumentFingerprint::new(
                format!("https://h{}.example/{i}", i % 3),
                format!("h{}.example", i % 3),
                PayloadDigest::of(&payload.to_le_bytes()),
            )
        }
        .with_shingles(&shingles)
    }

    /// The runs make the same decisions as lookups held in RAM only (the hash maps of before),
    /// through many compactions, a reopen and removals.
    #[test]
    fn runs_decide_exactly_like_lookups_held_in_ram() {
        let hasher = MinHasher::new(128);
        let (runs_dir, ram_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let open = |dir: &Path, limit: usize| {
            let index = SledDedupIndex::open(dir, IndexConfig::default()).unwrap();
            index.set_lookup_recent_limit(limit);
            index
        };
        let ram = open(ram_dir.path(), usize::MAX);
        let mut runs = open(runs_dir.path(), 200);
        let mut kinds = [0usize; 4];
        let mut new_ids = Vec::new();
        for i in 0..4_000u64 {
            if i == 2_500 {
                runs.flush().unwrap();
                drop(runs);
                runs = open(runs_dir.path(), 200);
            }
            let doc = document(&hasher, i);
            let (a, b) = (
                runs.check_and_insert(&doc).unwrap(),
                ram.check_and_insert(&doc).unwrap(),
            );
            assert_eq!(a, b, "document {i}");
            if let DedupDecision::New { id: Some(id), .. } = a {
                new_ids.push(id);
            }
            kinds[match a {
                DedupDecision::New { .. } => 0,
                DedupDecision::ExactDuplicate { .. } => 1,
                DedupDecision::NearDuplicate { .. } => 2,
                DedupDecision::Contained { .. } => 3,
            }] += 1;
            if i % 500 == 499 {
                let id = new_ids[new_ids.len() - 50];
                assert!(runs.remove(id).unwrap());
                assert!(ram.remove(id).unwrap());
            }
        }
        assert!(
            kinds[1] > 300 && kinds[2] > 300 && kinds[0] > 2_500,
            "{kinds:?}"
        );
        assert_eq!(
            runs.stats().unwrap().documents,
            ram.stats().unwrap().documents
        );
        let stats = runs.lock().lookup.stats();
        assert!(stats.runs >= 3, "the runs were written: {stats:?}");
    }
}
