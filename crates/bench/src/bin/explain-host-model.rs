//! Where a host's model and the page-level extractor disagree, for working on the host model:
//! the pages of DIR (sorted, spread like `crates/textprep/tests/host_model.rs`) go through one
//! `MainContent`; for each page past the cold start that the model decides, the blocks one of
//! them keeps and the other drops, with their words.
//!
//! `explain-host-model DIR [PAGES] [--cold-start-pages N] [--max-extractor-share X]`; it ends
//! with the agreement over every such page, measured as `crates/textprep/tests/host_model.rs`
//! does (word-multiset F1 over all their words, and the mean per page): with PAGES past the
//! host's size, the whole host. The two settings replace the defaults of
//! `[dedup.text.main_content]`, to see how far the model can follow the extractor.

use dedupcrawl_bench::extraction::word_overlap;
use dedupcrawl_textprep::{ContentSource, MainContent, MainContentConfig, extract};

fn main() -> anyhow::Result<()> {
    const USAGE: &str = "usage: explain-host-model DIR [PAGES] [--cold-start-pages N] \
                         [--max-extractor-share X]";
    let mut positional = Vec::new();
    let mut config = MainContentConfig::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| anyhow::anyhow!("{arg} needs a value; {USAGE}"))
        };
        match arg.as_str() {
            // The cold start at this length exactly: its early end is turned off.
            "--cold-start-pages" => {
                config.cold_start_pages = value()?.parse()?;
                config.warm_after_predicted_pages = 0;
            }
            "--max-extractor-share" => config.max_extractor_share = value()?.parse()?,
            _ => positional.push(arg),
        }
    }
    let dir = positional.first().ok_or_else(|| anyhow::anyhow!(USAGE))?;
    let limit: usize = positional
        .get(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(120);
    let mut files = dedupcrawl_bench::html_files(std::path::Path::new(dir));
    let step = (files.len() / limit).max(1);
    files = files.into_iter().step_by(step).take(limit).collect();
    let main = MainContent::new(config);
    let (mut only_model, mut only_extractor) = (
        std::collections::HashMap::<String, usize>::new(),
        std::collections::HashMap::<String, usize>::new(),
    );
    let mut agreement = Agreement::default();
    for (n, path) in files.iter().enumerate() {
        let html = dedupcrawl_bench::load_page(path)?.html;
        let page = extract(&html);
        let decided = main.decide(dir, &html, None, &page);
        if n < config.cold_start_pages as usize || decided.source != ContentSource::HostModel {
            continue;
        }
        let alone = main.decide_alone(&html, None, &page, &|_| false);
        let (common, model_words, extractor_words) =
            word_overlap(&decided.text(&page), &alone.text(&page));
        agreement.add((
            u64::from(common),
            u64::from(model_words),
            u64::from(extractor_words),
        ));
        let mut lines = Vec::new();
        let (mut page_words, mut model_only_words, mut extractor_only_words) = (0, 0, 0);
        for ((block, &model), &extractor) in page.blocks.iter().zip(&decided.mask).zip(&alone.mask)
        {
            if extractor {
                page_words += block.word_count();
            }
            if model == extractor {
                continue;
            }
            if model {
                model_only_words += block.word_count();
            } else {
                extractor_only_words += block.word_count();
            }
            let text: String = block.text.chars().take(70).collect();
            let key = format!("{:?} {text}", block.kind);
            if model {
                *only_model.entry(key.clone()).or_default() += block.word_count();
            } else {
                *only_extractor.entry(key.clone()).or_default() += block.word_count();
            }
            lines.push(format!(
                "  {} w{} {key}",
                if model { "model" } else { "extr " },
                block.word_count()
            ));
        }
        if !lines.is_empty() {
            println!(
                "{} (extractor {page_words} words; only the model {model_only_words}, \
                 only the extractor {extractor_only_words})",
                path.display()
            );
            lines
                .iter()
                .take(
                    std::env::var("LINES")
                        .ok()
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(12),
                )
                .for_each(|l| println!("{l}"));
        }
    }
    for (name, counts) in [
        ("only the model", only_model),
        ("only the extractor", only_extractor),
    ] {
        let mut counts: Vec<_> = counts.into_iter().collect();
        counts.sort_by_key(|entry| std::cmp::Reverse(entry.1));
        println!("== words kept by {name}, by block text (top 30)");
        for (key, words) in counts.iter().take(30) {
            println!("{words:>6} {key}");
        }
    }
    println!(
        "== {} pages by the model after the first {}: F1 with the extractor {:.4} over all \
         their words, mean per page {:.4}",
        agreement.pages,
        config.cold_start_pages,
        f1(agreement.words),
        agreement.per_page_sum / agreement.pages.max(1) as f64
    );
    Ok(())
}

fn f1((common, a, b): (u64, u64, u64)) -> f64 {
    if a + b == 0 {
        1.0
    } else {
        2.0 * common as f64 / (a + b) as f64
    }
}

/// The pooled overlap of the pages seen, and their per-page F1.
#[derive(Default)]
struct Agreement {
    words: (u64, u64, u64),
    per_page_sum: f64,
    pages: usize,
}

impl Agreement {
    fn add(&mut self, overlap: (u64, u64, u64)) {
        self.words.0 += overlap.0;
        self.words.1 += overlap.1;
        self.words.2 += overlap.2;
        self.per_page_sum += f1(overlap);
        self.pages += 1;
    }
}
