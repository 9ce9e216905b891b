//! A page where the page-level extractor keeps one code listing of a long chapter: the main
//! view must keep the chapter's prose (Debian's `debian-handbook` package, installed by
//! `scripts/install-test-tools`).

use std::path::{Path, PathBuf};

use dedupcrawl_textprep::{TextPrep, TextPrepConfig, View};

const HANDBOOK: &str = "/usr/share/doc/debian-handbook/html";

fn chapter(language: &str) -> PathBuf {
    let path = Path::new(HANDBOOK)
        .join(language)
        .join("network-services.html");
    assert!(
        path.is_file(),
        "{} is missing: install Debian's debian-handbook package (scripts/install-test-tools does)",
        path.display()
    );
    path
}

/// The extractor returns the chapter's `main.cf` listing alone (1,426 characters of a 100 KB
/// page) in every language, so each edition's view was that listing and the five chapters
/// came out as copies of each other. The view now falls back to the per-page rules there.
#[test]
fn a_chapter_whose_extractor_text_is_one_listing_keeps_its_prose() {
    let prep = TextPrep::new(TextPrepConfig::default());
    let opening = [
        (
            "en-US",
            "Network services are the programs that users interact with",
        ),
        (
            "de-DE",
            "Netzwerkdienste sind die Programme, mit denen Benutzer",
        ),
        ("fr-FR", "Les services réseau sont les programmes"),
    ];
    let mut texts = Vec::new();
    for (language, sentence) in opening {
        let html = std::fs::read_to_string(chapter(language)).expect("chapter readable");
        let page = prep.prepare_alone(&html, None);
        let text = prep.view_text(&page, View::MainContent, &|_| false);
        assert!(
            text.contains(sentence),
            "{language}: the main view lacks the chapter's opening ({} characters kept)",
            text.len()
        );
        assert!(text.len() > 30_000, "{language}: {} characters", text.len());
        texts.push(text);
    }
    assert_ne!(texts[0], texts[1]);
    assert_ne!(texts[0], texts[2]);
}
