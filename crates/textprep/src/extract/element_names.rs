//! What an element's name says to the extraction: raw-text and skipped elements, block
//! kinds, void elements, page chrome, and how a tree builder treats an element (optional end
//! tags, formatting elements): the tables the token sink (`mod.rs`) consults per tag.

use html5ever::tokenizer::states::RawKind;

use super::BlockKind;

/// Elements whose content is never visible text.
pub(super) fn raw_kind_of_skipped(name: &str) -> Option<RawKind> {
    match name {
        "script" => Some(RawKind::ScriptData),
        // `noscript` is not here: a crawler runs no script, so its content is what the
        // crawler's reader sees (forums such as Discourse serve their posts there).
        "style" | "xmp" | "iframe" | "noembed" | "noframes" => Some(RawKind::Rawtext),
        _ => None,
    }
}

/// Elements whose whole subtree is skipped (their text is parsed normally but not kept).
pub(super) fn is_skipped_subtree(name: &str) -> bool {
    matches!(name, "template" | "svg" | "math" | "head")
}

/// Elements the DOM walk of [`super::extract_text_with_dom`] hides: html5ever's tree builder parses
/// `noscript` as raw text (scripting on), so its text node holds markup, not text.
pub(super) fn hidden_in_dom(name: &str) -> bool {
    raw_kind_of_skipped(name).is_some() || is_skipped_subtree(name) || name == "noscript"
}

pub(super) fn is_head_content(name: &str) -> bool {
    matches!(
        name,
        "head" | "title" | "meta" | "link" | "script" | "style" | "base" | "noscript" | "template"
    )
}

pub(super) fn block_kind(name: &str) -> Option<BlockKind> {
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

pub(super) fn is_void(name: &str) -> bool {
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

pub(super) fn is_chrome_element(name: &str) -> bool {
    matches!(
        name,
        "nav" | "header" | "footer" | "aside" | "menu" | "dialog"
    )
}

/// id/class words that mark page chrome on sites that do not use semantic elements.
pub(super) fn attribute_names_chrome(value: &str) -> bool {
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

/// Elements whose end tag HTML lets a page leave out (a tree builder closes them by the next
/// sibling or the parent's end), and void elements: neither counts towards
/// the sink's count of nested elements.
pub(super) fn end_tag_optional_or_void(name: &str) -> bool {
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

/// The elements a tree builder's adoption agency reopens when an ancestor closes before them
/// (the HTML standard's "formatting elements").
pub(super) fn is_formatting_element(name: &str) -> bool {
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

/// Whether an id names a part of the template (`content`, `main-content`, `sidebar`) rather
/// than one item (a heading's anchor `control-flow-in-loops`, rustdoc's `method.len`): only
/// the former belongs in a path that pages of a host share.
pub(super) fn is_structural_id(element: &str, id: &str) -> bool {
    let is_heading = matches!(element, "h1" | "h2" | "h3" | "h4" | "h5" | "h6");
    !is_heading
        && id.split(['-', '_']).count() <= 2
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}
