//! `dedupcrawl crawl`: a polite, resumable, deduplicating crawl.
//!
//! `dedupcrawl crawl --config config/sites.toml` or
//! `dedupcrawl crawl --seed https://example.org/ --out DIR`; flags override config keys.
//! Running the same command again on the same output directory resumes an interrupted crawl.

use std::path::PathBuf;

use anyhow::Context as _;
use dedupcrawl_crawler::{ConfigOverrides, CrawlConfig, CrawlError, CrawlReport, run_crawl};

/// The configuration of a crawl as it ran, saved in its output directory (`recrawl` reads it).
pub const SAVED_CONFIG: &str = "crawl.toml";

/// Format of the `tracing` log lines on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LogFormat {
    #[default]
    Human,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct CrawlArgs {
    /// Config file (TOML; every key is documented in config/default.toml).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Seed URL (repeatable); the crawl stays on the seeds' hosts. Replaces `crawl.seeds`.
    #[arg(long = "seed", value_name = "URL")]
    pub seeds: Vec<String>,
    /// Output directory (WARC files, crawl log, CDXJ index, state, report).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Minimum seconds between requests to one host (a larger robots.txt Crawl-delay wins).
    #[arg(long, value_name = "S")]
    pub delay: Option<f64>,
    /// Most requests in flight over all hosts.
    #[arg(long, value_name = "N")]
    pub concurrency: Option<u32>,
    /// Most requests in flight per host.
    #[arg(long, value_name = "N")]
    pub per_host: Option<u32>,
    /// Most pages fetched in this crawl (run again with a larger value to continue).
    #[arg(long, value_name = "N")]
    pub max_pages: Option<u64>,
    /// Largest link depth from a seed (seeds are depth 0).
    #[arg(long, value_name = "N")]
    pub max_depth: Option<u32>,
    /// Near-duplicate threshold on estimated resemblance, in (0, 1].
    #[arg(long, value_name = "T")]
    pub threshold: Option<f64>,
    /// User-Agent header (name the crawler and a contact URL).
    #[arg(long, value_name = "S")]
    pub user_agent: Option<String>,
    /// Keep the crawl's state in PostgreSQL (`postgres://user@host:port/database`) instead of
    /// `OUT/state/`: several workers started with the same --store and --crawl share one
    /// crawl. Replaces `store.url`.
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// The crawl's name in the --store database (workers of one crawl use the same name).
    /// Replaces `store.crawl`.
    #[arg(long = "crawl", value_name = "NAME")]
    pub crawl_name: Option<String>,
    /// Format of the log lines on stderr.
    #[arg(long, value_enum, default_value_t = LogFormat::Human)]
    pub log_format: LogFormat,
}

/// Installs the `tracing` subscriber for a crawl (level from `RUST_LOG`, else `level`). Does
/// nothing if one is already installed.
pub fn init_logging(format: LogFormat, level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // `try_init` fails only when a subscriber is already set: keep that one.
    let _ = match format {
        LogFormat::Human => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// Exit status when every seed host was given up in this run (nothing could be crawled), so
/// a scheduled run's failure is noticed. Documented in the README.
pub const EXIT_ALL_SEED_HOSTS_GIVEN_UP: u8 = 4;

/// Runs the crawl. `Ok(0)` when it ran to its end and at least one seed host answered (failed
/// pages and given-up hosts are in the crawl log and the summary, not errors);
/// `Ok(EXIT_ALL_SEED_HOSTS_GIVEN_UP)` when every seed host was given up.
pub fn run(mut args: CrawlArgs) -> anyhow::Result<u8> {
    let mut config = match &args.config {
        Some(path) => CrawlConfig::load(path)?,
        None => CrawlConfig::default(),
    };
    if args.config.is_none() && args.out.is_none() {
        anyhow::bail!("--out DIR is required without --config");
    }
    config.apply(overrides(&mut args));
    run_with(config, args.log_format, run_crawl)
}

/// The config keys the flags replace (taken out of `args`).
pub fn overrides(args: &mut CrawlArgs) -> ConfigOverrides {
    ConfigOverrides {
        seeds: std::mem::take(&mut args.seeds),
        out: args.out.take(),
        delay: args.delay,
        concurrency: args.concurrency,
        per_host: args.per_host,
        max_pages: args.max_pages,
        max_depth: args.max_depth,
        threshold: args.threshold,
        user_agent: args.user_agent.take(),
        store: args.store.take(),
        crawl_name: args.crawl_name.take(),
    }
}

/// Runs `round` (a crawl or a recrawl) on `config`, prints the summary, saves the config in the
/// output directory; the exit status as [`run`] documents.
pub fn run_with<F, Fut>(config: CrawlConfig, log_format: LogFormat, round: F) -> anyhow::Result<u8>
where
    F: FnOnce(CrawlConfig) -> Fut,
    Fut: std::future::Future<Output = Result<CrawlReport, CrawlError>>,
{
    init_logging(log_format, "info");
    config.validate()?;
    let out = config.crawl.out.clone();
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let saved = toml::to_string(&config).context("cannot write the config as TOML")?;
    std::fs::write(out.join(SAVED_CONFIG), saved)
        .with_context(|| format!("cannot save the config in {}", out.display()))?;
    // Page processing (parse, dedup, WARC write) runs on the blocking pool: CPU-bound work
    // gains nothing from more threads than cores, and each thread keeps its own stem cache,
    // so an unbounded pool (tokio's default is 512) only costs memory.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads((2 * cores).max(4))
        .build()
        .context("cannot start the async runtime")?;
    let report = runtime
        .block_on(round(config))
        .with_context(|| format!("crawl into {} failed", out.display()))?;
    println!("{}", report.summary());
    println!(
        "WARC files in {}, crawl log {}, report {}",
        out.join("warc").display(),
        out.join("crawl.log.jsonl").display(),
        out.join("report.json").display()
    );
    if report.every_seed_host_given_up {
        eprintln!(
            "dedupcrawl: every seed host was given up (see above and report.json); their URLs \
             stay queued: run the same command to try them again (exit status {})",
            EXIT_ALL_SEED_HOSTS_GIVEN_UP
        );
        return Ok(EXIT_ALL_SEED_HOSTS_GIVEN_UP);
    }
    Ok(0)
}
