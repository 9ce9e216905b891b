//! `dedupcrawl overlap A B [--sample N] [--seed S] [--json] [--store URL]`: how much of crawl A
//! is in crawl B and the reverse, and their relative size, estimated by sampling each crawl's
//! distinct pages and checking them in the other's dedup index as duplicates (content, not
//! URLs). A and B are OUT directories, or with `--store` crawl names in that database.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use dedupcrawl_crawler::{CrawlConfig, open_crawl_index};
use dedupcrawl_index::{OverlapEstimate, OverlapOptions, estimate_overlap};

use crate::crawl::SAVED_CONFIG;

#[derive(Debug, clap::Args)]
pub struct OverlapArgs {
    /// The first crawl: its output directory (or, with `--store`, its crawl name).
    pub a: String,
    /// The second crawl.
    pub b: String,
    /// Distinct pages sampled from each crawl (all of them when a crawl has fewer).
    #[arg(long, default_value_t = 1000)]
    pub sample: usize,
    /// Seed of the sample: the same seed on the same crawls gives the same estimate.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Both crawls live in this PostgreSQL database (`postgres://…`); A and B are crawl names.
    #[arg(long)]
    pub store: Option<String>,
}

pub fn run(args: OverlapArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.sample > 0,
        "--sample must be at least 1 (pages sampled from each crawl)"
    );
    let a = open(&args.a, args.store.as_deref())?;
    let b = open(&args.b, args.store.as_deref())?;
    let estimate = estimate_overlap(
        a.as_ref(),
        b.as_ref(),
        &OverlapOptions {
            sample: args.sample,
            seed: args.seed,
        },
    )
    .context("sampling the two indexes")?;
    if args.json {
        println!("{}", serde_json::to_string(&estimate)?);
    } else {
        print_text(&args, &estimate);
    }
    Ok(())
}

/// One crawl's index, with the settings the crawl ran with (its saved `crawl.toml`).
fn open(
    crawl: &str,
    store: Option<&str>,
) -> anyhow::Result<std::sync::Arc<dyn dedupcrawl_index::DedupIndex>> {
    let mut config = match store {
        Some(url) => {
            let mut config = CrawlConfig::default();
            config.store.url = Some(url.to_string());
            config.store.crawl = Some(crawl.to_string());
            config
        }
        None => {
            let out = PathBuf::from(crawl);
            anyhow::ensure!(
                out.is_dir(),
                "{crawl} is not a directory: give two crawl output directories (or crawl \
                 names with --store postgres://…)"
            );
            saved_config(&out)?
        }
    };
    if store.is_none() {
        config.crawl.out = PathBuf::from(crawl);
    }
    open_crawl_index(&config).with_context(|| format!("opening the dedup index of {crawl}"))
}

/// The configuration a crawl saved, or the defaults for a crawl that saved none.
pub(crate) fn saved_config(out: &Path) -> anyhow::Result<CrawlConfig> {
    let saved = out.join(SAVED_CONFIG);
    if saved.exists() {
        CrawlConfig::load(&saved).with_context(|| format!("reading {}", saved.display()))
    } else {
        Ok(CrawlConfig::default())
    }
}

fn print_text(args: &OverlapArgs, estimate: &OverlapEstimate) {
    let percent = |share: f64| format!("{:.1} %", 100.0 * share);
    let range = |[lo, hi]: [f64; 2]| format!("{} – {}", percent(lo), percent(hi));
    println!(
        "A = {} ({} distinct pages, {} sampled), B = {} ({} distinct pages, {} sampled)",
        args.a,
        estimate.documents_a,
        estimate.sampled_a,
        args.b,
        estimate.documents_b,
        estimate.sampled_b
    );
    println!(
        "A in B: {} (95 % interval {})",
        percent(estimate.a_in_b),
        range(estimate.a_in_b_ci95)
    );
    println!(
        "B in A: {} (95 % interval {})",
        percent(estimate.b_in_a),
        range(estimate.b_in_a_ci95)
    );
    match (estimate.size_ratio, estimate.size_ratio_ci95) {
        (Some(ratio), Some([lo, hi])) => {
            println!("|A| / |B| from the samples: {ratio:.3} (95 % interval {lo:.3} – {hi:.3})")
        }
        _ => println!("|A| / |B|: no page found in the other crawl, nothing to relate the sizes"),
    }
    println!("A ∪ B: about {:.0} distinct pages", estimate.union);
}
