//! The persistent dedup index: "have we seen this content before?".
//!
//! [`DedupIndex::check_and_insert`] answers, atomically per document: new, exact duplicate of
//! D (same payload SHA-1, or same normalized token stream), near duplicate of D (MinHash
//! estimate ≥ threshold, every LSH candidate verified), or contained in D (MOD_m containment).
//! A new document is recorded in the same step, so two near-duplicates checked at the same
//! time never both come back new. The index also keeps per-host counts of content blocks, from
//! which the text pipeline learns a host's template ([`DedupIndex::block_page_counts`]).
//!
//! [`SledDedupIndex`] is the embedded backend: the records in an append-only
//! [`document_log`], the meta and the commit point in one sled tree.
//! [`PostgresDedupIndex`] is the backend of several workers sharing one crawl (tables in the
//! top-level `migrations/`; a per-crawl advisory lock makes check-and-insert atomic across
//! processes). Both run the same decision (`decision.rs`). Near duplicates and contained pages
//! are kept as cluster members, so a decision names the most similar earlier page and
//! [`DocumentRef::cluster`] the first page of its cluster.
//!
//! ```
//! use dedupcrawl_index::{DedupIndex, DocumentFingerprint, IndexConfig, SledDedupIndex, DedupDecision};
//! use dedupcrawl_sketch::{MinHasher, PayloadDigest, shingle_set};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let index = SledDedupIndex::open(dir.path(), IndexConfig::default()).unwrap();
//! let hasher = MinHasher::new(128);
//! let doc = |name: &str, tokens: &[u64], payload: &[u8]| DocumentFingerprint {
//!     signature: hasher.signature(&shingle_set(tokens, 5)),
//!     ..DocumentFingerprint::new(name, "example.org", PayloadDigest::of(payload))
//! };
//! let text: Vec<u64> = (0..500).collect();
//! let mut edited = text.clone();
//! edited[250] = 7_777;
//! assert!(matches!(index.check_and_insert(&doc("a", &text, b"A")).unwrap(), DedupDecision::New { .. }));
//! match index.check_and_insert(&doc("b", &edited, b"B")).unwrap() {
//!     DedupDecision::NearDuplicate { of, similarity } => {
//!         assert_eq!(of.name, "a");
//!         assert!(similarity > 0.9);
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```

pub mod block_counts;
mod block_postings;
mod candidates;
mod cold_record;
mod decision;
pub mod document_log;
mod lookup_tables;
mod overlap;
mod own_content;
mod page_name;
mod postgres_backend;
mod postgres_schema;
mod record;
mod sample_postings;
mod sled_backend;
mod storage;

pub use decision::ADDED_TO_COPY_DRIFT;
pub use overlap::{OverlapEstimate, OverlapOptions, estimate_overlap};
pub use own_content::{
    ContentUnit, DISTINCT_CONTENT_TOKENS, PartTokens, SUBSTANTIAL_BLOCK_TOKENS, adjacent_pairs,
    missing_tokens,
};
pub use postgres_backend::PostgresDedupIndex;
pub use postgres_schema::connect_and_migrate;
pub use record::{
    DocumentId, DocumentLink, MAX_RECORD_BLOCKS, OwnBlock, SIGNATURE_BITS, StoredDocument,
};
pub use sled_backend::{
    DOCUMENT_LOG_FILE, SledDedupIndex, open_sled_config_waiting_for_lock,
    open_sled_waiting_for_lock,
};

use dedupcrawl_sketch::{
    LshParams, MinHashSignature, ModSample, PayloadDigest, SuperShingleParams, TokenDigest,
};

/// Errors of the index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(
        "the dedup index store failed: {0} (check disk space and permissions of the index directory)"
    )]
    Storage(#[from] sled::Error),
    #[error(
        "the index at {path} has on-disk format {found:?}, this build reads {expected:?}: \
         use a new --index directory, or re-run with the dedupcrawl version that wrote it"
    )]
    IncompatibleFormat {
        path: String,
        found: String,
        expected: String,
    },
    #[error(
        "the index at {path} was built with {stored}, but this run asks for {requested}: \
         signatures would not be comparable. Use the same settings or a new --index directory"
    )]
    ParameterMismatch {
        path: String,
        stored: String,
        requested: String,
    },
    #[error("the index record {key} is corrupt ({reason}); the index directory may be damaged")]
    CorruptRecord { key: String, reason: String },
    #[error(
        "cannot {action} the index's document log {path}: {source} (check disk space and \
         permissions of the index directory)"
    )]
    Log {
        path: String,
        action: String,
        source: std::io::Error,
    },
    #[error(
        "the index's document log {path} is missing, but the index says it holds {bytes} bytes: \
         put the file back (from a backup), or delete the whole index directory (or the crawl's \
         state/) and start over"
    )]
    MissingLog { path: String, bytes: u64 },
    #[error("the index is full: document ids are 32-bit (4,294,967,295 documents)")]
    Full,
    #[error(
        "the index at {path} is in use by another process (its lock is held): wait for it to \
         finish or use another directory"
    )]
    Locked { path: String },
    #[error("the dedup index (PostgreSQL) cannot {action}: {source}")]
    Postgres {
        action: &'static str,
        #[source]
        source: sqlx::Error,
    },
    #[error("the dedup index: {0}")]
    Unreachable(#[source] dedupcrawl_reconnect::Unreachable),
    #[error("the dedup index's PostgreSQL schema cannot be brought up to date: {0}")]
    Migration(#[source] sqlx::migrate::MigrateError),
    #[error(
        "the PostgreSQL database has schema migration {version}, which this dedupcrawl does not \
         know: it was set up by a newer dedupcrawl; run that version (or a new database)"
    )]
    SchemaTooNew { version: i64 },
    #[error("the dedup index's PostgreSQL worker failed: {0}")]
    Runtime(String),
}

impl From<dedupcrawl_reconnect::CallPanicked> for IndexError {
    fn from(panicked: dedupcrawl_reconnect::CallPanicked) -> Self {
        IndexError::Runtime(panicked.to_string())
    }
}

/// Settings that decide what counts as a duplicate. Stored with the index: reopening with
/// signature-incompatible settings is an error.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IndexConfig {
    /// Near-duplicate threshold on estimated resemblance.
    pub threshold: f64,
    /// MinHash signature length k.
    pub num_hashes: usize,
    /// LSH bands × rows (b·r ≤ k): the buckets every document is indexed under. With
    /// [`NearMethod::SuperShingles`] these are the super-shingle groups.
    pub lsh: LshParams,
    /// Which earlier documents are candidates (then verified): those sharing a bucket, or
    /// at least m super-shingles.
    pub near_method: NearMethod,
    /// Containment threshold: a document whose estimated share inside another document is at
    /// least this is `contained`.
    pub containment_threshold: f64,
    /// Containment is only estimated when the sample of the page that may be contained has at
    /// least this many values at the common modulus. 16 values all found inside another page
    /// still only say "containment ≥ 0.83" with 95 % confidence (0.05^(1/16)); 8 say ≥ 0.69,
    /// too little for a 0.9 threshold. On the Rust docs the pages below 16 were small residues
    /// left by the host template (an error type's two sentences inside `io::Error`).
    pub containment_min_samples: usize,
    /// Shingle size, recorded so a reopened index refuses signatures of another shingling.
    pub shingle_size: usize,
}

impl Default for IndexConfig {
    fn default() -> Self {
        Self::for_threshold(0.8, 128)
    }
}

impl IndexConfig {
    /// Default weights favour recall (false negatives cost 19× false positives: b=16, r=8 at k=128, t=0.8): every LSH
    /// candidate is verified against the full signature anyway.
    pub const FALSE_POSITIVE_WEIGHT: f64 = 0.05;
    pub const FALSE_NEGATIVE_WEIGHT: f64 = 0.95;

    pub fn for_threshold(threshold: f64, num_hashes: usize) -> Self {
        IndexConfig {
            threshold,
            num_hashes,
            lsh: LshParams::optimal(
                num_hashes,
                threshold,
                Self::FALSE_POSITIVE_WEIGHT,
                Self::FALSE_NEGATIVE_WEIGHT,
            ),
            near_method: NearMethod::Lsh,
            containment_threshold: 0.9,
            containment_min_samples: 16,
            shingle_size: 5,
        }
    }
}

/// How the candidates of a near-duplicate check are found (every candidate is then verified
/// with the full signature).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NearMethod {
    /// LSH banding: the documents sharing at least one bucket (band) with the page.
    Lsh,
    /// Broder's super-shingles: the buckets are the super-shingles, and a candidate shares at
    /// least `min_shared` of them with the page.
    SuperShingles { min_shared: usize },
}

impl IndexConfig {
    /// The settings for `threshold` with Broder's super-shingles instead of LSH banding: the
    /// groups and the number that must be shared chosen by [`SuperShingleParams::optimal`]
    /// with the same weights (or as given: `count` groups of k / count values, `min_shared`).
    pub fn with_super_shingles(
        threshold: f64,
        num_hashes: usize,
        count: Option<usize>,
        min_shared: Option<usize>,
    ) -> Self {
        let optimal = SuperShingleParams::optimal(
            num_hashes,
            threshold,
            Self::FALSE_POSITIVE_WEIGHT,
            Self::FALSE_NEGATIVE_WEIGHT,
        );
        let count = count.unwrap_or(optimal.count).clamp(1, num_hashes.max(1));
        let params = SuperShingleParams {
            count,
            rows: if count == optimal.count {
                optimal.rows
            } else {
                (num_hashes / count).max(1)
            },
            min_shared: min_shared.unwrap_or(optimal.min_shared).clamp(1, count),
        };
        IndexConfig {
            lsh: params.groups(),
            near_method: NearMethod::SuperShingles {
                min_shared: params.min_shared,
            },
            ..Self::for_threshold(threshold, num_hashes)
        }
    }

    /// P(candidate | resemblance s) under these settings (the S-curve).
    pub fn candidate_probability(&self, s: f64) -> f64 {
        match self.near_method {
            NearMethod::Lsh => self.lsh.candidate_probability(s),
            NearMethod::SuperShingles { min_shared } => {
                dedupcrawl_sketch::super_shingle_probability(
                    s,
                    self.lsh.bands,
                    self.lsh.rows,
                    min_shared,
                )
            }
        }
    }
}

/// What the index needs to know of one document.
#[derive(Debug, Clone, PartialEq)]
pub struct DocumentFingerprint {
    /// URL or path: how duplicates name their original.
    pub name: String,
    /// Host (or site) the document belongs to, for per-host block counts.
    pub host: String,
    pub payload: PayloadDigest,
    /// Digest of the normalized tokens; `None` when the document has no tokens.
    pub tokens: Option<TokenDigest>,
    /// `None` when the document has no shingles (then only exact checks apply).
    pub signature: Option<MinHashSignature>,
    pub mod_sample: Option<ModSample>,
    /// The whole shingle set (32-bit hashes, sorted) of a small document: with at most
    /// [`SMALL_SET_MAX`] shingles the MinHash estimate is noisy, so two small documents are
    /// verified by their exact resemblance instead (it costs no more than the signature).
    pub small_shingles: Option<Vec<u32>>,
    /// Keys of the page's main-content blocks (hashes of their normalized tokens, template
    /// included): counted for the host when the document is new, and stored for every
    /// document so a later page of the host can tell which of its blocks this one has.
    pub block_fingerprints: Vec<u64>,
    /// Sketches of the page's substantial non-template content blocks (see
    /// [`dedupcrawl_sketch::BlockSketch`]): stored, so an edited paragraph of a later page
    /// finds its counterpart here.
    pub block_sketches: Vec<dedupcrawl_sketch::BlockSketch>,
    /// The page's non-template content blocks (link lists left out): a page is never a
    /// duplicate of, nor contained in, a page of its own host that lacks
    /// [`DISTINCT_CONTENT_TOKENS`] or more of their tokens (see [`missing_tokens`]).
    pub own_content: Vec<ContentUnit>,
    /// Keys of the same blocks in page order, a block the page repeats each time: which own
    /// blocks sit side by side (see [`adjacent_pairs`]).
    pub own_sequence: Vec<u64>,
    /// Whether the host's template could be told apart when `own_content` was taken (the
    /// host had enough pages for a block to count as template): until then a host's first
    /// pages share blocks that are template, and their blocks vouch for no containment on
    /// the host.
    pub template_known: bool,
    /// A block on at least this many of the host's new pages was template when `own_content`
    /// was taken (0 until the template is known): a later decision leaves such blocks out of
    /// a record of the host made before (see `crate::cold_record`).
    pub template_min_pages: u32,
    /// Key of the page's first own heading (its title, as most pages put it first): a page
    /// whose title a page of its host of about its size lacks is another page, however alike
    /// the rest (see `has_own_content` in the decision).
    pub name_block: Option<u64>,
    /// The tokens of that title (32-bit token hashes in page order, its last
    /// [`MAX_NAME_TOKENS`]): a title that is another's under a short label ("Appendix G GNU
    /// General Public License" and "GNU General Public License") names the same thing.
    pub name_tokens: Vec<u32>,
}

impl DocumentFingerprint {
    pub fn new(name: impl Into<String>, host: impl Into<String>, payload: PayloadDigest) -> Self {
        DocumentFingerprint {
            name: name.into(),
            host: host.into(),
            payload,
            tokens: None,
            signature: None,
            mod_sample: None,
            small_shingles: None,
            block_fingerprints: Vec::new(),
            block_sketches: Vec::new(),
            own_content: Vec::new(),
            own_sequence: Vec::new(),
            template_known: false,
            template_min_pages: 0,
            name_block: None,
            name_tokens: Vec::new(),
        }
    }

    /// Sets `small_shingles` from a shingle set when it is small enough.
    pub fn with_small_shingles(mut self, shingles: &[u64]) -> Self {
        self.small_shingles = small_shingle_set(shingles);
        self
    }
}

/// Tokens of a page's title kept at most ([`DocumentFingerprint::name_tokens`]): a title
/// longer than this is a sentence, whose last tokens tell it apart well enough.
pub const MAX_NAME_TOKENS: usize = 16;

/// Documents with at most this many shingles keep their exact set.
pub const SMALL_SET_MAX: usize = 128;

/// The 32-bit shingle set kept for a small document (`None` when larger than [`SMALL_SET_MAX`]).
pub fn small_shingle_set(shingles: &[u64]) -> Option<Vec<u32>> {
    if shingles.is_empty() || shingles.len() > SMALL_SET_MAX {
        return None;
    }
    let mut set: Vec<u32> = shingles.iter().map(|&s| (s >> 32) as u32).collect();
    set.sort_unstable();
    set.dedup();
    Some(set)
}

/// Exact resemblance of two sorted 32-bit sets.
pub fn small_set_resemblance(a: &[u32], b: &[u32]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = a.len() + b.len() - common;
    if union == 0 {
        1.0
    } else {
        common as f64 / union as f64
    }
}

/// A document already in the index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DocumentRef {
    pub id: DocumentId,
    pub name: String,
    /// The original at the root of this document's cluster: `id` itself for an original,
    /// the first page of the chain for a near duplicate or contained page that the index
    /// keeps as a cluster member (see [`StoredDocument::link`]).
    pub cluster: DocumentId,
}

/// Why two documents are exact duplicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExactBasis {
    /// Byte-identical payloads (same SHA-1).
    Payload,
    /// Different bytes, same normalized text.
    NormalizedText,
}

/// The index's answer for one document.
#[derive(Debug, Clone, PartialEq)]
pub enum DedupDecision {
    /// Not seen before; recorded under `id` (unless it was only a lookup). `contains` names the
    /// known documents this one contains (it is a larger page around them, such as the
    /// all-on-one-page version of a story whose parts came first), most contained first.
    New {
        id: Option<DocumentId>,
        contains: Vec<(DocumentRef, f64)>,
    },
    ExactDuplicate {
        of: DocumentRef,
        basis: ExactBasis,
    },
    NearDuplicate {
        of: DocumentRef,
        similarity: f64,
    },
    Contained {
        within: DocumentRef,
        containment: f64,
    },
}

impl DedupDecision {
    pub fn is_new(&self) -> bool {
        matches!(self, DedupDecision::New { .. })
    }
}

/// Counts kept by the index.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct IndexStats {
    /// Originals (cluster members not counted).
    pub documents: u64,
    /// Every document id handed out so far is below this (removed ones included).
    pub id_bound: DocumentId,
    pub band_buckets: u64,
    pub bytes_on_disk: u64,
}

/// A persistent, concurrent dedup index.
pub trait DedupIndex: Send + Sync {
    /// Checks a document against everything indexed and records it if it is new, atomically.
    fn check_and_insert(&self, document: &DocumentFingerprint)
    -> Result<DedupDecision, IndexError>;
    /// The same check without recording anything.
    fn lookup(&self, document: &DocumentFingerprint) -> Result<DedupDecision, IndexError>;
    /// Forgets a document; `false` if it was not there.
    fn remove(&self, id: DocumentId) -> Result<bool, IndexError>;
    /// A stored document by id.
    fn document(&self, id: DocumentId) -> Result<Option<StoredDocument>, IndexError>;
    /// For each block fingerprint, on how many new documents of `host` it has been seen
    /// (saturating at a small cap: callers compare against a threshold).
    fn block_page_counts(&self, host: &str, fingerprints: &[u64]) -> Result<Vec<u32>, IndexError>;
    /// How many new documents of `host` the index holds (saturating like block counts).
    fn host_document_count(&self, host: &str) -> Result<u32, IndexError>;
    fn stats(&self) -> Result<IndexStats, IndexError>;
    /// Makes everything reported so far durable.
    fn flush(&self) -> Result<(), IndexError>;
}

dedupcrawl_reconnect::impl_connection_loss!(
    IndexError,
    IndexError::Postgres,
    IndexError::Unreachable
);
