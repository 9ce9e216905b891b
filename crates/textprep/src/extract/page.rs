//! What extraction yields: a page's text blocks, links, robots directives and title
//! ([`ExtractedPage`]).

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
    /// Bytes of [`text`](Self::text) at its end that are link text with nothing but
    /// whitespace between them (0 when the block does not end in a link): the "Source" of a
    /// rustdoc version label "1.0.0 · Source", a "Read more", a permalink "¶", which
    /// extractors drop from text they keep.
    #[serde(default)]
    pub link_tail_bytes: u32,
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
    /// The block holds a link to the next or previous page of a sequence (`rel="next"`,
    /// `rel="prev"`): a pager line such as Texinfo's "Next: Concept Index, Previous: Grammar
    /// and Parser [Contents][Index]".
    #[serde(default)]
    pub pager: bool,
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
            link_tail_bytes: 0,
            in_chrome: false,
            path: 0,
            shape: 0,
            parent: NO_ELEMENT,
            pager: false,
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum LinkKind {
    /// `<a href>` / `<area href>`
    Anchor,
    /// `<iframe src>` / `<frame src>`
    Frame,
    /// `<meta http-equiv=refresh content="0; url=...">`
    MetaRefresh,
    /// A page URL in an inline `<script>`'s string literals ([`crate::links_in_script`]).
    Script,
    /// `<script src>` of a JavaScript file: fetched to read the page URLs in it.
    ScriptFile,
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
    /// The page's links in document order: at most the cap given to [`super::extract_capped`] of
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
    /// `<script>` elements (inline or `src`): a page with little text and a script may be
    /// one its script fills.
    #[serde(default)]
    pub scripts: u32,
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
