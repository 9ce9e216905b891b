//! `dedupcrawl recrawl OUT`: one new round over an earlier crawl. The URLs whose revisit is due
//! (`--all`: every known one) are fetched again with conditional requests; unchanged pages
//! become WARC `revisit` records, changed ones new versions. Without `--config` and `--seed`
//! the configuration the crawl saved in `OUT/crawl.toml` is used. Re-run to resume.

use std::path::PathBuf;

use anyhow::Context as _;
use dedupcrawl_crawler::{CrawlConfig, run_locked_recrawl};

use crate::crawl::{CrawlArgs, SAVED_CONFIG, SavedConfigRule, overrides};

#[derive(Debug, clap::Args)]
pub struct RecrawlArgs {
    /// The output directory of an earlier `dedupcrawl crawl`.
    #[arg(value_name = "OUT")]
    pub out_dir: PathBuf,
    /// Revisit every known URL now, whatever its revisit interval.
    #[arg(long)]
    pub all: bool,
    #[command(flatten)]
    pub crawl: CrawlArgs,
}

/// Runs one round; exit status as `crawl`.
pub fn run(args: RecrawlArgs) -> anyhow::Result<u8> {
    let RecrawlArgs {
        out_dir,
        all,
        mut crawl,
    } = args;
    let saved = out_dir.join(SAVED_CONFIG);
    let mut config = match &crawl.config {
        Some(path) => CrawlConfig::load(path)?,
        None if crawl.seeds.is_empty() && saved.exists() => CrawlConfig::load(&saved)
            .with_context(|| format!("cannot read the crawl's saved {}", saved.display()))?,
        None => CrawlConfig::default(),
    };
    if crawl.serve.is_some() {
        anyhow::bail!(
            "--serve is not available for recrawl yet: run `dedupcrawl serve {}` next to it",
            out_dir.display()
        );
    }
    crawl.out = Some(out_dir.clone());
    config.apply(overrides(&mut crawl));
    crate::crawl::run_with(
        config,
        &crawl,
        SavedConfigRule::Replace,
        move |config, lock| async move { Ok(run_locked_recrawl(config, all, lock).await?) },
    )
}
