//! What a backend of the index stores: the narrow interface the decision algorithm
//! (`decision.rs`) reads and writes. A second backend implements this and gets the same
//! decisions; the engine keeps seeing only [`crate::DedupIndex`].

use crate::record::{DocumentId, StoredDocument};
use crate::{IndexConfig, IndexError};

/// The on-disk format of an index. Every backend stores it and refuses another one (an index
/// of another version compared other texts, or keeps other records: use a new directory).
/// Version 23: a page's compared text has no link tokens, records keep the compared shingle
/// set (decisions are verified on it), the compared text and the content link targets.
pub(crate) const FORMAT_VERSION: &str = "dedupcrawl-index/24";

/// The settings signatures depend on, as stored with an index: reopening with other ones is
/// [`IndexError::ParameterMismatch`].
pub(crate) fn signature_settings(config: &IndexConfig) -> String {
    format!(
        "k={} w={} minhash=oph-densified-v1",
        config.num_hashes, config.shingle_size
    )
}

/// Members a backend keeps per LSH bucket (per band and bucket key): later ones are not
/// candidates. Part of the contract: every backend must cap alike to decide alike.
pub(crate) const MAX_BUCKET_MEMBERS: usize = 1024;
/// Postings a backend keeps per sampled shingle: one that common is template, not content.
pub(crate) const MAX_POSTINGS_PER_SAMPLE: usize = 256;

/// One backend's storage, held exclusively for one decision (the caller makes a whole
/// `DecisionAlgorithm::check` atomic: a mutex, a transaction with a lock). Reads see every earlier [`append`](IndexStorage::append) of the same holder.
///
/// What a backend indexes when a record is appended:
/// * every record (originals and cluster members): its LSH band keys (bucket key = the low 32
///   bits of each band hash, at most [`MAX_BUCKET_MEMBERS`] members per bucket, in insertion
///   order), the first id per 64-bit payload-digest key and per 64-bit token-digest key;
/// * originals only (`link` is `None`): containment postings for the values
///   `block_postings::record_posting_values` gives (the posted values of its MOD_m sample,
///   `posted_samples`: the most divisible ones; and its own blocks' values; at most
///   [`MAX_POSTINGS_PER_SAMPLE`] per value, in insertion order) and its block fingerprints in
///   the per-host block counts.
///
/// Durability is the backend's: [`crate::DedupIndex::flush`] says when appends are on disk.
pub(crate) trait IndexStorage {
    /// The record stored under `id`, `None` if there is none (never was, or removed).
    fn document(&self, id: DocumentId) -> Result<Option<StoredDocument>, IndexError>;
    /// The members of the bucket of each of `band_keys` (band `i` is `band_keys[i]`), each
    /// in insertion order, in the order of the bands.
    fn bucket_members(&self, band_keys: &[u64]) -> Result<Vec<Vec<DocumentId>>, IndexError>;
    /// The distinct members of the buckets of `band_keys`, band by band, each bucket in
    /// insertion order, at most `limit` in all.
    fn lsh_candidates(
        &self,
        band_keys: &[u64],
        limit: usize,
    ) -> Result<Vec<DocumentId>, IndexError> {
        Ok(distinct_members(self.bucket_members(band_keys)?, limit))
    }
    /// The originals posted under one sampled shingle value, in insertion order.
    fn posting_members(&self, sample_value: u64) -> Result<Vec<DocumentId>, IndexError>;
    /// The records of `ids`, in the order asked ([`document`](IndexStorage::document) each).
    /// A backend a round trip away reads them at once.
    fn documents(&self, ids: &[DocumentId]) -> Result<Vec<Option<StoredDocument>>, IndexError> {
        ids.iter().map(|&id| self.document(id)).collect()
    }
    /// The documents posted under the most of `sample_values` (ties: the smaller id), at most
    /// `limit`: the containment candidates. A backend a round trip away ranks them where the
    /// postings are (hundreds of rows a document).
    fn most_posted(
        &self,
        sample_values: &[u64],
        limit: usize,
    ) -> Result<Vec<DocumentId>, IndexError> {
        let mut hits: rustc_hash::FxHashMap<DocumentId, usize> = Default::default();
        for &value in sample_values {
            for id in self.posting_members(value)? {
                *hits.entry(id).or_default() += 1;
            }
        }
        let mut ranked: Vec<(DocumentId, usize)> = hits.into_iter().collect();
        ranked.sort_by_key(|&(id, n)| (std::cmp::Reverse(n), id));
        ranked.truncate(limit);
        Ok(ranked.into_iter().map(|(id, _)| id).collect())
    }
    /// The first document indexed under a 64-bit payload-digest key.
    fn payload_match(&self, key: u64) -> Result<Option<DocumentId>, IndexError>;
    /// The first document indexed under a 64-bit token-digest key.
    fn token_match(&self, key: u64) -> Result<Option<DocumentId>, IndexError>;
    /// [`payload_match`](IndexStorage::payload_match) and
    /// [`token_match`](IndexStorage::token_match) together (one round trip where the backend
    /// has them).
    fn digest_matches(
        &self,
        payload_key: u64,
        token_key: Option<u64>,
    ) -> Result<(Option<DocumentId>, Option<DocumentId>), IndexError> {
        digest_matches_one_by_one(self, payload_key, token_key)
    }
    /// The id the next [`append`](IndexStorage::append) must use, used by no other document
    /// of the index. The embedded index hands out dense ascending ids; a backend shared by
    /// several processes may reserve them in blocks, so ids need not follow the order of
    /// insertion and may leave gaps (readers already allow gaps: removals leave them).
    fn next_id(&self) -> Result<DocumentId, IndexError>;
    /// Stores a record under `record.id` (= [`next_id`](IndexStorage::next_id)) and indexes
    /// it as described above.
    fn append(&mut self, record: StoredDocument) -> Result<(), IndexError>;
    /// On how many originals of `host` each block fingerprint was seen (saturating at
    /// [`crate::block_counts::COUNT_CAP`]), the originals this handle stored whose counts it
    /// still keeps to write later included: a decision reads what the pipeline would.
    fn block_page_counts(&self, host: &str, fingerprints: &[u64]) -> Result<Vec<u32>, IndexError>;
    /// How many originals of `host` are indexed (saturating like block counts), those whose
    /// counts this handle still keeps included.
    fn host_page_count(&self, host: &str) -> Result<u32, IndexError>;
}

/// [`IndexStorage::digest_matches`] as two lookups, one after the other (the default; a
/// backend that prepares both lookups first calls it after that).
pub(crate) fn digest_matches_one_by_one<S: IndexStorage + ?Sized>(
    storage: &S,
    payload_key: u64,
    token_key: Option<u64>,
) -> Result<(Option<DocumentId>, Option<DocumentId>), IndexError> {
    let payload = storage.payload_match(payload_key)?;
    let tokens = match token_key {
        Some(key) => storage.token_match(key)?,
        None => None,
    };
    Ok((payload, tokens))
}

/// The distinct ids of `buckets`, bucket by bucket, each in its order, at most `limit`.
pub(crate) fn distinct_members(buckets: Vec<Vec<DocumentId>>, limit: usize) -> Vec<DocumentId> {
    let mut seen = rustc_hash::FxHashSet::default();
    let mut out = Vec::new();
    for id in buckets.into_iter().flatten() {
        if seen.insert(id) {
            out.push(id);
            if out.len() >= limit {
                break;
            }
        }
    }
    out
}
