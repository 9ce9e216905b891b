//! The ticker host: notes whose HTML changes on every request (a timestamp, a view counter
//! and a "related" box of 5 random links among all [`NOTES`] notes, inside the main column),
//! and copies of the first [`NOISY_COPIES`] notes under `/mobile/note/K`, each with its own
//! noise. A copy is only linked from its original, so it is fetched after it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::skeleton::{Chrome, esc, link_list, paragraphs};
use super::truth::{ClassTruth, CopyOf, PageClass};
use super::{NOISY_COPIES, NOTES};
use crate::text::{Rng, headline, prose};

const CHROME: Chrome = Chrome {
    brand: "Quayside Ticker",
    nav: &[("/", "All notes"), ("/note/1", "First note")],
    footer: "Quayside Ticker: short notes from the waterfront, updated all day.",
};

const RELATED: usize = 5;

pub(crate) struct Note {
    title: String,
    paragraphs: Vec<String>,
}

/// The notes and a request counter that seeds each response's noise.
pub(crate) struct NoiseHost {
    notes: Vec<Note>,
    requests: AtomicU64,
}

impl NoiseHost {
    pub(crate) fn new() -> Self {
        let mut rng = Rng::new(3_141_592);
        let mut titles = std::collections::HashSet::new();
        let notes = (0..NOTES)
            .map(|_| {
                let mut title = headline(&mut rng);
                while !titles.insert(title.clone()) {
                    title = headline(&mut rng);
                }
                let words = rng.range(260, 360) as usize;
                Note {
                    title,
                    paragraphs: prose(&mut rng, words),
                }
            })
            .collect();
        NoiseHost {
            notes,
            requests: AtomicU64::new(0),
        }
    }

    pub(crate) fn truth(&self, base: &str) -> ClassTruth {
        let mut truth = ClassTruth::new(PageClass::Noise);
        truth.distinct.push(format!("{base}/"));
        for k in 1..=NOTES {
            truth.distinct.push(format!("{base}/note/{k}"));
        }
        for k in 1..=NOISY_COPIES {
            truth.copies.push(CopyOf {
                copy: format!("{base}/mobile/note/{k}"),
                original: format!("{base}/note/{k}"),
            });
        }
        truth
    }

    /// The page at `path`, rendered afresh, or `None`.
    pub(crate) fn render(&self, path: &str) -> Option<String> {
        if path == "/" {
            let listing: Vec<(String, String)> = self
                .notes
                .iter()
                .enumerate()
                .map(|(i, n)| (format!("/note/{}", i + 1), n.title.clone()))
                .collect();
            let main = format!("<h1>All notes</h1>\n{}", link_list(&listing));
            return Some(CHROME.page("All notes", &main, ""));
        }
        let (k, is_copy) = if let Some(k) = path.strip_prefix("/mobile/note/") {
            (
                k.parse::<usize>().ok().filter(|k| *k <= NOISY_COPIES)?,
                true,
            )
        } else {
            (path.strip_prefix("/note/")?.parse::<usize>().ok()?, false)
        };
        let note = self.notes.get(k.checked_sub(1)?)?;
        Some(self.note_page(k, note, is_copy))
    }

    fn note_page(&self, k: usize, note: &Note, is_copy: bool) -> String {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let served = self.requests.fetch_add(1, Ordering::Relaxed);
        let mut rng = Rng::new(served ^ nanos.as_nanos() as u64);
        let mut related = Vec::new();
        while related.len() < RELATED {
            let r = rng.range(1, NOTES as u64) as usize;
            if r != k && !related.iter().any(|(p, _)| *p == format!("/note/{r}")) {
                related.push((format!("/note/{r}"), self.notes[r - 1].title.clone()));
            }
        }
        let main = format!(
            "<h1>{}</h1>\n<p class=\"meta\">Updated {} &middot; {} views</p>\n{}\
             <div class=\"related\"><h2>Related notes</h2>\n{}</div>\n",
            esc(&note.title),
            httpdate::fmt_http_date(SystemTime::now()),
            1_000 + served * 7 + rng.range(0, 6),
            paragraphs(&note.paragraphs),
            link_list(&related)
        );
        let after = if !is_copy && k <= NOISY_COPIES {
            format!("<p class=\"alt\"><a href=\"/mobile/note/{k}\">Mobile version</a></p>\n")
        } else {
            String::new()
        };
        CHROME.page(&note.title, &main, &after)
    }
}
