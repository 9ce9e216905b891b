//! Main-content extraction against human ground truth: the project's views and the candidate
//! crates, scored on WCXB dev and the ScrapingHub article benchmark (`../shared/data`) and timed
//! in the same run (MB/s = HTML bytes / CPU time of the one measuring thread).
//!
//! `bench-extraction [--every N] [--only NAME]`: `--every 10` scores every 10th page of each
//! WCXB type (quick); `--only` scores the candidates whose name contains NAME.

use dedupcrawl_bench::extraction::{
    ScoredPage, SetScore, load_scrapinghub, load_wcxb, score_set, shared_data_root,
};
use dedupcrawl_bench::{Args, Table};
use dedupcrawl_textprep::{
    MainContent, MainContentConfig, PageExtractor, TextPrep, TextPrepConfig, View, extract,
};

type Extractor = Box<dyn Fn(&str, Option<&str>) -> String>;

fn candidates() -> Vec<(&'static str, Extractor)> {
    let prep = TextPrep::new(TextPrepConfig::default());
    let rules = prep.config().boilerplate;
    let main = MainContent::new(MainContentConfig::default());
    vec![
        (
            "dedupcrawl `main` view (this release: rs-trafilatura verdict on our blocks)",
            Box::new(move |html: &str, url: Option<&str>| {
                let page = extract(html);
                main.decide_alone(html, url, &page, &|b| rules.is_content_candidate(b))
                    .text(&page)
            }),
        ),
        (
            "dedupcrawl `main` view before (per-page rules)",
            Box::new(move |html: &str, _: Option<&str>| {
                let page = prep.prepare(html);
                prep.view_text(&page, View::MainContent, &|_| false)
            }),
        ),
        (
            "dedupcrawl `full` view (all visible text)",
            Box::new(|html: &str, _: Option<&str>| extract(html).full_text()),
        ),
        (
            "rs-trafilatura 0.2.2 (with the page URL)",
            Box::new(|html: &str, url: Option<&str>| PageExtractor.text(html, url)),
        ),
        (
            "rs-trafilatura 0.2.2 (no URL)",
            Box::new(|html: &str, _: Option<&str>| PageExtractor.text(html, None)),
        ),
        (
            "dom_smoothie 0.19 (Readability port)",
            Box::new(|html: &str, url: Option<&str>| {
                let config = dom_smoothie::Config {
                    text_mode: dom_smoothie::TextMode::Formatted,
                    ..Default::default()
                };
                dom_smoothie::Readability::new(html, url, Some(config))
                    .and_then(|mut r| r.parse())
                    .map(|article| article.text_content.to_string())
                    .unwrap_or_default()
            }),
        ),
    ]
}

fn f(value: f64) -> String {
    format!("{value:.3}")
}

fn main() -> anyhow::Result<()> {
    let args = Args::from_env();
    let every: usize = args.parse("--every", 1);
    let root = shared_data_root()?;
    let mut seen_per_type = std::collections::HashMap::<String, usize>::new();
    let wcxb = load_wcxb(&root, &mut |_, page_type| {
        let n = seen_per_type.entry(page_type.to_string()).or_insert(0);
        *n += 1;
        (*n - 1).is_multiple_of(every)
    })?;
    let scrapinghub = load_scrapinghub(&root)?;
    eprintln!(
        "{} WCXB dev pages, {} ScrapingHub pages",
        wcxb.len(),
        scrapinghub.len()
    );
    let only = args.value("--only");
    let mut results: Vec<(&str, SetScore, SetScore)> = Vec::new();
    for (name, extractor) in candidates() {
        if only.as_deref().is_some_and(|only| !name.contains(only)) {
            continue;
        }
        eprintln!("scoring {name}");
        let on_wcxb = score_set(&wcxb, &extractor);
        let on_scrapinghub = score_set(&scrapinghub, &extractor);
        results.push((name, on_wcxb, on_scrapinghub));
    }
    print_tables(&wcxb, &results);
    Ok(())
}

fn print_tables(wcxb: &[ScoredPage], results: &[(&str, SetScore, SetScore)]) {
    let mut overall = Table::new(&[
        "extractor",
        "WCXB F1",
        "P",
        "R",
        "`with` found",
        "`without` absent",
        "ScrapingHub F1",
        "MB/s (1 core)",
    ]);
    for (name, w, s) in results {
        let mb_per_s = (w.bytes + s.bytes) as f64 / 1e6 / (w.cpu + s.cpu).as_secs_f64().max(1e-9);
        overall.row(vec![
            name.to_string(),
            f(w.overall.mean_f1()),
            f(w.overall.mean_precision()),
            f(w.overall.mean_recall()),
            f(w.overall.with_rate()),
            f(w.overall.without_rate()),
            f(s.overall.mean_f1()),
            format!("{mb_per_s:.1}"),
        ]);
    }
    println!(
        "### Main-content extraction, each page on its own ({} WCXB dev pages, 181 ScrapingHub)\n",
        wcxb.len()
    );
    println!("{}", overall.render());
    let types: Vec<&String> = results[0].1.by_type.keys().collect();
    let mut header = vec!["extractor (WCXB F1 by page type)"];
    let labels: Vec<String> = types
        .iter()
        .map(|t| format!("{t} ({})", results[0].1.by_type[*t].pages))
        .collect();
    header.extend(labels.iter().map(String::as_str));
    let mut by_type = Table::new(&header);
    for (name, w, _) in results {
        let mut row = vec![name.to_string()];
        row.extend(types.iter().map(|t| f(w.by_type[*t].mean_f1())));
        by_type.row(row);
    }
    println!("{}", by_type.render());
}
