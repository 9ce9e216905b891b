//! The main loop: leasing URLs, running one task per lease, completing them with the frontier.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dedupcrawl_frontier::{Completion, HostOutcome, Lease, NextUrl};
use tokio::task::JoinSet;

use crate::context::Engine;
use crate::crawl_log::LogLine;
use crate::error::CrawlError;
use crate::host_health::waiting_message;
use crate::memory_gate::{MemoryGate, RECHECK_AFTER};
use crate::progress::{ProgressLines, progress_bar, update_progress};
use crate::size_samples::SizeSamples;
use crate::stop_signal::{StopSignal, StopSignals};

/// The result of one leased URL, for the main loop.
pub(crate) struct TaskOutput {
    pub(crate) lease: Lease,
    pub(crate) outcome: HostOutcome,
    /// Logged if the frontier gives up on the URL.
    pub(crate) failure: Option<LogLine>,
    /// Pause the host this long before its next request (extra requests were made).
    pub(crate) pause_after: Option<Duration>,
}

/// How often the crawl says which hosts it waits for (hosts in backoff after failures).
const WAITING_NOTE_EVERY: Duration = Duration::from_secs(30);

/// How the main loop ended.
pub(super) struct LoopEnd {
    /// The frontier is empty (false: page budget or interrupt).
    pub(super) finished: bool,
    /// The signal that interrupted the crawl.
    pub(super) interrupted: Option<StopSignal>,
}

/// Leases URLs while there are some, running one task per lease, until the frontier is
/// empty, the page budget is reached or a signal interrupts ([`stop_after_interrupt`]).
pub(super) async fn main_loop(engine: &Arc<Engine>) -> Result<LoopEnd, CrawlError> {
    let bar = progress_bar(&engine.config);
    let mut progress_lines = ProgressLines::new(&engine.config);
    let started = Instant::now();
    let mut tasks: JoinSet<Result<TaskOutput, CrawlError>> = JoinSet::new();
    let mut stopping = false;
    let mut finished = false;
    let mut signals = StopSignals::listen()?;
    let mut interrupted = None;
    let max_pages = engine.config.crawl.max_pages;
    let mut housekeeping = Housekeeping::new(engine);
    let mut memory_gate = MemoryGate::new(engine.config.crawl.max_memory_mb);
    loop {
        housekeeping.note_waiting_hosts(engine);
        while let Some(joined) = tasks.try_join_next() {
            complete_task(engine, joined)?;
        }
        housekeeping.checkpoint_and_sample(engine).await?;
        update_progress(&bar, engine, started, housekeeping.sizes.last());
        progress_lines.tick(engine, started, housekeeping.sizes.last());
        if !stopping && max_pages.is_some_and(|max| engine.total_pages() >= max) {
            tracing::info!("page budget reached: finishing the fetches in flight");
            stopping = true;
        }
        let mut wake_at: Option<Instant> = None;
        if stopping {
            if tasks.is_empty() {
                break;
            }
        } else if !memory_gate.allows_new_fetch(tasks.len()) {
            wake_at = Some(Instant::now() + RECHECK_AFTER);
        } else {
            match engine.frontier.next_ready(Instant::now())? {
                NextUrl::Ready(lease) => {
                    tasks.spawn(Arc::clone(engine).process(lease));
                    continue;
                }
                NextUrl::WaitUntil(at) => wake_at = Some(at),
                NextUrl::Busy => {}
                NextUrl::Empty => {
                    if tasks.is_empty() {
                        finished = true;
                        break;
                    }
                }
            }
        }
        let wake_at = wake_at.unwrap_or_else(|| Instant::now() + Duration::from_millis(250));
        tokio::select! {
            Some(joined) = tasks.join_next() => complete_task(engine, joined)?,
            () = tokio::time::sleep_until(wake_at.into()) => {}
            signal = signals.next() => {
                interrupted = Some(signal);
                break;
            }
        }
    }
    if let Some(signal) = interrupted {
        stop_after_interrupt(engine, &mut tasks, &mut signals, signal).await?;
    }
    bar.finish_and_clear();
    if memory_gate.holds > 0 {
        tracing::info!(
            "memory: new fetches were held {} times to stay under crawl.max_memory_mb",
            memory_gate.holds
        );
    }
    Ok(LoopEnd {
        finished,
        interrupted,
    })
}

/// What the main loop does every turn besides leasing: say which hosts it waits for, take
/// checkpoints, sample the stores' sizes.
struct Housekeeping {
    last_waiting_note: Instant,
    last_flush: Instant,
    checkpoint_every: Duration,
    sizes: SizeSamples,
}

impl Housekeeping {
    fn new(engine: &Engine) -> Housekeeping {
        Housekeeping {
            last_waiting_note: Instant::now(),
            last_flush: Instant::now(),
            checkpoint_every: Duration::from_secs_f64(engine.config.crawl.checkpoint_every),
            sizes: SizeSamples::new(Instant::now()),
        }
    }

    fn note_waiting_hosts(&mut self, engine: &Engine) {
        if self.last_waiting_note.elapsed() >= WAITING_NOTE_EVERY {
            self.last_waiting_note = Instant::now();
            let waiting = engine.health.waiting(self.last_waiting_note);
            if !waiting.is_empty() {
                tracing::info!("{}", waiting_message(&waiting, self.last_waiting_note));
            }
        }
    }

    async fn checkpoint_and_sample(&mut self, engine: &Arc<Engine>) -> Result<(), CrawlError> {
        if self.last_flush.elapsed() >= self.checkpoint_every {
            self.last_flush = Instant::now();
            let engine = Arc::clone(engine);
            tokio::task::spawn_blocking(move || engine.checkpoint())
                .await
                .map_err(|e| CrawlError::Worker(e.to_string()))??;
        }
        if self.sizes.due(Instant::now()) {
            let engine = Arc::clone(engine);
            // The reads' own time, not the wait for a blocking thread (pages' work queues there).
            let (sample, took) = tokio::task::spawn_blocking(move || {
                let started = Instant::now();
                (engine.observe_sizes(), started.elapsed())
            })
            .await
            .map_err(|e| CrawlError::Worker(e.to_string()))?;
            self.sizes.record(sample, took, Instant::now());
        }
        Ok(())
    }
}

/// After `signal`: no new request starts, the tasks in flight get `crawl.interrupt_grace_seconds`
/// to end, then (or at a second signal) the rest are dropped; their URLs stay leased, and go
/// back to their queues when the crawl is resumed (as after a kill).
async fn stop_after_interrupt(
    engine: &Arc<Engine>,
    tasks: &mut JoinSet<Result<TaskOutput, CrawlError>>,
    signals: &mut StopSignals,
    signal: StopSignal,
) -> Result<(), CrawlError> {
    engine.stop_new_requests();
    let grace = Duration::from_secs_f64(engine.config.crawl.interrupt_grace_seconds);
    if !tasks.is_empty() {
        tracing::warn!(
            "{}: no new request starts; waiting at most {:.1} s for {} fetches in flight (a \
             second signal stops at once; run again to resume)",
            signal.name(),
            grace.as_secs_f64(),
            tasks.len()
        );
    }
    let deadline = tokio::time::Instant::now() + grace;
    while !tasks.is_empty() {
        tokio::select! {
            Some(joined) = tasks.join_next() => complete_task(engine, joined)?,
            () = tokio::time::sleep_until(deadline) => {
                tracing::warn!("{} fetches still in flight after the grace: dropped", tasks.len());
                break;
            }
            second = signals.next() => {
                tracing::warn!("{}: stopping now, {} fetches dropped", second.name(), tasks.len());
                break;
            }
        }
    }
    tasks.abort_all();
    while let Some(joined) = tasks.join_next().await {
        complete_task(engine, joined)?;
    }
    Ok(())
}

pub(super) fn complete_task(
    engine: &Engine,
    joined: Result<Result<TaskOutput, CrawlError>, tokio::task::JoinError>,
) -> Result<(), CrawlError> {
    let output = match joined {
        // Stopped by an interrupt: the URL stays leased, and is fetched on resume.
        Ok(Err(CrawlError::Interrupted)) => return Ok(()),
        Err(error) if error.is_cancelled() => return Ok(()),
        joined => joined.map_err(|e| CrawlError::Worker(e.to_string()))??,
    };
    if let Some(pause) = output.pause_after
        && !pause.is_zero()
    {
        engine.frontier.pause_host(output.lease.host(), pause)?;
    }
    engine.observe_outcome(output.lease.host(), &output.outcome);
    let url = output.lease.url().as_str().to_string();
    match engine.frontier.complete(output.lease, output.outcome)? {
        Completion::Finished => {}
        Completion::Requeued { attempt, .. } => {
            tracing::debug!(%url, attempt, "requeued");
        }
        Completion::Parked => {
            tracing::debug!(%url, "kept queued for the next run (host given up)");
        }
        Completion::GaveUp { attempts } => {
            if let Some(mut line) = output.failure {
                line.note = Some(format!("gave up after {attempts} tries"));
                line.ts = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
                engine.log_line(line)?;
            }
        }
    }
    Ok(())
}
