//! `dedupcrawl repair OUT`: rebuilds a crawl's lost or damaged state (`OUT/state/`) from its
//! crawl log and WARC files, with the configuration the crawl saved (`OUT/crawl.toml`). The
//! state found is moved aside, not deleted.

use std::path::PathBuf;

use anyhow::Context as _;
use dedupcrawl_crawler::{CrawlConfig, repair_state};

use crate::crawl::SAVED_CONFIG;

#[derive(clap::Args)]
pub struct RepairArgs {
    /// The output directory of a crawl whose state is lost or damaged.
    #[arg(value_name = "OUT")]
    pub out_dir: PathBuf,
}

pub fn run(args: RepairArgs) -> anyhow::Result<()> {
    let saved = args.out_dir.join(SAVED_CONFIG);
    let mut config = CrawlConfig::load(&saved).with_context(|| {
        format!(
            "cannot read the crawl's saved {} (repair needs the configuration the crawl ran with)",
            saved.display()
        )
    })?;
    config.crawl.out = args.out_dir.clone();
    let repair = repair_state(&config)
        .with_context(|| format!("cannot repair the state of {}", args.out_dir.display()))?;
    if let Some(aside) = &repair.moved_aside {
        println!("the state found was moved to {}", aside.display());
    }
    println!(
        "state rebuilt for round {}: {} URLs from the crawl log, {} WARC records read back \
         (archived records, dedup index), {} links of archived pages queued, {} damaged WARC \
         bytes moved to damaged/",
        repair.round,
        repair.urls_logged,
        repair.records_read,
        repair.links_queued,
        repair.damaged_bytes_moved
    );
    println!("run the crawl again (the same `dedupcrawl crawl` command) to continue it");
    Ok(())
}
