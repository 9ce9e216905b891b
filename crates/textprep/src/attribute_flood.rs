//! Tags with an absurd number of attributes, cut before html5ever sees them.
//!
//! html5ever's tokenizer looks for a duplicate among a tag's attributes one by one, so a tag's
//! cost grows with the square of its attributes: one tag of 300,000 attributes (2.9 MB) took
//! 23 s, and a 10 MiB body of them would hold a page thread for minutes. Real tags carry a few
//! dozen. A tag past [`MAX_ATTRIBUTES`] keeps its first ones and loses the rest (its text and
//! links are elsewhere); a page with no such tag is passed through untouched, unallocated.
//!
//! ```
//! use dedupcrawl_textprep::cut_attribute_floods;
//! let flood = format!("<p {}>text</p>", "a=1 ".repeat(5_000));
//! let cut = cut_attribute_floods(&flood);
//! assert!(cut.len() < 10_000 && cut.ends_with(">text</p>"));
//! assert!(matches!(cut_attribute_floods("<p class=x>text</p>"), std::borrow::Cow::Borrowed(_)));
//! ```
//!
//! Why hand-written: no crate bounds this, and the scan is a few lines. It reads tags as
//! html5ever's tokenizer does (`<` and a letter open one; a quote opens a value only after
//! `=`), skips comments and the text of scripts, style sheets and the like, and measured on
//! every page of WCXB dev, ScrapingHub and a sample of the Rust docs it cuts nothing.

use std::borrow::Cow;

/// Attributes a tag keeps at most.
pub const MAX_ATTRIBUTES: usize = 1_024;

/// `html` with every tag past [`MAX_ATTRIBUTES`] attributes cut after its first ones.
pub fn cut_attribute_floods(html: &str) -> Cow<'_, str> {
    let bytes = html.as_bytes();
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while let Some(offset) = memchr::memchr(b'<', &bytes[at..]) {
        let start = at + offset;
        at = start + 1;
        if bytes[at..].starts_with(b"!--") {
            // A comment: no tag inside it.
            at = find(bytes, at + 3, b"-->").map_or(bytes.len(), |end| end + 3);
            continue;
        }
        if !bytes.get(at).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let name_end = at
            + bytes[at..]
                .iter()
                .position(|b| b.is_ascii_whitespace() || matches!(b, b'>' | b'/'))
                .unwrap_or(bytes.len() - at);
        let name = &bytes[at..name_end];
        let (end, cut_from) = scan_tag(bytes, name_end);
        if let Some(cut_from) = cut_from {
            cuts.push((cut_from, end));
        }
        at = end;
        // The text of a script, a style sheet and the like is not markup: on to its end tag.
        if let Some(raw) = RAW_TEXT_ELEMENTS
            .iter()
            .find(|raw| name.eq_ignore_ascii_case(raw.as_bytes()))
        {
            at = find_end_tag(bytes, at, raw.as_bytes()).unwrap_or(bytes.len());
        }
    }
    if cuts.is_empty() {
        return Cow::Borrowed(html);
    }
    let mut out = String::with_capacity(html.len());
    let mut from = 0;
    for (cut_from, end) in cuts {
        out.push_str(&html[from..cut_from]);
        from = end;
    }
    out.push_str(&html[from..]);
    Cow::Owned(out)
}

/// Elements whose content the tokenizer reads as text, not markup.
const RAW_TEXT_ELEMENTS: [&str; 7] = [
    "script", "style", "textarea", "title", "xmp", "noembed", "noframes",
];

/// Where `needle` next occurs in `bytes` from `from`.
fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(&bytes[from.min(bytes.len())..], needle).map(|at| from + at)
}

/// Where the end tag `</name` (any case) next begins in `bytes` from `from`.
fn find_end_tag(bytes: &[u8], mut from: usize, name: &[u8]) -> Option<usize> {
    while let Some(at) = find(bytes, from, b"</") {
        let candidate = bytes.get(at + 2..at + 2 + name.len())?;
        if candidate.eq_ignore_ascii_case(name) {
            return Some(at);
        }
        from = at + 2;
    }
    None
}

/// Scans the attributes of a tag from `at` (just past its name) as the tokenizer does (a
/// quote opens a value only after `=`; in a name it is a character of the name): where the
/// tag ends (at its `>`, or the input's end), and, past [`MAX_ATTRIBUTES`] attributes, where
/// the first attribute too many begins.
fn scan_tag(bytes: &[u8], mut at: usize) -> (usize, Option<usize>) {
    let mut attributes = 0;
    let mut cut_from = None;
    let skip_whitespace = |at: &mut usize| {
        while *at < bytes.len() && bytes[*at].is_ascii_whitespace() {
            *at += 1;
        }
    };
    loop {
        // Before an attribute's name.
        while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
            at += 1;
        }
        match bytes.get(at) {
            None => return (bytes.len(), cut_from),
            Some(b'>') => return (at, cut_from),
            Some(_) => {}
        }
        attributes += 1;
        if attributes > MAX_ATTRIBUTES && cut_from.is_none() {
            cut_from = Some(at);
        }
        // The name (its first character may be `=`).
        at += 1;
        while at < bytes.len()
            && !bytes[at].is_ascii_whitespace()
            && !matches!(bytes[at], b'/' | b'>' | b'=')
        {
            at += 1;
        }
        skip_whitespace(&mut at);
        if bytes.get(at) != Some(&b'=') {
            continue;
        }
        at += 1;
        skip_whitespace(&mut at);
        match bytes.get(at) {
            Some(&quote) if quote == b'"' || quote == b'\'' => {
                at =
                    memchr::memchr(quote, &bytes[at + 1..]).map_or(bytes.len(), |q| at + 1 + q + 1);
            }
            _ => {
                while at < bytes.len() && !bytes[at].is_ascii_whitespace() && bytes[at] != b'>' {
                    at += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_text_and_comments_are_not_read_as_tags() {
        let words = "w ".repeat(5_000);
        for html in [
            format!("<script>if (a<b {words}) {{}}</script><p>t</p>"),
            format!("<STYLE>a<b {words}</style><p>t</p>"),
            format!("<!-- <a {words} --><p>t</p>"),
        ] {
            assert!(matches!(cut_attribute_floods(&html), Cow::Borrowed(_)));
        }
    }

    #[test]
    fn a_flood_is_cut_after_the_first_attributes_and_the_rest_of_the_page_stays() {
        let attributes: String = (0..5_000).map(|i| format!(" a{i}=\"v>{i}\"")).collect();
        let html = format!("<html><body><p{attributes}>Hello</p><a href=/x>link</a></body></html>");
        let cut = cut_attribute_floods(&html);
        assert!(cut.contains(" a1023=\"v>1023\""));
        assert!(!cut.contains(" a1024="));
        assert!(cut.ends_with(">Hello</p><a href=/x>link</a></body></html>"));
    }

    #[test]
    fn ordinary_markup_is_untouched() {
        for html in [
            "<p class=\"a b\" id='x>y'>t</p>",
            "a < b and c<d e f",
            "<a href=x",
            "<",
            "<p title=\"unterminated",
            "<script>if (a<b c d) { x = 'don\\'t' }</script><p>t</p>",
            "<!-- <a b c d e> -->",
        ] {
            assert!(
                matches!(cut_attribute_floods(html), Cow::Borrowed(_)),
                "{html}"
            );
        }
    }
}
