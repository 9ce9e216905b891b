//! What a running crawl shows of its progress: a bar on a terminal, a plain log line every
//! `crawl.progress_every` seconds otherwise (`crawl.progress = false`, `--quiet`: neither).

use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use dedupcrawl_observe::Gauges;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::config::CrawlConfig;
use crate::context::Engine;
use crate::mutex::lock;

pub(crate) fn progress_bar(config: &CrawlConfig) -> ProgressBar {
    if !config.crawl.progress || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// `sizes`: the main loop's last sample (`SizeSamples`): counting the queue on every turn of
/// the loop would cost a PostgreSQL store a count of the crawl's rows each time.
pub(crate) fn update_progress(
    bar: &ProgressBar,
    engine: &Engine,
    started: Instant,
    sizes: &Gauges,
) {
    if bar.is_hidden() {
        return;
    }
    bar.set_message(progress_message(engine, started, sizes));
}

fn progress_message(engine: &Engine, started: Instant, sizes: &Gauges) -> String {
    let fetched = engine.progress.fetched.load(Ordering::Relaxed);
    let rate = fetched as f64 / started.elapsed().as_secs_f64().max(0.001);
    let queued = sizes.queued;
    let bytes_saved = lock(&engine.log).report.total.bytes_saved;
    format!(
        "fetched {fetched} ({rate:.1}/s)  archived {}  duplicates {}  errors {}  queued {queued}  \
         bytes saved {bytes_saved}",
        engine.progress.archived.load(Ordering::Relaxed),
        engine.progress.duplicates.load(Ordering::Relaxed),
        engine.progress.errors.load(Ordering::Relaxed),
    )
}

/// When stderr is not a terminal (no bar), a plain log line every `crawl.progress_every`
/// seconds: logs of a crawl run by a service or piped to a file still show it moving.
pub(crate) struct ProgressLines {
    every: Option<Duration>,
    last: Instant,
}

impl ProgressLines {
    pub(crate) fn new(config: &CrawlConfig) -> ProgressLines {
        let wanted = config.crawl.progress && !std::io::stderr().is_terminal();
        ProgressLines {
            every: wanted.then(|| Duration::from_secs_f64(config.crawl.progress_every)),
            last: Instant::now(),
        }
    }

    pub(crate) fn tick(&mut self, engine: &Engine, started: Instant, sizes: &Gauges) {
        if let Some(every) = self.every
            && self.last.elapsed() >= every
        {
            self.last = Instant::now();
            tracing::info!("progress: {}", progress_message(engine, started, sizes));
        }
    }
}
