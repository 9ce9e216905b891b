//! A host that serves pages of a second generator after the model learnt the first: the
//! second's pages are not decided by the first's shapes (element names alone).

use dedupcrawl_textprep::{HostContentModel, extract};

/// An API page: a signature box the extractor drops and a list of members it keeps.
fn api_page(name: &str) -> String {
    format!(
        "<html><body><div class=\"api-header\"><div><p>Part of the {name} package, \
         generated from its sources on every release.</p></div></div>\
         <div class=\"api-members\"><ul><li>{name}.open returns a handle on the file</li>\
         <li>{name}.close releases the handle and flushes what is buffered</li></ul></div>\
         </body></html>"
    )
}

/// A chapter of the user's guide, in another generator's markup: its prose sits where the
/// API pages have the dropped box (same element names, other classes), its table of contents
/// in page chrome.
fn guide_page(topic: &str) -> String {
    format!(
        "<html><body><div class=\"guide-body\"><div><p>This chapter explains {topic} step by \
         step, with the options a user sets and what each of them changes.</p>\
         <p>Read it before you change {topic} on a running system, since some settings apply \
         only at start.</p></div></div>\
         <nav class=\"guide-toc\"><div><ul><li>Installing the tools</li>\
         <li>Configuring {topic} for a first run</li></ul></div></nav></body></html>"
    )
}

#[test]
fn a_page_of_an_unseen_template_keeps_its_text() {
    let mut model = HostContentModel::default();
    for name in ["files", "sockets", "threads", "clocks", "paths"] {
        let page = extract(&api_page(name));
        let verdict: Vec<bool> = page
            .blocks
            .iter()
            .map(|block| !block.text.starts_with("Part of"))
            .collect();
        model.learn(&page, &verdict);
    }
    let guide = extract(&guide_page("logging"));
    let view = model.view(&guide, &|block| !block.in_chrome);
    let kept: Vec<&str> = guide
        .blocks
        .iter()
        .zip(&view)
        .filter(|(_, keep)| **keep)
        .map(|(block, _)| block.text.as_str())
        .collect();
    assert_eq!(
        kept.len(),
        2,
        "the chapter's two paragraphs, nothing else: {kept:?}"
    );
    assert!(kept.iter().all(|text| text.contains("logging")), "{kept:?}");
    assert!(
        !kept.iter().any(|text| text.contains("Installing")),
        "the table of contents is page chrome: {kept:?}"
    );
}
