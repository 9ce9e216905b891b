//! A tag with hundreds of thousands of attributes: html5ever's tokenizer checks each against
//! the tag's others (quadratic), so one such tag of 2.9 MB took 23 s to extract and longer in
//! the page-level extractor. Cut after its first `MAX_ATTRIBUTES`, the page is extracted in
//! the time of an ordinary one, its text and links intact.

use std::time::{Duration, Instant};

use dedupcrawl_textprep::{TextPrep, TextPrepConfig, View, extract};

#[test]
fn a_tag_with_300000_attributes_is_extracted_at_once() {
    let attributes: String = (0..300_000).map(|i| format!(" a{i}=1")).collect();
    let html = format!(
        "<html><body><main><p{attributes}>The words of the page, all of them.</p>\
         <a href=\"/next\">next</a></main></body></html>"
    );
    let started = Instant::now();
    let page = extract(&html);
    let prep = TextPrep::new(TextPrepConfig::default());
    let alone = prep.prepare_alone(&html, None);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(5), "{took:?}");
    assert!(page.blocks.iter().any(|b| b.text.contains("all of them")));
    assert_eq!(page.links.len(), 1);
    assert!(
        prep.view_text(&alone, View::MainContent, &|_| false)
            .contains("all of them")
    );
}
