//! The dedup stage every page goes through: HTML → text view → shingles → MinHash →
//! [`DedupIndex`] decision, with per-host template learning.
//!
//! Used by the crawler (before any link of a page is enqueued) and by the offline
//! `dedupcrawl dedup` command, so both decide alike.
//!
//! ```
//! use std::sync::Arc;
//! use dedupcrawl_index::{DedupDecision, IndexConfig, SledDedupIndex};
//! use dedupcrawl_pipeline::{DedupSettings, DedupStage};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let settings = DedupSettings::default();
//! let index = SledDedupIndex::open(dir.path(), settings.index_config()).unwrap();
//! let stage = DedupStage::new(Arc::new(index), settings);
//! let article = "<p>".to_string() + &"Every distinct page is archived exactly once, politely. ".repeat(3)
//!     + "Duplicates name the page they duplicate and how similar they are.</p>";
//! let first = stage.check_html("https://a.example/1", "a.example", article.as_bytes(), &article).unwrap();
//! assert!(first.decision.is_new());
//! let framed = format!("<div class=nav><a href=/>Home</a></div>{article}<footer>(c) 2026</footer>");
//! let second = stage.check_html("https://a.example/2", "a.example", framed.as_bytes(), &framed).unwrap();
//! assert!(matches!(second.decision, DedupDecision::ExactDuplicate { .. }));
//! ```

use std::sync::Arc;

use dedupcrawl_index::{DedupDecision, DedupIndex, DocumentFingerprint, IndexConfig, IndexError};
use dedupcrawl_sketch::{MinHasher, ModSample, PayloadDigest, TokenDigest, shingle_set};
use dedupcrawl_textprep::{PreparedPage, TextPrep, TextPrepConfig, View};
use rustc_hash::FxHashSet;

/// What makes two pages duplicates. Every field is a config key (`[dedup]`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DedupSettings {
    /// Which text is compared: `main_content` (boilerplate out) or `full_page`.
    pub view: View,
    /// Near-duplicate threshold on estimated resemblance (0..1).
    pub threshold: f64,
    /// Tokens per shingle (w).
    pub shingle_size: usize,
    /// MinHash signature length (k).
    pub num_hashes: usize,
    /// A block seen on at least this many earlier *new* pages of the same host, and on at
    /// least `boilerplate_min_share` of them, is template.
    pub boilerplate_min_pages: u32,
    /// Share (0..1) of the host's new pages a block must be on to be template: content that a
    /// few pages share (a quoted paragraph, a common method doc) stays content.
    pub boilerplate_min_share: f64,
    /// Estimate containment (a page inside a larger page) with MOD_m samples.
    pub containment: bool,
    /// Containment threshold (0..1).
    pub containment_threshold: f64,
    pub text: TextPrepConfig,
}

impl Default for DedupSettings {
    fn default() -> Self {
        DedupSettings {
            view: View::MainContent,
            threshold: 0.8,
            shingle_size: 5,
            num_hashes: 128,
            boilerplate_min_pages: 3,
            boilerplate_min_share: 0.05,
            containment: true,
            containment_threshold: 0.9,
            text: TextPrepConfig::default(),
        }
    }
}

impl DedupSettings {
    /// The index settings these dedup settings imply.
    pub fn index_config(&self) -> IndexConfig {
        IndexConfig {
            containment_threshold: self.containment_threshold,
            shingle_size: self.shingle_size,
            ..IndexConfig::for_threshold(self.threshold, self.num_hashes)
        }
    }

    /// Checks ranges; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.threshold) || self.threshold == 0.0 {
            return Err(format!(
                "dedup.threshold = {} must be in (0, 1]",
                self.threshold
            ));
        }
        if !(0.0..=1.0).contains(&self.containment_threshold) {
            return Err(format!(
                "dedup.containment_threshold = {} must be in [0, 1]",
                self.containment_threshold
            ));
        }
        if !(0.0..=1.0).contains(&self.boilerplate_min_share) {
            return Err(format!(
                "dedup.boilerplate_min_share = {} must be in [0, 1]",
                self.boilerplate_min_share
            ));
        }
        if !(1..=32).contains(&self.shingle_size) {
            return Err(format!(
                "dedup.shingle_size = {} must be 1..=32",
                self.shingle_size
            ));
        }
        if !(8..=1024).contains(&self.num_hashes) {
            return Err(format!(
                "dedup.num_hashes = {} must be 8..=1024",
                self.num_hashes
            ));
        }
        Ok(())
    }
}

/// The stage's answer for one page.
#[derive(Debug, Clone)]
pub struct PageVerdict {
    pub decision: DedupDecision,
    pub page: Option<PreparedPage>,
    pub payload_digest: PayloadDigest,
    pub token_digest: Option<TokenDigest>,
    /// Tokens in the compared view.
    pub token_count: usize,
    /// The view actually compared (`full_page` when the main content was too short).
    pub view: View,
}

/// HTML → decision, sharing one index.
#[derive(Clone)]
pub struct DedupStage {
    textprep: TextPrep,
    hasher: MinHasher,
    index: Arc<dyn DedupIndex>,
    settings: DedupSettings,
}

impl DedupStage {
    pub fn new(index: Arc<dyn DedupIndex>, settings: DedupSettings) -> Self {
        DedupStage {
            textprep: TextPrep::new(settings.text),
            hasher: MinHasher::new(settings.num_hashes),
            index,
            settings,
        }
    }

    pub fn index(&self) -> &Arc<dyn DedupIndex> {
        &self.index
    }

    pub fn textprep(&self) -> &TextPrep {
        &self.textprep
    }

    pub fn settings(&self) -> &DedupSettings {
        &self.settings
    }

    /// The fingerprint of an HTML page as the index sees it, and the prepared page.
    pub fn fingerprint_html(
        &self,
        name: &str,
        host: &str,
        payload: &[u8],
        html: &str,
    ) -> Result<(DocumentFingerprint, PreparedPage, View, usize), IndexError> {
        self.fingerprint_prepared(name, host, payload, self.textprep.prepare(html))
    }

    /// [`fingerprint_html`](Self::fingerprint_html) of a page already extracted (extraction
    /// can run in parallel; the fingerprint depends on the host's template learnt so far).
    pub fn fingerprint_prepared(
        &self,
        name: &str,
        host: &str,
        payload: &[u8],
        page: PreparedPage,
    ) -> Result<(DocumentFingerprint, PreparedPage, View, usize), IndexError> {
        let candidates = self.textprep.candidate_block_fingerprints(&page);
        let mut view = self.settings.view;
        let mut token_hashes = match view {
            View::FullPage => self.textprep.token_hashes(&page, view, &|_| false),
            View::MainContent => {
                let counts = self.index.block_page_counts(host, &candidates)?;
                let host_pages = self.index.host_document_count(host)?;
                let by_share =
                    (self.settings.boilerplate_min_share * f64::from(host_pages)).ceil() as u32;
                let min_pages = self.settings.boilerplate_min_pages.max(by_share);
                let template: FxHashSet<u64> = candidates
                    .iter()
                    .zip(counts)
                    .filter(|&(_, count)| count >= min_pages)
                    .map(|(&fingerprint, _)| fingerprint)
                    .collect();
                self.textprep
                    .token_hashes(&page, view, &|fingerprint| template.contains(&fingerprint))
            }
        };
        if token_hashes.len() < self.settings.shingle_size && view == View::MainContent {
            // Almost no main content (a menu page, a gallery): compare the whole page rather
            // than call every such page a duplicate of every other.
            view = View::FullPage;
            token_hashes = self.textprep.token_hashes(&page, view, &|_| false);
        }
        let mut fingerprint = DocumentFingerprint::new(name, host, PayloadDigest::of(payload));
        fingerprint.block_fingerprints = candidates;
        if !token_hashes.is_empty() {
            let shingles = shingle_set(&token_hashes, self.settings.shingle_size);
            fingerprint.tokens = Some(TokenDigest::of(&token_hashes));
            fingerprint.signature = self.hasher.signature(&shingles);
            if self.settings.containment {
                fingerprint.mod_sample = Some(ModSample::from_shingles(&shingles));
            }
        }
        Ok((fingerprint, page, view, token_hashes.len()))
    }

    /// Checks an HTML page and records it when new.
    pub fn check_html(
        &self,
        name: &str,
        host: &str,
        payload: &[u8],
        html: &str,
    ) -> Result<PageVerdict, IndexError> {
        self.check_prepared(name, host, payload, self.textprep.prepare(html))
    }

    /// [`check_html`](Self::check_html) of a page already extracted.
    pub fn check_prepared(
        &self,
        name: &str,
        host: &str,
        payload: &[u8],
        page: PreparedPage,
    ) -> Result<PageVerdict, IndexError> {
        let (fingerprint, page, view, token_count) =
            self.fingerprint_prepared(name, host, payload, page)?;
        let decision = self.index.check_and_insert(&fingerprint)?;
        Ok(PageVerdict {
            decision,
            page: Some(page),
            payload_digest: fingerprint.payload,
            token_digest: fingerprint.tokens,
            token_count,
            view,
        })
    }

    /// Checks a non-HTML payload: exact duplicates only.
    pub fn check_payload(
        &self,
        name: &str,
        host: &str,
        payload: &[u8],
    ) -> Result<PageVerdict, IndexError> {
        let fingerprint = DocumentFingerprint::new(name, host, PayloadDigest::of(payload));
        let decision = self.index.check_and_insert(&fingerprint)?;
        Ok(PageVerdict {
            decision,
            page: None,
            payload_digest: fingerprint.payload,
            token_digest: None,
            token_count: 0,
            view: View::FullPage,
        })
    }
}
