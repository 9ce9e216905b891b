//! How the main-content view of one page comes about, for working on the view: every block
//! with its kind, words, link density, chrome flag and whether the page-level extractor's
//! verdict keeps it, then the extractor's own text.
//!
//! `explain-main FILE [URL]`

use dedupcrawl_textprep::{PageExtractor, extract};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let file = args
        .first()
        .ok_or_else(|| anyhow::anyhow!("usage: explain-main FILE [URL]"))?;
    let url = args.get(1).map(String::as_str);
    let html = dedupcrawl_bench::load_page(std::path::Path::new(file))?.html;
    let page = extract(&html);
    let mask = PageExtractor.mask(&html, url, &page);
    for (i, block) in page.blocks.iter().enumerate() {
        let kept = mask.as_ref().map(|m| m[i]);
        let mut text: String = block.text.chars().take(90).collect();
        if text.len() < block.text.len() {
            text.push('…');
        }
        println!(
            "{} {:?} w{} l{:.2}{} p{} {}",
            match kept {
                Some(true) => "KEEP",
                Some(false) => "drop",
                None => "none",
            },
            block.kind,
            block.word_count(),
            block.link_density(),
            if block.in_chrome { " chrome" } else { "" },
            block.parent,
            text
        );
    }
    println!("== extractor text:\n{}", PageExtractor.text(&html, url));
    Ok(())
}
