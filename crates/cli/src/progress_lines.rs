//! A progress bar's draw target for when stderr is not a terminal (a pipe, a file, a service):
//! instead of redrawing, the bar's text becomes a plain stderr line at most every
//! [`PROGRESS_LINE_EVERY`] (not a tracing line: these commands log warnings only by default). Written here because indicatif hides bars off a terminal and has no
//! plain-lines mode; its [`indicatif::TermLike`] seam is made for this.

use std::io;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Time between two progress lines of `dedup` and `export` (the crawl has
/// `crawl.progress_every`).
pub const PROGRESS_LINE_EVERY: Duration = Duration::from_secs(10);

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
