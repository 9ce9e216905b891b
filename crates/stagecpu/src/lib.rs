//! CPU time per stage of the page pipeline, from the calling thread's CPU clock.
//!
//! Each page runs its stages on one thread, one after the other (the crawler hands a fetched
//! page to a blocking thread; offline `dedup` runs a page on one thread), so the thread CPU
//! clock read before and after a stage is that stage's CPU, whatever the other threads do.
//! Stages are timed where they are called, never nested: a stage's figure does not include
//! another's. What no stage covers (fetching, decompression, robots.txt, scheduling, the
//! storage's own threads) is the process CPU minus the stages' sum.
//!
//! ```
//! use dedupcrawl_stagecpu::{Stage, StageCpu};
//!
//! let cpu = StageCpu::default();
//! let words = cpu.time(Stage::Parse, || "a few words to split".split(' ').count());
//! assert_eq!(words, 5);
//! cpu.page_done();
//! let totals = cpu.totals();
//! assert_eq!(totals.pages, 1);
//! assert!(totals.seconds(Stage::Parse) >= 0.0);
//! assert_eq!(totals.seconds(Stage::Archive), 0.0);
//! ```
//!
//! A read of the clock is a system call (about a microsecond on a virtual machine): a page
//! pays some 15 microseconds for its figures, against milliseconds of work.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A stage of a page's way through the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// Bytes to text: charset decoding and the page's blocks, links, title and meta (one
    /// tokenizer run).
    Parse,
    /// The page's main content (the host's model, or the page-level extractor).
    MainContent,
    /// The compared text's tokens, shingles, digests and sketches, with the host's template
    /// evidence read from the index.
    Sketch,
    /// The index's decision and the record it writes.
    Index,
    /// The WARC records, the CDXJ line and the archive's state.
    Archive,
    /// The page's links: resolved, canonicalized, scoped and offered to the frontier.
    Frontier,
    /// The crawl-log line (and the metrics beside it).
    Log,
}

impl Stage {
    /// Every stage, in the order a page goes through them.
    pub const ALL: [Stage; 7] = [
        Stage::Parse,
        Stage::MainContent,
        Stage::Sketch,
        Stage::Index,
        Stage::Archive,
        Stage::Frontier,
        Stage::Log,
    ];

    /// The stage's name in `report.json` and in the benches' tables.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::MainContent => "main_content",
            Stage::Sketch => "sketch",
            Stage::Index => "index",
            Stage::Archive => "archive",
            Stage::Frontier => "frontier",
            Stage::Log => "log",
        }
    }
}

thread_local! {
    /// The stage this thread is timing, if any.
    static IN_STAGE: std::cell::Cell<Option<Stage>> = const { std::cell::Cell::new(None) };
}

/// Marks the thread as in a stage until dropped (also when the work panics).
struct StageMark(Option<Stage>);

impl StageMark {
    fn enter(stage: Stage) -> StageMark {
        let outer = IN_STAGE.replace(Some(stage));
        debug_assert!(
            outer.is_none(),
            "stage {stage:?} timed inside stage {outer:?}: its CPU would count twice"
        );
        StageMark(outer)
    }
}

impl Drop for StageMark {
    fn drop(&mut self) {
        IN_STAGE.set(self.0);
    }
}

/// CPU nanoseconds spent in each stage, summed over threads; shared by the threads that run
/// pages.
#[derive(Debug, Default)]
pub struct StageCpu {
    nanos: [AtomicU64; Stage::ALL.len()],
    pages: AtomicU64,
}

impl StageCpu {
    /// Runs `work` as `stage` and adds the thread CPU time it took.
    ///
    /// Stages do not nest: timing a stage inside another would count its CPU twice (a debug
    /// build panics).
    pub fn time<T>(&self, stage: Stage, work: impl FnOnce() -> T) -> T {
        let outer = StageMark::enter(stage);
        let start = thread_cpu_time();
        let result = work();
        let spent = thread_cpu_time().saturating_sub(start);
        drop(outer);
        let nanos = u64::try_from(spent.as_nanos()).unwrap_or(u64::MAX);
        self.nanos[stage as usize].fetch_add(nanos, Ordering::Relaxed);
        result
    }

    /// Counts one page through the pipeline (the denominator of per-page figures).
    pub fn page_done(&self) {
        self.pages.fetch_add(1, Ordering::Relaxed);
    }

    /// What was spent so far.
    pub fn totals(&self) -> StageTotals {
        StageTotals {
            pages: self.pages.load(Ordering::Relaxed),
            seconds: Stage::ALL
                .iter()
                .map(|&stage| {
                    let nanos = self.nanos[stage as usize].load(Ordering::Relaxed);
                    (stage.name().to_string(), nanos as f64 / 1e9)
                })
                .collect(),
        }
    }
}

/// CPU seconds per stage (by [`Stage::name`]) and the pages they were spent on.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StageTotals {
    /// Pages that went through the pipeline (HTML and other payloads with a dedup decision).
    pub pages: u64,
    /// CPU seconds by stage name.
    pub seconds: BTreeMap<String, f64>,
}

impl StageTotals {
    /// The CPU seconds of `stage` (0 when it never ran).
    pub fn seconds(&self, stage: Stage) -> f64 {
        self.seconds.get(stage.name()).copied().unwrap_or(0.0)
    }
}

/// CPU time consumed by the calling thread.
pub fn thread_cpu_time() -> Duration {
    cpu_clock(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// CPU time consumed by the whole process (all its threads).
pub fn process_cpu_time() -> Duration {
    cpu_clock(libc::CLOCK_PROCESS_CPUTIME_ID)
}

fn cpu_clock(clock: libc::clockid_t) -> Duration {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid, writable timespec; the clock id is a constant of the platform.
    let status = unsafe { libc::clock_gettime(clock, &mut time) };
    if status != 0 {
        // Both clocks exist on every Linux this runs on; a failure reads as no time spent.
        return Duration::ZERO;
    }
    Duration::new(
        u64::try_from(time.tv_sec).unwrap_or(0),
        u32::try_from(time.tv_nsec).unwrap_or(0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_gets_the_cpu_its_work_took_and_no_other_stage_does() {
        let cpu = StageCpu::default();
        let spin = || {
            let start = thread_cpu_time();
            let mut x = 0u64;
            while thread_cpu_time() - start < Duration::from_millis(20) {
                x = x.wrapping_add(std::hint::black_box(1));
            }
            x
        };
        cpu.time(Stage::Sketch, spin);
        // Sleeping is no CPU.
        cpu.time(Stage::Index, || {
            std::thread::sleep(Duration::from_millis(50))
        });
        let totals = cpu.totals();
        assert!(totals.seconds(Stage::Sketch) >= 0.020, "{totals:?}");
        assert!(totals.seconds(Stage::Index) < 0.010, "{totals:?}");
        assert_eq!(totals.seconds(Stage::Parse), 0.0);
        assert_eq!(totals.seconds.len(), Stage::ALL.len());
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "would count twice")]
    fn a_stage_timed_inside_another_is_refused() {
        let cpu = StageCpu::default();
        cpu.time(Stage::Archive, || cpu.time(Stage::Log, || ()));
    }
}
