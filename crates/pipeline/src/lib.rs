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

use dedupcrawl_index::{
    ContentUnit, DedupDecision, DedupIndex, DocumentFingerprint, IndexConfig, IndexError,
    SUBSTANTIAL_BLOCK_TOKENS,
};
use dedupcrawl_sketch::{
    BlockSketch, MinHasher, ModSample, PayloadDigest, TokenDigest, shingle_set,
};
use dedupcrawl_textprep::{LinkKind, MainContent, PreparedPage, TextPrep, TextPrepConfig, View};
use rustc_hash::FxHashSet;

mod inserts;
use inserts::{Inserts, MAX_CARD_BOXES, card_boxes, inserts_left_out};

/// Main content shorter than this many shingles' worth of tokens, once the host's template is
/// cut out, is too little to compare on: the page's own content blocks are compared instead.
pub const MIN_MAIN_CONTENT_SHINGLES: usize = 4;

/// Hash seed of link tokens, so a link target never hashes like a word.
const LINK_TOKEN_SEED: u64 = 0x6c69_6e6b;

/// A block whose text is more than this share link text is a link list (a menu item, a
/// "related" entry): not own content, the link tokens weigh it. A heading whose words are
/// partly links (rustdoc's `impl Clone for EscapeDefault`) is still content.
const LINK_LIST_DENSITY: f32 = 0.9;

/// A block with a link to the next or previous page of a sequence that is at least this much
/// link text is a pager line, a link list too: Texinfo's "Next: Concept Index, Previous:
/// Grammar and Parser [Contents][Index]" (0.75–0.85) says where the page sits, not what it
/// says. A paragraph that ends in "continue with part 2" is far under it.
const PAGER_LINK_DENSITY: f32 = 0.5;
/// Block sketches kept per page, at most (a page's first substantial blocks; a block whose
/// counterpart was not kept only makes a page look new, never a duplicate).
pub const MAX_BLOCK_SKETCHES: usize = 512;

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
            ..near
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
    /// The view compared (`full_page` when the page has no content blocks).
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
}

impl DedupStage {
    pub fn new(index: Arc<dyn DedupIndex>, settings: DedupSettings) -> Self {
        DedupStage {
            textprep: TextPrep::new(settings.text),
            main_content: Arc::new(MainContent::new(settings.text.main_content)),
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
        match self.settings.view {
            // `decide_main_content` decides the language from the main content.
            View::MainContent => self.textprep.prepare_for_main_content(html),
            View::FullPage => self.textprep.prepare(html),
        }
    }

    /// The second half of [`prepare`](Self::prepare): the main content as one of `host`'s
    /// pages. Run in a fixed page order, the host models learn the same and the views come out
    /// the same from run to run.
    pub fn decide_main_content(&self, name: &str, host: &str, html: &str, page: &mut PreparedPage) {
        if self.settings.view == View::MainContent {
            let url = name.contains("://").then_some(name);
            let rules = self.textprep.config().boilerplate;
            let content = self.main_content.decide_with_fallback(
                host,
                html,
                url,
                &page.extracted,
                &|block| rules.is_content_candidate(block),
            );
            self.textprep.set_main_content(page, content);
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

    /// [`fingerprint_html`](Self::fingerprint_html) of a page already extracted (extraction
    /// can run in parallel; the fingerprint depends on the host's template learnt so far).
    pub fn fingerprint_prepared(
        &self,
        name: &str,
        host: &str,
        payload: &[u8],
        page: PreparedPage,
    ) -> Result<Fingerprinted, IndexError> {
        let w = self.settings.shingle_size;
        let full_tokens = || {
            self.textprep
                .token_hashes(&page, View::FullPage, &|_| false)
        };
        // Tokens of the main-content blocks, block by block, so the host's template can be cut
        // out without tokenizing twice. A block is known by its normalized tokens (its key):
        // a timestamp or a counter that changes per request keeps its key, numbers being no
        // tokens. Blocks with no token (a lone number, punctuation) are not content.
        let mut content_tokens = Vec::new();
        let mut blocks: Vec<ContentBlock> = Vec::new();
        // `RUST_LOG=dedupcrawl_pipeline=trace` logs the blocks a page is compared on.
        let trace_view = tracing::enabled!(tracing::Level::TRACE);
        // Blocks inserted into an article that are not the article (see `inserts_left_out`):
        // their words are not compared, nor the links of the card titles that leave.
        let mut inserts = Inserts::default();
        let mut titles_left_out = Vec::new();
        if self.settings.view == View::MainContent {
            let in_main: Vec<bool> = (0..page.extracted.blocks.len())
                .map(|index| self.textprep.is_main_content(&page, index))
                .collect();
            inserts = inserts_left_out(&page.extracted, &in_main);
            let left_out = &inserts.left_out;
            for (index, block) in page
                .extracted
                .blocks
                .iter()
                .enumerate()
                .filter(|&(index, _)| in_main[index] && !left_out[index])
            {
                let start = content_tokens.len();
                self.textprep.normalizer().token_hashes(
                    &block.text,
                    page.language_of(index),
                    &mut content_tokens,
                );
                let range = start..content_tokens.len();
                if range.is_empty() {
                    continue;
                }
                blocks.push(ContentBlock {
                    key: content_block_key(&content_tokens[range.clone()]),
                    range,
                    links: block.link_density() > LINK_LIST_DENSITY
                        || (block.pager && block.link_density() >= PAGER_LINK_DENSITY),
                    heading: block.kind == dedupcrawl_textprep::BlockKind::Heading,
                    card_title: inserts.card_titles[index],
                    words: block.words,
                    block: index,
                    preview: trace_view.then(|| block.text.chars().take(70).collect()),
                });
            }
        }
        let mut candidates: Vec<u64> = blocks.iter().map(|b| b.key).collect();
        candidates.sort_unstable();
        candidates.dedup();
        // The blocks a record keeps (a hostile page of a million paragraphs is not a million
        // block-count lookups); the page's other blocks are never template.
        candidates.truncate(dedupcrawl_index::MAX_RECORD_BLOCKS);
        let mut block_sketches = Vec::new();
        let mut own_content = Vec::new();
        let mut own_sequence = Vec::new();
        let mut template_keys = Vec::new();
        let mut template_known = false;
        let mut template_min_pages = 0;
        let mut name_block = None;
        let mut name_tokens = Vec::new();
        let (view, token_hashes, stable_tokens) = match self.settings.view {
            View::FullPage => {
                let tokens = full_tokens();
                (View::FullPage, tokens.clone(), tokens)
            }
            View::MainContent => {
                let counts = self.index.block_page_counts(host, &candidates)?;
                let host_pages = self.index.host_document_count(host)?;
                let by_share =
                    (self.settings.boilerplate_min_share * f64::from(host_pages)).ceil() as u32;
                let min_pages = self.settings.boilerplate_min_pages.max(by_share);
                template_known = host_pages >= self.settings.boilerplate_min_pages;
                if template_known {
                    template_min_pages = min_pages;
                }
                let template: FxHashSet<u64> = candidates
                    .iter()
                    .zip(counts)
                    .filter(|&(_, count)| count >= min_pages)
                    .map(|(&key, _)| key)
                    .collect();
                template_keys = template.iter().copied().collect();
                template_keys.sort_unstable();
                // The titles of an article's card box leave with its captions once the
                // article's own words (the host's template told apart) still outweigh the box:
                // drawn per request, they change as much as the captions. Until the template
                // is known, and always on a listing whose few own words sit among the
                // template's prose, the titles and their links stay: they are all that tells
                // one listing from another. So they do on a page whose cards are spread over
                // it (see `card_boxes`).
                let titles: Vec<usize> = blocks
                    .iter()
                    .filter(|b| b.card_title)
                    .map(|b| b.block)
                    .collect();
                if template_known && (1..=MAX_CARD_BOXES).contains(&card_boxes(&titles)) {
                    let own_words: u64 = blocks
                        .iter()
                        .filter(|b| !b.card_title && !b.links && !template.contains(&b.key))
                        .map(|b| u64::from(b.words))
                        .sum();
                    let box_words = inserts.words
                        + blocks
                            .iter()
                            .filter(|b| b.card_title)
                            .map(|b| u64::from(b.words))
                            .sum::<u64>();
                    if own_words >= box_words {
                        titles_left_out = vec![false; page.extracted.blocks.len()];
                        for block in blocks.iter().filter(|b| b.card_title) {
                            titles_left_out[block.block] = true;
                        }
                        let kept: FxHashSet<u64> = blocks
                            .iter()
                            .filter(|b| !b.card_title)
                            .map(|b| b.key)
                            .collect();
                        let titles: FxHashSet<u64> = blocks
                            .iter()
                            .filter(|b| b.card_title && !kept.contains(&b.key))
                            .map(|b| b.key)
                            .collect();
                        candidates.retain(|key| !titles.contains(key));
                        blocks.retain(|b| !b.card_title);
                    }
                }
                // The page's own content: its non-template blocks, link lists left out (the
                // link tokens weigh those), each with a sketch when substantial; a block the
                // page repeats (a note under every method) counts once.
                let mut own_keys = FxHashSet::default();
                let is_own = |b: &&ContentBlock| !b.links && !template.contains(&b.key);
                own_sequence = blocks.iter().filter(is_own).map(|b| b.key).collect();
                if let Some(title) = blocks.iter().filter(is_own).find(|b| b.heading) {
                    name_block = Some(title.key);
                    name_tokens = title_tokens(&content_tokens[title.range.clone()]);
                }
                for block in blocks
                    .iter()
                    .filter(is_own)
                    .filter(|b| own_keys.insert(b.key))
                {
                    let tokens = &content_tokens[block.range.clone()];
                    let sketch = (tokens.len() >= usize::from(SUBSTANTIAL_BLOCK_TOKENS))
                        .then(|| BlockSketch::of(tokens));
                    if let Some(sketch) = sketch
                        && block_sketches.len() < MAX_BLOCK_SKETCHES
                    {
                        block_sketches.push(sketch);
                    }
                    own_content.push(ContentUnit {
                        key: block.key,
                        tokens: tokens.len().min(usize::from(u16::MAX)) as u16,
                        sketch,
                    });
                }
                if trace_view {
                    for block in &blocks {
                        let role = if template.contains(&block.key) {
                            "template"
                        } else if block.links {
                            "links"
                        } else {
                            "own"
                        };
                        tracing::trace!(
                            url = name,
                            role,
                            tokens = block.range.len(),
                            text = block.preview.as_deref().unwrap_or(""),
                            "compared block"
                        );
                    }
                }
                let main: Vec<u64> = blocks
                    .iter()
                    .filter(|b| !template.contains(&b.key))
                    .flat_map(|b| content_tokens[b.range.clone()].iter().copied())
                    .collect();
                if main.len() >= MIN_MAIN_CONTENT_SHINGLES * w {
                    (View::MainContent, main, content_tokens)
                } else if content_tokens.len() >= w && !main.is_empty() {
                    // The host's template left almost nothing (a page that is all shared
                    // method docs plus a banner): compare the page's own content blocks rather
                    // than call every such page a duplicate of every other. When it left
                    // nothing at all, those blocks are the template and every such page would
                    // be one (Haddock's modules without exports, whose main content is their
                    // "Safe Haskell" table while the name sits in the header): the whole page.
                    (View::MainContent, content_tokens.clone(), content_tokens)
                } else {
                    // No content blocks at all (a menu page, a gallery): the whole page.
                    let tokens = full_tokens();
                    (View::FullPage, tokens.clone(), tokens)
                }
            }
        };
        // A page is also what it links to: two hubs with the same few words that list
        // different pages are different pages (their links are the only way to what they
        // list), while a copy with a changed "related" box or pager link stays close.
        let (mut token_hashes, mut stable_tokens) = (token_hashes, stable_tokens);
        let link_tokens = self.content_link_tokens(name, host, &page, &titles_left_out);
        token_hashes.extend_from_slice(&link_tokens);
        stable_tokens.extend_from_slice(&link_tokens);
        let mut fingerprint = DocumentFingerprint::new(name, host, PayloadDigest::of(payload));
        fingerprint.block_fingerprints = candidates;
        fingerprint.block_sketches = block_sketches;
        fingerprint.own_content = own_content;
        fingerprint.own_sequence = own_sequence;
        fingerprint.template_known = template_known;
        fingerprint.template_min_pages = template_min_pages;
        fingerprint.name_block = name_block;
        fingerprint.name_tokens = name_tokens;
        // Text-based checks need at least one whole shingle: a one-word page ("Redirecting…")
        // says nothing about which page it is. Such pages are only exact payload duplicates.
        // The normalized-text digest is taken over the page's own content (not minus the
        // host's template, which changes as the crawl learns it) so identical pages always
        // match.
        if stable_tokens.len() >= w {
            fingerprint.tokens = Some(TokenDigest::of(&stable_tokens));
        }
        if token_hashes.len() >= w {
            let shingles = shingle_set(&token_hashes, w);
            fingerprint.signature = self.hasher.signature(&shingles);
            fingerprint.small_shingles = dedupcrawl_index::small_shingle_set(&shingles);
            if self.settings.containment {
                fingerprint.mod_sample = Some(ModSample::from_shingles(&shingles));
            }
        }
        Ok(Fingerprinted {
            fingerprint,
            page,
            view,
            tokens: token_hashes,
            template_keys,
        })
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

    /// One token per distinct link target outside the page's chrome (`nav`, `header`,
    /// `footer`…) and outside the card titles `left_out` of the compared text (a "trending"
    /// box's headlines): the target resolved against the page and written as its path and
    /// query (so the same target is one token whatever the page's depth, and a mirror on
    /// another host that links to the same paths gives the same tokens), in sorted order.
    fn content_link_tokens(
        &self,
        name: &str,
        host: &str,
        page: &PreparedPage,
        left_out: &[bool],
    ) -> Vec<u64> {
        let base = link_base(name, host);
        let blocks = &page.extracted.blocks;
        let mut tokens: Vec<u64> = page
            .extracted
            .links
            .iter()
            .filter(|link| link.kind == LinkKind::Anchor)
            .filter(|link| {
                let index = link.block as usize;
                blocks.get(index).is_some_and(|block| !block.in_chrome)
                    && !left_out.get(index).copied().unwrap_or(false)
            })
            .filter_map(|link| link_target(&base, &link.href))
            // Seeded apart from word tokens (`hash_token`).
            .map(|target| xxhash_rust::xxh3::xxh3_64_with_seed(target.as_bytes(), LINK_TOKEN_SEED))
            .collect();
        tokens.sort_unstable();
        tokens.dedup();
        tokens
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
        let token_count = tokens.len();
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

/// A main-content block of the page being fingerprinted: its key, its tokens (a range of the
/// page's content tokens) and whether it is mostly links.
struct ContentBlock {
    key: u64,
    range: std::ops::Range<usize>,
    links: bool,
    heading: bool,
    /// The linked title of a card whose caption is left out ([`Inserts::card_titles`]).
    card_title: bool,
    /// The block's words (as the extractor counts them).
    words: u32,
    /// The block's index in the extracted page.
    block: usize,
    /// The block's first characters, kept only while the view is traced.
    preview: Option<String>,
}

/// The key of a content block: a hash of its normalized token hashes (see
/// [`DedupStage::block_key`]).
fn content_block_key(tokens: &[u64]) -> u64 {
    let bytes: Vec<u8> = tokens.iter().flat_map(|t| t.to_le_bytes()).collect();
    xxhash_rust::xxh3::xxh3_64_with_seed(&bytes, BLOCK_KEY_SEED)
}

/// Hash seed of block keys.
const BLOCK_KEY_SEED: u64 = 0x0062_6c6f_636b;

/// A title's tokens as the index keeps them ([`dedupcrawl_index::DocumentFingerprint::name_tokens`]):
/// its last token hashes, cut to 32 bits, in page order.
fn title_tokens(tokens: &[u64]) -> Vec<u32> {
    let from = tokens
        .len()
        .saturating_sub(dedupcrawl_index::MAX_NAME_TOKENS);
    tokens[from..].iter().map(|&token| token as u32).collect()
}

/// What a page's relative links resolve against: its URL, or for a file of a site on disk
/// (`host` is the site's directory) its path inside the site, so that copies of a site in two
/// directories give the same targets.
fn link_base(name: &str, host: &str) -> Option<url::Url> {
    if name.contains("://") {
        return url::Url::parse(name).ok();
    }
    let inside = name.strip_prefix(host).unwrap_or(name);
    let root = url::Url::parse("file:///").ok()?;
    root.join(&inside.replace('\\', "/")).ok()
}

/// A link's target as compared: path and query of `href` resolved against `base`, without
/// scheme, host or fragment. `None` for links to nowhere (`#top`, `javascript:`, `mailto:`)
/// and for hrefs that do not resolve.
fn link_target(base: &Option<url::Url>, href: &str) -> Option<String> {
    let href = href.trim();
    let href = href.split('#').next().unwrap_or("");
    let lower = href.get(..11).unwrap_or(href).to_ascii_lowercase();
    if href.is_empty()
        || lower.starts_with("javascript:")
        || lower.starts_with("mailto:")
        || lower.starts_with("tel:")
        || lower.starts_with("data:")
    {
        return None;
    }
    let target = match base {
        Some(base) => base.join(href).ok()?,
        None => url::Url::parse("file:///").ok()?.join(href).ok()?,
    };
    if !matches!(target.scheme(), "http" | "https" | "file") {
        return None;
    }
    Some(match target.query() {
        Some(query) => format!("{}?{query}", target.path()),
        None => target.path().to_string(),
    })
}

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
