//! Extraction and normalization on hand-made edge cases and on real pages (the Rust docs).

use crate::common;

use common::rust_docs;

use dedupcrawl_textprep::{
    BlockKind, Language, LanguageSource, NormalizeOptions, Normalizer, TextPrep, TextPrepConfig,
    View, extract, extract_text_with_dom,
};

const HIDDEN: &str = r#"<!DOCTYPE html><html><head><title>T</title>
<style>.x { content: "STYLEMARKER"; }</style>
<script>var s = "SCRIPTMARKER </p> <b>";</script>
<script type="application/ld+json">{"a": "JSONMARKER"}</script>
</head><body>
<!-- COMMENTMARKER -->
<noscript>NOJSFALLBACK</noscript>
<template><p>TEMPLATEMARKER</p></template>
<svg><text>SVGMARKER</text></svg>
<iframe src="/frame">IFRAMEMARKER</iframe>
<p>Visible words stay &amp; entities decode&nbsp;here.</p>
<script>document.write("<p>SCRIPTMARKER2</p>")</script>
</body></html>"#;

#[test]
fn script_style_comment_text_never_reaches_tokens() {
    let page = extract(HIDDEN);
    let text = page.full_text();
    for marker in [
        "STYLEMARKER",
        "SCRIPTMARKER",
        "JSONMARKER",
        "COMMENTMARKER",
        "TEMPLATEMARKER",
        "SVGMARKER",
        "IFRAMEMARKER",
    ] {
        assert!(!text.contains(marker), "{marker} leaked into {text:?}");
    }
    // A crawler runs no script: `noscript` content is what its reader sees.
    assert_eq!(
        text,
        "NOJSFALLBACK\nVisible words stay & entities decode here."
    );
    assert_eq!(page.title.as_deref(), Some("T"));
    let prep = TextPrep::new(TextPrepConfig::default());
    let tokens = prep.tokens(&prep.prepare(HIDDEN), View::FullPage, &|_| false);
    assert_eq!(
        tokens,
        ["nojsfallback", "visibl", "word", "stay", "entiti", "decod"]
    );
}

#[test]
fn connected_connection_connecting_stem_alike() {
    let normalizer = Normalizer::new(NormalizeOptions::default());
    let tokens = normalizer.tokens(
        "connected connection connecting CONNECTS",
        Language::English,
    );
    assert_eq!(tokens, ["connect"; 4]);
    // Each step can be switched off.
    let raw = Normalizer::new(NormalizeOptions::raw());
    assert_eq!(
        raw.tokens("The Connected 42 x2", Language::English),
        ["The", "Connected", "42", "x2"]
    );
}

#[test]
fn german_and_french_pages_use_their_stemmer_and_stop_words() {
    let prep = TextPrep::new(TextPrepConfig::default());
    let german = "<html lang=\"de\"><body><p>Die Katzen und die Hunde spielten zusammen \
                  in den Gärten der Häuser.</p></body></html>";
    let page = prep.prepare(german);
    assert_eq!(page.language, Language::German);
    assert_eq!(page.language_source, LanguageSource::HtmlAttribute);
    let tokens = prep.tokens(&page, View::FullPage, &|_| false);
    // "die", "und", "in", "den", "der" are German stop words; Snowball German stems.
    assert_eq!(tokens, ["katz", "hund", "spielt", "zusamm", "gart", "haus"]);

    // No lang attribute: detected from the text.
    let french = "<html><body><p>Les enfants jouaient dans les jardins de la ville pendant \
                  que leurs parents travaillaient toute la journée dans les bureaux.</p></body></html>";
    let page = prep.prepare(french);
    assert_eq!(page.language, Language::French);
    assert_eq!(page.language_source, LanguageSource::Detected);
    let tokens = prep.tokens(&page, View::FullPage, &|_| false);
    assert!(tokens.contains(&"enfant".to_string()), "{tokens:?}");
    assert!(tokens.contains(&"jardin".to_string()), "{tokens:?}");
    assert!(
        !tokens
            .iter()
            .any(|t| t == "les" || t == "dans" || t == "que"),
        "{tokens:?}"
    );
}

#[test]
fn malformed_markup_is_read_like_a_browser() {
    let html = "<html><head><title>Broken</title><body><div><p>First paragraph with words\
                </div></div></div><li>item one<li>item two</ul><p>Unclosed <b>bold \
                <i>nested</b> text\u{0}with NUL</p><table><td>cell</table></span>";
    let page = extract(html);
    let texts: Vec<&str> = page.blocks.iter().map(|b| b.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "First paragraph with words",
            "item one",
            "item two",
            "Unclosed bold nested textwith NUL",
            "cell"
        ]
    );
    assert_eq!(page.blocks[1].kind, BlockKind::ListItem);
    assert_eq!(page.title.as_deref(), Some("Broken"));
}

#[test]
fn links_canonical_base_and_robots_meta() {
    let html = r#"<html lang="en-GB"><head><base href="https://example.org/docs/">
        <link rel="canonical" href="/article/4"><meta name="robots" content="noindex, nofollow">
        <meta http-equiv="refresh" content="0; url='/moved'"></head>
        <body><nav><a href="/">Home</a></nav><a href="a.html" rel="nofollow">A</a>
        <a>no href</a><iframe src="/embed"></iframe></body></html>"#;
    let page = extract(html);
    assert_eq!(page.lang_attribute.as_deref(), Some("en-GB"));
    assert_eq!(page.canonical.as_deref(), Some("/article/4"));
    assert_eq!(page.base_href.as_deref(), Some("https://example.org/docs/"));
    assert!(page.robots.noindex && page.robots.nofollow);
    let hrefs: Vec<&str> = page.links.iter().map(|l| l.href.as_str()).collect();
    assert_eq!(hrefs, ["/moved", "/", "a.html", "/embed"]);
    assert!(page.links[2].nofollow && !page.links[1].nofollow);
    assert!(page.blocks.iter().any(|b| b.text == "Home" && b.in_chrome));
}

/// On real pages the tokenizer-driven extractor sees the same words as a full scraper DOM walk.
#[test]
fn agrees_with_a_scraper_dom_walk_on_real_rust_docs() {
    let root = rust_docs();
    let pages = [
        "book/ch04-01-what-is-ownership.html",
        "reference/expressions.html",
        "nomicon/vec/vec.html",
        "std/vec/struct.Vec.html",
        "std/index.html",
        "rust-by-example/index.html",
    ];
    for relative in pages {
        let path = root.join(relative);
        let html = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (is the rust-docs component installed?)",
                path.display()
            )
        });
        // Whitespace placement differs by design (inline elements join: "foo<b>bar</b>" is
        // one word here, two text nodes in the DOM); every visible character must agree.
        let ours: String = extract(&html).full_text().split_whitespace().collect();
        let dom: String = extract_text_with_dom(&html).split_whitespace().collect();
        assert!(
            ours.len() > 500,
            "{relative}: only {} characters extracted",
            ours.len()
        );
        assert_eq!(ours, dom, "{relative}: text differs from the DOM walk");
    }
}

#[test]
fn identifiers_stay_whole_and_numbers_follow_the_policy() {
    use dedupcrawl_textprep::NumberPolicy;
    let text = "The u128 and i128 types, f32x2 lanes on x86_64, blkcnt_t and log2_10 cost 42 \
                dollars in 2026.";
    let with = |numbers| {
        Normalizer::new(NormalizeOptions {
            numbers,
            ..NormalizeOptions::default()
        })
        .tokens(text, Language::English)
    };
    // Identifiers are tokens as written (lowercased), neither stop words nor stemmed; pure
    // numbers are dropped by default.
    assert_eq!(
        with(NumberPolicy::Drop),
        [
            "u128", "i128", "type", "f32x2", "lane", "x86_64", "blkcnt_t", "log2_10", "cost",
            "dollar"
        ]
    );
    assert_eq!(
        with(NumberPolicy::Keep),
        [
            "u128", "i128", "type", "f32x2", "lane", "x86_64", "blkcnt_t", "log2_10", "cost", "42",
            "dollar", "2026"
        ]
    );
    // Masking merges what differs only in digits, as datatrove does.
    let masked = with(NumberPolicy::Mask);
    assert_eq!(masked[..2], ["u000", "i000"]);
    assert_eq!(masked[3], "f00x0");
    assert!(masked.contains(&"00".to_string()) && masked.contains(&"0000".to_string()));
}

/// A block's trailing link text is measured, so a claim can leave it out; a link inside the
/// text or a block that is all link is not a tail with text before it.
#[test]
fn a_blocks_trailing_link_text_is_measured() {
    let page = extract(
        r##"<html><body>
        <p><span>1.0.0</span> · <a href="/src/lib.rs">Source</a></p>
        <p>Performs the operation. <a href="/more">Read more</a>  </p>
        <p>See <a href="/docs">the docs</a> for details.</p>
        <p><a href="/src">Source</a><a href="#x">§</a></p>
        </body></html>"##,
    );
    let tail = |starts: &str| {
        let block = page
            .blocks
            .iter()
            .find(|b| b.text.starts_with(starts))
            .expect("the block is extracted");
        &block.text[block.text.len() - block.link_tail_bytes as usize..]
    };
    assert_eq!(tail("1.0.0"), "Source");
    assert_eq!(tail("Performs"), "Read more");
    assert_eq!(tail("See"), "");
    assert_eq!(
        tail("Source"),
        "Source§",
        "a block of links alone is all tail"
    );
}
