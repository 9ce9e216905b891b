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

mod element_names;
mod page;

use element_names::{
    attribute_names_chrome, block_kind, end_tag_optional_or_void, hidden_in_dom, is_chrome_element,
    is_formatting_element, is_head_content, is_skipped_subtree, is_structural_id, is_void,
    raw_kind_of_skipped,
};
pub use page::{
    BlockKind, ExtractedPage, LinkKind, NO_ELEMENT, PageLink, RobotsMeta, TextBlock,
    block_fingerprint,
};

/// `needle` (ASCII, lowercase) in `haystack` in any case, without allocating.
pub(crate) fn contains_ignore_ascii_case(haystack: &str, needle: &str) -> bool {
    haystack
        .as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
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
    /// Chrome by its id or class alone (not by its element or role): see
    /// [`SinkState::open_main_landmark`].
    chrome_by_name: bool,
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
    /// Where in `current` the run of link text it ends in starts (see
    /// [`TextBlock::link_tail_bytes`]), `None` when it does not end in a link.
    current_link_tail: Option<usize>,
    /// The block being read holds a `rel="next"`/`rel="prev"` link.
    current_pager: bool,
    current_kind: Option<BlockKind>,
    /// The buffer ends in whitespace (or is empty): collapse further whitespace.
    pending_space: bool,
    /// Elements open that a tree builder nests (start tags minus end tags of the elements
    /// whose end tag is required): the depth of the DOM a DOM-building extractor walks,
    /// which [`SinkState::open`] does not show (it closes a `<td>` at the next, so 50,000
    /// nested tables stay shallow there).
    nested_depth: usize,
    /// Inside an inline `<script>`: its text goes to `script_text`, read for links at its end.
    in_script: bool,
    script_text: String,
    /// The key [`element_path`] hashes, reused from element to element (no string per element).
    path_key: String,
}

/// Most bytes of one inline script read for links (the rest is not read).
const MAX_INLINE_SCRIPT_BYTES: usize = 1 << 20;

/// Whether a `<script type>` is JavaScript (a file worth fetching for its links).
fn is_javascript_type(script_type: Option<&str>) -> bool {
    let Some(script_type) = script_type.map(str::trim).filter(|t| !t.is_empty()) else {
        return true;
    };
    let essence = script_type.split(';').next().unwrap_or("").trim();
    [
        "module",
        "text/javascript",
        "application/javascript",
        "text/ecmascript",
        "application/ecmascript",
    ]
    .iter()
    .any(|known| essence.eq_ignore_ascii_case(known))
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

    /// The page URLs in the inline script just ended, as links of the page.
    fn script_links(&mut self) {
        self.in_script = false;
        let text = std::mem::take(&mut self.script_text);
        let left = self.max_links.saturating_sub(self.followable_kept);
        for href in crate::links_in_script(&text, left) {
            if self.take_link(false) {
                let block = self.page.blocks.len() as u32;
                self.page.links.push(PageLink {
                    href,
                    kind: LinkKind::Script,
                    nofollow: false,
                    block,
                });
            }
        }
        self.script_text = text;
        self.script_text.clear();
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
                link_tail_bytes: self
                    .current_link_tail
                    .map_or(0, |start| text.len().saturating_sub(start) as u32),
                // The buffer holds single spaces only: words = spaces + 1.
                words: text.bytes().filter(|&b| b == b' ').count() as u32 + 1,
                fingerprint: block_fingerprint(text),
                in_chrome: self.chrome_depth > 0,
                path: self.current_path(),
                shape: self.open.last().map_or(0, |e| e.shape),
                parent: self.open.last().map_or(NO_ELEMENT, |e| e.serial),
                pager: self.current_pager,
            });
        }
        self.current.clear();
        self.current_chars = 0;
        self.current_link_chars = 0;
        self.current_link_tail = None;
        self.current_pager = false;
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
        if self.in_script {
            if self.script_text.len() < MAX_INLINE_SCRIPT_BYTES {
                self.script_text.push_str(text);
            }
            return;
        }
        if self.skip_depth > 0 {
            return;
        }
        let in_link = self.link_depth > 0;
        // Whitespace collapses to one space; the words between are copied a run at a time.
        let mut words = text.split(char::is_whitespace);
        if let Some(first) = words.next() {
            self.push_word(first, in_link);
        }
        for word in words {
            if !self.pending_space && !self.current.is_empty() {
                self.current.push(' ');
            }
            self.pending_space = true;
            self.push_word(word, in_link);
        }
    }

    /// Appends a run of text without whitespace to the block (NUL characters left out).
    fn push_word(&mut self, word: &str, in_link: bool) {
        if word.contains('\0') {
            let mut piece = [0u8; 4];
            for c in word.chars().filter(|&c| c != '\0') {
                self.push_word(c.encode_utf8(&mut piece), in_link);
            }
            return;
        }
        if word.is_empty() {
            return;
        }
        if !in_link {
            self.current_link_tail = None;
        } else if self.current_link_tail.is_none() {
            self.current_link_tail = Some(self.current.len());
        }
        self.current.push_str(word);
        self.pending_space = false;
        let chars = word.chars().count() as u32;
        self.current_chars += chars;
        if in_link {
            self.current_link_chars += chars;
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
        // Borrowed on the path every element takes; owned only for what the page keeps.
        let attr_ref = |wanted: &str| {
            tag.attrs
                .iter()
                .find(|a| &*a.name.local == wanted)
                .map(|a| &*a.value)
        };
        let attr = |wanted: &str| attr_ref(wanted).map(str::to_string);
        match name {
            "a" | "area" => self.link_tag(tag, "href", LinkKind::Anchor),
            "iframe" | "frame" => self.link_tag(tag, "src", LinkKind::Frame),
            "script" => {
                self.page.scripts += 1;
                if is_javascript_type(attr("type").as_deref()) {
                    self.link_tag(tag, "src", LinkKind::ScriptFile);
                }
                self.in_script = true;
                self.script_text.clear();
            }
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
                chrome_by_name: false,
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
        let id = attr_ref("id");
        let class = attr_ref("class");
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
        let role = attr_ref("role");
        let chrome_by_element = (is_chrome_element(name) && !sectioned)
            || role.is_some_and(|v| {
                matches!(
                    v,
                    "navigation" | "banner" | "contentinfo" | "menu" | "dialog" | "alertdialog"
                )
            });
        let main_landmark = name == "main" || role == Some("main");
        let chrome_by_name = !chrome_by_element
            && !container
            && !main_landmark
            && (id.is_some_and(attribute_names_chrome)
                || class.is_some_and(attribute_names_chrome));
        let chrome = chrome_by_element || chrome_by_name;
        if main_landmark {
            self.open_main_landmark();
        }
        let skipped = is_skipped_subtree(name);
        // Text of a link. A heading that links to itself (`<h2><a href="#comments">`, as
        // mdBook writes every heading) is a heading, not navigation; other links to a spot of
        // the page (a table of contents, "skip to content") are links.
        let link = name == "a"
            && attr_ref("href").is_some_and(|href| {
                !href.trim_start().starts_with('#')
                    || !self
                        .open
                        .iter()
                        .any(|e| matches!(&*e.name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6"))
            });
        self.chrome_depth += chrome as usize;
        self.skip_depth += skipped as usize;
        self.link_depth += link as usize;
        // Read in place: a link is per page element, no string is made for its `rel`.
        if link
            && tag.attrs.iter().any(|a| {
                &*a.name.local == "rel"
                    && (contains_ignore_ascii_case(&a.value, "next")
                        || contains_ignore_ascii_case(&a.value, "prev"))
            })
        {
            self.current_pager = true;
        }
        let parent_shape = self.open.last().map_or(0, |e| e.shape);
        let parent_path = self.current_path();
        let path = element_path(&mut self.path_key, parent_path, name, id, class);
        let shape = element_path(&mut self.path_key, parent_shape, name, None, None);
        let serial = self.new_element();
        self.open.push(OpenElement {
            name: tag.name.clone(),
            path,
            shape,
            chrome,
            chrome_by_name,
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
        if name == "script" && self.in_script {
            self.script_links();
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

    /// The page's main landmark (`<main>`, `role="main"`) opens: the elements around it are
    /// not chrome by their names. Why: a layout wrapper may be named after the sidebar it
    /// sits beside. The Read the Docs theme (Sphinx's most used) puts every page in
    /// `<div class="wy-grid-for-nav">` and its text in `<div class="wy-nav-content">`, so all
    /// of GHC's user's guide was page chrome: the per-page rules kept nothing and a host's
    /// model fell back to dropping it (2026-11-28). Elements that are chrome by what they are
    /// (`<nav>`, `<aside>`, `role="navigation"`) stay so.
    fn open_main_landmark(&mut self) {
        for element in self
            .open
            .iter_mut()
            .filter(|e| e.chrome_by_name && e.chrome)
        {
            element.chrome = false;
            self.chrome_depth -= 1;
        }
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

/// The path of an element inside a parent at `parent`: name, id and class words, digits
/// dropped. Inline elements (`a`, `span`, `b`…) never open blocks, so they do not reach a
/// block's path unless a block starts inside one; their attributes still count then.
fn element_path(
    key: &mut String,
    parent: u64,
    name: &str,
    id: Option<&str>,
    class: Option<&str>,
) -> u64 {
    key.clear();
    key.push_str(name);
    let id = id.filter(|id| is_structural_id(name, id));
    for value in [id, class].into_iter().flatten() {
        key.push('|');
        key.extend(value.chars().filter(|c| !c.is_ascii_digit()));
    }
    xxhash_rust::xxh3::xxh3_64_with_seed(key.as_bytes(), parent)
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
