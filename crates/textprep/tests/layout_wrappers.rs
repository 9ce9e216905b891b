//! A layout wrapper named after the sidebar it sits beside is not page chrome around the
//! page's main landmark (the Read the Docs theme's skeleton, as GHC's user's guide has it).

use dedupcrawl_textprep::{BlockKind, TextBlock, extract};

const READ_THE_DOCS_PAGE: &str = r#"<html><body class="wy-body-for-nav">
<div class="wy-grid-for-nav">
  <nav data-toggle="wy-nav-shift" class="wy-nav-side"><div class="wy-side-scroll">
    <div class="wy-menu wy-menu-vertical"><ul><li class="toctree-l1"><a href="intro.html">1. Introduction</a></li>
    <li class="toctree-l1"><a href="ghci.html">3. Using GHCi</a></li></ul></div></div></nav>
  <section data-toggle="wy-nav-shift" class="wy-nav-content-wrap">
    <nav class="wy-nav-top"><a href="index.html">Glasgow Haskell Compiler</a></nav>
    <div class="wy-nav-content"><div class="rst-content">
      <div role="navigation" aria-label="breadcrumbs navigation"><ul class="wy-breadcrumbs">
        <li><a href="index.html">Docs</a> &raquo;</li><li>6.6.8. Deriving via</li></ul></div>
      <div role="main" class="document" itemscope="itemscope">
        <h1>6.6.8. Deriving via</h1>
        <p>This allows deriving a class instance for a type by specifying another type of
        equal runtime representation that is already an instance of the class.</p>
        <pre>newtype Hex a = Hex a</pre>
      </div>
      <footer><p>&copy; Copyright 2020, GHC Team.</p></footer>
    </div></div>
  </section>
</div></body></html>"#;

/// A blog's sidebar of teaser articles, with no main landmark inside it.
const SIDEBAR_OF_ARTICLES: &str = r#"<html><body>
<div class="content"><h1>Tides of the harbour</h1><p>The tide tables are printed weekly.</p></div>
<div class="sidebar"><article><h2>Lighthouse hours</h2><p>Open on Sundays.</p></article></div>
</body></html>"#;

fn block<'a>(blocks: &'a [TextBlock], starts: &str) -> &'a TextBlock {
    blocks
        .iter()
        .find(|b| b.text.starts_with(starts))
        .unwrap_or_else(|| panic!("a block starting {starts:?}"))
}

#[test]
fn the_text_around_the_main_landmark_is_not_chrome_by_a_wrappers_name() {
    let page = extract(READ_THE_DOCS_PAGE);
    let heading = page
        .blocks
        .iter()
        .find(|b| b.kind == BlockKind::Heading)
        .expect("the page's heading is a block");
    assert!(!heading.in_chrome, "{}", heading.text);
    for content in ["This allows deriving", "newtype Hex"] {
        assert!(!block(&page.blocks, content).in_chrome, "{content}");
    }
    // (The footer sits in a `<section>`: a section's own footer, not the page's.)
    for chrome in ["1. Introduction", "Glasgow Haskell Compiler", "Docs"] {
        assert!(block(&page.blocks, chrome).in_chrome, "{chrome}");
    }
}

#[test]
fn a_sidebar_of_articles_stays_chrome() {
    let page = extract(SIDEBAR_OF_ARTICLES);
    assert!(!block(&page.blocks, "The tide tables").in_chrome);
    assert!(block(&page.blocks, "Lighthouse hours").in_chrome);
    assert!(block(&page.blocks, "Open on Sundays").in_chrome);
}
