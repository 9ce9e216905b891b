//! A watchdog for the crawl's state store: a thread probes it (a sled flush) at a fixed
//! interval, another checks that probes keep finishing, and when one has not finished for the
//! timeout the crawl is stopped with a clear message instead of hanging for ever.
//!
//! Why: stock sled 0.34.7 can deadlock (a file truncation starves in its I/O pool while the
//! thread waiting for it holds the segment accountant). The build patches that one
//! (`vendor/README.md`); the watchdog stays as a guard against any other stall. The crawl state
//! is kill-safe, so stopping the process and running the same command again is the cure.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the state store may take to answer a probe before the crawl is stopped.
pub(crate) const STATE_STALL_TIMEOUT: Duration = Duration::from_secs(120);
/// Time between two probes.
pub(crate) const PROBE_EVERY: Duration = Duration::from_secs(5);

/// Stops its threads when dropped, and waits (briefly) until the probe thread has let go of
/// what its probe holds: the crawl's sled `Db` must be closed when the crawl returns, or the
/// next crawl in the same process cannot open it. A probe stuck for good is left behind.
pub(crate) struct StoreWatchdog {
    stop: Arc<AtomicBool>,
    wake: Option<mpsc::Sender<()>>,
    probe_released: mpsc::Receiver<()>,
}

impl StoreWatchdog {
    /// Starts probing. `on_stall` runs once, with how long the pending probe has taken.
    pub(crate) fn start(
        probe: impl Fn() + Send + 'static,
        every: Duration,
        timeout: Duration,
        on_stall: impl FnOnce(Duration) + Send + 'static,
    ) -> StoreWatchdog {
        let stop = Arc::new(AtomicBool::new(false));
        let origin = Instant::now();
        // Milliseconds since `origin` at which the pending probe started; u64::MAX: none pending.
        let pending_since = Arc::new(AtomicU64::new(u64::MAX));
        let (wake, woken) = mpsc::channel::<()>();
        let (released, probe_released) = mpsc::channel::<()>();
        {
            let (stop, pending_since) = (Arc::clone(&stop), Arc::clone(&pending_since));
            std::thread::Builder::new()
                .name("state-probe".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        pending_since.store(origin.elapsed().as_millis() as u64, Ordering::Relaxed);
                        probe();
                        pending_since.store(u64::MAX, Ordering::Relaxed);
                        // Sleeps, but wakes at once when the watchdog is dropped.
                        if woken.recv_timeout(every) != Err(mpsc::RecvTimeoutError::Timeout) {
                            break;
                        }
                    }
                    drop(probe);
                    let _ = released.send(());
                })
                .ok();
        }
        {
            let stop = Arc::clone(&stop);
            std::thread::Builder::new()
                .name("state-watchdog".into())
                .spawn(move || {
                    let check_every = (timeout / 10).clamp(Duration::from_millis(5), every);
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(check_every);
                        let since = pending_since.load(Ordering::Relaxed);
                        if since == u64::MAX {
                            continue;
                        }
                        let waited = origin
                            .elapsed()
                            .saturating_sub(Duration::from_millis(since));
                        if waited >= timeout && !stop.load(Ordering::Relaxed) {
                            on_stall(waited);
                            return;
                        }
                    }
                })
                .ok();
        }
        StoreWatchdog {
            stop,
            wake: Some(wake),
            probe_released,
        }
    }
}

impl Drop for StoreWatchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        drop(self.wake.take());
        // A healthy probe (a flush) ends within milliseconds.
        let _ = self.probe_released.recv_timeout(Duration::from_secs(5));
    }
}

/// What the crawl does on a stall: say what happened and what to do, then exit with status 3.
pub(crate) fn exit_on_stall(state_dir: std::path::PathBuf) -> impl FnOnce(Duration) + Send {
    move |waited| {
        let message = format!(
            "the crawl state store ({}) has not answered for {} s: a stalled disk or a \
             deadlock in sled. Stopping now: run the same command again to resume; \
             nothing archived or logged so far is lost",
            state_dir.display(),
            waited.as_secs()
        );
        tracing::error!("{message}");
        eprintln!("dedupcrawl: {message}");
        std::process::exit(3);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_probe_that_never_returns_is_reported() {
        let (stalled, reports) = mpsc::channel();
        let _watchdog = StoreWatchdog::start(
            || loop {
                std::thread::park();
            },
            Duration::from_millis(10),
            Duration::from_millis(200),
            move |waited| stalled.send(waited).unwrap_or(()),
        );
        let waited = reports
            .recv_timeout(Duration::from_secs(5))
            .expect("a stuck probe must be reported");
        assert!(waited >= Duration::from_millis(200), "{waited:?}");
    }

    #[test]
    fn probes_that_answer_are_not_reported_even_when_slow() {
        let (stalled, reports) = mpsc::channel();
        let probes = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&probes);
        let watchdog = StoreWatchdog::start(
            move || {
                counted.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(50));
            },
            Duration::from_millis(10),
            Duration::from_millis(200),
            move |waited| stalled.send(waited).unwrap_or(()),
        );
        assert!(reports.recv_timeout(Duration::from_millis(800)).is_err());
        assert!(
            probes.load(Ordering::Relaxed) >= 5,
            "the probe ran repeatedly"
        );
        drop(watchdog);
    }
}
