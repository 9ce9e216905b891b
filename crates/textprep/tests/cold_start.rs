//! A host's cold start: the page-level extractor decides a host's first pages and its model
//! learns from them. The cold start ends after `cold_start_pages`, or earlier once the model
//! has predicted the extractor's verdict on `warm_after_predicted_pages` pages in a row.

use dedupcrawl_textprep::{ContentSource, MainContent, MainContentConfig, extract};

const WORDS: [&str; 24] = [
    "harbour", "tide", "ferry", "lantern", "keeper", "storm", "gull", "rope", "anchor", "sail",
    "chart", "reef", "beacon", "dock", "crew", "net", "wave", "cliff", "hull", "mast", "oar",
    "pier", "buoy", "deck",
];

/// Sentences of the `n`th article: its own words, so no two articles are alike.
fn article(n: usize, paragraphs: usize) -> String {
    let mut html = String::new();
    for p in 0..paragraphs {
        html.push_str("<p>");
        for w in 0..28 {
            let word = WORDS[(n * 7 + p * 5 + w * w + n * w) % WORDS.len()];
            html.push_str(&format!("{word}{} ", (n * 31 + p * 13 + w) % 97));
        }
        html.push_str("is what the harbour master wrote down that evening.</p>");
    }
    html
}

/// The `n`th page of a host whose pages all share one template.
fn templated_page(n: usize) -> String {
    format!(
        "<html><head><title>Harbour notes {n}</title></head><body>\
         <header class=\"masthead\"><a href=\"/\">Harbour notes</a> <a href=\"/about\">About</a></header>\
         <nav class=\"menu\"><a href=\"/a\">Tides</a> <a href=\"/b\">Ferries</a> <a href=\"/c\">Storms</a></nav>\
         <div class=\"content\"><article><h1>Note number {n}</h1>{}</article></div>\
         <footer>Copyright the harbour office. All rights reserved.</footer></body></html>",
        article(n, 6)
    )
}

/// The `n`th page of a host whose every page has markup of its own: the model never knows
/// where the next page's content lives.
fn untemplated_page(n: usize) -> String {
    let wrap = |inner: String| {
        (0..=n).fold(inner, |html, depth| {
            format!("<div class=\"l{depth}-{n}\">{html}</div>")
        })
    };
    format!(
        "<html><head><title>Notes {n}</title></head><body>{}</body></html>",
        wrap(format!(
            "<section><h2>Entry {n}</h2>{}</section>",
            article(n + 100, 6)
        ))
    )
}

/// How many of a host's first pages the extractor decided before the model took over.
fn cold_pages(config: MainContentConfig, page: impl Fn(usize) -> String) -> usize {
    let main = MainContent::new(config);
    for n in 0..40 {
        let html = page(n);
        let extracted = extract(&html);
        let decided = main.decide("harbour.example", &html, None, &extracted);
        if decided.source == ContentSource::HostModel {
            return n;
        }
        assert_eq!(decided.source, ContentSource::PageExtractor, "page {n}");
    }
    panic!("the model never took over");
}

#[test]
fn a_host_whose_model_predicts_the_extractor_warms_early() {
    let config = MainContentConfig::default();
    let warm_after = config.warm_after_predicted_pages as usize;
    // The first page is learnt without a prediction; the next `warm_after` are predicted.
    assert_eq!(cold_pages(config, templated_page), 1 + warm_after);
}

#[test]
fn without_early_warming_the_cold_start_is_whole() {
    let config = MainContentConfig {
        warm_after_predicted_pages: 0,
        ..MainContentConfig::default()
    };
    assert_eq!(
        cold_pages(config, templated_page),
        config.cold_start_pages as usize
    );
}

#[test]
fn a_host_the_model_cannot_predict_stays_cold_for_the_whole_cold_start() {
    let config = MainContentConfig::default();
    assert_eq!(
        cold_pages(config, untemplated_page),
        config.cold_start_pages as usize
    );
}
