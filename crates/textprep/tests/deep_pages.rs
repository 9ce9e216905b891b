//! Deeply nested pages and the page-level extractor: a page nested deeper than the extraction
//! tracks (512 open elements) is decided without it, in the time of an ordinary page and on
//! the 2 MiB stack of the crawler's page threads (tokio's default); 200,000 nested `<b>` or
//! 50,000 nested tables overflowed the extractor's stack, which aborts the whole process, and
//! 100,000 nested lists or 200,000 nested `<div>`s kept it busy for minutes. A page just under
//! the bound still goes to the extractor, on that stack. Real pages never reach the bound.
//! Likewise a page of 100,000 misnested formatting elements (`<b><i>x</b>y</i>`, which a tree
//! builder clones and reopens: 30 s and 600 MB in the extractor).

use crate::common;

use std::time::{Duration, Instant};

use dedupcrawl_textprep::{
    ContentSource, MAX_MISNESTED_FORMATTING, MainContent, MainContentConfig, extract,
};

/// The stack of a tokio worker or blocking thread, on which a crawl decides its pages.
const PAGE_THREAD_STACK: usize = 2 * 1024 * 1024;

/// A page of `depth` nested `open` … `close` elements, a word in each, in an article.
fn nested(open: &str, close: &str, depth: usize) -> String {
    let mut html = String::from("<html><body><article><h1>Deep</h1>");
    for n in 0..depth {
        html.push_str(open);
        html.push_str(&format!("word{n} "));
    }
    html.push_str("<p>The end of a very deep page, with a sentence of its own.</p>");
    for _ in 0..depth {
        html.push_str(close);
    }
    html.push_str("</article></body></html>");
    html
}

/// The nestings tried: inline formatting, generic blocks, tables, lists.
const NESTINGS: [(&str, &str); 4] = [
    ("<b>", "</b>"),
    ("<div>", "</div>"),
    ("<table><tr><td>", "</td></tr></table>"),
    ("<ul><li>", "</li></ul>"),
];

/// Decides `html` as a host's page and on its own, on a thread with the crawl's stack; how
/// long that took and where each verdict came from.
fn decide_on_a_page_thread(html: String) -> (Duration, ContentSource, ContentSource) {
    std::thread::Builder::new()
        .stack_size(PAGE_THREAD_STACK)
        .spawn(move || {
            let started = Instant::now();
            let page = extract(&html);
            let main = MainContent::new(MainContentConfig::default());
            let as_hosts = main.decide("deep.example", &html, None, &page);
            let alone = main.decide_alone(&html, None, &page, &|_| true);
            (started.elapsed(), as_hosts.source, alone.source)
        })
        .expect("a page thread")
        .join()
        .expect("the page thread ends")
}

#[test]
fn a_page_nested_past_the_bound_is_decided_without_the_extractor() {
    for (open, close) in NESTINGS {
        // Under the 2 MiB a crawl gives the extractor at most, so only the depth keeps it out.
        let html = nested(open, close, 40_000);
        assert!(html.len() < 2 * 1024 * 1024, "{open}");
        assert!(extract(&html).elements_too_deep > 0, "{open}");
        let (took, as_hosts, alone) = decide_on_a_page_thread(html);
        assert_eq!(as_hosts, ContentSource::PageRules, "{open}");
        assert_eq!(alone, ContentSource::PageRules, "{open}");
        assert!(took < Duration::from_secs(20), "{open}: {took:?}");
    }
}

#[test]
fn a_page_of_misnested_formatting_is_decided_without_the_extractor() {
    // 1.8 MB: under the 2 MiB a crawl gives the extractor at most.
    let body = "<b><i>word</b>more</i> ".repeat(80_000);
    let html = format!("<html><body><article>{body}</article></body></html>");
    assert!(extract(&html).misnested_formatting > MAX_MISNESTED_FORMATTING);
    let (took, as_hosts, alone) = decide_on_a_page_thread(html);
    assert_eq!(as_hosts, ContentSource::PageRules);
    assert_eq!(alone, ContentSource::PageRules);
    assert!(took < Duration::from_secs(10), "{took:?}");
    // A few, as real pages have, are no reason to leave the extractor out.
    let few = "<b><i>word</b>more</i> ".repeat(20);
    let html = format!("<html><body><article><p>{few}</p></article></body></html>");
    assert!(extract(&html).misnested_formatting <= MAX_MISNESTED_FORMATTING);
    let (_, _, alone) = decide_on_a_page_thread(html);
    assert_eq!(alone, ContentSource::PageExtractor);
}

#[test]
fn a_page_just_under_the_bound_goes_to_the_extractor_on_a_page_threads_stack() {
    for (open, close) in NESTINGS {
        // Table and list nestings open two or three elements a level.
        let levels = 500 / open.matches('<').count();
        let html = nested(open, close, levels);
        assert_eq!(extract(&html).elements_too_deep, 0, "{open}");
        let (took, _, alone) = decide_on_a_page_thread(html);
        assert_eq!(alone, ContentSource::PageExtractor, "{open}");
        assert!(took < Duration::from_secs(20), "{open}: {took:?}");
    }
}

#[test]
fn real_pages_are_never_too_deep() {
    let root = common::rust_docs();
    let mut pages = 0;
    for host in ["book", "reference", "nomicon", "std"] {
        // One page in 20, spread over the hosts.
        for path in common::html_files(&root.join(host)).iter().step_by(20) {
            pages += 1;
            let html = std::fs::read_to_string(path).expect("page readable");
            let extracted = extract(&html);
            assert_eq!(extracted.elements_too_deep, 0, "{}", path.display());
            assert!(
                extracted.misnested_formatting <= MAX_MISNESTED_FORMATTING,
                "{}",
                path.display()
            );
            assert!(
                matches!(
                    dedupcrawl_textprep::cut_attribute_floods(&html),
                    std::borrow::Cow::Borrowed(_)
                ),
                "{}",
                path.display()
            );
        }
    }
    assert!(pages > 100, "{pages} pages");
}
