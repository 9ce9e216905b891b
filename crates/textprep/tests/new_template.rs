//! A host that serves pages of a second generator after the model learnt the first: the
//! second's pages are not decided by the first's shapes (element names alone).

use dedupcrawl_textprep::{HostContentModel, MainContent, MainContentConfig, extract};

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

/// A page of `template` (its wrapper's class, letters only: digits are left out of paths),
/// with `padding` bytes of comment so that its size alone spends the extractor's budget.
fn templated_page(template: &str, topic: &str, padding: usize) -> String {
    format!(
        "<html><body class=\"{template}\"><div class=\"content\"><h1>About {topic}</h1>\
         <p>This page tells the reader about {topic}, how it began and what it is used for \
         today, in a few plain sentences.</p><p>More on {topic} follows in the next pages of \
         this section, one for each of its parts.</p></div>\
         <div class=\"related\"><a href=\"/a\">Start</a> <a href=\"/b\">Index</a></div>\
         <!--{}--></body></html>",
        "x".repeat(padding)
    )
}

/// Past the host's extractor budget, the first page of a template the model never saw still
/// goes to the extractor (the verdict on its paths is settled by that page for the rest of
/// the run), a bounded number of times per host; a page of a template the model knows does
/// not.
#[test]
fn a_new_template_goes_to_the_extractor_past_the_budget() {
    let main = MainContent::new(MainContentConfig {
        max_extractor_share: 0.0,
        ..MainContentConfig::default()
    });
    let topics = [
        "rivers",
        "mountains",
        "forests",
        "deserts",
        "islands",
        "glaciers",
    ];
    for topic in topics.iter().cycle().take(25) {
        let html = templated_page("article", topic, 0);
        main.decide("example.org", &html, None, &extract(&html));
    }
    let extracted = |main: &MainContent| main.extractor_use().pages;
    // The slack of the budget spent by one large page of the known template.
    let large = templated_page("article", "lakes", 400_000);
    main.decide("example.org", &large, None, &extract(&large));
    let before = extracted(&main);
    let known = templated_page("article", "oceans", 400_000);
    main.decide("example.org", &known, None, &extract(&known));
    assert_eq!(
        extracted(&main),
        before,
        "a known template: the model decides"
    );
    let templates: Vec<String> = ('a'..='z')
        .map(|letter| format!("page-kind-{letter}{letter}"))
        .collect();
    for template in &templates {
        let html = templated_page(template, "volcanoes", 400_000);
        main.decide("example.org", &html, None, &extract(&html));
    }
    assert_eq!(
        extracted(&main) - before,
        16,
        "each new template goes to the extractor, 16 of them per host"
    );
}
