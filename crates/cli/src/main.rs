//! The `dedupcrawl` binary: crawl, offline dedup, compare, export, clusters, extract, serve,
//! why.

mod changes;
mod changes_html;
mod clusters;
mod compare;
mod crawl;
mod crawl_outputs;
mod dashboard_queries;
mod dedup;
mod dedup_common;
mod dedup_warc;
mod export;
mod extract;
mod overlap;
mod progress_lines;
mod recrawl;
mod repair;
mod round_state;
mod same_crawl;
mod schedule;
mod serve;
mod serve_access;
mod warc_texts;
mod why;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "dedupcrawl",
    version,
    about = "A polite web crawler with built-in duplicate detection"
)]
struct Cli {
    /// Log level filter (also RUST_LOG), e.g. `info`, `dedupcrawl=debug`. Default: `info` for
    /// crawl, `warn` for the other commands.
    #[arg(long, global = true)]
    log_level: Option<String>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Crawl a site list politely, dedup every page before its links are followed, archive
    /// new pages as WARC. Re-run the same command to resume.
    Crawl(crawl::CrawlArgs),
    /// One new round over an earlier crawl: revisit the URLs that are due with conditional
    /// requests, archive what changed, record unchanged pages as WARC revisits. Re-run to resume.
    Recrawl(recrawl::RecrawlArgs),
    /// Run each site of a site list on its own schedule (`every` or cron): its first round is
    /// a crawl, later rounds recrawls. `--once`: run what is due now and exit.
    Schedule(schedule::ScheduleArgs),
    /// What changed in a recrawl round (default: the latest), as JSONL.
    Changes(changes::ChangesArgs),
    /// Compare two documents (HTML or text files) with every estimator.
    Compare(compare::CompareArgs),
    /// Offline dedup of HTML files on disk (or of WARC archives) through a persistent index.
    Dedup(dedup_common::DedupArgs),
    /// Export the deduplicated archive of a crawl as JSONL, plain text or WARC.
    Export(export::ExportArgs),
    /// Near-duplicate clusters of a crawl: JSONL and an HTML report.
    Clusters(clusters::ClustersArgs),
    /// The live dashboard and Prometheus `/metrics` of crawls on disk (finished or running).
    Serve(serve::ServeArgs),
    /// Why one URL was archived or not: decision, the page it duplicates and how that was
    /// computed, how it was found, redirects, robots/scope/error detail.
    Why(why::WhyArgs),
    /// The text the dedup compares for each HTML file: its main content (or whole text), as
    /// decided from the page alone.
    Extract(extract::ExtractArgs),
    /// How much of one crawl is in another, and their relative size, estimated by sampling
    /// each crawl's distinct pages and checking them in the other's dedup index.
    Overlap(overlap::OverlapArgs),
    /// Rebuild a crawl's lost or damaged state (OUT/state/) from its crawl log and WARC files;
    /// the state found is moved aside. Then run the crawl again to continue.
    Repair(repair::RepairArgs),
}

/// The allocator: mimalloc, whose thread-local heaps take less CPU than glibc's two arenas on a
/// crawl's many small allocations from many threads (0.89x the CPU of a 3,000-page crawl of the
/// Rust docs against glibc's malloc, A/B in turn, same peak RSS).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's defaults (arenas committed whole, freed memory held for a second) held a crawl's
/// resident set at 1.4x glibc's; committing on demand and purging after 100 ms keep it at
/// glibc's (the memory gate of `crawl.max_memory_mb` reads the resident set; purging at once
/// cost more in system calls than the allocator saved). The options must be set before the
/// first allocation reserves the first arena, so this runs as a load-time constructor
/// (`.init_array`), before the Rust runtime allocates; it allocates nothing itself.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static TUNE_ALLOCATOR: extern "C" fn() = tune_allocator;

#[cfg(target_os = "linux")]
extern "C" fn tune_allocator() {
    // Their numbers in `mi_option_e` of the mimalloc that the pinned libmimalloc-sys builds;
    // its Rust bindings name neither.
    const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    const PURGE_DELAY_MS: std::ffi::c_long = 100;
    // SAFETY: mi_option_set only stores the value (and marks the option set), at any time.
    unsafe {
        libmimalloc_sys::mi_option_set(ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS);
    }
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    if let Command::Crawl(args) = cli.command {
        // Human or JSON lines (`--log-format`); `run` keeps a subscriber already set.
        // `--quiet`: warnings and errors only (an explicit --log-level still wins).
        let default_level = if args.quiet { "warn" } else { "info" };
        crawl::init_logging(
            args.log_format,
            cli.log_level.as_deref().unwrap_or(default_level),
        );
        return match crawl::run(args) {
            Ok(status) => std::process::ExitCode::from(status),
            Err(error) => finish(Err(error)),
        };
    }
    if let Command::Schedule(args) = cli.command {
        crawl::init_logging(
            crawl::LogFormat::Human,
            cli.log_level.as_deref().unwrap_or("info"),
        );
        return finish(schedule::run(args));
    }
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        tracing_subscriber::EnvFilter::new(crate::crawl::quiet_devtools(
            cli.log_level.as_deref().unwrap_or("warn"),
        ))
    });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    if let Command::Recrawl(args) = cli.command {
        crawl::init_logging(
            args.crawl.log_format,
            cli.log_level.as_deref().unwrap_or("info"),
        );
        return match recrawl::run(args) {
            Ok(status) => std::process::ExitCode::from(status),
            Err(error) => finish(Err(error)),
        };
    }
    finish(match cli.command {
        Command::Changes(args) => changes::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Dedup(args) => dedup::run(args),
        Command::Export(args) => export::run(args),
        Command::Clusters(args) => clusters::run(args),
        Command::Extract(args) => extract::run(args),
        Command::Overlap(args) => overlap::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Why(args) => why::run(args),
        Command::Repair(args) => repair::run(args),
        Command::Crawl(_) | Command::Recrawl(_) | Command::Schedule(_) => Ok(()),
    })
}

fn finish(result: anyhow::Result<()>) -> std::process::ExitCode {
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("dedupcrawl: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
