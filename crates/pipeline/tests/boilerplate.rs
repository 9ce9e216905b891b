//! The two boilerplate mechanisms, end to end through a real sled index.

use crate::common;

use common::{prose, stage};
use dedupcrawl_index::DedupDecision;
use dedupcrawl_textprep::{Language, View};

/// A heavy template: navigation, sidebar, cookie banner, a large *unmarked* legal block (only
/// the per-host mechanism can recognise it) and a footer, around `content`.
fn heavy_template(title: &str, content: &str) -> String {
    let nav: String = (0..40)
        .map(|i| format!("<a href=\"/section/{i}\">Section {i}</a> "))
        .collect();
    format!(
        "<html lang=\"en\"><head><title>{title}</title><script>track('{title}')</script></head>\
         <body><div class=\"top-nav\">{nav}</div>\
         <div class=\"sidebar\"><p>{}</p></div>\
         <div class=\"cookie-banner\"><p>{}</p></div>\
         <h1>{title}</h1><p>{content}</p>\
         <div class=\"legal\"><p>{}</p></div>\
         <footer><p>{}</p></footer></body></html>",
        prose(1, 60),
        prose(2, 40),
        prose(3, 150),
        prose(4, 80),
    )
}

#[test]
fn distinct_short_pages_on_one_heavy_template_are_not_near_duplicates() {
    let dir = tempfile::tempdir().unwrap();
    let stage = stage(dir.path(), View::MainContent);
    for i in 0..50 {
        let html = heavy_template(&format!("Product {i}"), &prose(100 + i, 40));
        let name = format!("https://shop.example/product/{i}");
        let verdict = stage
            .check_html(&name, "shop.example", html.as_bytes(), &html)
            .unwrap();
        assert!(
            verdict.decision.is_new(),
            "page {i} judged {:?} in the main-content view",
            verdict.decision
        );
    }
    assert_eq!(stage.index().stats().unwrap().documents, 50);
}

#[test]
fn the_full_page_view_sees_the_template_and_only_the_own_content_veto_keeps_pages_apart() {
    // The contrast that shows the test above can fail: without boilerplate removal the
    // template dominates, most pages with 20 words of their own resemble an earlier one above
    // the threshold, and only the own-content veto keeps them apart; in the main-content view
    // the template is out of the compared text once the host's first pages have shown it,
    // and no later page comes close.
    let vetoed_in = |view: View| {
        let dir = tempfile::tempdir().unwrap();
        let stage = stage(dir.path(), view);
        (0..50)
            .filter(|&i| {
                let html = heavy_template(&format!("Product {i}"), &prose(100 + i, 20));
                let name = format!("https://shop.example/product/{i}");
                let decision = stage
                    .check_html(&name, "shop.example", html.as_bytes(), &html)
                    .unwrap()
                    .decision;
                assert!(decision.is_new(), "{decision:?}");
                !decision.reason().vetoed.is_empty()
            })
            .count()
    };
    let full = vetoed_in(View::FullPage);
    assert!(
        full >= 40,
        "only {full} of 50 came close to an earlier page"
    );
    let main = vetoed_in(View::MainContent);
    assert!(
        main <= 3,
        "{main} of 50 came close in the main-content view"
    );
}

#[test]
fn the_hosts_template_blocks_stay_out_of_its_main_content() {
    let dir = tempfile::tempdir().unwrap();
    let stage = stage(dir.path(), View::MainContent);
    for i in 0..3 {
        let html = heavy_template(&format!("Page {i}"), &prose(200 + i, 60));
        stage
            .check_html(
                &format!("https://a.example/{i}"),
                "a.example",
                html.as_bytes(),
                &html,
            )
            .unwrap();
    }
    // Block counts are per host: the first page's content block is counted on its host only.
    let key = |text: &str| stage.block_key(text, Language::English).unwrap();
    let content = key(&prose(200, 60));
    let count = |host: &str| stage.index().block_page_counts(host, &[content]).unwrap()[0];
    assert_eq!((count("a.example"), count("b.example")), (1, 0));
    // The unmarked legal block is not in the compared tokens of the host's next page, whether
    // the page-level extractor or the host's block counts took it out.
    let html = heavy_template("Next", &prose(300, 60));
    let next = stage
        .fingerprint_html(
            "https://a.example/next",
            "a.example",
            html.as_bytes(),
            &html,
        )
        .unwrap();
    let tokens_of = |text: &str| {
        let mut tokens = Vec::new();
        stage
            .textprep()
            .normalizer()
            .token_hashes(text, Language::English, &mut tokens);
        tokens
    };
    let holds = |needle: &[u64]| next.tokens.windows(needle.len()).any(|w| w == needle);
    assert!(!holds(&tokens_of(&prose(3, 150))));
    assert!(holds(&tokens_of(&prose(300, 60))));
}

#[test]
fn the_same_article_in_two_templates_is_a_near_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let stage = stage(dir.path(), View::MainContent);
    let article: Vec<String> = (0..6)
        .map(|p| format!("<p>{}</p>", prose(500 + p, 80)))
        .collect();
    let article = article.join("\n");
    let first = heavy_template(
        "Story",
        &format!("{article}<p>Published Monday 09:00 by the desk staff</p>"),
    );
    let second = format!(
        "<html><body><header><nav><a href=\"/\">Other Site</a><a href=\"/news\">News</a></nav></header>\
         <main><article><h2>Syndicated story</h2>{article}\
         <p>Reprinted Tuesday 14:30 with permission of the original</p></article></main>\
         <aside><p>{}</p></aside><footer><p>{}</p></footer></body></html>",
        prose(900, 50),
        prose(901, 70)
    );
    let a = stage
        .check_html(
            "https://a.example/story",
            "a.example",
            first.as_bytes(),
            &first,
        )
        .unwrap();
    assert!(a.decision.is_new());
    let b = stage
        .check_html(
            "https://b.example/syndicated",
            "b.example",
            second.as_bytes(),
            &second,
        )
        .unwrap();
    match b.decision {
        DedupDecision::NearDuplicate { of, similarity, .. } => {
            assert_eq!(of.name, "https://a.example/story");
            assert!(similarity >= 0.8, "{similarity}");
        }
        other => panic!("expected a near duplicate, got {other:?}"),
    }
}
