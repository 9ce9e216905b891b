//! The accuracy benchmark's main-content truth: what a person marking up the Rust docs would
//! call each page's content, and which of it is the host's template, decided in hindsight over
//! the whole corpus. Independent of the code under test: its own DOM walk (`scraper`), its own
//! blocks, tokens from [`crate::truth`], and no use of the crawler's extractor, host models,
//! block counts or decisions.
//!
//! * **Main content**: the element the site's generator puts an item's content in, chosen by a
//!   person once per generator: rustdoc's `#main-content`, mdBook's `<main>` (else `<body>`).
//! * **Blocks**: the text inside it, cut at block-level elements; `script`, `style`,
//!   `noscript`, `template` and `svg` are not text, and controls and navigation inside the
//!   content element (`button`, `nav`, a breadcrumb trail) are not content. Each block keeps the link targets of its
//!   `<a href>` (resolved against the page, path and query, as [`crate::truth::link_tokens`]).
//! * **Host template** (the design's "blocks that recur on many pages of the same host are not
//!   content"): a block whose text (case and whitespace folded) is on at least
//!   [`TEMPLATE_MIN_PAGES`] and at least [`TEMPLATE_MIN_SHARE`] of the host's distinct pages
//!   (pages with the same main text count once, so re-exported copies do not make their text
//!   template). The figures are the dedup's configured defaults (`dedup.boilerplate_min_pages`,
//!   `dedup.boilerplate_min_share`), the rule the README states, applied with hindsight.
//! * **Compared tokens**: the tokens of the non-template blocks (text only: link targets are
//!   no tokens of a page's text); when they are
//!   fewer than [`MIN_OWN_TOKENS`] (four 5-shingles), all main-content blocks instead, so a page
//!   that is all template plus a heading is compared on its whole content.
//!
//! Why template-aware: on a heavy template (a shop whose policy and review prose fills 95 % of
//! every product's main column; rustdoc's shared trait documentation under every iterator
//! type) distinct pages have whole-content resemblance of 0.8–0.95. A truth that called them
//! duplicates would ask the dedup to lose distinct pages, which the product must never do.

use std::collections::{BTreeSet, HashMap};

use ego_tree::NodeRef;
use scraper::{Html, Node, Selector};

use crate::truth;

/// A block must be on at least this many distinct pages of its host to be template.
pub const TEMPLATE_MIN_PAGES: usize = 3;
/// ... and on at least this share of them.
pub const TEMPLATE_MIN_SHARE: f64 = 0.05;
/// Fewer non-template tokens than this: the page is compared on all its main content.
pub const MIN_OWN_TOKENS: usize = 20;

/// One block of a page's main content.
#[derive(Debug, Clone)]
pub struct TruthBlock {
    /// xxh3 of the block's text, lowercased, whitespace collapsed.
    pub key: u64,
    pub text: String,
    pub tokens: Vec<u64>,
    pub link_tokens: Vec<u64>,
}

/// Elements that start and end a block of text.
fn is_block_element(name: &str) -> bool {
    matches!(
        name,
        "address"
            | "article"
            | "aside"
            | "blockquote"
            | "body"
            | "br"
            | "caption"
            | "dd"
            | "details"
            | "dialog"
            | "div"
            | "dl"
            | "dt"
            | "fieldset"
            | "figcaption"
            | "figure"
            | "footer"
            | "form"
            | "h1"
            | "h2"
            | "h3"
            | "h4"
            | "h5"
            | "h6"
            | "header"
            | "hgroup"
            | "hr"
            | "li"
            | "main"
            | "nav"
            | "ol"
            | "p"
            | "pre"
            | "section"
            | "summary"
            | "table"
            | "tbody"
            | "td"
            | "tfoot"
            | "th"
            | "thead"
            | "tr"
            | "ul"
    )
}

fn is_invisible(name: &str) -> bool {
    matches!(
        name,
        "script" | "style" | "noscript" | "template" | "svg" | "math" | "head" | "iframe"
    )
}

/// Parts of the content element that a person marking up content leaves out: controls
/// (`button`) and navigation (`nav`, and a breadcrumb trail by its class, as rustdoc writes
/// `<div class="rustdoc-breadcrumbs">`).
fn is_not_content(element: &scraper::node::Element) -> bool {
    matches!(element.name(), "button" | "nav")
        || element
            .attr("class")
            .is_some_and(|class| class.to_ascii_lowercase().contains("breadcrumb"))
}

struct Walk {
    base: Option<url::Url>,
    blocks: Vec<TruthBlock>,
    text: String,
    links: BTreeSet<u64>,
}

impl Walk {
    fn flush(&mut self) {
        let text = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.is_empty() {
            let key = xxhash_rust::xxh3::xxh3_64(text.to_lowercase().as_bytes());
            self.blocks.push(TruthBlock {
                key,
                tokens: truth::tokens(&text),
                link_tokens: self.links.iter().copied().collect(),
                text,
            });
        } else if !self.links.is_empty() {
            // Links with no text of their own (an icon link) go with the next block.
            return;
        }
        self.text.clear();
        self.links.clear();
    }

    fn visit(&mut self, node: NodeRef<'_, Node>) {
        match node.value() {
            Node::Text(text) => self.text.push_str(text),
            Node::Element(element) => {
                let name = element.name();
                if is_invisible(name) || is_not_content(element) {
                    return;
                }
                if name == "a"
                    && let Some(href) = element.attr("href")
                    && let Some(token) = link_token(&self.base, href)
                {
                    self.links.insert(token);
                }
                // Inline elements run together as a browser shows them.
                let block = is_block_element(name);
                if block {
                    self.flush();
                }
                for child in node.children() {
                    self.visit(child);
                }
                if block {
                    self.flush();
                }
            }
            _ => {}
        }
    }
}

/// The token of a link target as [`truth::link_tokens`] makes it: path and query of the
/// target resolved against the page, fragment dropped; `None` for links to nowhere.
fn link_token(base: &Option<url::Url>, href: &str) -> Option<u64> {
    let base = base.as_ref()?;
    let href = href.trim();
    let href = href.split('#').next().unwrap_or("");
    let lower = href.to_ascii_lowercase();
    if href.is_empty()
        || ["javascript:", "mailto:", "tel:", "data:"]
            .iter()
            .any(|p| lower.starts_with(p))
    {
        return None;
    }
    let target = base.join(href).ok()?;
    if !matches!(target.scheme(), "http" | "https" | "file") {
        return None;
    }
    let target = match target.query() {
        Some(query) => format!("{}?{query}", target.path()),
        None => target.path().to_string(),
    };
    Some(xxhash_rust::xxh3::xxh3_64(
        format!("link {target}").as_bytes(),
    ))
}

/// The main-content blocks of a page at `page_path` (its path on its site, e.g.
/// `/std/index.html`).
pub fn main_blocks(html: &str, page_path: &str) -> Vec<TruthBlock> {
    let document = Html::parse_document(html);
    let base = url::Url::parse("file:///")
        .and_then(|root| root.join(page_path))
        .ok();
    let root = ["#main-content", "main", "body"]
        .iter()
        .filter_map(|s| Selector::parse(s).ok())
        .find_map(|selector| document.select(&selector).next());
    let mut walk = Walk {
        base,
        blocks: Vec::new(),
        text: String::new(),
        links: BTreeSet::new(),
    };
    if let Some(root) = root {
        walk.visit(*root);
    }
    walk.flush();
    walk.blocks
}

/// The compared token lists of every page, given each page's host and blocks: `plain` (all
/// main-content blocks) and `own` (the host's template left out, see the module doc).
pub struct ComparedTokens {
    pub plain: Vec<Vec<u64>>,
    pub own: Vec<Vec<u64>>,
    /// Template blocks per host (distinct block texts).
    pub template_blocks: HashMap<String, usize>,
    /// Distinct pages per host.
    pub distinct_pages: HashMap<String, usize>,
}

fn tokens_of<'a>(blocks: impl Iterator<Item = &'a TruthBlock>) -> Vec<u64> {
    blocks.flat_map(|b| b.tokens.iter().copied()).collect()
}

/// Applies the hindsight template to pages `(host, blocks)`.
pub fn compared_tokens(pages: &[(String, Vec<TruthBlock>)]) -> ComparedTokens {
    // Distinct pages of each host, by their main text.
    let mut distinct: HashMap<&str, HashMap<u64, &Vec<TruthBlock>>> = HashMap::new();
    for (host, blocks) in pages {
        let digest = blocks
            .iter()
            .fold(0x9e37_79b9_7f4a_7c15u64, |h, b| h.rotate_left(5) ^ b.key);
        distinct
            .entry(host.as_str())
            .or_default()
            .insert(digest, blocks);
    }
    let mut template: HashMap<&str, rustc_hash::FxHashSet<u64>> = HashMap::new();
    let mut template_blocks = HashMap::new();
    let mut distinct_pages = HashMap::new();
    for (host, host_pages) in &distinct {
        let mut df: HashMap<u64, usize> = HashMap::new();
        for blocks in host_pages.values() {
            let keys: BTreeSet<u64> = blocks.iter().map(|b| b.key).collect();
            for key in keys {
                *df.entry(key).or_default() += 1;
            }
        }
        let n = host_pages.len();
        let min = TEMPLATE_MIN_PAGES.max((TEMPLATE_MIN_SHARE * n as f64).ceil() as usize);
        let set: rustc_hash::FxHashSet<u64> = df
            .into_iter()
            .filter(|&(_, count)| count >= min)
            .map(|(key, _)| key)
            .collect();
        template_blocks.insert(host.to_string(), set.len());
        distinct_pages.insert(host.to_string(), n);
        template.insert(host, set);
    }
    let mut plain = Vec::with_capacity(pages.len());
    let mut own = Vec::with_capacity(pages.len());
    for (host, blocks) in pages {
        let all = tokens_of(blocks.iter());
        let host_template = &template[host.as_str()];
        let mine = tokens_of(blocks.iter().filter(|b| !host_template.contains(&b.key)));
        own.push(if mine.len() >= MIN_OWN_TOKENS {
            mine
        } else {
            all.clone()
        });
        plain.push(all);
    }
    ComparedTokens {
        plain,
        own,
        template_blocks,
        distinct_pages,
    }
}
