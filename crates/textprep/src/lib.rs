//! HTML → clean text blocks → normalized tokens, for near-duplicate detection.
//!
//! * [`extract`] turns HTML into visible text blocks (paragraphs, headings, list items, cells),
//!   the title, the `<html lang>`, links, `<link rel=canonical>` and `<meta name=robots>`.
//!   Script, style, noscript, template, svg, iframe and head contents and comments never
//!   reach the text.
//! * [`Normalizer`] segments words (UAX #29), lowercases, keeps words with a letter
//!   (identifiers like `u128` whole; pure numbers dropped by default), drops stop words and
//!   stems alphabetic words (Snowball; Porter2 for English) in the page's language.
//! * [`TextPrep`] ties them together and knows the two *views* of a page: the full page, and
//!   the main content, which leaves out boilerplate blocks. Boilerplate is decided twice:
//!   per page (page chrome, high link density, too few words: [`BoilerplateRules`]) and per
//!   host (a block seen on many pages of the host; the caller supplies that knowledge, since
//!   it lives in the dedup index).
//! * [`teaser_blocks`], [`comment_blocks`] and [`ad_blocks`] find what sits in an article's
//!   text without being the article (a "trending" box's teasers, reader comments, labelled
//!   advertisements), which the dedup leaves out of an article's compared text.
//!
//! ```
//! use dedupcrawl_textprep::{TextPrep, TextPrepConfig, View};
//!
//! let html = r#"<html lang="en"><head><title>Roses</title><script>var hidden = 1;</script></head>
//! <body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
//! <p>A rose is a rose is a rose, and the roses were blooming in the garden.</p>
//! <!-- a comment that is not text --></body></html>"#;
//! let prep = TextPrep::new(TextPrepConfig::default());
//! let page = prep.prepare(html);
//! assert_eq!(page.extracted.title.as_deref(), Some("Roses"));
//! assert_eq!(page.extracted.links.len(), 2);
//! let tokens = prep.tokens(&page, View::MainContent, &|_| false);
//! assert_eq!(tokens, ["rose", "rose", "rose", "rose", "bloom", "garden"]);
//! ```

mod ads;
mod attribute_flood;
mod cards;
mod comments;
mod compared_text;
mod extract;
mod language;
mod main_content;
mod mixed_language;
mod normalize;
mod script_links;
mod teasers;

pub use ads::ad_blocks;
pub use attribute_flood::{MAX_ATTRIBUTES, cut_attribute_floods};
pub use comments::comment_blocks;
pub use compared_text::{ComparedText, ComparedTextError};
pub use extract::{
    BlockKind, ExtractedPage, LinkKind, NO_ELEMENT, PageLink, RobotsMeta, TextBlock,
    block_fingerprint, extract, extract_capped, extract_text_with_dom,
};
pub use language::{Language, LanguageSource, decide_language};
pub use main_content::{
    ContentMask, ContentSource, ExtractorUse, HostContentModel, MAX_MISNESTED_FORMATTING,
    MainContent, MainContentConfig, PageExtractor,
};
pub use mixed_language::{LONG_TEXT_BYTES, block_languages};
pub use normalize::{NormalizeOptions, Normalizer, NumberPolicy, for_each_word, hash_token};
pub use script_links::{PAGE_EXTENSIONS, links_in_script};
pub use teasers::{TeaserPart, teaser_blocks};

/// Which text of a page is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum View {
    /// Only content blocks: boilerplate (per page and per host) left out.
    #[default]
    MainContent,
    /// Every visible block.
    FullPage,
}

/// Per-page boilerplate rules: which blocks are candidates for main content.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BoilerplateRules {
    /// Blocks with fewer words are not content (menus, buttons, bylines), unless headings or
    /// preformatted text.
    pub min_block_words: usize,
    /// Blocks whose link text exceeds this share of their characters are navigation.
    pub max_link_density: f32,
    /// Blocks inside `<nav>`, `<header>`, `<footer>`, `<aside>` or elements whose id/class
    /// says nav/menu/footer/sidebar/cookie/banner are not content.
    pub drop_page_chrome: bool,
}

impl Default for BoilerplateRules {
    fn default() -> Self {
        BoilerplateRules {
            min_block_words: 4,
            max_link_density: 0.5,
            drop_page_chrome: true,
        }
    }
}

impl BoilerplateRules {
    /// Whether a block may be main content, judged from the page alone.
    pub fn is_content_candidate(&self, block: &TextBlock) -> bool {
        if self.drop_page_chrome && block.in_chrome {
            return false;
        }
        if block.link_density() > self.max_link_density {
            return false;
        }
        matches!(block.kind, BlockKind::Heading | BlockKind::Preformatted)
            || block.word_count() >= self.min_block_words
    }
}

/// Settings of the whole text pipeline.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TextPrepConfig {
    pub normalize: NormalizeOptions,
    /// Decide the language from the text: when `<html lang>` names none we can stem, and when
    /// the text does not look like the language it names (see [`decide_language`]). Off, the
    /// declaration (else `default_language`) is taken as it is.
    pub detect_language: bool,
    /// The language when nothing says otherwise.
    pub default_language: Language,
    pub boilerplate: BoilerplateRules,
    /// The page-level extractor and the host models (`[dedup.text.main_content]`).
    pub main_content: MainContentConfig,
    /// Most followable links [`TextPrep::prepare`] keeps from a page (see
    /// [`extract_capped`]); unset keeps them all. Not a key of its own: the crawler sets it
    /// from `crawl.max_links_per_page`.
    #[serde(skip)]
    pub max_links: Option<usize>,
}

impl Default for TextPrepConfig {
    fn default() -> Self {
        TextPrepConfig {
            normalize: NormalizeOptions::default(),
            detect_language: true,
            default_language: Language::English,
            boilerplate: BoilerplateRules::default(),
            main_content: MainContentConfig::default(),
            max_links: None,
        }
    }
}

/// A page after extraction and language decision.
#[derive(Debug, Clone)]
pub struct PreparedPage {
    pub extracted: ExtractedPage,
    pub language: Language,
    pub language_source: LanguageSource,
    /// Which blocks are main content, once decided ([`TextPrep::prepare_alone`], or the
    /// dedup pipeline with its host models). Until then the per-page rules stand in.
    pub content: Option<ContentMask>,
    /// Each block's language when a long main content mixes languages ([`block_languages`]);
    /// `None`: every block is in `language`.
    pub block_languages: Option<Vec<Language>>,
}

impl PreparedPage {
    /// The language block `index` is stemmed in.
    pub fn language_of(&self, index: usize) -> Language {
        self.block_languages
            .as_ref()
            .and_then(|languages| languages.get(index).copied())
            .unwrap_or(self.language)
    }
}

/// The text pipeline with its settings.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextPrep {
    config: TextPrepConfig,
    normalizer: Normalizer,
}

impl TextPrep {
    pub fn new(config: TextPrepConfig) -> Self {
        TextPrep {
            config,
            normalizer: Normalizer::new(config.normalize),
        }
    }

    pub fn config(&self) -> &TextPrepConfig {
        &self.config
    }

    pub fn normalizer(&self) -> &Normalizer {
        &self.normalizer
    }

    /// Extracts the page and decides its language from its text outside page chrome (decided
    /// again from the main content by [`set_main_content`](Self::set_main_content)).
    pub fn prepare(&self, html: &str) -> PreparedPage {
        let extracted = extract_capped(html, self.config.max_links.unwrap_or(usize::MAX));
        let (language, language_source) =
            self.decide_language(&extracted, |block| !block.in_chrome);
        PreparedPage {
            extracted,
            language,
            language_source,
            content: None,
            block_languages: None,
        }
    }

    /// [`prepare`](Self::prepare) without deciding the language, for a caller that sets the
    /// main content next: [`set_main_content`](Self::set_main_content) decides it from that
    /// text, so deciding it here too was a second stop-word count (and at times a whatlang
    /// guess) a page. Until then the page's language is the configured default.
    pub fn prepare_for_main_content(&self, html: &str) -> PreparedPage {
        PreparedPage {
            extracted: extract_capped(html, self.config.max_links.unwrap_or(usize::MAX)),
            language: self.config.default_language,
            language_source: LanguageSource::Default,
            content: None,
            block_languages: None,
        }
    }

    /// Sets the page's main content, and decides its language again from that text: the
    /// chrome of an i18n site is in the site's language when an untranslated page's content
    /// is not, and a short page's content is outweighed by its navigation.
    pub fn set_main_content(&self, page: &mut PreparedPage, content: ContentMask) {
        let mut kept = content.mask.iter();
        let (language, language_source) =
            self.decide_language(&page.extracted, |_| kept.next().copied().unwrap_or(false));
        page.language = language;
        page.language_source = language_source;
        page.block_languages = if self.config.detect_language {
            self.mixed_block_languages(&page.extracted, &content.mask, language)
        } else {
            None
        };
        page.content = Some(content);
    }

    /// The language of every block of a page whose main content (`mask`) mixes languages
    /// ([`block_languages`]; blocks outside it keep `language`).
    fn mixed_block_languages(
        &self,
        extracted: &ExtractedPage,
        mask: &[bool],
        language: Language,
    ) -> Option<Vec<Language>> {
        let kept: Vec<usize> = (0..extracted.blocks.len())
            .filter(|&index| mask.get(index).copied().unwrap_or(false))
            .collect();
        let texts: Vec<&str> = kept
            .iter()
            .map(|&index| extracted.blocks[index].text.as_str())
            .collect();
        let languages = block_languages(&texts, language)?;
        let mut all = vec![language; extracted.blocks.len()];
        for (index, block_language) in kept.into_iter().zip(languages) {
            all[index] = block_language;
        }
        Some(all)
    }

    /// [`decide_language`] over the first 2 KB of the blocks `include` takes, in page order.
    fn decide_language(
        &self,
        extracted: &ExtractedPage,
        mut include: impl FnMut(&TextBlock) -> bool,
    ) -> (Language, LanguageSource) {
        let mut sample = String::new();
        if self.config.detect_language {
            for block in &extracted.blocks {
                if !include(block) {
                    continue;
                }
                sample.push_str(&block.text);
                sample.push(' ');
                if sample.len() > 2048 {
                    break;
                }
            }
        }
        decide_language(
            extracted.lang_attribute.as_deref(),
            &sample,
            self.config.detect_language,
            self.config.default_language,
        )
    }

    /// [`prepare`](Self::prepare), and the main content decided from the page alone (no host
    /// evidence) by the page-level extractor: the view `extract`, `compare` and `export`
    /// show. `url` helps the extractor tell the kind of page.
    pub fn prepare_alone(&self, html: &str, url: Option<&str>) -> PreparedPage {
        let mut page = self.prepare(html);
        let rules = self.config.boilerplate;
        let content = main_content::decide_alone(html, url, &page.extracted, &|block| {
            rules.is_content_candidate(block)
        });
        self.set_main_content(&mut page, content);
        page
    }

    /// Whether block `index` of `page` is main content before the host's template is cut:
    /// the decided mask, else the per-page rules.
    pub fn is_main_content(&self, page: &PreparedPage, index: usize) -> bool {
        match &page.content {
            Some(content) => content.mask.get(index).copied().unwrap_or(false),
            None => page
                .extracted
                .blocks
                .get(index)
                .is_some_and(|block| self.config.boilerplate.is_content_candidate(block)),
        }
    }

    /// The blocks of a view. `is_host_boilerplate(fingerprint)` says whether a block recurs on
    /// enough pages of the host to be template (only consulted for the main-content view).
    pub fn view_blocks<'a>(
        &'a self,
        page: &'a PreparedPage,
        view: View,
        is_host_boilerplate: &'a dyn Fn(u64) -> bool,
    ) -> impl Iterator<Item = &'a TextBlock> + 'a {
        self.indexed_view_blocks(page, view, is_host_boilerplate)
            .map(|(_, block)| block)
    }

    /// [`view_blocks`](Self::view_blocks) with each block's index in the page.
    fn indexed_view_blocks<'a>(
        &'a self,
        page: &'a PreparedPage,
        view: View,
        is_host_boilerplate: &'a dyn Fn(u64) -> bool,
    ) -> impl Iterator<Item = (usize, &'a TextBlock)> + 'a {
        page.extracted
            .blocks
            .iter()
            .enumerate()
            .filter(move |(index, block)| match view {
                View::FullPage => true,
                View::MainContent => {
                    self.is_main_content(page, *index) && !is_host_boilerplate(block.fingerprint())
                }
            })
    }

    /// Hashes of the normalized tokens of a view (the input of shingling).
    pub fn token_hashes(
        &self,
        page: &PreparedPage,
        view: View,
        is_host_boilerplate: &dyn Fn(u64) -> bool,
    ) -> Vec<u64> {
        let mut out = Vec::new();
        for (index, block) in self.indexed_view_blocks(page, view, is_host_boilerplate) {
            self.normalizer
                .token_hashes(&block.text, page.language_of(index), &mut out);
        }
        out
    }

    /// The normalized tokens of a view, as strings.
    pub fn tokens(
        &self,
        page: &PreparedPage,
        view: View,
        is_host_boilerplate: &dyn Fn(u64) -> bool,
    ) -> Vec<String> {
        let mut out = Vec::new();
        for (index, block) in self.indexed_view_blocks(page, view, is_host_boilerplate) {
            out.extend(self.normalizer.tokens(&block.text, page.language_of(index)));
        }
        out
    }

    /// The plain text of a view, one block per line.
    pub fn view_text(
        &self,
        page: &PreparedPage,
        view: View,
        is_host_boilerplate: &dyn Fn(u64) -> bool,
    ) -> String {
        let mut out = String::new();
        for block in self.view_blocks(page, view, is_host_boilerplate) {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&block.text);
        }
        out
    }
}
