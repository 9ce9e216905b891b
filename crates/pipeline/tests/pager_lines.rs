//! One text in two manuals of a host, as GNU Texinfo writes them: a pager line above and below
//! ("Next: …, Previous: …", links with `rel="next"`/`rel="prev"`) and a numbered heading in one
//! manual. The pager says where a page sits, not what it says, and the heading's label names
//! no other text: the second page is a near duplicate of the first.

use crate::common;

use common::{prose, stage};
use dedupcrawl_index::DedupDecision;
use dedupcrawl_pipeline::DedupStage;
use dedupcrawl_textprep::View;

/// A Texinfo node: pager line, heading, 20 paragraphs of one text, pager line again. With
/// `rel` the pager's links say they are the sequence's next and previous pages.
fn texinfo_node(heading: &str, next: &str, previous: &str, rel: bool) -> String {
    let (next_rel, previous_rel) = if rel {
        (" rel=\"next\"", " rel=\"prev\"")
    } else {
        ("", "")
    };
    let pager = format!(
        "<div class=\"header\"><p>Next: <a href=\"{next}.html\"{next_rel}>{next}</a>, \
         Previous: <a href=\"{previous}.html\"{previous_rel}>{previous}</a> \
         [<a href=\"index.html#SEC_Contents\" rel=\"contents\">Contents</a>]\
         [<a href=\"Concept-Index.html\" rel=\"index\">Index</a>]</p></div><hr>"
    );
    let text: String = (0..20)
        .map(|p| format!("<p>{}</p>", prose(9_000 + p, 40)))
        .collect();
    format!(
        "<html lang=\"en\"><head><title>{heading}</title></head><body>\
         <div class=\"appendix\" id=\"Copying\">{pager}<h2 class=\"appendix\">{heading}</h2>\
         {text}<hr>{pager}</div></body></html>"
    )
}

/// The decision on the octave manual's node, checked after the liboctave manual's.
fn second_manual(heading: &str, rel: bool) -> DedupDecision {
    let dir = tempfile::tempdir().unwrap();
    let stage: DedupStage = stage(dir.path(), View::MainContent);
    let check = |name: &str, html: &str| {
        stage
            .check_html(name, "manuals.example", html.as_bytes(), html)
            .unwrap()
            .decision
    };
    let first = texinfo_node(
        "GNU General Public License",
        "Brief Introduction to Octave",
        "Acknowledgements",
        rel,
    );
    assert!(check("https://manuals.example/liboctave/Copying.html", &first).is_new());
    let second = texinfo_node(heading, "Concept Index", "Grammar and Parser", rel);
    check("https://manuals.example/octave/Copying.html", &second)
}

#[test]
fn one_text_under_another_pager_and_a_numbered_heading_is_a_near_duplicate() {
    match second_manual("Appendix G GNU General Public License", true) {
        DedupDecision::NearDuplicate { of, .. } => {
            assert_eq!(of.name, "https://manuals.example/liboctave/Copying.html");
        }
        other => panic!("the same license in the second manual: {other:?}"),
    }
}

#[test]
fn a_pager_without_rel_is_words_of_the_page_own() {
    // The same pages with plain links: the pager lines' words (11 tokens) and the label count
    // as the page's own content, which keeps it apart. The case tests the pager rule.
    assert!(second_manual("Appendix G GNU General Public License", false).is_new());
}

#[test]
fn a_heading_with_a_word_of_its_own_after_the_other_names_another_page() {
    assert!(second_manual("GNU General Public License Exceptions", true).is_new());
}
