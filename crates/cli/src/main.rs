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

/// glibc gives every thread that allocates its own malloc arena (up to 8 per core), and a
/// crawl's tokio workers and page threads each keep theirs: on 2 cores that is ~150 MB of
/// fragmented heap for nothing. Two arenas cost no measurable speed.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn limit_malloc_arenas() {
    // SAFETY: mallopt only adjusts allocator parameters; called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn limit_malloc_arenas() {}

fn main() -> std::process::ExitCode {
    limit_malloc_arenas();
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
