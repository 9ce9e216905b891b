//! A progress bar's draw target for when stderr is not a terminal (a pipe, a file, a service):
//! instead of redrawing, the bar's text becomes a plain stderr line at most every
//! [`PROGRESS_LINE_EVERY`] (not a tracing line: these commands log warnings only by default). Written here because indicatif hides bars off a terminal and has no
//! plain-lines mode; its [`indicatif::TermLike`] seam is made for this.

use std::io;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Time between two progress lines of `dedup` and `export` (the crawl has
/// `crawl.progress_every`), unless [`PROGRESS_EVERY_ENV`] says otherwise.
pub const PROGRESS_LINE_EVERY: Duration = Duration::from_secs(10);

/// Environment variable: seconds between two progress lines of `dedup` and `export` (these
/// commands have no config file; a service's log may want them more or less often).
pub const PROGRESS_EVERY_ENV: &str = "DEDUPCRAWL_PROGRESS_EVERY";

/// The period of `dedup`'s and `export`'s progress lines: [`PROGRESS_EVERY_ENV`] when it is a
/// number of seconds ≥ 0, else (with a warning when it is set but not one)
/// [`PROGRESS_LINE_EVERY`].
pub fn progress_line_every() -> Duration {
    let Ok(text) = std::env::var(PROGRESS_EVERY_ENV) else {
        return PROGRESS_LINE_EVERY;
    };
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => Duration::from_secs_f64(seconds),
        _ => {
            tracing::warn!(
                "{PROGRESS_EVERY_ENV}={text:?} is not a number of seconds >= 0: progress lines \
                 every {} s",
                PROGRESS_LINE_EVERY.as_secs()
            );
            PROGRESS_LINE_EVERY
        }
    }
}

#[derive(Debug)]
pub struct ProgressLines {
    every: Duration,
    last: Mutex<Instant>,
}

impl ProgressLines {
    pub fn new(every: Duration) -> ProgressLines {
        ProgressLines {
            every,
            last: Mutex::new(Instant::now()),
        }
    }

    fn line(&self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let mut last = self
            .last
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if last.elapsed() >= self.every {
            *last = Instant::now();
            eprintln!("dedupcrawl: progress: {text}");
        }
    }
}

impl indicatif::TermLike for ProgressLines {
    fn width(&self) -> u16 {
        200
    }
    fn move_cursor_up(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> io::Result<()> {
        Ok(())
    }
    fn write_line(&self, text: &str) -> io::Result<()> {
        self.line(text);
        Ok(())
    }
    fn write_str(&self, text: &str) -> io::Result<()> {
        self.line(text);
        Ok(())
    }
    fn clear_line(&self) -> io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> io::Result<()> {
        Ok(())
    }
}
