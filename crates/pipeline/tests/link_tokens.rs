//! Out-links as tokens: a link is its resolved target, whatever the page's depth.

use std::sync::Arc;

use dedupcrawl_index::{DedupDecision, SledDedupIndex};
use dedupcrawl_pipeline::{DedupSettings, DedupStage};

/// A page listing `targets` under one paragraph of text, with links written relative to a
/// page `depth` directories below the site root.
fn listing(depth: usize, targets: &[&str]) -> String {
    let up = "../".repeat(depth);
    let items: String = targets
        .iter()
        .map(|t| format!("<li><a href=\"{up}{t}\">{t}</a></li>"))
        .collect();
    format!(
        "<html><body><main><h1>Collected articles</h1>\
         <p>Everything the library holds on rivers, harbours and mountain passes, in one list \
         for readers who come back often to browse it.</p><ul>{items}</ul></main></body></html>"
    )
}

fn stage(dir: &std::path::Path) -> DedupStage {
    let settings = DedupSettings::default();
    let index = SledDedupIndex::open(dir, settings.index_config()).unwrap();
    DedupStage::new(Arc::new(index), settings)
}

#[test]
fn the_same_targets_written_from_two_depths_are_one_page() {
    let dir = tempfile::tempdir().unwrap();
    let stage = stage(dir.path());
    let targets = [
        "articles/one.html",
        "articles/two.html",
        "articles/three.html",
    ];
    let site = "/srv/site";
    let first = listing(0, &targets);
    let second = listing(2, &targets);
    let a = stage
        .check_html("/srv/site/index.html", site, first.as_bytes(), &first)
        .unwrap();
    assert!(matches!(a.decision, DedupDecision::New { .. }), "{a:?}");
    let b = stage
        .check_html("/srv/site/x/y/index.html", site, second.as_bytes(), &second)
        .unwrap();
    assert!(
        matches!(b.decision, DedupDecision::ExactDuplicate { .. }),
        "same text, same targets: {:?}",
        b.decision
    );
}

#[test]
fn the_same_hrefs_from_two_depths_are_other_targets() {
    let dir = tempfile::tempdir().unwrap();
    let stage = stage(dir.path());
    let site = "https://example.org";
    // Written alike, but resolved from two directories: other articles.
    let hrefs: Vec<String> = (0..12).map(|i| format!("post-{i}.html")).collect();
    let hrefs: Vec<&str> = hrefs.iter().map(String::as_str).collect();
    let page = listing(0, &hrefs);
    stage
        .check_html(
            "https://example.org/2024/index.html",
            site,
            page.as_bytes(),
            &page,
        )
        .unwrap();
    let other = page.replace("<h1>", "<h1 class=\"year\">");
    let b = stage
        .check_html(
            "https://example.org/2025/index.html",
            site,
            other.as_bytes(),
            &other,
        )
        .unwrap();
    assert!(
        matches!(b.decision, DedupDecision::New { .. }),
        "hubs linking to other pages are other pages: {:?}",
        b.decision
    );
}
