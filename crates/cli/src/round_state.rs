//! Which archived version of each URL belongs to a crawl's state as of a round
//! (`export --round N`; default: the latest state), from the crawl log: the version whose
//! payload digest the URL's last line up to that round names (an archived, changed or
//! revisited page), none for a URL last seen `gone` or first seen after that round.

use std::collections::{HashMap, HashSet};
use std::io::BufRead as _;
use std::path::Path;

use anyhow::Context as _;

use crate::export::CrawlLogLine;

/// The current version of each URL as of one round.
pub struct RoundState {
    /// Payload digest of each URL's current version (`None`: gone).
    current: HashMap<String, Option<String>>,
    /// Every URL the log names in any round.
    logged: HashSet<String>,
    /// URLs whose current version was already taken (a page edited back to an earlier
    /// text has two records with its digest: the first one stands for both).
    taken: HashSet<String>,
}

impl RoundState {
    /// The state of the crawl whose log is `path` after round `round` (`None`: the latest).
    pub fn from_log(path: &Path, round: Option<u32>) -> anyhow::Result<RoundState> {
        let file = std::fs::File::open(path).with_context(|| {
            format!(
                "cannot read {}: is this a crawl output directory?",
                path.display()
            )
        })?;
        let mut current = HashMap::new();
        let mut logged = HashSet::new();
        let mut last_round = 0;
        for line in std::io::BufReader::new(file).lines() {
            let line = line.with_context(|| format!("cannot read {}", path.display()))?;
            // Torn or foreign lines are skipped here; export warns about them once.
            let Ok(entry) = serde_json::from_str::<CrawlLogLine>(&line) else {
                continue;
            };
            last_round = last_round.max(entry.round);
            logged.insert(entry.url.clone());
            if round.is_some_and(|limit| entry.round > limit) {
                continue;
            }
            if entry.decision == "gone" {
                current.insert(entry.url, None);
            } else if let Some(digest) = entry.content_digest {
                current.insert(entry.url, Some(digest));
            }
        }
        if let Some(round) = round {
            anyhow::ensure!(
                round >= 1 && round <= last_round,
                "--round {round}: the crawl log of {} has rounds 1 to {last_round}",
                path.display()
            );
        }
        Ok(RoundState {
            current,
            logged,
            taken: HashSet::new(),
        })
    }

    /// Whether the response record of `url` with payload digest `digest` is the URL's
    /// current version (true at most once per URL). A URL the log does not name at all (its
    /// line lost to a kill) keeps its records.
    pub fn takes(&mut self, url: &str, digest: Option<&str>) -> bool {
        if !self.logged.contains(url) {
            return true;
        }
        let current = self.current.get(url).and_then(Option::as_deref);
        if current.is_none() || current != digest || self.taken.contains(url) {
            return false;
        }
        self.taken.insert(url.to_string());
        true
    }
}
