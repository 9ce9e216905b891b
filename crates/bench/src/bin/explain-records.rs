//! The compared texts an index keeps, for working on the decision: the records' names, links
//! and compared text, and the exact shingle counts of the first against each other one.
//!
//! `explain-records INDEX_DIR ID [ID...]` (ids as a decision's `reason.page_record` and
//! `reason.original_record` name them; the index of `dedupcrawl dedup --index`).

use dedupcrawl_index::{
    DedupIndex, IndexConfig, SledDedupIndex, compared_shingle_set, shingle_counts,
};
use dedupcrawl_sketch::shingle_set;
use dedupcrawl_textprep::{ComparedText, Normalizer};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (dir, ids) = args
        .split_first()
        .ok_or_else(|| anyhow::anyhow!("usage: explain-records INDEX_DIR ID [ID...]"))?;
    let index = SledDedupIndex::open(std::path::Path::new(dir), IndexConfig::default())?;
    let mut sets = Vec::new();
    for id in ids {
        let id: u32 = id.parse()?;
        let record = index
            .document(id)?
            .ok_or_else(|| anyhow::anyhow!("no record {id}"))?;
        let text = ComparedText::decode(&record.compared_text)?;
        let mut tokens = Vec::new();
        text.token_hashes(&Normalizer::default(), &mut tokens);
        println!(
            "== {id} {} (link {:?}), {} tokens",
            record.name,
            record.link,
            tokens.len()
        );
        for (language, block) in text.blocks() {
            let short: String = block.chars().take(150).collect();
            println!("  [{}] {short}", language.code());
        }
        sets.push(compared_shingle_set(&shingle_set(&tokens, 5)));
    }
    for (i, set) in sets.iter().enumerate().skip(1) {
        let counts = shingle_counts(&sets[0], set);
        println!(
            "{} vs {}: {counts:?} resemblance {:.4} containment {:.4}",
            ids[0],
            ids[i],
            counts.resemblance(),
            counts.containment()
        );
    }
    Ok(())
}
