//! The host model's view settles each path's verdict: a copy of a page decided after the votes
//! moved gets the same text as the first copy.

use dedupcrawl_textprep::{HostContentModel, extract};

const PAGE: &str = "<html><body><nav><a href=\"/\">Home</a></nav>\
    <main><h1>Tides</h1><p>The tide tables for the harbour are printed every week.</p>\
    <div class=\"aside-note\"><p>Readers also asked about the lighthouse opening hours.</p></div>\
    </main></body></html>";

#[test]
fn a_copy_decided_after_the_votes_moved_gets_the_same_view() {
    let page = extract(PAGE);
    let note = page
        .blocks
        .iter()
        .position(|b| b.text.contains("lighthouse"))
        .expect("the note is a block");
    let mut model = HostContentModel::default();
    // The extractor kept everything but the note on the first pages.
    let without_note: Vec<bool> = (0..page.blocks.len()).map(|i| i != note).collect();
    for _ in 0..5 {
        model.learn(&page, &without_note);
    }
    let first = model.view(&page, &|_| true);
    assert!(!first[note], "the note's path was learnt as not content");
    // Later pages: the extractor keeps the note's path, many times over.
    let with_note = vec![true; page.blocks.len()];
    for _ in 0..50 {
        model.learn(&page, &with_note);
    }
    // The votes moved (a fresh model with the same votes would keep the note)...
    assert!(model.predict_filled(&page, &|_| false)[note]);
    // ...but the view of the copy is the view of the first.
    assert_eq!(model.view(&page, &|_| true), first);
}
