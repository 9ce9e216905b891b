//! The dedup stage every page goes through: HTML → compared text → shingles → MinHash →
//! [`DedupIndex`] decision, with per-host template learning.
//!
//! The compared text is the page's main content ([`View::MainContent`], decided by the
//! page-level extractor and the host's model) without the blocks the host's template is made
//! of (blocks on enough of the host's new pages) and without what sits in an article without
//! being it (teasers, comments, labelled ads); a page with no main content is compared on all
//! of its text. Its tokens are shingled; the signature finds candidates, the exact shingle set
//! (kept in the record) decides. Link targets are not tokens: whether a duplicate's links are
//! followed is the crawler's question ([`DedupStage::link_target_key`] gives the keys it
//! compares).
//!
//! Used by the crawler (before any link of a page is enqueued) and by the offline
//! `dedupcrawl dedup` command, so both decide alike.
//!
//! ```
//! use std::sync::Arc;
//! use dedupcrawl_index::{DedupDecision, IndexConfig, Mechanism, SledDedupIndex};
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
//! assert_eq!(second.decision.reason().mechanism, Mechanism::ExactText);
//! ```

use std::sync::Arc;

use dedupcrawl_index::{
    BlockSpan, ContentUnit, DedupDecision, DedupIndex, DocumentFingerprint, IndexConfig, IndexError,
};
use dedupcrawl_sketch::{MinHasher, ModSample, PayloadDigest, TokenDigest, shingle_sequence};
use dedupcrawl_stagecpu::{Stage, StageCpu};
use dedupcrawl_textprep::{
    ComparedText, MainContent, PreparedPage, TextPrep, TextPrepConfig, View,
};
use rustc_hash::FxHashSet;

mod inserts;
mod links;
use inserts::inserts_left_out;
pub use links::link_base;

/// Main content shorter than this many shingles' worth of tokens, once the host's template is
/// cut out, is too little to compare on: the page's main-content blocks are compared with the
/// template kept.
pub const MIN_MAIN_CONTENT_SHINGLES: usize = 4;

/// A block whose text is more than this share link text is a link list (a menu item, a
/// "related" entry): not posted for containment as the page's own content.
const LINK_LIST_DENSITY: f32 = 0.9;

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
    /// How near-duplicate candidates are found: `lsh` (a shared band) or `super_shingles`
    /// (Broder: at least m of s super-shingles shared).
    pub near_method: NearMethodName,
    /// Super-shingles: how many groups the signature is cut into (0: chosen for the threshold).
    pub super_shingle_count: usize,
    /// Super-shingles: how many must be shared (0: chosen for the threshold).
    pub super_shingle_min_shared: usize,
    pub text: TextPrepConfig,
}

/// `dedup.near_method`: see [`dedupcrawl_index::NearMethod`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NearMethodName {
    #[default]
    Lsh,
    SuperShingles,
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
            near_method: NearMethodName::Lsh,
            super_shingle_count: 0,
            super_shingle_min_shared: 0,
            text: TextPrepConfig::default(),
        }
    }
}

impl DedupSettings {
    /// The index settings these dedup settings imply.
    pub fn index_config(&self) -> IndexConfig {
        let chosen = |value: usize| (value > 0).then_some(value);
        let near = match self.near_method {
            NearMethodName::Lsh => IndexConfig::for_threshold(self.threshold, self.num_hashes),
            NearMethodName::SuperShingles => IndexConfig::with_super_shingles(
                self.threshold,
                self.num_hashes,
                chosen(self.super_shingle_count),
                chosen(self.super_shingle_min_shared),
            ),
        };
        IndexConfig {
            containment_threshold: self.containment_threshold,
            shingle_size: self.shingle_size,
            template: self.template_rule(),
            ..near
        }
    }

    /// What makes a block its host's template (`boilerplate_min_pages`,
    /// `boilerplate_min_share`): one rule for the compared text and the index's records.
    pub fn template_rule(&self) -> dedupcrawl_index::TemplateRule {
        dedupcrawl_index::TemplateRule {
            min_pages: self.boilerplate_min_pages,
            min_share: self.boilerplate_min_share,
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
        if self.super_shingle_count > self.num_hashes {
            return Err(format!(
                "dedup.super_shingle_count = {} must be at most dedup.num_hashes ({}), or 0 to \
                 choose it for the threshold",
                self.super_shingle_count, self.num_hashes
            ));
        }
        if self.super_shingle_count > 0 && self.super_shingle_min_shared > self.super_shingle_count
        {
            return Err(format!(
                "dedup.super_shingle_min_shared = {} must be at most dedup.super_shingle_count \
                 ({}), or 0 to choose it for the threshold",
                self.super_shingle_min_shared, self.super_shingle_count
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

/// A page made ready for the index.
#[derive(Debug, Clone)]
pub struct Fingerprinted {
    pub fingerprint: DocumentFingerprint,
    pub page: PreparedPage,
    /// The view compared (`full_page` when the page has no main content).
    pub view: View,
    /// The normalized token hashes the signature was computed from.
    pub tokens: Vec<u64>,
    /// Keys ([`DedupStage::block_key`]) of the main-content blocks left out as the host's
    /// template.
    pub template_keys: Vec<u64>,
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
    main_content: Arc<MainContent>,
    hasher: MinHasher,
    index: Arc<dyn DedupIndex>,
    settings: DedupSettings,
    /// CPU by stage of the pages through this stage ([`DedupStage::stage_cpu`]).
    cpu: Arc<StageCpu>,
}

/// What the host's other pages say of a page's blocks ([`DedupStage::host_evidence`]).
struct HostEvidence {
    template: FxHashSet<u64>,
    shared: FxHashSet<u64>,
    known: bool,
}

/// The runs of a page's own shingles (those starting at an own token), 32 bits each, in text
/// order ([`DocumentFingerprint::own_shingles`]).
fn own_runs(sequence: &[u64], own_tokens: &[bool]) -> Vec<Vec<u32>> {
    let mut runs = Vec::new();
    let mut run = Vec::new();
    for (position, &shingle) in sequence.iter().enumerate() {
        if own_tokens.get(position).copied().unwrap_or(true) {
            run.push((shingle >> 32) as u32);
        } else if !run.is_empty() {
            runs.push(std::mem::take(&mut run));
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

/// The spans of a page's compared blocks (key, tokens) over its `positions` shingles: a
/// shingle starts at each token but the last w − 1.
fn block_spans(blocks: &[(u64, usize)], positions: usize) -> Vec<BlockSpan> {
    let mut at = 0usize;
    blocks
        .iter()
        .map(|&(key, tokens)| {
            let end = (at + tokens).min(positions);
            let span = BlockSpan {
                key,
                shingles: end.saturating_sub(at.min(end)) as u32,
            };
            at += tokens;
            span
        })
        .collect()
}

/// The compared view of a page, before it is shingled.
struct ComparedView {
    view: View,
    /// Indices of the compared blocks, in page order.
    blocks: Vec<usize>,
    /// Their normalized tokens.
    tokens: Vec<u64>,
    /// Per token: whether it is the page's own text (its block is on too few of the host's
    /// other pages to be shared).
    own_tokens: Vec<bool>,
    /// The tokens of every main-content block, the host's template included: the exact-text
    /// digest is taken over them, so identical pages match whatever the crawl has learnt of
    /// their host's template by then.
    stable_tokens: Vec<u64>,
    /// Keys of the main-content blocks (counted for the host's template).
    block_keys: Vec<u64>,
    own_content: Vec<ContentUnit>,
    template_keys: Vec<u64>,
    template_known: bool,
    /// The compared blocks: key and tokens of each ([`BlockSpan`] once shingled).
    spans: Vec<(u64, usize)>,
    /// Tokens of the compared blocks that are not link lists.
    prose_tokens: usize,
}

/// A main-content block of the page being fingerprinted: its key and its tokens (a range of
/// the page's content tokens).
struct ContentBlock {
    key: u64,
    range: std::ops::Range<usize>,
    /// Mostly link text: not own content.
    links: bool,
    /// The block's index in the extracted page.
    block: usize,
}

impl DedupStage {
    pub fn new(index: Arc<dyn DedupIndex>, settings: DedupSettings) -> Self {
        DedupStage {
            textprep: TextPrep::new(settings.text),
            main_content: Arc::new(MainContent::new(settings.text.main_content)),
            hasher: MinHasher::new(settings.num_hashes),
            index,
            settings,
            cpu: Arc::new(StageCpu::default()),
        }
    }

    pub fn index(&self) -> &Arc<dyn DedupIndex> {
        &self.index
    }

    pub fn textprep(&self) -> &TextPrep {
        &self.textprep
    }

    /// The CPU this stage's pages spent so far, by stage (parse, main content, sketch, index;
    /// the crawler adds its own stages to the same figures).
    pub fn stage_cpu(&self) -> &Arc<StageCpu> {
        &self.cpu
    }

    /// The index's decision on `fingerprint` (and the record it writes), timed as
    /// [`Stage::Index`].
    pub fn decide(&self, fingerprint: &DocumentFingerprint) -> Result<DedupDecision, IndexError> {
        self.cpu
            .time(Stage::Index, || self.index.check_and_insert(fingerprint))
    }

    /// Pages and bytes the page-level extractor has seen so far (the rest took host models).
    pub fn extractor_use(&self) -> dedupcrawl_textprep::ExtractorUse {
        self.main_content.extractor_use()
    }

    pub fn settings(&self) -> &DedupSettings {
        &self.settings
    }

    /// Extracts a page and decides its main content as one of `host`'s pages (the host's
    /// model when it knows the page, else the page-level extractor). `name` is the page's URL
    /// (or file path: then the extractor is not told a URL). Safe to call from several
    /// threads; the dedup decision itself is [`check_prepared`](Self::check_prepared).
    pub fn prepare(&self, name: &str, host: &str, html: &str) -> PreparedPage {
        let mut page = self.prepare_blocks(html);
        self.decide_main_content(name, host, html, &mut page);
        page
    }

    /// The first half of [`prepare`](Self::prepare): the page's blocks, no host evidence
    /// (safe to run on many pages in parallel in any order).
    pub fn prepare_blocks(&self, html: &str) -> PreparedPage {
        self.cpu.time(Stage::Parse, || match self.settings.view {
            // `decide_main_content` decides the language from the main content.
            View::MainContent => self.textprep.prepare_for_main_content(html),
            View::FullPage => self.textprep.prepare(html),
        })
    }

    /// The second half of [`prepare`](Self::prepare): the main content as one of `host`'s
    /// pages. Run in a fixed page order, the host models learn the same and the views come out
    /// the same from run to run.
    pub fn decide_main_content(&self, name: &str, host: &str, html: &str, page: &mut PreparedPage) {
        if self.settings.view == View::MainContent {
            let url = name.contains("://").then_some(name);
            let rules = self.textprep.config().boilerplate;
            self.cpu.time(Stage::MainContent, || {
                let content = self.main_content.decide_with_fallback(
                    host,
                    html,
                    url,
                    &page.extracted,
                    &|block| rules.is_content_candidate(block),
                );
                self.textprep.set_main_content(page, content);
            });
        }
    }

    /// The fingerprint of an HTML page as the index sees it, and the prepared page.
    pub fn fingerprint_html(
        &self,
        name: &str,
        host: &str,
        payload: &[u8],
        html: &str,
    ) -> Result<Fingerprinted, IndexError> {
        self.fingerprint_prepared(name, host, payload, self.prepare(name, host, html))
    }

    /// [`fingerprint_html`](Self::fingerprint_html) of a page whose payload digest the caller
    /// has computed already (the crawler computes it once per response).
    pub fn fingerprint_html_with_digest(
        &self,
        name: &str,
        host: &str,
        payload_digest: PayloadDigest,
        html: &str,
    ) -> Result<Fingerprinted, IndexError> {
        let page = self.prepare(name, host, html);
        self.fingerprint_digested(name, host, payload_digest, page)
    }

    /// [`fingerprint_html`](Self::fingerprint_html) of a page already extracted (extraction
    /// can run in parallel; the fingerprint depends on the host's template learnt so far).
    pub fn fingerprint_prepared(
        &self,
        name: &str,
        host: &str,
        payload: &[u8],
        page: PreparedPage,
    ) -> Result<Fingerprinted, IndexError> {
        let payload_digest = self.cpu.time(Stage::Sketch, || PayloadDigest::of(payload));
        self.fingerprint_digested(name, host, payload_digest, page)
    }

    fn fingerprint_digested(
        &self,
        name: &str,
        host: &str,
        payload_digest: PayloadDigest,
        page: PreparedPage,
    ) -> Result<Fingerprinted, IndexError> {
        self.cpu.time(Stage::Sketch, || {
            let view = match self.settings.view {
                View::FullPage => self.full_page_view(&page),
                View::MainContent => self.main_content_view(name, host, &page)?,
            };
            Ok(self.fingerprint_of(name, host, payload_digest, page, view))
        })
    }

    /// Every block of the page, compared.
    fn full_page_view(&self, page: &PreparedPage) -> ComparedView {
        let blocks: Vec<usize> = (0..page.extracted.blocks.len()).collect();
        let mut tokens = Vec::new();
        let mut prose_tokens = 0;
        for &index in &blocks {
            let block = &page.extracted.blocks[index];
            let start = tokens.len();
            self.textprep.normalizer().token_hashes(
                &block.text,
                page.language_of(index),
                &mut tokens,
            );
            if block.link_density() <= LINK_LIST_DENSITY {
                prose_tokens += tokens.len() - start;
            }
        }
        ComparedView {
            view: View::FullPage,
            blocks,
            stable_tokens: tokens.clone(),
            own_tokens: vec![true; tokens.len()],
            tokens,
            block_keys: Vec::new(),
            own_content: Vec::new(),
            template_keys: Vec::new(),
            template_known: false,
            spans: Vec::new(),
            prose_tokens,
        }
    }

    /// The main-content blocks (inserts left out) with their tokens, in page order: the
    /// page's content tokens and one [`ContentBlock`] per block with a token. A block is known
    /// by its normalized tokens (its key): a timestamp or a counter that changes per request
    /// keeps its key, numbers being no tokens.
    fn content_blocks(&self, page: &PreparedPage) -> (Vec<u64>, Vec<ContentBlock>) {
        let in_main: Vec<bool> = (0..page.extracted.blocks.len())
            .map(|index| self.textprep.is_main_content(page, index))
            .collect();
        let left_out = inserts_left_out(&page.extracted, &in_main);
        let mut tokens = Vec::new();
        let mut blocks = Vec::new();
        for (index, block) in page.extracted.blocks.iter().enumerate() {
            if !in_main[index] || left_out[index] {
                continue;
            }
            let start = tokens.len();
            self.textprep.normalizer().token_hashes(
                &block.text,
                page.language_of(index),
                &mut tokens,
            );
            let range = start..tokens.len();
            if !range.is_empty() {
                blocks.push(ContentBlock {
                    key: content_block_key(&tokens[range.clone()]),
                    range,
                    links: block.link_density() > LINK_LIST_DENSITY,
                    block: index,
                });
            }
        }
        (tokens, blocks)
    }

    /// What the host's other pages say of the blocks `keys`: which are its template (on at
    /// least `boilerplate_min_pages` and `boilerplate_min_share` of the host's new pages),
    /// which are shared (on at least `boilerplate_min_pages` of them: no page's own text),
    /// and whether the template can be told apart yet (the host has that many pages).
    fn host_evidence(&self, host: &str, keys: &[u64]) -> Result<HostEvidence, IndexError> {
        let counts = self.index.block_page_counts(host, keys)?;
        let host_pages = self.index.host_document_count(host)?;
        let template_at = self.settings.template_rule().min_pages_for(host_pages);
        let min_pages = self.settings.boilerplate_min_pages;
        let mut evidence = HostEvidence {
            template: FxHashSet::default(),
            shared: FxHashSet::default(),
            known: host_pages >= min_pages,
        };
        for (&key, count) in keys.iter().zip(counts) {
            if count >= min_pages {
                evidence.shared.insert(key);
            }
            if count >= template_at {
                evidence.template.insert(key);
            }
        }
        Ok(evidence)
    }

    /// The main content without the host's template; all of the main content when the
    /// template leaves too little; the whole page when it has no main content.
    fn main_content_view(
        &self,
        name: &str,
        host: &str,
        page: &PreparedPage,
    ) -> Result<ComparedView, IndexError> {
        let w = self.settings.shingle_size;
        let (content_tokens, blocks) = self.content_blocks(page);
        let mut block_keys: Vec<u64> = blocks.iter().map(|b| b.key).collect();
        block_keys.sort_unstable();
        block_keys.dedup();
        // The blocks a record keeps (a hostile page of a million paragraphs is not a million
        // block-count lookups); the page's other blocks are never template.
        block_keys.truncate(dedupcrawl_index::MAX_RECORD_BLOCKS);
        let HostEvidence {
            template,
            shared,
            known: template_known,
        } = self.host_evidence(host, &block_keys)?;
        let mut seen = FxHashSet::default();
        let own_content = blocks
            .iter()
            .filter(|b| !b.links && !template.contains(&b.key) && seen.insert(b.key))
            .map(|b| ContentUnit {
                key: b.key,
                tokens: b.range.len().min(usize::from(u16::MAX)) as u16,
            })
            .collect();
        let mut template_keys: Vec<u64> = template.iter().copied().collect();
        template_keys.sort_unstable();
        let main: Vec<&ContentBlock> = blocks
            .iter()
            .filter(|b| !template.contains(&b.key))
            .collect();
        let main_tokens: usize = main.iter().map(|b| b.range.len()).sum();
        let compared: Vec<&ContentBlock> = if main_tokens >= MIN_MAIN_CONTENT_SHINGLES * w {
            main
        } else if content_tokens.len() >= w && !main.is_empty() {
            // The host's template left almost nothing (a page that is all shared method docs
            // plus a banner): compare all of its main content rather than call every such
            // page a duplicate of every other.
            blocks.iter().collect()
        } else {
            // No main content, or all of it the host's template: the whole page.
            return Ok(self.full_page_view(page));
        };
        if tracing::enabled!(tracing::Level::TRACE) {
            trace_view(name, page, &blocks, &template);
        }
        Ok(ComparedView {
            view: View::MainContent,
            blocks: compared.iter().map(|b| b.block).collect(),
            tokens: compared
                .iter()
                .flat_map(|b| content_tokens[b.range.clone()].iter().copied())
                .collect(),
            own_tokens: compared
                .iter()
                .flat_map(|b| std::iter::repeat_n(!shared.contains(&b.key), b.range.len()))
                .collect(),
            spans: compared.iter().map(|b| (b.key, b.range.len())).collect(),
            prose_tokens: compared
                .iter()
                .filter(|b| !b.links)
                .map(|b| b.range.len())
                .sum(),
            stable_tokens: content_tokens,
            block_keys,
            own_content,
            template_keys,
            template_known,
        })
    }

    /// The fingerprint of a compared view.
    fn fingerprint_of(
        &self,
        name: &str,
        host: &str,
        payload_digest: PayloadDigest,
        page: PreparedPage,
        view: ComparedView,
    ) -> Fingerprinted {
        let w = self.settings.shingle_size;
        let mut fingerprint = DocumentFingerprint::new(name, host, payload_digest);
        fingerprint.block_fingerprints = view.block_keys;
        fingerprint.own_content = view.own_content;
        fingerprint.template_known = view.template_known;
        fingerprint.prose_tokens = u32::try_from(view.prose_tokens).unwrap_or(u32::MAX);

        fingerprint.link_targets = self.content_link_targets(name, host, &page);
        // Text-based checks need at least one whole shingle: a one-word page ("Redirecting…")
        // says nothing about which page it is. Such pages are only exact payload duplicates.
        if view.stable_tokens.len() >= w {
            fingerprint.tokens = Some(TokenDigest::of(&view.stable_tokens));
        }
        if view.tokens.len() >= w {
            let sequence = shingle_sequence(&view.tokens, w);
            let mut shingles = sequence.clone();
            shingles.sort_unstable();
            shingles.dedup();
            fingerprint = fingerprint.with_sorted_shingles(&sequence, &shingles);
            fingerprint.own_shingles = own_runs(&sequence, &view.own_tokens);
            fingerprint.block_spans = block_spans(&view.spans, sequence.len());
            fingerprint.signature = self.hasher.signature(&shingles);
            if self.settings.containment {
                fingerprint.mod_sample = Some(ModSample::from_shingles(&shingles));
            }
        }
        fingerprint.compared_text = ComparedText::encode_blocks(view.blocks.iter().map(|&index| {
            (
                page.language_of(index),
                page.extracted.blocks[index].text.as_str(),
            )
        }));
        Fingerprinted {
            fingerprint,
            page,
            view: view.view,
            tokens: view.tokens,
            template_keys: view.template_keys,
        }
    }

    /// The key under which the index counts a content block of `text` for its host (and a
    /// stored page lists it): a hash of its normalized tokens; `None` for text with no token.
    pub fn block_key(&self, text: &str, language: dedupcrawl_textprep::Language) -> Option<u64> {
        let mut tokens = Vec::new();
        self.textprep
            .normalizer()
            .token_hashes(text, language, &mut tokens);
        (!tokens.is_empty()).then(|| content_block_key(&tokens))
    }

    /// Checks an HTML page and records it when new.
    pub fn check_html(
        &self,
        name: &str,
        host: &str,
        payload: &[u8],
        html: &str,
    ) -> Result<PageVerdict, IndexError> {
        self.check_prepared(name, host, payload, self.prepare(name, host, html))
    }

    /// [`check_html`](Self::check_html) of a page already extracted.
    pub fn check_prepared(
        &self,
        name: &str,
        host: &str,
        payload: &[u8],
        page: PreparedPage,
    ) -> Result<PageVerdict, IndexError> {
        let Fingerprinted {
            fingerprint,
            page,
            view,
            tokens,
            ..
        } = self.fingerprint_prepared(name, host, payload, page)?;
        let decision = self.decide(&fingerprint)?;
        Ok(PageVerdict {
            decision,
            page: Some(page),
            payload_digest: fingerprint.payload,
            token_digest: fingerprint.tokens,
            token_count: tokens.len(),
            view,
        })
    }

    /// Checks a non-HTML payload by its digest ([`PayloadDigest::of`] its bytes): exact
    /// duplicates only.
    pub fn check_payload(
        &self,
        name: &str,
        host: &str,
        payload_digest: PayloadDigest,
    ) -> Result<PageVerdict, IndexError> {
        let fingerprint = DocumentFingerprint::new(name, host, payload_digest);
        let decision = self.decide(&fingerprint)?;
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

/// `RUST_LOG=dedupcrawl_pipeline=trace` logs the blocks each page is compared on.
fn trace_view(name: &str, page: &PreparedPage, blocks: &[ContentBlock], template: &FxHashSet<u64>) {
    for block in blocks {
        let role = if template.contains(&block.key) {
            "template"
        } else if block.links {
            "links"
        } else {
            "own"
        };
        let text: String = page.extracted.blocks[block.block]
            .text
            .chars()
            .take(70)
            .collect();
        tracing::trace!(
            url = name,
            role,
            tokens = block.range.len(),
            text,
            "compared block"
        );
    }
}

/// The key of a content block: a hash of its normalized token hashes (see
/// [`DedupStage::block_key`]).
fn content_block_key(tokens: &[u64]) -> u64 {
    let bytes: Vec<u8> = tokens.iter().flat_map(|t| t.to_le_bytes()).collect();
    xxhash_rust::xxh3::xxh3_64_with_seed(&bytes, BLOCK_KEY_SEED)
}

/// Hash seed of block keys.
const BLOCK_KEY_SEED: u64 = 0x0062_6c6f_636b;

/// The `*.html` / `*.htm` files under `root`, in walk order sorted by file name: the documents
/// `dedupcrawl dedup PATH` checks, in the order it checks them.
pub fn html_files(root: &std::path::Path) -> Result<Vec<std::path::PathBuf>, walkdir::Error> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry?;
        let is_html = entry
            .path()
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"));
        if entry.file_type().is_file() && is_html {
            files.push(entry.into_path());
        }
    }
    Ok(files)
}
