//! `dedupcrawl crawl`: a polite, resumable, deduplicating crawl.
//!
//! `dedupcrawl crawl --config config/sites.toml` or
//! `dedupcrawl crawl --seed https://example.org/ --out DIR`; flags override config keys.
//! Running the same command again on the same output directory resumes an interrupted crawl.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use dedupcrawl_crawler::{
    ConfigOverrides, CrawlConfig, CrawlReport, OutputLock, config_without_credentials,
    run_locked_crawl,
};

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
    /// URL rules learned from duplicates: `on` skips a URL that a learned rule maps onto a
    /// page already archived (`url_duplicate`), `off` fetches every URL. Replaces
    /// `crawl.url_rules`.
    #[arg(long, value_name = "on|off", value_parser = on_off)]
    pub url_rules: Option<bool>,
    /// Runtime threads: N threads for fetching and N for page processing (4N on a
    /// PostgreSQL store, where page processing mostly waits for the database; default: the
    /// machine's cores). `--threads 1` keeps a worker near one core, e.g. to run several
    /// workers of one crawl on one machine.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Format of the log lines on stderr.
    #[arg(long, value_enum, default_value_t = LogFormat::Human)]
    pub log_format: LogFormat,
    /// Serve the live dashboard and `/metrics` on this address while the crawl runs (e.g.
    /// 127.0.0.1:8700; port 0 picks one and logs it). Not a loopback address: needs --token.
    #[arg(long, value_name = "ADDR")]
    pub serve: Option<std::net::SocketAddr>,
    #[command(flatten)]
    pub token: crate::serve_access::TokenArg,
    /// No progress bar and no info log lines (warnings and errors still show; the summary is
    /// still printed on stdout).
    #[arg(long)]
    pub quiet: bool,
    /// Extend the crawl in --out with the seeds given (--seed, or the config's): they are added
    /// to the crawl's own seeds (without --config, the crawl's saved configuration is used).
    /// Without it, seeds or a config other than the crawl's are refused: one OUT, one crawl.
    #[arg(long)]
    pub add_seeds: bool,
}

/// `level` with the DevTools client's own events at `error`: it logs each protocol event of a
/// browser newer than it knows as a warning (every page a rendering crawl renders).
pub fn quiet_devtools(level: &str) -> String {
    format!("chromiumoxide=error,{level}")
}

/// Installs the `tracing` subscriber for a crawl (level from `RUST_LOG`, else `level`). Does
/// nothing if one is already installed.
pub fn init_logging(format: LogFormat, level: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(quiet_devtools(level)));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // `try_init` fails only when a subscriber is already set: keep that one.
    let _ = match format {
        LogFormat::Human => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// Page-processing threads per `--threads` on a PostgreSQL store (see `run`).
const PAGE_THREADS_PER_THREAD_ON_POSTGRES: usize = 4;

/// Exit status when every seed host was given up in this run (nothing could be crawled), so
/// a scheduled run's failure is noticed. Documented in the README.
pub const EXIT_ALL_SEED_HOSTS_GIVEN_UP: u8 = 4;

/// Runs the crawl. `Ok(0)` when it ran to its end and at least one seed host answered (failed
/// pages and given-up hosts are in the crawl log and the summary, not errors);
/// `Ok(EXIT_ALL_SEED_HOSTS_GIVEN_UP)` when every seed host was given up; 130 / 143 when SIGINT
/// / SIGTERM interrupted it. A start that is refused (bad config or seeds, busy port, OUT in
/// use or holding another crawl) writes nothing.
pub fn run(mut args: CrawlArgs) -> anyhow::Result<u8> {
    if args.config.is_none() && args.out.is_none() {
        anyhow::bail!("--out DIR is required without --config");
    }
    let mut config = match &args.config {
        Some(path) => CrawlConfig::load(path)?,
        // Extending a crawl without --config: the crawl's own configuration, plus the seeds.
        None if args.add_seeds => {
            saved_config(args.out.as_deref().unwrap_or(Path::new("")))?.unwrap_or_default()
        }
        None => CrawlConfig::default(),
    };
    config.apply(overrides(&mut args));
    if args.add_seeds
        && let Some(saved) = saved_config(&config.crawl.out)?
    {
        config = crate::same_crawl::with_added_seeds(&saved, config);
    }
    config.validate()?;
    // Bound before anything is written: a busy port refuses the start.
    let listener = match args.serve {
        Some(address) => Some(bind_dashboard(address, args.token.resolve())?),
        None => None,
    };
    let rule = SavedConfigRule::SameCrawl {
        add_seeds: args.add_seeds,
    };
    run_with(config, &args, rule, move |config, lock| {
        crawl_maybe_served(config, listener, lock)
    })
}

/// The dashboard's listening socket and its access token (a non-loopback address needs one).
type DashboardListener = (std::net::TcpListener, dedupcrawl_observe::AccessToken);

fn bind_dashboard(
    address: std::net::SocketAddr,
    token: Option<String>,
) -> anyhow::Result<DashboardListener> {
    let token = dedupcrawl_observe::AccessToken::for_address(address, token)?;
    let listener = std::net::TcpListener::bind(address)
        .with_context(|| format!("cannot listen on {address} (--serve)"))?;
    listener
        .set_nonblocking(true)
        .context("cannot set up the dashboard's socket")?;
    Ok((listener, token))
}

/// The configuration saved in `out`, if the directory holds a crawl that saved one.
pub fn saved_config(out: &Path) -> anyhow::Result<Option<CrawlConfig>> {
    let path = out.join(SAVED_CONFIG);
    if !path.exists() {
        return Ok(None);
    }
    let config = CrawlConfig::load(&path)
        .with_context(|| format!("cannot read the crawl's saved {}", path.display()))?;
    Ok(Some(config))
}

/// What a run checks against the configuration saved in OUT.
#[derive(Debug, Clone, Copy)]
pub enum SavedConfigRule {
    /// `crawl`: the same crawl ([`crate::same_crawl::check`]), or more seeds with --add-seeds.
    SameCrawl { add_seeds: bool },
    /// `recrawl`: its config replaces the saved one.
    Replace,
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
        url_rules: args.url_rules,
    }
}

/// `on` or `off` (for `--url-rules`).
fn on_off(value: &str) -> Result<bool, String> {
    match value {
        "on" => Ok(true),
        "off" => Ok(false),
        other => Err(format!("{other:?}: expected on or off")),
    }
}

/// Runs `round` (a crawl or a recrawl) on `config` with the runtime flags of `args`
/// (`--threads`, `--quiet`, `--log-format`): validates, takes OUT's lock, checks the saved
/// config (`rule`) and saves this one, in that order, so a refused start writes nothing;
/// prints the summary; the exit status as [`run`] documents.
pub fn run_with<F, Fut>(
    mut config: CrawlConfig,
    args: &CrawlArgs,
    rule: SavedConfigRule,
    round: F,
) -> anyhow::Result<u8>
where
    F: FnOnce(CrawlConfig, OutputLock) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<CrawlReport>>,
{
    init_logging(args.log_format, "info");
    if args.quiet {
        config.crawl.progress = false;
    }
    config.validate()?;
    let out = config.crawl.out.clone();
    let lock = OutputLock::acquire(&out)?;
    if let SavedConfigRule::SameCrawl { add_seeds } = rule
        && let Some(saved) = saved_config(&out)?
    {
        crate::same_crawl::check(&saved, &config, add_seeds, &out)?;
    }
    save_config(&config, &out)?;
    let runtime = runtime(args, config.store.url.is_some())?;
    let report = runtime.block_on(round(config, lock)).map_err(|error| {
        // A full disk loses nothing (records are cut back, the state is kill-safe): say so.
        let hint = if format!("{error:#}").contains("No space left on device") {
            ": the disk is full; free space and run the same command to resume (nothing \
             written so far is lost)"
        } else {
            ""
        };
        error.context(format!("crawl into {} failed{hint}", out.display()))
    })?;
    // Page work of fetches dropped by an interrupt may still run: it is not waited for (the
    // state is safe against a stop at any point).
    runtime.shutdown_timeout(std::time::Duration::from_millis(500));
    println!("{}", report.summary());
    println!(
        "WARC files in {}, crawl log {}, report {}",
        out.join("warc").display(),
        out.join("crawl.log.jsonl").display(),
        out.join("report.json").display()
    );
    if let Some(signal) = report.interrupted_by {
        eprintln!(
            "dedupcrawl: interrupted by {}: run the same command to resume (exit status {})",
            signal.name(),
            signal.exit_status()
        );
        return Ok(signal.exit_status());
    }
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

/// Saves `config` as `OUT/crawl.toml` (`recrawl` reads it), without the seeds' credentials;
/// an unchanged file is not written again.
fn save_config(config: &CrawlConfig, out: &Path) -> anyhow::Result<()> {
    let saved = toml::to_string(&config_without_credentials(config))
        .context("cannot write the config as TOML")?;
    let path = out.join(SAVED_CONFIG);
    if std::fs::read(&path).is_ok_and(|bytes| bytes == saved.as_bytes()) {
        return Ok(());
    }
    std::fs::write(&path, saved)
        .with_context(|| format!("cannot save the config in {}", out.display()))
}

/// The async runtime of a crawl, sized by `--threads`.
fn runtime(args: &CrawlArgs, on_postgres: bool) -> anyhow::Result<tokio::runtime::Runtime> {
    // Page processing (parse, dedup, WARC write) runs on the blocking pool: CPU-bound work
    // gains nothing from more threads than cores, and each thread keeps its own stem cache,
    // so an unbounded pool (tokio's default is 512) only costs memory.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    match args.threads {
        Some(threads) => {
            // On PostgreSQL a page's processing mostly waits for round trips to the database:
            // more threads overlap those waits (the CPU work stays the same).
            let waiting = if on_postgres {
                PAGE_THREADS_PER_THREAD_ON_POSTGRES
            } else {
                1
            };
            builder
                .worker_threads(usize::from(threads))
                .max_blocking_threads(usize::from(threads) * waiting)
        }
        None => builder.max_blocking_threads((2 * cores).max(4)),
    };
    builder
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Runs the crawl; with `listener`, the dashboard and `/metrics` are served on it until the
/// crawl ends.
async fn crawl_maybe_served(
    config: CrawlConfig,
    listener: Option<DashboardListener>,
    lock: OutputLock,
) -> anyhow::Result<CrawlReport> {
    let Some((listener, token)) = listener else {
        let observer = std::sync::Arc::new(dedupcrawl_observe::CrawlObserver::unobserved());
        return Ok(run_locked_crawl(config, observer, lock).await?);
    };
    let listener = tokio::net::TcpListener::from_std(listener).context("dashboard socket")?;
    let bound = listener.local_addr().context("listening address")?;
    let mut dashboard = dedupcrawl_observe::Dashboard::new();
    let observer = dashboard.add_crawl_with_queries(
        &config.crawl.out.display().to_string(),
        false,
        Some(std::sync::Arc::new(
            crate::dashboard_queries::CrawlOnDisk::new(config.crawl.out.clone()),
        )),
    );
    tracing::info!("dashboard: {}", crate::serve_access::dashboard_url(bound));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(dedupcrawl_observe::serve(
        listener,
        dashboard.router(token),
        async move {
            let _ = stopped.await;
        },
    ));
    let report = run_locked_crawl(config, observer, lock).await;
    let _ = stop.send(());
    if let Err(error) = server.await.context("dashboard server")? {
        tracing::warn!("{error}");
    }
    Ok(report?)
}
