//! A host model tells blocks that are all link from blocks that are mostly link at one place:
//! rustdoc puts a bare "Source§" link and a version label whose links are most of its text
//! ("1.0.0 (const: unstable) · Source§") at one path, and the extractor keeps the label and
//! drops the bare link.

use dedupcrawl_textprep::{HostContentModel, extract};

fn page(item: &str) -> String {
    format!(
        "<html><body><main><h1>{item}</h1>\
         <section class=\"impl\">1.0.0 (const: <a href=\"/i/1\">unstable</a>) · \
         <a href=\"/src/a\">Source</a><a href=\"#a\">§</a><h3>impl Add for {item}</h3></section>\
         <section class=\"impl\"><a href=\"/src/b\">Source</a><a href=\"#b\">§</a>\
         <h3>impl Send for {item}</h3></section></main></body></html>"
    )
}

#[test]
fn a_bare_link_and_a_label_of_mostly_links_at_one_place_keep_their_own_verdicts() {
    let mut model = HostContentModel::default();
    for item in ["Wrapping", "Saturating", "NonZero", "Reverse", "Duration"] {
        let page = extract(&page(item));
        let label = page
            .blocks
            .iter()
            .find(|b| b.text.starts_with("1.0.0"))
            .expect("the label is a block");
        assert!(label.link_density() > 0.5, "{label:?}");
        // The extractor's verdict: everything but the bare link.
        let verdict: Vec<bool> = page.blocks.iter().map(|b| b.text != "Source§").collect();
        model.learn(&page, &verdict);
    }
    let warm = extract(&page("Ordering"));
    let view = model.view(&warm, &|_| true);
    let kept = |text: &str| {
        warm.blocks
            .iter()
            .zip(&view)
            .any(|(b, &keep)| keep && b.text.starts_with(text))
    };
    assert!(kept("1.0.0 (const: unstable)"), "the label is kept");
    assert!(!kept("Source§"), "the bare link is dropped");
}
