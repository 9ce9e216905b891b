//! One text in two manuals of a host, as GNU Texinfo writes them: a pager line above and below
//! ("Next: …, Previous: …", links with `rel="next"`/`rel="prev"`) and a numbered heading in one
//! manual. Those are a few words here and there, no run of text of the page's own: the second
//! page is a near duplicate of the first.

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
fn one_text_under_a_pager_without_rel_and_a_heading_of_its_own_is_a_near_duplicate_too() {
    // A few words of the page's own here and there (plain pager links, a word more in the
    // heading) are no run of text of its own: the resemblance decides.
    for (heading, rel) in [
        ("Appendix G GNU General Public License", false),
        ("GNU General Public License Exceptions", true),
    ] {
        assert!(
            matches!(
                second_manual(heading, rel),
                DedupDecision::NearDuplicate { .. }
            ),
            "{heading} (rel {rel})"
        );
    }
}
