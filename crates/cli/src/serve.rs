//! `dedupcrawl serve OUT... [--listen 127.0.0.1:8700] [--token T]`: the dashboard and
//! `/metrics` for crawls on disk. Each OUT's crawl log is read, then followed once a second, so
//! a crawl running in another process shows live too. The index's size comes from the
//! `report.json` a run writes at its end (the index itself belongs to the crawl's process:
//! sled opens in one process at a time), so it is not known while the crawl runs.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use dedupcrawl_crawler::{CrawlReport, LogLine, LogReplay, OutputPaths, warc_files};
use dedupcrawl_observe::{CrawlObserver, Dashboard, Gauges};

use crate::dashboard_queries::CrawlOnDisk;
use crate::serve_access::{TokenArg, dashboard_url};

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Output directories of crawls (finished or running).
    #[arg(value_name = "OUT", required = true)]
    pub outs: Vec<PathBuf>,
    /// Address to listen on. Not a loopback address: needs --token (or DEDUPCRAWL_TOKEN).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8700")]
    pub listen: SocketAddr,
    #[command(flatten)]
    pub token: TokenArg,
}

/// Says on stderr what is damaged in a crawl's archive (serve shows what is intact; running
/// the crawl again mends it).
fn warn_if_damaged(out: &Path) {
    match dedupcrawl_crawler::check_archive(out) {
        Ok(check) if check.is_clean() => {}
        Ok(check) => {
            eprintln!(
                "dedupcrawl: warning: the archive in {} is damaged (a crawl running there may \
                 only be writing its last record); run the crawl again to mend it:",
                out.display()
            );
            for line in check.describe() {
                eprintln!("  {line}");
            }
        }
        Err(error) => eprintln!(
            "dedupcrawl: warning: cannot check the archive of {}: {error}",
            out.display()
        ),
    }
}

/// How often the crawl logs are read again.
const FOLLOW_EVERY: Duration = Duration::from_secs(1);

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(serve(args))
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let mut dashboard = Dashboard::new();
    let multiple = args.outs.len() > 1;
    let mut followers = Vec::new();
    for out in &args.outs {
        let paths = OutputPaths::new(out);
        if !paths.crawl_log.exists() {
            anyhow::bail!(
                "{} has no crawl log: not a crawl output directory",
                out.display()
            );
        }
        warn_if_damaged(out);
        let observer = dashboard.add_crawl_with_queries(
            &out.display().to_string(),
            multiple,
            Some(Arc::new(CrawlOnDisk::new(out.clone()))),
        );
        followers.push(LogFollower::new(paths, observer));
    }
    let (listener, token) = dedupcrawl_observe::bind(args.listen, args.token.resolve()).await?;
    let address = listener.local_addr().context("listening address")?;
    eprintln!("dedupcrawl: serving {}", dashboard_url(address));
    tokio::spawn(async move {
        loop {
            for follower in &mut followers {
                if let Err(error) = follower.read_new_lines() {
                    tracing::warn!("{error:#}");
                }
            }
            tokio::time::sleep(FOLLOW_EVERY).await;
        }
    });
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    dedupcrawl_observe::serve(listener, dashboard.router(token), shutdown).await?;
    Ok(())
}

/// Reads one crawl's log from where it left off and feeds the new lines to its observer.
struct LogFollower {
    paths: OutputPaths,
    observer: Arc<CrawlObserver>,
    offset: u64,
    replay: LogReplay,
}

impl LogFollower {
    fn new(paths: OutputPaths, observer: Arc<CrawlObserver>) -> LogFollower {
        LogFollower {
            paths,
            observer,
            offset: 0,
            replay: LogReplay::default(),
        }
    }

    fn read_new_lines(&mut self) -> anyhow::Result<()> {
        let log = &self.paths.crawl_log;
        let mut file = File::open(log).with_context(|| format!("open {}", log.display()))?;
        let length = file.metadata().map(|m| m.len()).unwrap_or(0);
        // A resumed crawl cuts a torn last line: start again from the cut.
        self.offset = self.offset.min(length);
        file.seek(SeekFrom::Start(self.offset))
            .with_context(|| format!("seek {}", log.display()))?;
        let mut tail = Vec::new();
        file.read_to_end(&mut tail)
            .with_context(|| format!("read {}", log.display()))?;
        // Only whole lines: the crawl may be writing the next one.
        let whole = tail.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        for line in tail[..whole].split(|&b| b == b'\n') {
            if line.is_empty() {
                continue;
            }
            match serde_json::from_slice::<LogLine>(line) {
                Ok(line) => {
                    self.replay.line(&self.observer, &line);
                }
                Err(error) => {
                    tracing::warn!(log = %log.display(), %error, "crawl-log line skipped")
                }
            }
        }
        self.offset += whole as u64;
        let ended = crawl_ended(&self.paths);
        let report = if ended { self.report() } else { None };
        self.observer.gauges(Gauges {
            warc_bytes: warc_bytes(&self.paths.warc_dir),
            index_documents: report.as_ref().and_then(|report| report.index_documents),
            url_rules: report.as_ref().and_then(|report| report.url_rules),
            ..Gauges::default()
        });
        if ended {
            self.observer.finished();
        }
        Ok(())
    }

    /// The crawl's `report.json` (None, and a warning, when it cannot be read).
    fn report(&self) -> Option<CrawlReport> {
        let path = &self.paths.report;
        let read = std::fs::read(path)
            .map_err(anyhow::Error::from)
            .and_then(|bytes| Ok(serde_json::from_slice::<CrawlReport>(&bytes)?));
        read.map_err(|error| tracing::warn!(report = %path.display(), "{error:#}"))
            .ok()
    }
}

fn warc_bytes(dir: &Path) -> u64 {
    warc_files(dir)
        .map(|files| {
            files
                .iter()
                .filter_map(|file| std::fs::metadata(file).ok())
                .map(|metadata| metadata.len())
                .sum()
        })
        .unwrap_or(0)
}

/// A crawl has ended when its report is at least as new as its log (a running crawl writes
/// the report at its end).
fn crawl_ended(paths: &OutputPaths) -> bool {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    match (modified(&paths.report), modified(&paths.crawl_log)) {
        (Some(report), Some(log)) => report >= log,
        _ => false,
    }
}
