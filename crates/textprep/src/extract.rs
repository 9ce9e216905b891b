//! HTML → text blocks, title, language hint, links and robots directives.
//!
//! This drives html5ever's *tokenizer* (the parser under `scraper`) with a small token sink
//! instead of building a DOM: text extraction only needs tag boundaries, so skipping tree
//! construction (node allocation, attribute copies, adoption-agency fix-ups) roughly doubles
//! throughput. The sink switches the tokenizer into raw-text states for `<script>`, `<style>`
//! and friends exactly as the tree builder would, so their contents never surface as text.

use std::cell::RefCell;

use html5ever::TokenizerResult;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{
    BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

/// How a block of text was delimited in the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BlockKind {
    Heading,
    Paragraph,
    ListItem,
    TableCell,
    Preformatted,
    Other,
}

/// One block of visible text: a paragraph, heading, list item, table cell, ...
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TextBlock {
    /// Visible text with entities decoded and whitespace collapsed.
    pub text: String,
    pub kind: BlockKind,
    /// Non-whitespace characters in the block.
    pub chars: u32,
    /// Non-whitespace characters inside `<a href>` links.
    pub link_chars: u32,
    /// Whitespace-separated words.
    pub words: u32,
    /// [`block_fingerprint`] of the text, computed once at extraction.
    pub fingerprint: u64,
    /// Inside page chrome: `<nav>`, `<aside>`, `<menu>`, `<dialog>`, a page-level `<header>`
    /// or `<footer>` (not one inside an article or section), or an element whose id/class
    /// names navigation, menus, sidebars, footers, cookie banners or popups.
    pub in_chrome: bool,
    /// Hash of where the block sits in the document: the chain of open elements from `<html>`
    /// down to the block, each as its name, id and class with digits left out (so `post-17`
    /// and `post-18` are one place). Pages of one template put their content at the same
    /// paths; a host's content model is keyed by it.
    pub path: u64,
    /// The same chain with element names only: what a host model falls back on for a path it
    /// has not seen (a heading or code block with a class of its own).
    pub shape: u64,
    /// The innermost element the block sits in, as an index into
    /// [`ExtractedPage::element_parents`] ([`NO_ELEMENT`] at the top level): which blocks
    /// share a container, e.g. the region of a page its main content comes from.
    #[serde(default)]
    pub parent: u32,
}

/// [`TextBlock::parent`] / [`ExtractedPage::element_parents`] of something in no element.
pub const NO_ELEMENT: u32 = u32::MAX;

impl TextBlock {
    /// Share of the block's characters that are link text (0.0 ..= 1.0).
    pub fn link_density(&self) -> f32 {
        if self.chars == 0 {
            0.0
        } else {
            self.link_chars as f32 / self.chars as f32
        }
    }

    /// Number of whitespace-separated words.
    pub fn word_count(&self) -> usize {
        self.words as usize
    }

    /// 64-bit fingerprint of the block's case-folded text: the key for per-host block counts.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// A block of plain text (for callers that build blocks themselves).
    pub fn new(text: &str, kind: BlockKind) -> TextBlock {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        let chars = text.chars().filter(|c| !c.is_whitespace()).count() as u32;
        TextBlock {
            words: text.split(' ').filter(|w| !w.is_empty()).count() as u32,
            fingerprint: block_fingerprint(&text),
            text,
            kind,
            chars,
            link_chars: 0,
            in_chrome: false,
            path: 0,
            shape: 0,
            parent: NO_ELEMENT,
        }
    }
}

/// Fingerprint of a text block, insensitive to case and whitespace runs.
pub fn block_fingerprint(text: &str) -> u64 {
    let mut folded = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !folded.is_empty() {
            folded.push(' ');
        }
        if word.is_ascii() {
            folded.extend(word.bytes().map(|b| b.to_ascii_lowercase() as char));
        } else {
            folded.extend(word.chars().flat_map(char::to_lowercase));
        }
    }
    xxhash_rust::xxh3::xxh3_64(folded.as_bytes())
}

/// Where a link was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum LinkKind {
    /// `<a href>` / `<area href>`
    Anchor,
    /// `<iframe src>` / `<frame src>`
    Frame,
    /// `<meta http-equiv=refresh content="0; url=...">`
    MetaRefresh,
}

/// A link as written in the page (not yet resolved against the base URL).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PageLink {
    pub href: String,
    pub kind: LinkKind,
    /// `rel` contains `nofollow`.
    pub nofollow: bool,
    /// Index in [`ExtractedPage::blocks`] of the block the link's text belongs to (a link
    /// with no text points past the blocks it sits between).
    pub block: u32,
}

/// `<meta name="robots">` directives found in the page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RobotsMeta {
    pub noindex: bool,
    pub nofollow: bool,
}

impl RobotsMeta {
    /// Parses a robots directive list as found in `<meta name=robots content>` or the
    /// `X-Robots-Tag` header (`noindex, nofollow`, `none`, ...). Unknown directives are ignored.
    pub fn parse(directives: &str) -> RobotsMeta {
        let mut meta = RobotsMeta::default();
        meta.merge(directives);
        meta
    }

    /// Adds the directives of another list (several meta tags / headers combine).
    pub fn merge(&mut self, directives: &str) {
        for directive in directives.split([',', ' ']) {
            // X-Robots-Tag may be prefixed with a user agent: "googlebot: noindex".
            let directive = directive.rsplit(':').next().unwrap_or("").trim();
            match directive.to_ascii_lowercase().as_str() {
                "noindex" => self.noindex = true,
                "nofollow" => self.nofollow = true,
                "none" => {
                    self.noindex = true;
                    self.nofollow = true;
                }
                _ => {}
            }
        }
    }
}

/// Everything the pipeline needs from one HTML document.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ExtractedPage {
    pub title: Option<String>,
    pub blocks: Vec<TextBlock>,
    /// The page's links in document order: at most the cap given to [`extract_capped`] of
    /// the followable ones (no `rel=nofollow`) and as many `nofollow` ones.
    pub links: Vec<PageLink>,
    /// Followable links past the cap: counted, never kept (no string is made for them), so a
    /// page of a million links costs no more than one of `cap` links.
    #[serde(default)]
    pub links_left_out: u64,
    /// Start tags nested deeper than 512 elements (those whose end tag is required, as a
    /// tree builder nests them): such a page is never given to a DOM-building extractor (200,000 nested `<b>` overflowed its stack,
    /// 100,000 nested lists took minutes).
    #[serde(default)]
    pub elements_too_deep: u64,
    /// Formatting elements (`<b>`, `<i>`, `<a>`…) left open inside an element the page then
    /// closed (`<b><i>x</b>y</i>`): a tree builder's adoption agency clones and reopens each,
    /// so 100,000 of them cost the extractor 30 s and 600 MB (a few on a real page are
    /// harmless).
    #[serde(default)]
    pub misnested_formatting: u64,
    /// `<html lang>` as written, e.g. `en-US`.
    pub lang_attribute: Option<String>,
    /// `<link rel=canonical href>` as written.
    pub canonical: Option<String>,
    /// `<base href>` as written.
    pub base_href: Option<String>,
    pub robots: RobotsMeta,
    /// For each element of the page that was open around text (numbered in document order),
    /// the element it sits in ([`NO_ELEMENT`] at the top): the tree of containers, which the
    /// tokenizer-based extraction otherwise does not keep. Parents come before children.
    #[serde(default)]
    pub element_parents: Vec<u32>,
}

impl ExtractedPage {
    /// Whether `block` sits (at any depth) inside element `container`.
    pub fn is_inside(&self, block: &TextBlock, container: u32) -> bool {
        let mut element = block.parent;
        // Parents come before children, so the walk ends (also on a malformed table).
        while element != NO_ELEMENT && element >= container {
            if element == container {
                return true;
            }
            element = self
                .element_parents
                .get(element as usize)
                .copied()
                .unwrap_or(NO_ELEMENT);
        }
        false
    }
}

impl ExtractedPage {
    /// All visible text, one block per line.
    pub fn full_text(&self) -> String {
        let mut out = String::new();
        for block in &self.blocks {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&block.text);
        }
        out
    }
}

/// `needle` (ASCII, lowercase) in `haystack` in any case, without allocating.
fn contains_ignore_ascii_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// Elements whose content is never visible text.
fn raw_kind_of_skipped(name: &str) -> Option<RawKind> {
    match name {
        "script" => Some(RawKind::ScriptData),
        // `noscript` is not here: a crawler runs no script, so its content is what the
        // crawler's reader sees (forums such as Discourse serve their posts there).
        "style" | "xmp" | "iframe" | "noembed" | "noframes" => Some(RawKind::Rawtext),
        _ => None,
    }
}

/// Elements whose whole subtree is skipped (their text is parsed normally but not kept).
fn is_skipped_subtree(name: &str) -> bool {
    matches!(name, "template" | "svg" | "math" | "head")
}

/// Elements the DOM walk of [`extract_text_with_dom`] hides: html5ever's tree builder parses
/// `noscript` as raw text (scripting on), so its text node holds markup, not text.
fn hidden_in_dom(name: &str) -> bool {
    raw_kind_of_skipped(name).is_some() || is_skipped_subtree(name) || name == "noscript"
}

fn is_head_content(name: &str) -> bool {
    matches!(
        name,
        "head" | "title" | "meta" | "link" | "script" | "style" | "base" | "noscript" | "template"
    )
}

fn block_kind(name: &str) -> Option<BlockKind> {
    Some(match name {
        "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => BlockKind::Heading,
        "p" => BlockKind::Paragraph,
        "li" | "dt" | "dd" => BlockKind::ListItem,
        "td" | "th" | "caption" => BlockKind::TableCell,
        "pre" => BlockKind::Preformatted,
        "address" | "article" | "aside" | "blockquote" | "body" | "br" | "details" | "dialog"
        | "div" | "dl" | "fieldset" | "figcaption" | "figure" | "footer" | "form" | "header"
        | "hgroup" | "hr" | "html" | "legend" | "main" | "nav" | "ol" | "option" | "section"
        | "summary" | "table" | "tbody" | "tfoot" | "thead" | "tr" | "ul" | "button" | "label"
        | "textarea" | "center" | "menu" => BlockKind::Other,
        _ => return None,
    })
}

fn is_void(name: &str) -> bool {
    matches!(
        name,
        "area"
            | "base"
            | "br"
            | "col"
            | "embed"
            | "hr"
            | "img"
            | "input"
            | "link"
            | "meta"
            | "param"
            | "source"
            | "track"
            | "wbr"
    )
}

fn is_chrome_element(name: &str) -> bool {
    matches!(
        name,
        "nav" | "header" | "footer" | "aside" | "menu" | "dialog"
    )
}

/// id/class words that mark page chrome on sites that do not use semantic elements.
fn attribute_names_chrome(value: &str) -> bool {
    const MARKERS: [&str; 14] = [
        "nav",
        "popup",
        "modal",
        "menu",
        "footer",
        "sidebar",
        "cookie",
        "consent",
        "breadcrumb",
        "masthead",
        "banner",
        "topbar",
        "toolbar",
        "skip-link",
    ];
    value
        .split(|c: char| c.is_ascii_whitespace() || c == '-' || c == '_')
        .any(|word| {
            MARKERS.iter().any(|m| {
                let prefix = word.get(..m.len());
                prefix.is_some_and(|p| p.eq_ignore_ascii_case(m))
                    && (word.len() == m.len() || m.len() >= 4)
            })
        })
}

/// Deepest element nesting tracked; deeper (pathological) markup is flattened.
const MAX_OPEN_ELEMENTS: usize = 512;

struct OpenElement {
    name: html5ever::LocalName,
    /// [`TextBlock::path`] of a block directly inside this element.
    path: u64,
    /// [`TextBlock::shape`] of a block directly inside this element.
    shape: u64,
    chrome: bool,
    skipped: bool,
    link: bool,
    /// This element's number in [`ExtractedPage::element_parents`].
    serial: u32,
}

#[derive(Default)]
struct SinkState {
    page: ExtractedPage,
    /// Most followable links kept (and, separately, most `nofollow` ones).
    max_links: usize,
    followable_kept: usize,
    nofollow_kept: usize,
    open: Vec<OpenElement>,
    chrome_depth: usize,
    skip_depth: usize,
    link_depth: usize,
    in_title: bool,
    title: String,
    current: String,
    current_chars: u32,
    current_link_chars: u32,
    current_kind: Option<BlockKind>,
    /// The buffer ends in whitespace (or is empty): collapse further whitespace.
    pending_space: bool,
    /// Elements open that a tree builder nests (start tags minus end tags of the elements
    /// whose end tag is required): the depth of the DOM a DOM-building extractor walks,
    /// which [`SinkState::open`] does not show (it closes a `<td>` at the next, so 50,000
    /// nested tables stay shallow there).
    nested_depth: usize,
}

/// Elements whose end tag HTML lets a page leave out (a tree builder closes them by the next
/// sibling or the parent's end), and void elements: neither counts towards
/// [`SinkState::nested_depth`].
fn end_tag_optional_or_void(name: &str) -> bool {
    is_void(name)
        || matches!(
            name,
            "html"
                | "head"
                | "body"
                | "li"
                | "dt"
                | "dd"
                | "p"
                | "rt"
                | "rp"
                | "optgroup"
                | "option"
                | "colgroup"
                | "caption"
                | "thead"
                | "tbody"
                | "tfoot"
                | "tr"
                | "td"
                | "th"
        )
}

impl SinkState {
    /// Records the link of an `<a>`/`<area>` (`rel=nofollow` read) or a frame, if under the
    /// cap; the target's string is made only then.
    fn link_tag(&mut self, tag: &Tag, target: &str, kind: LinkKind) {
        let Some(href) = tag.attrs.iter().find(|a| &*a.name.local == target) else {
            return;
        };
        let nofollow = kind == LinkKind::Anchor
            && tag.attrs.iter().any(|a| {
                &*a.name.local == "rel" && contains_ignore_ascii_case(&a.value, "nofollow")
            });
        if self.take_link(nofollow) {
            let block = self.page.blocks.len() as u32;
            self.page.links.push(PageLink {
                href: href.value.to_string(),
                kind,
                nofollow,
                block,
            });
        }
    }

    /// Whether a link of this kind is kept (under the cap); counts it when not.
    fn take_link(&mut self, nofollow: bool) -> bool {
        let kept = if nofollow {
            &mut self.nofollow_kept
        } else {
            &mut self.followable_kept
        };
        if *kept < self.max_links {
            *kept += 1;
            true
        } else {
            if !nofollow {
                self.page.links_left_out += 1;
            }
            false
        }
    }

    fn flush_block(&mut self) {
        let text = self.current.trim_end();
        if !text.is_empty() {
            self.page.blocks.push(TextBlock {
                text: text.to_string(),
                kind: self.current_kind.unwrap_or(BlockKind::Other),
                chars: self.current_chars,
                link_chars: self.current_link_chars,
                // The buffer holds single spaces only: words = spaces + 1.
                words: text.bytes().filter(|&b| b == b' ').count() as u32 + 1,
                fingerprint: block_fingerprint(text),
                in_chrome: self.chrome_depth > 0,
                path: self.current_path(),
                shape: self.open.last().map_or(0, |e| e.shape),
                parent: self.open.last().map_or(NO_ELEMENT, |e| e.serial),
            });
        }
        self.current.clear();
        self.current_chars = 0;
        self.current_link_chars = 0;
        self.current_kind = None;
        self.pending_space = false;
    }

    /// Numbers a new element inside the innermost open one.
    fn new_element(&mut self) -> u32 {
        let serial = self.page.element_parents.len() as u32;
        self.page
            .element_parents
            .push(self.open.last().map_or(NO_ELEMENT, |e| e.serial));
        serial
    }

    fn current_path(&self) -> u64 {
        self.open.last().map_or(0, |e| e.path)
    }

    fn push_text(&mut self, text: &str) {
        if self.in_title {
            self.title.push_str(text);
            return;
        }
        if self.skip_depth > 0 {
            return;
        }
        let in_link = self.link_depth > 0;
        for c in text.chars() {
            if c.is_whitespace() {
                if !self.pending_space && !self.current.is_empty() {
                    self.current.push(' ');
                }
                self.pending_space = true;
            } else if c != '\0' {
                self.current.push(c);
                self.pending_space = false;
                self.current_chars += 1;
                if in_link {
                    self.current_link_chars += 1;
                }
            }
        }
    }

    fn start_tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        if !tag.self_closing && !end_tag_optional_or_void(name) {
            self.nested_depth += 1;
            if self.nested_depth > MAX_OPEN_ELEMENTS {
                self.page.elements_too_deep += 1;
            }
        }
        if !is_head_content(name) {
            // Content outside the head's vocabulary closes an unclosed `<head>` (as the HTML
            // tree builder does); otherwise a missing `</head>` would hide the whole body.
            self.close_open("head");
        }
        let attr = |wanted: &str| {
            tag.attrs
                .iter()
                .find(|a| &*a.name.local == wanted)
                .map(|a| a.value.to_string())
        };
        match name {
            "a" | "area" => self.link_tag(tag, "href", LinkKind::Anchor),
            "iframe" | "frame" => self.link_tag(tag, "src", LinkKind::Frame),
            "html" if self.page.lang_attribute.is_none() => {
                self.page.lang_attribute = attr("lang").filter(|l| !l.trim().is_empty());
            }
            "base" if self.page.base_href.is_none() => {
                self.page.base_href = attr("href");
            }
            "link" => {
                let is_canonical = attr("rel")
                    .map(|rel| {
                        rel.split_ascii_whitespace()
                            .any(|r| r.eq_ignore_ascii_case("canonical"))
                    })
                    .unwrap_or(false);
                if is_canonical && self.page.canonical.is_none() {
                    self.page.canonical = attr("href");
                }
            }
            "meta" => self.meta_tag(&attr),
            "title" => {
                if self.page.title.is_none() && !self.in_title {
                    self.in_title = true;
                    self.title.clear();
                }
                return TokenSinkResult::RawData(RawKind::Rcdata);
            }
            _ => {}
        }

        if let Some(kind) = block_kind(name) {
            self.flush_block();
            self.current_kind = Some(kind);
        }
        if let Some(raw) = raw_kind_of_skipped(name) {
            // Raw-text elements end at their own end tag, which the tokenizer guarantees.
            self.skip_depth += 1;
            let serial = self.new_element();
            self.open.push(OpenElement {
                name: tag.name.clone(),
                path: 0,
                shape: 0,
                chrome: false,
                skipped: true,
                link: false,
                serial,
            });
            return TokenSinkResult::RawData(raw);
        }
        if name == "textarea" {
            return TokenSinkResult::RawData(RawKind::Rcdata);
        }
        if name == "plaintext" {
            return TokenSinkResult::Plaintext;
        }
        if is_void(name) || tag.self_closing {
            return TokenSinkResult::Continue;
        }
        if self.open.len() >= MAX_OPEN_ELEMENTS {
            return TokenSinkResult::Continue;
        }
        let id = attr("id");
        let class = attr("class");
        // A `<header>`/`<footer>` inside an article or section is that part's own header (its
        // title, byline, date), not the page's banner: ARIA gives them the banner and
        // contentinfo roles only outside article, aside, main, nav and section.
        let sectioned = matches!(name, "header" | "footer")
            && self
                .open
                .iter()
                .any(|e| matches!(&*e.name, "article" | "aside" | "main" | "nav" | "section"));
        // The page's own containers are never chrome by their classes: `<html
        // class="sidebar-visible">` (mdBook) or `<main class="has-sidebar">` say how the page is
        // laid out, not that everything in it is a sidebar.
        let container = matches!(name, "html" | "body" | "main" | "article");
        let chrome = (is_chrome_element(name) && !sectioned)
            || (!container
                && (id.as_deref().is_some_and(attribute_names_chrome)
                    || class.as_deref().is_some_and(attribute_names_chrome)))
            || attr("role").is_some_and(|v| {
                matches!(
                    v.as_str(),
                    "navigation" | "banner" | "contentinfo" | "menu" | "dialog" | "alertdialog"
                )
            });
        let skipped = is_skipped_subtree(name);
        // Text of a link. A heading that links to itself (`<h2><a href="#comments">`, as
        // mdBook writes every heading) is a heading, not navigation; other links to a spot of
        // the page (a table of contents, "skip to content") are links.
        let link = name == "a"
            && attr("href").is_some_and(|href| {
                !href.trim_start().starts_with('#')
                    || !self
                        .open
                        .iter()
                        .any(|e| matches!(&*e.name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6"))
            });
        self.chrome_depth += chrome as usize;
        self.skip_depth += skipped as usize;
        self.link_depth += link as usize;
        let parent_shape = self.open.last().map_or(0, |e| e.shape);
        let path = element_path(self.current_path(), name, id.as_deref(), class.as_deref());
        let serial = self.new_element();
        self.open.push(OpenElement {
            name: tag.name.clone(),
            path,
            shape: element_path(parent_shape, name, None, None),
            chrome,
            skipped,
            link,
            serial,
        });
        TokenSinkResult::Continue
    }

    fn meta_tag(&mut self, attr: &dyn Fn(&str) -> Option<String>) {
        if let Some(meta_name) = attr("name") {
            if meta_name.eq_ignore_ascii_case("robots")
                && let Some(content) = attr("content")
            {
                self.page.robots.merge(&content);
            }
        } else if let Some(equiv) = attr("http-equiv")
            && equiv.eq_ignore_ascii_case("refresh")
            && let Some(content) = attr("content")
            && let Some(target) = meta_refresh_target(&content)
            && self.take_link(false)
        {
            let block = self.page.blocks.len() as u32;
            self.page.links.push(PageLink {
                href: target,
                kind: LinkKind::MetaRefresh,
                nofollow: false,
                block,
            });
        }
    }

    fn end_tag(&mut self, tag: &Tag) {
        let name: &str = &tag.name;
        if !end_tag_optional_or_void(name) {
            self.nested_depth = self.nested_depth.saturating_sub(1);
        }
        if name == "title" {
            if self.in_title {
                self.in_title = false;
                let title = collapse_whitespace(&self.title);
                if !title.is_empty() {
                    self.page.title = Some(title);
                }
            }
            return;
        }
        if block_kind(name).is_some() {
            self.flush_block();
        }
        self.close_open(name);
    }

    /// Pops to the innermost open element called `name`; an end tag with no open match is
    /// ignored (a stray `</div>` in broken markup must not close the whole page).
    fn close_open(&mut self, name: &str) {
        if let Some(position) = self.open.iter().rposition(|e| &*e.name == name) {
            self.page.misnested_formatting += self.open[position + 1..]
                .iter()
                .filter(|element| is_formatting_element(&element.name))
                .count() as u64;
            for element in self.open.drain(position..) {
                self.chrome_depth -= element.chrome as usize;
                self.skip_depth -= element.skipped as usize;
                self.link_depth -= element.link as usize;
            }
        }
    }
}

/// The elements a tree builder's adoption agency reopens when an ancestor closes before them
/// (the HTML standard's "formatting elements").
fn is_formatting_element(name: &str) -> bool {
    matches!(
        name,
        "a" | "b"
            | "big"
            | "code"
            | "em"
            | "font"
            | "i"
            | "nobr"
            | "s"
            | "small"
            | "strike"
            | "strong"
            | "tt"
            | "u"
    )
}

/// The path of an element inside a parent at `parent`: name, id and class words, digits
/// dropped. Inline elements (`a`, `span`, `b`…) never open blocks, so they do not reach a
/// block's path unless a block starts inside one; their attributes still count then.
fn element_path(parent: u64, name: &str, id: Option<&str>, class: Option<&str>) -> u64 {
    let mut key = String::with_capacity(64);
    key.push_str(name);
    let id = id.filter(|id| is_structural_id(name, id));
    for value in [id, class].into_iter().flatten() {
        key.push('|');
        key.extend(value.chars().filter(|c| !c.is_ascii_digit()));
    }
    xxhash_rust::xxh3::xxh3_64_with_seed(key.as_bytes(), parent)
}

/// Whether an id names a part of the template (`content`, `main-content`, `sidebar`) rather
/// than one item (a heading's anchor `control-flow-in-loops`, rustdoc's `method.len`): only
/// the former belongs in a path that pages of a host share.
fn is_structural_id(element: &str, id: &str) -> bool {
    let is_heading = matches!(element, "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
    !is_heading
        && id.split(['-', '_']).count() <= 2
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn meta_refresh_target(content: &str) -> Option<String> {
    let lower = content.to_ascii_lowercase();
    let at = lower.find("url")?;
    let rest = content[at + 3..].trim_start();
    let rest = rest.strip_prefix('=')?.trim();
    let rest = rest.trim_matches(|c| c == '\'' || c == '"');
    (!rest.is_empty()).then(|| rest.to_string())
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

struct ExtractSink {
    state: RefCell<SinkState>,
}

impl TokenSink for ExtractSink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut state = self.state.borrow_mut();
        match token {
            Token::CharacterTokens(text) => state.push_text(&text),
            Token::TagToken(tag) => match tag.kind {
                TagKind::StartTag => return state.start_tag(&tag),
                TagKind::EndTag => state.end_tag(&tag),
            },
            // Comments, doctype, NULs and parse errors carry no visible text.
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

/// Bytes of the document handed to the tokenizer at a time.
const FEED_BYTES: usize = 64 * 1024;

/// Extracts blocks, title, links and directives from an HTML document.
///
/// Never fails: malformed markup is tokenized the way browsers do (html5ever), stray end tags
/// are ignored and unclosed elements end with the document.
pub fn extract(html: &str) -> ExtractedPage {
    extract_capped(html, usize::MAX)
}

/// [`extract`], keeping at most `max_links` followable links (and at most `max_links`
/// `nofollow` ones) in document order; the followable links past the cap are only counted
/// ([`ExtractedPage::links_left_out`]). A crawler takes no more links than that from a page
/// anyway, and a link flood then costs no memory per link.
pub fn extract_capped(html: &str, max_links: usize) -> ExtractedPage {
    let html = crate::attribute_flood::cut_attribute_floods(html);
    let html: &str = &html;
    let sink = ExtractSink {
        state: RefCell::new(SinkState {
            max_links,
            ..SinkState::default()
        }),
    };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    // Fed a piece at a time (the tokenizer carries a token across pieces): the tendril is a
    // copy, and a copy of a whole 10 MiB page would be as large as the page.
    let mut rest = html;
    while !rest.is_empty() {
        let mut end = rest.len().min(FEED_BYTES);
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (piece, after) = rest.split_at(end);
        rest = after;
        input.push_back(StrTendril::from_slice(piece));
        while let TokenizerResult::Script(()) = tokenizer.feed(&input) {}
    }
    tokenizer.end();
    let mut state = tokenizer.sink.state.into_inner();
    state.flush_block();
    if state.in_title {
        let title = collapse_whitespace(&state.title);
        if !title.is_empty() {
            state.page.title = Some(title);
        }
    }
    state.page
}

/// The reference extractor: a full `scraper` DOM walk with the same skip rules, kept for
/// tests (agreement on real pages) and as the naive baseline in the benchmark.
pub fn extract_text_with_dom(html: &str) -> String {
    let document = scraper::Html::parse_document(html);
    let mut out = String::new();
    let root = document.root_element();
    for node in root.descendants() {
        if let Some(text) = node.value().as_text() {
            let hidden = node.ancestors().any(|a| {
                a.value()
                    .as_element()
                    .is_some_and(|e| hidden_in_dom(e.name()))
            });
            if !hidden {
                for word in text.split_whitespace() {
                    out.push_str(word);
                    out.push(' ');
                }
            }
        }
    }
    out
}
