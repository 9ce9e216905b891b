//! Links written in JavaScript: the string literals of a script that name pages.
//!
//! A crawler runs no script, so a site whose navigation a script writes (mdBook's sidebar is
//! `toc-*.js` setting `innerHTML` to the whole table of contents) shows it no links. This
//! reads the script's string literals (`'…'`, `"…"`, `` `…` `` with their escapes decoded;
//! comments and regular-expression literals skipped) and takes from each:
//!
//! * **markup** (a literal holding `<a href=…>`, `<iframe src=…>`): the targets of its
//!   anchors, areas and frames, read by html5ever's tokenizer as the page's own links are;
//! * **a URL**: an absolute `http(s)://` URL, or a relative one whose path ends in a page name
//!   ([`PAGE_EXTENSIONS`]) or, starting with `/`, `./` or `../`, in a `/`.
//!
//! The rule is tight on purpose: a candidate that is not a page costs a fetch (and a 4xx), so
//! words, paths of scripts, styles and images, and strings built at run time (a template
//! literal's `${…}` parts) are not taken. A script's literals resolve against what the
//! caller says (the page's base for an inline script, the script's own URL for a file: mdBook
//! writes its table of contents relative to the book's root, where its scripts are).
//!
//! ```
//! use dedupcrawl_textprep::links_in_script;
//!
//! let script = r#"
//!     // a comment: "ignored.html"
//!     this.innerHTML = '<ol><li><a href="ch01.html">One</a></li><li><a href="ch02.html">Two</a></ol>';
//!     const next = "/guide/setup.html", icon = "img/logo.png", pattern = /"x.html"/g;
//!     location.href = `${root}/dynamic.html`;
//! "#;
//! assert_eq!(links_in_script(script, 100), ["ch01.html", "ch02.html", "/guide/setup.html"]);
//! ```

use html5ever::TokenizerResult;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};
use std::cell::RefCell;

use crate::extract::contains_ignore_ascii_case;

/// Path endings of a relative literal taken as a page (compared case-insensitively).
pub const PAGE_EXTENSIONS: &[&str] = &[
    ".html", ".htm", ".xhtml", ".shtml", ".php", ".asp", ".aspx", ".jsp",
];

/// Longest literal read as a URL; longer ones are markup or data, never one link.
const MAX_URL_LITERAL: usize = 2048;

/// The page links in `source`'s string literals, in order, at most `max_links` (duplicates
/// kept once).
pub fn links_in_script(source: &str, max_links: usize) -> Vec<String> {
    let mut links = Vec::new();
    for_each_string_literal(source, |literal, dynamic| {
        if links.len() >= max_links {
            return false;
        }
        for link in links_in_literal(literal, dynamic) {
            if links.len() < max_links && !links.contains(&link) {
                links.push(link);
            }
        }
        true
    });
    links
}

/// What one literal names: the links of its markup, or itself when it is a page URL.
/// `dynamic`: a template literal with `${…}` parts (its text is not a whole URL).
fn links_in_literal(literal: &str, dynamic: bool) -> Vec<String> {
    if literal.contains('<')
        && (contains_ignore_ascii_case(literal, "href")
            || contains_ignore_ascii_case(literal, "src"))
    {
        return links_in_markup(literal);
    }
    if !dynamic && is_page_url(literal) {
        return vec![literal.to_string()];
    }
    Vec::new()
}

/// Whether a literal is a URL of a page by the module's rule.
fn is_page_url(literal: &str) -> bool {
    if literal.is_empty() || literal.len() > MAX_URL_LITERAL {
        return false;
    }
    let bad = |c: char| {
        c.is_whitespace() || c.is_control() || "<>\"'`{}|\\^*[]$".contains(c) || !c.is_ascii()
    };
    if literal.chars().any(bad) {
        return false;
    }
    let lower = literal.get(..8).unwrap_or(literal).to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return url::Url::parse(literal).is_ok_and(|url| url.host_str().is_some());
    }
    if literal.starts_with("//") || literal.contains(':') || literal.starts_with('#') {
        return false;
    }
    let path = literal.split(['?', '#']).next().unwrap_or("");
    let path_lower = path.to_ascii_lowercase();
    // A page name: something before the extension, and not a folder (`dir/.html`).
    let named_page = PAGE_EXTENSIONS.iter().any(|ext| {
        path_lower
            .strip_suffix(ext)
            .is_some_and(|stem| !stem.is_empty() && !stem.ends_with('/'))
    });
    let folder = path.ends_with('/')
        && (path.starts_with('/') || path.starts_with("./") || path.starts_with("../"))
        && path.chars().any(|c| c.is_ascii_alphabetic());
    named_page || folder
}

/// Targets of the anchors, areas and frames in a piece of markup.
fn links_in_markup(markup: &str) -> Vec<String> {
    let sink = MarkupLinks::default();
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(markup));
    while let TokenizerResult::Script(()) = tokenizer.feed(&input) {}
    tokenizer.end();
    tokenizer.sink.links.into_inner()
}

#[derive(Default)]
struct MarkupLinks {
    links: RefCell<Vec<String>>,
}

impl TokenSink for MarkupLinks {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        if let Token::TagToken(tag) = token
            && tag.kind == TagKind::StartTag
        {
            let wanted = match &*tag.name {
                "a" | "area" => "href",
                "iframe" | "frame" => "src",
                _ => return TokenSinkResult::Continue,
            };
            if let Some(attr) = tag.attrs.iter().find(|a| &*a.name.local == wanted) {
                let value = attr.value.trim();
                if !value.is_empty() && !value.contains("${") {
                    self.links.borrow_mut().push(value.to_string());
                }
            }
        }
        TokenSinkResult::Continue
    }
}

/// Calls `found(literal, dynamic)` for each string literal of `source` until it returns
/// false. Comments and regular-expression literals are skipped; an unterminated `'`/`"`
/// literal ends at the line's end (and is dropped).
fn for_each_string_literal(source: &str, mut found: impl FnMut(&str, bool) -> bool) {
    let bytes = source.as_bytes();
    let mut at = 0;
    // The last byte that is not whitespace: whether a `/` starts a regular expression.
    let mut previous = b'(';
    let mut literal = String::new();
    while at < bytes.len() {
        let byte = bytes[at];
        match byte {
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                at = memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |n| at + n);
                continue;
            }
            b'/' if bytes.get(at + 1) == Some(&b'*') => {
                at = memchr::memmem::find(&bytes[at + 2..], b"*/")
                    .map_or(bytes.len(), |n| at + n + 4);
                continue;
            }
            b'/' if starts_expression(previous) => {
                at = end_of_regex(bytes, at + 1);
                previous = b'/';
                continue;
            }
            b'\'' | b'"' | b'`' => {
                let (end, terminated, dynamic) = read_literal(source, at, &mut literal);
                at = end;
                previous = byte;
                if terminated && !found(&literal, dynamic) {
                    return;
                }
                continue;
            }
            _ => {}
        }
        if !byte.is_ascii_whitespace() {
            previous = byte;
        }
        at += 1;
    }
}

/// Whether a `/` after this byte starts a regular expression rather than dividing.
fn starts_expression(previous: u8) -> bool {
    b"(,=:[!&|?{};+-*%<>~^".contains(&previous)
}

/// Just past the regular expression literal whose body starts at `at`.
fn end_of_regex(bytes: &[u8], mut at: usize) -> usize {
    let mut in_class = false;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 1,
            b'[' => in_class = true,
            b']' => in_class = false,
            b'/' if !in_class => return at + 1,
            b'\n' => return at,
            _ => {}
        }
        at += 1;
    }
    at
}

/// Reads the literal opening at `start` into `out` (escapes decoded). Returns the index just
/// past it, whether it was closed, and whether it is a template literal with `${…}` parts
/// (whose expressions are skipped, their text not kept).
fn read_literal(source: &str, start: usize, out: &mut String) -> (usize, bool, bool) {
    let bytes = source.as_bytes();
    let quote = bytes[start];
    let mut at = start + 1;
    let mut dynamic = false;
    out.clear();
    while at < bytes.len() {
        let byte = bytes[at];
        if byte == quote {
            return (at + 1, true, dynamic);
        }
        match byte {
            b'\n' if quote != b'`' => return (at, false, dynamic),
            b'\\' => at = read_escape(source, at + 1, out),
            b'$' if quote == b'`' && bytes.get(at + 1) == Some(&b'{') => {
                dynamic = true;
                at = end_of_expression(bytes, at + 2);
            }
            _ => {
                let width = utf8_width(byte);
                out.push_str(&source[at..(at + width).min(source.len())]);
                at += width;
            }
        }
    }
    (at, false, dynamic)
}

/// Just past the `}` closing a template literal's `${` expression whose body starts at `at`.
fn end_of_expression(bytes: &[u8], mut at: usize) -> usize {
    let mut depth = 1;
    while at < bytes.len() {
        match bytes[at] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return at + 1;
                }
            }
            _ => {}
        }
        at += 1;
    }
    at
}

/// Decodes the escape whose character is at `at` into `out`; returns the index past it.
fn read_escape(source: &str, at: usize, out: &mut String) -> usize {
    let bytes = source.as_bytes();
    let Some(&byte) = bytes.get(at) else {
        return at;
    };
    let hex = |from: usize, len: usize| {
        source
            .get(from..from + len)
            .and_then(|digits| u32::from_str_radix(digits, 16).ok())
            .and_then(char::from_u32)
    };
    match byte {
        b'n' => out.push('\n'),
        b't' => out.push('\t'),
        b'r' => out.push('\r'),
        b'x' => {
            if let Some(c) = hex(at + 1, 2) {
                out.push(c);
                return at + 3;
            }
        }
        b'u' if bytes.get(at + 1) != Some(&b'{') => {
            if let Some(c) = hex(at + 1, 4) {
                out.push(c);
                return at + 5;
            }
        }
        b'\n' => {}
        _ => {
            let width = utf8_width(byte);
            out.push_str(&source[at..(at + width).min(source.len())]);
            return at + width;
        }
    }
    at + 1
}

/// Bytes of the UTF-8 sequence a lead byte starts (1 for a stray continuation byte).
fn utf8_width(lead: u8) -> usize {
    match lead {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_urls_by_the_rule() {
        for taken in [
            "ch01.html",
            "../guide/intro.htm",
            "/docs/",
            "./next/",
            "https://example.org/any/path",
            "page.php?id=3",
            "a/b/index.html#top",
        ] {
            assert!(is_page_url(taken), "{taken}");
        }
        for left in [
            "click",
            "/api/items",
            "style.css",
            "img/logo.png",
            "app.js",
            ".html",
            "dir/.html",
            "some words.html",
            "mailto:a@b.c",
            "//cdn.example.org/x.html",
            "*.html",
            "text/html",
            "/",
            "#section",
            "javascript:void(0)",
        ] {
            assert!(!is_page_url(left), "{left}");
        }
    }

    #[test]
    fn escapes_comments_and_regexes() {
        let script = r#"
            /* "a.html" */ var x = 'sub\/it\'s'; var v = 'sub\/it.html'; var y = "b\u002ehtml"; // "c.html"
            var re = /["'].html/; var z = 10 / 2 / 1; var w = "d.html";
            var t = `plain.html`;
        "#;
        assert_eq!(
            links_in_script(script, 10),
            ["sub/it.html", "b.html", "d.html", "plain.html"]
        );
    }

    #[test]
    fn markup_in_literals() {
        let script = r#"el.innerHTML = "<a href=\"x.html\">x</a><iframe src='f.html'></iframe><a href=\"${y}.html\">";"#;
        assert_eq!(links_in_script(script, 10), ["x.html", "f.html"]);
    }

    #[test]
    fn capped_and_deduplicated() {
        let script = r#"["a.html", "a.html", "b.html", "c.html"]"#;
        assert_eq!(links_in_script(script, 2), ["a.html", "b.html"]);
    }

    #[test]
    fn unterminated_and_odd_bytes_do_not_panic() {
        for script in [
            "'abc",
            "\"x\\",
            "`${",
            "/[",
            "'é\\u00",
            "\"\\x4",
            "a = 'ü.html'",
        ] {
            links_in_script(script, 10);
        }
    }
}
