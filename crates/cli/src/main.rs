//! The `dedupcrawl` binary: crawl, offline dedup, compare, export, clusters.

mod clusters;
mod compare;
mod dedup;
mod dedup_warc;
mod export;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "dedupcrawl",
    version,
    about = "A polite web crawler with built-in duplicate detection"
)]
struct Cli {
    /// Log level filter (also RUST_LOG), e.g. `info`, `dedupcrawl=debug`.
    #[arg(long, global = true, default_value = "warn")]
    log_level: String,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compare two documents (HTML or text files) with every estimator.
    Compare(compare::CompareArgs),
    /// Offline dedup of HTML files on disk (or of WARC archives) through a persistent index.
    Dedup(dedup::DedupArgs),
    /// Export the deduplicated archive of a crawl as JSONL, plain text or WARC.
    Export(export::ExportArgs),
    /// Near-duplicate clusters of a crawl: JSONL and an HTML report.
    Clusters(clusters::ClustersArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(&cli.log_level));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    let result = match cli.command {
        Command::Compare(args) => compare::run(args),
        Command::Dedup(args) => dedup::run(args),
        Command::Export(args) => export::run(args),
        Command::Clusters(args) => clusters::run(args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("dedupcrawl: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
