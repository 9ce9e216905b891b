//! The persistent dedup index: "have we seen this content before?".
//!
//! [`DedupIndex::check_and_insert`] answers, atomically per document: new, exact duplicate of
//! D (same payload SHA-1, or same normalized text), near duplicate of D (an LSH candidate whose
//! exact resemblance of compared shingles is at least the threshold), or contained in D (a
//! MOD_m candidate whose exact containment is at least the containment threshold). Every
//! answer carries its [`Reason`]: the [`Mechanism`] that decided and its figures. A new
//! document is recorded in the same step, so two near-duplicates checked at the same time
//! never both come back new. The index also keeps per-host counts of content blocks, from
//! which the text pipeline learns a host's template ([`DedupIndex::block_page_counts`]).
//!
//! [`SledDedupIndex`] is the embedded backend: the records in an append-only
//! [`document_log`], the meta and the commit point in one sled tree.
//! [`PostgresDedupIndex`] is the backend of several workers sharing one crawl (tables in the
//! top-level `migrations/`; a per-crawl advisory lock makes check-and-insert atomic across
//! processes). Both run the same decision (`decision.rs`). Near duplicates and contained pages
//! are kept as cluster members (an exact copy of one is its exact duplicate); a duplicate
//! always names an original, a page that was archived.
//!
//! ```
//! use dedupcrawl_index::{DedupIndex, DocumentFingerprint, IndexConfig, SledDedupIndex, DedupDecision};
//! use dedupcrawl_sketch::{MinHasher, PayloadDigest, shingle_set};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let index = SledDedupIndex::open(dir.path(), IndexConfig::default()).unwrap();
//! let hasher = MinHasher::new(128);
//! let doc = |name: &str, tokens: &[u64], payload: &[u8]| {
//!     let shingles = shingle_set(tokens, 5);
//!     DocumentFingerprint {
//!         signature: hasher.signature(&shingles),
//!         ..DocumentFingerprint::new(name, "example.org", PayloadDigest::of(payload))
//!     }
//!     .with_shingles(&shingles)
//! };
//! let text: Vec<u64> = (0..500).collect();
//! let mut edited = text.clone();
//! edited[250] = 7_777;
//! assert!(matches!(index.check_and_insert(&doc("a", &text, b"A")).unwrap(), DedupDecision::New { .. }));
//! match index.check_and_insert(&doc("b", &edited, b"B")).unwrap() {
//!     DedupDecision::NearDuplicate { of, similarity, reason } => {
//!         assert_eq!(of.name, "a");
//!         assert!(similarity > 0.9);
//!         assert_eq!(reason.mechanism, dedupcrawl_index::Mechanism::NearLsh);
//!         assert_eq!(reason.verified, Some(similarity));
//!     }
//!     other => panic!("{other:?}"),
//! }
//! ```

mod across_hosts;
pub mod block_counts;
mod block_postings;
mod candidates;
mod decision;
pub mod document_log;
mod explanation;
mod lookup_tables;
mod overlap;
mod own_content;
mod postgres_backend;
mod postgres_schema;
mod record;
mod sample_postings;
mod sled_backend;
mod storage;

pub use across_hosts::{BlockShares, REPRINT_DRIFT, SUBSTANTIAL_BLOCK_TOKENS};
pub use decision::MIN_PART_TOKENS;
pub use explanation::{Closest, Mechanism, Reason, ShingleCounts, Vetoed};
pub use overlap::{OverlapEstimate, OverlapOptions, estimate_overlap};
pub use own_content::OWN_CONTENT_RUN;
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
         put the file back (from a backup); in a crawl's state/, `dedupcrawl repair OUT` \
         rebuilds the index from the WARC files"
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
    /// Near-duplicate threshold on the verified resemblance of compared texts.
    pub threshold: f64,
    /// MinHash signature length k.
    pub num_hashes: usize,
    /// LSH bands × rows (b·r ≤ k): the buckets every document is indexed under. With
    /// [`NearMethod::SuperShingles`] these are the super-shingle groups.
    pub lsh: LshParams,
    /// Which earlier documents are candidates (then verified): those sharing a bucket, or
    /// at least m super-shingles.
    pub near_method: NearMethod,
    /// Containment threshold: a document whose verified share of compared shingles inside
    /// another document is at least this is `contained`.
    pub containment_threshold: f64,
    /// Shingle size, recorded so a reopened index refuses signatures of another shingling.
    pub shingle_size: usize,
    /// What makes a block its host's template (the pipeline's `dedup.boilerplate_min_pages`
    /// and `dedup.boilerplate_min_share`): a record made before its host's template was
    /// known is compared with the template as it is now ([`BlockSpan`]).
    #[serde(default)]
    pub template: TemplateRule,
}

/// A block on at least `min_pages` and at least `min_share` of its host's originals is the
/// host's template.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TemplateRule {
    pub min_pages: u32,
    pub min_share: f64,
}

impl Default for TemplateRule {
    fn default() -> Self {
        TemplateRule {
            min_pages: 3,
            min_share: 0.05,
        }
    }
}

impl TemplateRule {
    /// Pages a block must be on for a host of `host_pages` originals.
    pub fn min_pages_for(&self, host_pages: u32) -> u32 {
        let by_share = (self.min_share * f64::from(host_pages)).ceil() as u32;
        self.min_pages.max(by_share)
    }
}

impl Default for IndexConfig {
    fn default() -> Self {
        Self::for_threshold(0.8, 128)
    }
}

impl IndexConfig {
    /// Default weights favour recall (false negatives cost 19× false positives: b=16, r=8 at
    /// k=128, t=0.8): every LSH candidate is verified on the exact shingle sets anyway.
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
            shingle_size: 5,
            template: TemplateRule::default(),
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
    /// Digest of the normalized tokens of the page's main content; `None` when the document
    /// has no tokens.
    pub tokens: Option<TokenDigest>,
    /// `None` when the document has no shingles (then only exact checks apply).
    pub signature: Option<MinHashSignature>,
    pub mod_sample: Option<ModSample>,
    /// The compared text's shingle set, every shingle as the high 32 bits of its hash, sorted
    /// and distinct ([`compared_shingle_set`]): what a candidate's resemblance and containment
    /// are verified on, exactly. Empty when the page has no shingles or more than
    /// [`MAX_KEPT_SHINGLES`] (then the estimate decides, and the reason says so).
    pub shingles: Vec<u32>,
    /// The page's own text as runs of its shingles in text order (32 bits each, as in
    /// `shingles`): a shingle that starts in a block other pages of the host have too is no
    /// own text and splits a run. What the own-content veto walks; not kept in the record.
    pub own_shingles: Vec<Vec<u32>>,
    /// The compared text as the pipeline encodes it (opaque here): kept in the record, so
    /// `dedupcrawl why` can show the text a decision compared.
    pub compared_text: Vec<u8>,
    /// The page's content link targets (path and query, 32-bit hashes, sorted and distinct):
    /// kept in the record, so the crawler can tell which targets a duplicate of this page
    /// links to that this page does not.
    pub link_targets: Vec<u32>,
    /// Keys of the page's main-content blocks (hashes of their normalized tokens, template
    /// included): counted for the host when the document is new (the host's template is what
    /// many of its pages share).
    pub block_fingerprints: Vec<u64>,
    /// The page's non-template content blocks (link lists left out): a short page is posted
    /// for containment under them (see `block_postings`).
    pub own_content: Vec<ContentUnit>,
    /// Whether the host's template could be told apart when the page was prepared (the host
    /// had enough pages for a block to count as template): until then a host's first pages
    /// share blocks that are template, and say nothing about which page holds which.
    pub template_known: bool,
    /// Tokens of the compared text in blocks that are not link lists: what a page needs
    /// [`MIN_PART_TOKENS`] of to be `contained` in another. [`new`](Self::new) sets
    /// `u32::MAX` (a page known by its shingles alone counts as prose).
    pub prose_tokens: u32,
    /// The compared text's shingles in text order, one per position (32 bits each, as in
    /// `shingles`): kept in the record with `block_spans`, so a later page is compared with
    /// the record without the shingles of its blocks that are the host's template by then.
    pub sequence: Vec<u32>,
    /// The compared blocks in text order: each one's key and how many positions of
    /// `sequence` start in it.
    pub block_spans: Vec<BlockSpan>,
    /// A higher near-duplicate threshold the page's site asks (a `[[site]]` stricter than
    /// the index): a page whose closest original is under it is new
    /// ([`Mechanism::SiteThreshold`]). `None`: the index's.
    pub threshold: Option<f64>,
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
            shingles: Vec::new(),
            own_shingles: Vec::new(),
            compared_text: Vec::new(),
            link_targets: Vec::new(),
            block_fingerprints: Vec::new(),
            own_content: Vec::new(),
            template_known: false,
            prose_tokens: u32::MAX,
            sequence: Vec::new(),
            block_spans: Vec::new(),
            threshold: None,
        }
    }

    /// Sets `shingles` from a page's shingles ([`dedupcrawl_sketch::shingle_sequence`]),
    /// and `own_shingles` to all of them in that order (a set works too: the veto then reads
    /// its order as the text's).
    pub fn with_shingles(self, sequence: &[u64]) -> Self {
        let set = compared_shingle_set(sequence);
        self.with_verification_set(sequence, set)
    }

    /// [`with_shingles`](Self::with_shingles) given also `sorted_shingles`, `sequence` sorted
    /// and each shingle once (what the signature is taken of): the verification set is read
    /// off it, in order, without sorting again.
    pub fn with_sorted_shingles(self, sequence: &[u64], sorted_shingles: &[u64]) -> Self {
        let set = if sequence.len() > MAX_KEPT_SHINGLES {
            Vec::new()
        } else {
            let mut set: Vec<u32> = sorted_shingles.iter().map(|&s| (s >> 32) as u32).collect();
            set.dedup();
            set
        };
        debug_assert_eq!(set, compared_shingle_set(sequence));
        self.with_verification_set(sequence, set)
    }

    fn with_verification_set(mut self, sequence: &[u64], set: Vec<u32>) -> Self {
        self.shingles = set;
        self.sequence = if self.shingles.is_empty() {
            Vec::new()
        } else {
            sequence.iter().map(|&s| (s >> 32) as u32).collect()
        };
        self.own_shingles = if self.sequence.is_empty() {
            Vec::new()
        } else {
            vec![self.sequence.clone()]
        };
        self
    }
}

/// Shingles a record keeps at most for verification: a one-page edition of a large book has
/// about 150,000; past this (a hostile page of a million distinct words) the estimate decides.
pub const MAX_KEPT_SHINGLES: usize = 1 << 18;

/// The verification set of a shingle set: each shingle's high 32 bits, sorted and distinct
/// (empty past [`MAX_KEPT_SHINGLES`]). Two sets of n shingles share a 32-bit value by chance
/// with probability about n² / 2³², under 10⁻³ for pages of 2,000 shingles.
pub fn compared_shingle_set(shingles: &[u64]) -> Vec<u32> {
    if shingles.len() > MAX_KEPT_SHINGLES {
        return Vec::new();
    }
    let mut set: Vec<u32> = shingles.iter().map(|&s| (s >> 32) as u32).collect();
    set.sort_unstable();
    set.dedup();
    set
}

/// The exact shingle counts of two verification sets ([`compared_shingle_set`]).
pub fn shingle_counts(page: &[u32], other: &[u32]) -> ShingleCounts {
    let (mut i, mut j, mut shared) = (0, 0, 0u64);
    while i < page.len() && j < other.len() {
        match page[i].cmp(&other[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                shared += 1;
                i += 1;
                j += 1;
            }
        }
    }
    ShingleCounts {
        page: page.len() as u64,
        other: other.len() as u64,
        shared,
    }
}

/// A compared block of a page: its key (as the host's block counts know it) and how many
/// positions of the page's shingle sequence start in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockSpan {
    pub key: u64,
    pub shingles: u32,
}

/// One content block of a page, as containment postings see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentUnit {
    /// The block's key: a hash of its normalized tokens.
    pub key: u64,
    /// Normalized tokens in the block.
    pub tokens: u16,
}

/// A document already in the index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct DocumentRef {
    pub id: DocumentId,
    pub name: String,
    /// The original of this document's cluster: `id` itself for an original, the page it
    /// duplicates for a near duplicate or contained page that the index keeps as a cluster
    /// member (see [`StoredDocument::link`]).
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

/// The index's answer for one document, with the reason its deciding mechanism gave.
#[derive(Debug, Clone, PartialEq)]
pub enum DedupDecision {
    /// Not seen before; recorded under `id` (unless it was only a lookup). `contains` names the
    /// known documents this one contains (it is a larger page around them, such as the
    /// all-on-one-page version of a story whose parts came first), most contained first, with
    /// their verified containment in this page.
    New {
        id: Option<DocumentId>,
        contains: Vec<(DocumentRef, f64)>,
        reason: Reason,
    },
    ExactDuplicate {
        of: DocumentRef,
        basis: ExactBasis,
        reason: Reason,
    },
    /// `similarity`: the verified resemblance of the two compared texts.
    NearDuplicate {
        of: DocumentRef,
        similarity: f64,
        reason: Reason,
    },
    /// `containment`: the verified share of this page's compared shingles inside `within`.
    Contained {
        within: DocumentRef,
        containment: f64,
        reason: Reason,
    },
}

impl DedupDecision {
    pub fn is_new(&self) -> bool {
        matches!(self, DedupDecision::New { .. })
    }

    /// What the deciding mechanism said.
    pub fn reason(&self) -> &Reason {
        match self {
            DedupDecision::New { reason, .. }
            | DedupDecision::ExactDuplicate { reason, .. }
            | DedupDecision::NearDuplicate { reason, .. }
            | DedupDecision::Contained { reason, .. } => reason,
        }
    }

    /// [`reason`](Self::reason), to change.
    pub fn reason_mut(&mut self) -> &mut Reason {
        match self {
            DedupDecision::New { reason, .. }
            | DedupDecision::ExactDuplicate { reason, .. }
            | DedupDecision::NearDuplicate { reason, .. }
            | DedupDecision::Contained { reason, .. } => reason,
        }
    }

    /// The original a duplicate names and the similarity reported (1 for exact duplicates).
    pub fn original(&self) -> Option<(&DocumentRef, f64)> {
        match self {
            DedupDecision::New { .. } => None,
            DedupDecision::ExactDuplicate { of, .. } => Some((of, 1.0)),
            DedupDecision::NearDuplicate { of, similarity, .. } => Some((of, *similarity)),
            DedupDecision::Contained {
                within,
                containment,
                ..
            } => Some((within, *containment)),
        }
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
