//! The embedded backend: one sled tree, one atomic batch per inserted document.
//!
//! Keys (first byte is the record kind):
//! * `M` + name → meta (format version, signature settings, next id)
//! * `D` + id (u32 BE) → [`StoredDocument`] record (signature included)
//! * `P` + SHA-1 (20 B) → id;  `T` + token digest (16 B) → id
//! * `H` + host hash (u64) + block fingerprint (u64) → count (u32)   template learning
//!
//! LSH band buckets and containment postings are *not* stored: they are rebuilt in memory from
//! the signatures and MOD_m samples when the index opens (≈ 8 bytes per band and per posting
//! per document: 1M documents × (16 bands + 16 postings) ≈ 300 MB), which keeps the disk format
//! independent of the threshold and makes every lookup a hash probe instead of a B-tree read.
//! Containment postings are each document's [`POSTED_SAMPLES`] most divisible sampled shingles:
//! those are the ones every document containing it samples too (a value 0 mod 2^j is in the
//! sample of every document whose modulus divides 2^j). Only the signature settings (k, shingle size, MinHash flavour) are
//! fixed for the life of an index.

use std::path::Path;
use std::sync::Mutex;

use dedupcrawl_sketch::{MinHashSignature, ModSample};
use rustc_hash::{FxHashMap, FxHashSet};
use xxhash_rust::xxh3::xxh3_64;

use crate::record::{DocumentId, SAMPLE_BITS, SIGNATURE_BITS, StoredDocument};
use crate::{
    DedupDecision, DedupIndex, DocumentFingerprint, DocumentRef, ExactBasis, IndexConfig,
    IndexError, IndexStats,
};

const FORMAT_VERSION: &str = "dedupcrawl-index/2";
const META_FORMAT: &[u8] = b"Mformat";
const META_SIGNATURE: &[u8] = b"Msignature";
const META_NEXT_ID: &[u8] = b"Mnext_id";
/// Candidates verified per document at most (a bucket this crowded is one big cluster).
const MAX_CANDIDATES: usize = 256;
/// Members kept per LSH bucket.
const MAX_BUCKET_MEMBERS: usize = 1024;
/// Sampled shingles posted (and probed) per document for containment.
pub const POSTED_SAMPLES: usize = 16;
/// Postings kept per sampled shingle: one that common is template, not content.
const MAX_POSTINGS_PER_SAMPLE: usize = 256;
/// Block counts saturate here (a template block is on a share of the host's pages, and the
/// host page count saturates at the same value).
const BLOCK_COUNT_CAP: u32 = 1_000_000;
/// The block-count key with this fingerprint counts the host's new documents.
const HOST_DOCUMENTS: u64 = 0;

fn doc_key(id: DocumentId) -> [u8; 5] {
    let mut key = [b'D'; 5];
    key[1..].copy_from_slice(&id.to_be_bytes());
    key
}

fn payload_key(doc: &DocumentFingerprint) -> Vec<u8> {
    let mut key = Vec::with_capacity(21);
    key.push(b'P');
    key.extend_from_slice(&doc.payload.0);
    key
}

fn tokens_key(digest: u128) -> Vec<u8> {
    let mut key = Vec::with_capacity(17);
    key.push(b'T');
    key.extend_from_slice(&digest.to_be_bytes());
    key
}

fn block_key(host: &str, fingerprint: u64) -> [u8; 17] {
    let mut key = [b'H'; 17];
    key[1..9].copy_from_slice(&xxh3_64(host.as_bytes()).to_be_bytes());
    key[9..].copy_from_slice(&fingerprint.to_be_bytes());
    key
}

fn read_count(value: Option<Vec<u8>>) -> u32 {
    value
        .and_then(|v| Some(u32::from_le_bytes(v.as_slice().try_into().ok()?)))
        .unwrap_or(0)
}

fn read_id(bytes: &[u8]) -> Option<DocumentId> {
    Some(DocumentId::from_be_bytes(bytes.try_into().ok()?))
}

/// In-memory LSH buckets: per band, bucket key (32 bits of the band hash) → first member;
/// further members of the same bucket in `overflow`. 32-bit keys halve the memory; a chance
/// collision only adds a candidate, and every candidate is verified.
#[derive(Default)]
struct BandTables {
    first: Vec<FxHashMap<u32, DocumentId>>,
    overflow: FxHashMap<u64, Vec<DocumentId>>,
    /// Containment postings: sampled shingle → documents.
    postings: FxHashMap<u64, Vec<DocumentId>>,
    next_id: DocumentId,
    documents: u64,
}

/// The sampled shingles of a MOD_m sample that are posted and probed: the most divisible ones.
fn posted_samples(sample: &ModSample) -> Vec<u64> {
    let mut values = sample.values.clone();
    values.sort_by_key(|v| (std::cmp::Reverse(v.trailing_zeros()), *v));
    values.truncate(POSTED_SAMPLES);
    values
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

    fn candidates(&self, keys: &[u64]) -> Vec<DocumentId> {
        let mut seen = FxHashSet::default();
        let mut out = Vec::new();
        for (band, &key) in keys.iter().enumerate() {
            let key = key as u32;
            if let Some(&first) = self.first[band].get(&key) {
                let rest = self.overflow.get(&Self::overflow_key(band, key));
                for id in std::iter::once(first).chain(rest.into_iter().flatten().copied()) {
                    if seen.insert(id) {
                        out.push(id);
                        if out.len() >= MAX_CANDIDATES {
                            return out;
                        }
                    }
                }
            }
        }
        out
    }
}

/// Opens a sled database, waiting up to 5 s for its file lock: a process that was just killed
/// (or a handle just dropped, whose flusher thread is still ending) holds it for a moment.
pub fn open_sled_waiting_for_lock(path: &Path) -> Result<sled::Db, IndexError> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match sled::Config::new()
            .path(path)
            .cache_capacity(64 * 1024 * 1024)
            .open()
        {
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
    tables: Mutex<BandTables>,
    pending: Mutex<PendingWrites>,
    /// Documents per group commit: [`GROUP_COMMIT_DOCUMENTS`] for an index in its own
    /// directory, 1 inside a shared database (see [`SledDedupIndex::open_in`]).
    group_commit: usize,
}

/// Documents whose writes are grouped into one sled batch. One batch per document costs
/// sled a log reservation and its flusher a wake-up each time; grouping keeps the contract
/// ("durable after a reported insert and a flush") and every document stays atomic (a crash
/// loses whole documents of the group not yet flushed, never part of one).
const GROUP_COMMIT_DOCUMENTS: usize = 256;

/// Writes staged for the next group commit, visible to every read meanwhile.
#[derive(Default)]
struct PendingWrites {
    values: FxHashMap<Vec<u8>, Option<Vec<u8>>>,
    batch: sled::Batch,
    documents: usize,
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
    /// Opens (or creates) an index in its own directory.
    pub fn open(path: &Path, config: IndexConfig) -> Result<Self, IndexError> {
        let db = open_sled_waiting_for_lock(path)?;
        let mut index = Self::open_in(db, &path.display().to_string(), config)?;
        index.group_commit = GROUP_COMMIT_DOCUMENTS;
        Ok(index)
    }

    /// Opens the index inside an existing sled database (the crawl's `state/`), as the tree
    /// `dedup_index`. Each document's writes are applied at once (no group commit): the owner
    /// of a shared database relies on sled's own periodic flush to make every insert durable
    /// (the crawler's resume reconciles the rest from its WARC files).
    pub fn open_in(db: sled::Db, path: &str, config: IndexConfig) -> Result<Self, IndexError> {
        let tree = db.open_tree("dedup_index")?;
        let signature_settings = format!(
            "k={} w={} minhash=oph-densified-v1",
            config.num_hashes, config.shingle_size
        );
        match tree.get(META_FORMAT)? {
            Some(found) if found.as_ref() != FORMAT_VERSION.as_bytes() => {
                return Err(IndexError::IncompatibleFormat {
                    path: path.to_string(),
                    found: String::from_utf8_lossy(&found).into_owned(),
                    expected: FORMAT_VERSION.to_string(),
                });
            }
            Some(_) => {
                let stored = tree
                    .get(META_SIGNATURE)?
                    .map(|v| String::from_utf8_lossy(&v).into_owned())
                    .unwrap_or_default();
                if stored != signature_settings {
                    return Err(IndexError::ParameterMismatch {
                        path: path.to_string(),
                        stored,
                        requested: signature_settings,
                    });
                }
            }
            None => {
                let mut batch = sled::Batch::default();
                batch.insert(META_FORMAT, FORMAT_VERSION.as_bytes());
                batch.insert(META_SIGNATURE, signature_settings.as_bytes());
                tree.apply_batch(batch)?;
            }
        }
        let mut tables = BandTables::new(config.lsh.bands);
        // The next id follows the highest stored document (or a removed one recorded in
        // `Mnext_id`): derived, so inserts need not rewrite a counter key every time.
        tables.next_id = match tree.get(META_NEXT_ID)? {
            Some(v) => read_id(&v).ok_or_else(|| IndexError::CorruptRecord {
                key: "next_id".into(),
                reason: "not a u32".into(),
            })?,
            None => 0,
        };
        for entry in tree.scan_prefix(b"D") {
            let (key, value) = entry?;
            let id = read_id(&key[1..]).ok_or_else(|| IndexError::CorruptRecord {
                key: format!("{key:?}"),
                reason: "bad document key".into(),
            })?;
            let document = StoredDocument::decode(id, &value)?;
            if let Some(signature) = &document.signature {
                tables.insert(&config.lsh.band_keys(signature), id);
            }
            if let Some(sample) = &document.mod_sample {
                tables.post(sample, id);
            }
            tables.documents += 1;
            tables.next_id = tables.next_id.max(id.saturating_add(1));
        }
        Ok(SledDedupIndex {
            db,
            tree,
            config,
            path: path.to_string(),
            tables: Mutex::new(tables),
            pending: Mutex::new(PendingWrites::default()),
            group_commit: 1,
        })
    }

    pub fn config(&self) -> &IndexConfig {
        &self.config
    }

    /// Every stored document, in id order (for reports and exports).
    pub fn documents(&self) -> impl Iterator<Item = Result<StoredDocument, IndexError>> + '_ {
        let committed = {
            let mut pending = self.pending();
            self.commit(&mut pending)
        };
        let failure = committed.err().map(Err).into_iter();
        failure.chain(self.tree.scan_prefix(b"D").map(|entry| {
            let (key, value) = entry?;
            let id = read_id(&key[1..]).ok_or_else(|| IndexError::CorruptRecord {
                key: format!("{key:?}"),
                reason: "bad document key".into(),
            })?;
            StoredDocument::decode(id, &value)
        }))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BandTables> {
        // A panic while holding the lock leaves the tables consistent with the store at the
        // last applied batch, so a poisoned lock is safe to reuse.
        self.tables.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn pending(&self) -> std::sync::MutexGuard<'_, PendingWrites> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A key's value: staged writes first, then the tree.
    fn read(&self, key: &[u8]) -> Result<Option<Vec<u8>>, IndexError> {
        if let Some(value) = self.pending().values.get(key) {
            return Ok(value.clone());
        }
        Ok(self.tree.get(key)?.map(|v| v.to_vec()))
    }

    /// Stages one document's writes (all at once, so a commit never splits a document).
    fn stage(&self, writes: Vec<(Vec<u8>, Option<Vec<u8>>)>) -> Result<(), IndexError> {
        let mut pending = self.pending();
        for (key, value) in writes {
            match &value {
                Some(bytes) => pending.batch.insert(key.clone(), bytes.clone()),
                None => pending.batch.remove(key.clone()),
            }
            pending.values.insert(key, value);
        }
        pending.documents += 1;
        if pending.documents >= self.group_commit {
            self.commit(&mut pending)?;
        }
        Ok(())
    }

    fn commit(&self, pending: &mut PendingWrites) -> Result<(), IndexError> {
        if pending.values.is_empty() {
            return Ok(());
        }
        self.tree.apply_batch(std::mem::take(&mut pending.batch))?;
        pending.values.clear();
        pending.documents = 0;
        Ok(())
    }

    fn reference(&self, id: DocumentId) -> Result<DocumentRef, IndexError> {
        let name = self
            .document(id)?
            .map(|d| d.name)
            .unwrap_or_else(|| format!("#{id}"));
        Ok(DocumentRef { id, name })
    }

    fn find_exact(&self, doc: &DocumentFingerprint) -> Result<Option<DedupDecision>, IndexError> {
        if let Some(id) = self.read(&payload_key(doc))?.as_deref().and_then(read_id) {
            return Ok(Some(DedupDecision::ExactDuplicate {
                of: self.reference(id)?,
                basis: ExactBasis::Payload,
            }));
        }
        if let Some(digest) = doc.tokens
            && let Some(id) = self
                .read(&tokens_key(digest.0))?
                .as_deref()
                .and_then(read_id)
        {
            return Ok(Some(DedupDecision::ExactDuplicate {
                of: self.reference(id)?,
                basis: ExactBasis::NormalizedText,
            }));
        }
        Ok(None)
    }

    fn find_near(
        &self,
        tables: &BandTables,
        doc: &DocumentFingerprint,
        signature: &MinHashSignature,
        band_keys: &[u64],
    ) -> Result<Option<DedupDecision>, IndexError> {
        let mut best: Option<(DocumentId, f64)> = None;
        for candidate in tables.candidates(band_keys) {
            let Some(stored) = self.document(candidate)? else {
                continue;
            };
            let Some(candidate_signature) = stored.signature else {
                continue;
            };
            let similarity = match (&doc.small_shingles, &stored.small_shingles) {
                (Some(mine), Some(theirs)) => crate::small_set_resemblance(mine, theirs),
                _ => signature.similarity(&candidate_signature),
            };
            if similarity >= self.config.threshold && best.is_none_or(|(_, s)| similarity > s) {
                best = Some((candidate, similarity));
            }
        }
        match best {
            Some((id, similarity)) => Ok(Some(DedupDecision::NearDuplicate {
                of: self.reference(id)?,
                similarity,
            })),
            None => Ok(None),
        }
    }

    /// Containment both ways against documents sharing posted samples. Returns
    /// (this inside another, another inside this).
    #[allow(clippy::type_complexity)]
    fn find_containment(
        &self,
        tables: &BandTables,
        sample: &ModSample,
    ) -> Result<(Option<(DocumentRef, f64)>, Option<(DocumentRef, f64)>), IndexError> {
        if sample.values.len() < self.config.containment_min_samples {
            return Ok((None, None));
        }
        let mut hits: FxHashMap<DocumentId, usize> = FxHashMap::default();
        for value in posted_samples(sample) {
            for &id in tables.postings.get(&value).into_iter().flatten() {
                *hits.entry(id).or_default() += 1;
            }
        }
        let mut ranked: Vec<(DocumentId, usize)> = hits.into_iter().collect();
        ranked.sort_by_key(|&(id, n)| (std::cmp::Reverse(n), id));
        ranked.truncate(16);
        let (mut inside, mut around): (Option<(DocumentId, f64)>, Option<(DocumentId, f64)>) =
            (None, None);
        let min = self.config.containment_min_samples;
        for (id, _) in ranked {
            let Some(other) = self.document(id)?.and_then(|d| d.mod_sample) else {
                continue;
            };
            let modulus = sample.modulus.max(other.modulus);
            let (mine, theirs) = (sample.at_modulus(modulus), other.at_modulus(modulus));
            if mine.values.len() >= min {
                let c = mine.containment_in(&theirs);
                if c >= self.config.containment_threshold && inside.is_none_or(|(_, b)| c > b) {
                    inside = Some((id, c));
                }
            }
            if theirs.values.len() >= min {
                let c = theirs.containment_in(&mine);
                if c >= self.config.containment_threshold && around.is_none_or(|(_, b)| c > b) {
                    around = Some((id, c));
                }
            }
        }
        let resolve = |found: Option<(DocumentId, f64)>| -> Result<_, IndexError> {
            found
                .map(|(id, c)| Ok((self.reference(id)?, c)))
                .transpose()
        };
        Ok((resolve(inside)?, resolve(around)?))
    }

    fn check(&self, doc: &DocumentFingerprint, insert: bool) -> Result<DedupDecision, IndexError> {
        // Stored signatures keep 16 bits a value and samples 32 (see `record`): compare, band
        // and post like them.
        let signature = doc.signature.as_ref().map(|s| s.low_bits(SIGNATURE_BITS));
        let sample = doc.mod_sample.as_ref().map(|s| s.low_bits(SAMPLE_BITS));
        let band_keys = signature
            .as_ref()
            .map(|s| self.config.lsh.band_keys(s))
            .unwrap_or_default();
        let mut tables = self.lock();
        if let Some(decision) = self.find_exact(doc)? {
            return Ok(decision);
        }
        if let Some(signature) = &signature
            && let Some(decision) = self.find_near(&tables, doc, signature, &band_keys)?
        {
            return Ok(decision);
        }
        let (inside, around) = match &sample {
            Some(sample) => self.find_containment(&tables, sample)?,
            None => (None, None),
        };
        // A page that is (almost) exactly another one is near-duplicate, handled above; a
        // page inside a larger one adds nothing new.
        if let Some((within, containment)) = inside {
            return Ok(DedupDecision::Contained {
                within,
                containment,
            });
        }
        if !insert {
            return Ok(DedupDecision::New {
                id: None,
                contains: around,
            });
        }
        let id = tables.next_id;
        let next = id.checked_add(1).ok_or(IndexError::Full)?;
        let record = StoredDocument {
            id,
            name: doc.name.clone(),
            host: doc.host.clone(),
            payload: doc.payload,
            tokens: doc.tokens,
            signature,
            mod_sample: sample.clone(),
            small_shingles: doc.small_shingles.clone(),
        };
        let id_bytes = id.to_be_bytes().to_vec();
        let mut writes = vec![
            (doc_key(id).to_vec(), Some(record.encode())),
            (payload_key(doc), Some(id_bytes.clone())),
        ];
        if let Some(digest) = doc.tokens {
            writes.push((tokens_key(digest.0), Some(id_bytes)));
        }
        let host_counter = std::iter::once(HOST_DOCUMENTS);
        let mut fingerprints: Vec<u64> = doc
            .block_fingerprints
            .iter()
            .copied()
            .chain(host_counter)
            .collect();
        fingerprints.sort_unstable();
        fingerprints.dedup();
        for fingerprint in fingerprints {
            let key = block_key(&doc.host, fingerprint);
            let count = read_count(self.read(&key)?);
            if count < BLOCK_COUNT_CAP {
                writes.push((key.to_vec(), Some((count + 1).to_le_bytes().to_vec())));
            }
        }
        self.stage(writes)?;
        tables.next_id = next;
        tables.documents += 1;
        if !band_keys.is_empty() {
            tables.insert(&band_keys, id);
        }
        if let Some(sample) = &sample {
            tables.post(sample, id);
        }
        Ok(DedupDecision::New {
            id: Some(id),
            contains: around,
        })
    }
}

impl Drop for SledDedupIndex {
    fn drop(&mut self) {
        // A clean shutdown keeps everything staged; errors here have nowhere to go (callers
        // that need to know call `flush`).
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let _ = self.commit(&mut pending);
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
        let mut tables = self.lock();
        let Some(document) = self.document(id)? else {
            return Ok(false);
        };
        let mut writes: Vec<(Vec<u8>, Option<Vec<u8>>)> = vec![(doc_key(id).to_vec(), None)];
        let owned_by = |key: &[u8]| -> Result<bool, IndexError> {
            Ok(self.read(key)?.as_deref().and_then(read_id) == Some(id))
        };
        let payload = {
            let mut key = vec![b'P'];
            key.extend_from_slice(&document.payload.0);
            key
        };
        if owned_by(&payload)? {
            writes.push((payload, None));
        }
        if let Some(digest) = document.tokens {
            let key = tokens_key(digest.0);
            if owned_by(&key)? {
                writes.push((key, None));
            }
        }
        if id.checked_add(1) == Some(tables.next_id) {
            // Ids are derived from the highest stored id on open: remember that this one was
            // used so a reopened index never hands it out again.
            writes.push((
                META_NEXT_ID.to_vec(),
                Some(tables.next_id.to_be_bytes().to_vec()),
            ));
        }
        self.stage(writes)?;
        if let Some(signature) = &document.signature {
            tables.remove(&self.config.lsh.band_keys(signature), id);
        }
        if let Some(sample) = &document.mod_sample {
            tables.unpost(sample, id);
        }
        tables.documents = tables.documents.saturating_sub(1);
        Ok(true)
    }

    fn document(&self, id: DocumentId) -> Result<Option<StoredDocument>, IndexError> {
        self.read(&doc_key(id))?
            .map(|bytes| StoredDocument::decode(id, &bytes))
            .transpose()
    }

    fn block_page_counts(&self, host: &str, fingerprints: &[u64]) -> Result<Vec<u32>, IndexError> {
        fingerprints
            .iter()
            .map(|&fingerprint| Ok(read_count(self.read(&block_key(host, fingerprint))?)))
            .collect()
    }

    fn host_document_count(&self, host: &str) -> Result<u32, IndexError> {
        Ok(self.block_page_counts(host, &[HOST_DOCUMENTS])?[0])
    }

    fn stats(&self) -> Result<IndexStats, IndexError> {
        let tables = self.lock();
        Ok(IndexStats {
            documents: tables.documents,
            band_buckets: tables.first.iter().map(|t| t.len() as u64).sum::<u64>()
                + tables
                    .overflow
                    .values()
                    .map(|v| v.len() as u64)
                    .sum::<u64>(),
            bytes_on_disk: self.db.size_on_disk()?,
        })
    }

    fn flush(&self) -> Result<(), IndexError> {
        {
            let mut pending = self.pending();
            self.commit(&mut pending)?;
        }
        self.db.flush()?;
        Ok(())
    }
}
