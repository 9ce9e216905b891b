//! A page's name, from its title and its URL: on one host, a page of about another's size
//! whose title that page lacks, at a path that names another thing, is another page
//! (see `has_own_content` in the decision).

use crate::DocumentFingerprint;
use crate::record::StoredDocument;

/// Whether `stored`, a page of about `doc`'s size at a path that names another thing, has no
/// block with the key of `doc`'s title ([`DocumentFingerprint::name_block`]) and a title
/// that is no numbered or shortened form of it.
pub(crate) fn lacks_the_title(doc: &DocumentFingerprint, stored: &StoredDocument) -> bool {
    // A quarter more blocks may be a whole of two parts, whose titles are its subheads or
    // not in it at all ("Part 2 of 2"): a sibling of one template has about as many.
    let about_one_size = 4 * stored.blocks.len() < 5 * doc.block_fingerprints.len();
    about_one_size
        && doc
            .name_block
            .is_some_and(|title| stored.blocks.binary_search(&title).is_err())
        && !one_title_labels_the_other(&doc.name_tokens, &stored.name_tokens)
        && names_another_thing(&doc.name, &stored.name)
}

/// Whether one title is the other under a label of at most [`MAX_LABEL_TOKENS`] tokens in
/// front (token hashes in page order, neither empty): "Appendix G GNU General Public License"
/// in GNU Octave's manual and "GNU General Public License" in its C++ API manual name one text,
/// numbered in one book and not in the other (numbers are no tokens, the appendix's letter
/// is). A title with words of its own after the other's names another thing: the
/// `System.Posix.IO.ByteString` module beside `System.Posix.IO`, "Beginning Student with List
/// Abbreviations" beside "Beginning Student".
fn one_title_labels_the_other(mine: &[u32], theirs: &[u32]) -> bool {
    let labels = |longer: &[u32], shorter: &[u32]| {
        longer.ends_with(shorter) && longer.len() - shorter.len() <= MAX_LABEL_TOKENS
    };
    !mine.is_empty() && !theirs.is_empty() && (labels(mine, theirs) || labels(theirs, mine))
}

/// Tokens a title's label has at most: "Appendix G", "Chapter", "Part II", "Section A".
const MAX_LABEL_TOKENS: usize = 2;

/// Whether two URLs (or file paths) name different things: past what both start with, read
/// from their ends, a part of the path (its extension and a last `index.*` left out) that
/// differs, has a letter and is no language tag. A part only one of them has (`es/`, `amp/`,
/// `print/` before the same name) and the query do not count, nor does a part without a letter (a date, a page number), as a number is no
/// token. Why: Rust by Example's Spanish edition serves untranslated chapters under a
/// translated heading at `es/` with the chapter's file name, and they are copies; an endless
/// calendar's day pages are named by their dates and titled by them ("What's on: Tuesday 12
/// March"), and were they distinct by their names every day would be archived and its "next
/// day" link followed (the unseen-site fixtures' calendar trap); Crystal's
/// `Compress/Gzip/Error` and `Compress/Deflate/Error` are two classes.
fn names_another_thing(mine: &str, theirs: &str) -> bool {
    let (mine, theirs) = (path_parts(mine), path_parts(theirs));
    // What both paths start with is no part of either name (`book/es/x` beside `book/x`).
    let common = mine.iter().zip(&theirs).take_while(|(a, b)| a == b).count();
    mine[common..]
        .iter()
        .rev()
        .zip(theirs[common..].iter().rev())
        .any(|(a, b)| a != b && a.chars().any(char::is_alphabetic) && !is_language_tag(a))
}

/// Whether a part of a path looks like a language tag (`es`, `ja`, `pt-BR`, `zh_cn`): the
/// edition of a page, not its name (Rust by Example's `ja/` and `es/` serve the same
/// untranslated chapters under their own translated headings).
fn is_language_tag(part: &str) -> bool {
    let (language, region) = part.split_once(['-', '_']).unwrap_or((part, ""));
    (2..=3).contains(&language.len())
        && language.bytes().all(|b| b.is_ascii_lowercase())
        && (region.is_empty()
            || ((2..=4).contains(&region.len())
                && region.bytes().all(|b| b.is_ascii_alphanumeric())))
}

/// The parts of a URL's (or a file's) path, without the scheme and host, the query, the last
/// part's extension and a last `index.*`: `https://h.example/guide/index.html?x=1` gives
/// `["guide"]`, `a/b/attribute.html` gives `["a", "b", "attribute"]`.
fn path_parts(name: &str) -> Vec<&str> {
    let name = name.split(['?', '#']).next().unwrap_or(name);
    let path = match name.split_once("://") {
        Some((_, rest)) => rest.split_once('/').map_or("", |(_, path)| path),
        None => name,
    };
    let mut parts: Vec<&str> = path.split('/').filter(|part| !part.is_empty()).collect();
    if parts
        .last()
        .is_some_and(|last| last.split('.').next() == Some("index"))
    {
        parts.pop();
    }
    if let Some(last) = parts.last_mut() {
        *last = last.split('.').next().unwrap_or(last);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::{names_another_thing, one_title_labels_the_other, path_parts};

    #[test]
    fn a_numbered_title_names_what_the_unnumbered_one_names() {
        // appendix, g, gnu, general, public, licens
        let numbered = [1, 2, 3, 4, 5, 6];
        let plain = [3, 4, 5, 6];
        assert!(one_title_labels_the_other(&numbered, &plain));
        assert!(one_title_labels_the_other(&plain, &numbered));
        // system, posix, io, bytestr / system, posix, io: words of its own after the other's
        assert!(!one_title_labels_the_other(&[1, 2, 3, 4], &[1, 2, 3]));
        // a label of three tokens is a title of its own
        assert!(!one_title_labels_the_other(&[7, 8, 9, 3, 4, 5, 6], &plain));
        // compress, gzip, error / compress, deflate, error
        assert!(!one_title_labels_the_other(&[1, 2, 3], &[1, 4, 3]));
        // A page without a title labels no other's and is labelled by none.
        assert!(!one_title_labels_the_other(&[], &plain));
        assert!(!one_title_labels_the_other(&plain, &[]));
    }

    #[test]
    fn a_path_is_read_without_host_query_extension_and_index() {
        assert_eq!(path_parts("a/b/attribute.html"), ["a", "b", "attribute"]);
        assert_eq!(
            path_parts("https://h.example/es/attribute.html?x=1#top"),
            ["es", "attribute"]
        );
        assert_eq!(path_parts("https://h.example/guide/"), ["guide"]);
        assert_eq!(path_parts("https://h.example/guide/index.html"), ["guide"]);
        assert!(path_parts("https://h.example").is_empty());
    }

    #[test]
    fn a_prefix_a_date_or_a_page_number_names_no_other_thing() {
        assert!(names_another_thing(
            "api/Channel/ClosedError.html",
            "api/ArgumentError.html"
        ));
        assert!(names_another_thing(
            "Compress/Gzip/Error.html",
            "Compress/Deflate/Error.html"
        ));
        assert!(!names_another_thing("es/attribute.html", "attribute.html"));
        assert!(!names_another_thing(
            "/docs/rust-by-example/es/attribute.html",
            "/docs/rust-by-example/attribute.html"
        ));
        assert!(!names_another_thing(
            "https://h.example/amp/x",
            "https://h.example/x?ref=1"
        ));
        assert!(!names_another_thing(
            "book/ja/trait/x.html",
            "book/es/trait/x.html"
        ));
        assert!(!names_another_thing(
            "/events/2026-03-13",
            "/events/2026-03-12"
        ));
        assert!(!names_another_thing("/blog/page/3", "/blog/page/2"));
    }
}
