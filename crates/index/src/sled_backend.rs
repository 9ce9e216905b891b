//! The embedded backend: a document log for the records, a sled tree for the rest.
//!
//! * The [`DocumentLog`] (`documents.log` next to the sled files, or the path the crawl gives)
//!   holds every document's record: signature, MOD_m sample, small shingle set, name, digests,
//!   and for a cluster member the decision it got.
//! * The sled tree holds `M` + name → meta: format version, signature settings, and
//!   `Mlog_length`, the log's committed length, written in one batch per group of documents.
//!   (Indexes of formats 2 and 3 also hold `H` + host hash + block fingerprint → count, the
//!   block counts of their older documents: read, never written.)
//! * In memory, rebuilt from the log when the index opens: the LSH band buckets, the
//!   containment postings, the exact-digest maps (64 bits of the payload SHA-1 and of the
//!   token digest → id; a hit is verified against the full digest in the record) and the
//!   per-host block counts ([`BlockCounts`]). That is about 8 bytes per band and per posting
//!   and 2 × 16 bytes of digests per document plus hash-table slack (`bench-index`: ~500 MB
//!   of RSS for 1M documents) and ~1.3 bytes per distinct block; it keeps the disk format
//!   independent of the threshold and makes every lookup a hash probe instead of a B-tree read.
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

use dedupcrawl_sketch::ModSample;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::block_counts::BlockCounts;
use crate::decision::{DecisionAlgorithm, payload_digest_key, posted_samples, token_digest_key};
use crate::document_log::DocumentLog;
use crate::record::{DocumentId, StoredDocument};
use crate::storage::{
    FORMAT_VERSION, IndexStorage, MAX_BUCKET_MEMBERS, MAX_POSTINGS_PER_SAMPLE, signature_settings,
};
use crate::{DedupDecision, DedupIndex, DocumentFingerprint, IndexConfig, IndexError, IndexStats};

const META_FORMAT: &[u8] = b"Mformat";
const META_SIGNATURE: &[u8] = b"Msignature";
const META_LOG_LENGTH: &[u8] = b"Mlog_length";
/// The log's file name in an index directory of its own.
pub const DOCUMENT_LOG_FILE: &str = "documents.log";

/// In-memory LSH buckets: per band, bucket key (32 bits of the band hash) → first member;
/// further members of the same bucket in `overflow`. 32-bit keys halve the memory; a chance
/// collision only adds a candidate, and every candidate is verified.
#[derive(Default)]
struct BandTables {
    first: Vec<FxHashMap<u32, DocumentId>>,
    overflow: FxHashMap<u64, Vec<DocumentId>>,
    /// Containment postings: sampled shingle → documents.
    postings: FxHashMap<u64, Vec<DocumentId>>,
    documents: u64,
}

impl BandTables {
    fn new(bands: usize) -> Self {
        BandTables {
            first: (0..bands).map(|_| FxHashMap::default()).collect(),
            ..Default::default()
        }
    }

    fn overflow_key(band: usize, key: u32) -> u64 {
        (band as u64) << 32 | key as u64
    }

    fn insert(&mut self, keys: &[u64], id: DocumentId) {
        for (band, &key) in keys.iter().enumerate() {
            let key = key as u32;
            match self.first[band].entry(key) {
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(id);
                }
                std::collections::hash_map::Entry::Occupied(_) => {
                    let members = self
                        .overflow
                        .entry(Self::overflow_key(band, key))
                        .or_default();
                    if members.len() < MAX_BUCKET_MEMBERS {
                        members.push(id);
                    }
                }
            }
        }
    }

    fn remove(&mut self, keys: &[u64], id: DocumentId) {
        for (band, &key) in keys.iter().enumerate() {
            let key = key as u32;
            let overflow_key = Self::overflow_key(band, key);
            if self.first[band].get(&key) == Some(&id) {
                match self.overflow.get_mut(&overflow_key).and_then(|m| m.pop()) {
                    Some(next) => {
                        self.first[band].insert(key, next);
                    }
                    None => {
                        self.first[band].remove(&key);
                    }
                }
            } else if let Some(members) = self.overflow.get_mut(&overflow_key) {
                members.retain(|m| *m != id);
            }
            if self.overflow.get(&overflow_key).is_some_and(Vec::is_empty) {
                self.overflow.remove(&overflow_key);
            }
        }
    }

    fn post(&mut self, sample: &ModSample, id: DocumentId) {
        for value in posted_samples(sample) {
            let members = self.postings.entry(value).or_default();
            if members.len() < MAX_POSTINGS_PER_SAMPLE {
                members.push(id);
            }
        }
    }

    fn unpost(&mut self, sample: &ModSample, id: DocumentId) {
        for value in posted_samples(sample) {
            if let Some(members) = self.postings.get_mut(&value) {
                members.retain(|m| *m != id);
                if members.is_empty() {
                    self.postings.remove(&value);
                }
            }
        }
    }

    fn candidates(&self, keys: &[u64], limit: usize) -> Vec<DocumentId> {
        let mut seen = FxHashSet::default();
        let mut out = Vec::new();
        for (band, &key) in keys.iter().enumerate() {
            let key = key as u32;
            if let Some(&first) = self.first[band].get(&key) {
                let rest = self.overflow.get(&Self::overflow_key(band, key));
                for id in std::iter::once(first).chain(rest.into_iter().flatten().copied()) {
                    if seen.insert(id) {
                        out.push(id);
                        if out.len() >= limit {
                            return out;
                        }
                    }
                }
            }
        }
        out
    }
}

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
    tables: BandTables,
    /// 64 bits of the payload SHA-1 → id (originals and members).
    payloads: FxHashMap<u64, DocumentId>,
    /// 64 bits of the token digest → id.
    token_digests: FxHashMap<u64, DocumentId>,
    block_counts: BlockCounts,
    /// Ids are dense: the next one is [`DocumentLog::id_bound`].
    log: DocumentLog,
    /// Documents appended since the last commit.
    staged_documents: usize,
}

impl IndexState {
    /// Adds a stored document to the in-memory structures.
    fn learn(&mut self, config: &IndexConfig, document: &StoredDocument) {
        if let Some(signature) = &document.signature {
            self.tables
                .insert(&config.lsh.band_keys(signature), document.id);
        }
        self.payloads
            .entry(payload_digest_key(&document.payload))
            .or_insert(document.id);
        if let Some(tokens) = &document.tokens {
            self.token_digests
                .entry(token_digest_key(tokens))
                .or_insert(document.id);
        }
        // Members are not posted for containment and do not count pages for the template.
        if document.link.is_none() {
            if let Some(sample) = &document.mod_sample {
                self.tables.post(sample, document.id);
            }
            self.tables.documents += 1;
            self.block_counts.add_page(&document.host, &document.blocks);
        }
    }

    /// Takes a stored document out of the in-memory structures.
    fn forget(&mut self, config: &IndexConfig, document: &StoredDocument) {
        if let Some(signature) = &document.signature {
            self.tables
                .remove(&config.lsh.band_keys(signature), document.id);
        }
        let payload = payload_digest_key(&document.payload);
        if self.payloads.get(&payload) == Some(&document.id) {
            self.payloads.remove(&payload);
        }
        if let Some(tokens) = &document.tokens {
            let key = token_digest_key(tokens);
            if self.token_digests.get(&key) == Some(&document.id) {
                self.token_digests.remove(&key);
            }
        }
        if document.link.is_none() {
            if let Some(sample) = &document.mod_sample {
                self.tables.unpost(sample, document.id);
            }
            self.tables.documents = self.tables.documents.saturating_sub(1);
        }
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
        let (log, documents) = DocumentLog::open(log_path, committed)?;
        if committed.is_some_and(|c| c > log.end()) {
            // The log lost its tail (see `DocumentLog::open`): frames appended from here on
            // must not count as committed before a commit says so.
            tree.insert(META_LOG_LENGTH, &log.end().to_le_bytes())?;
        }
        let mut state = IndexState {
            tables: BandTables::new(config.lsh.bands),
            payloads: FxHashMap::default(),
            token_digests: FxHashMap::default(),
            block_counts: BlockCounts::default(),
            log,
            staged_documents: 0,
        };
        for document in &documents {
            state.learn(&config, document);
        }
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

impl IndexStorage for LockedStorage<'_> {
    fn document(&self, id: DocumentId) -> Result<Option<StoredDocument>, IndexError> {
        self.state.log.read(id)
    }

    fn lsh_candidates(
        &self,
        band_keys: &[u64],
        limit: usize,
    ) -> Result<Vec<DocumentId>, IndexError> {
        Ok(self.state.tables.candidates(band_keys, limit))
    }

    fn posting_members(&self, sample_value: u64) -> Result<Vec<DocumentId>, IndexError> {
        Ok(self
            .state
            .tables
            .postings
            .get(&sample_value)
            .cloned()
            .unwrap_or_default())
    }

    fn payload_match(&self, key: u64) -> Result<Option<DocumentId>, IndexError> {
        Ok(self.state.payloads.get(&key).copied())
    }

    fn token_match(&self, key: u64) -> Result<Option<DocumentId>, IndexError> {
        Ok(self.state.token_digests.get(&key).copied())
    }

    fn next_id(&self) -> Result<DocumentId, IndexError> {
        Ok(self.state.log.id_bound())
    }

    fn append(&mut self, record: StoredDocument) -> Result<(), IndexError> {
        self.state.log.append(&record)?;
        self.state.learn(&self.index.config, &record);
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
        state.forget(&self.config, &document);
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
        let tables = &state.tables;
        Ok(IndexStats {
            documents: tables.documents,
            id_bound: state.log.id_bound(),
            band_buckets: tables.first.iter().map(|t| t.len() as u64).sum::<u64>()
                + tables
                    .overflow
                    .values()
                    .map(|v| v.len() as u64)
                    .sum::<u64>(),
            bytes_on_disk: self.db.size_on_disk()? + state.log.end(),
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
