//! Which archived version of each URL belongs to a crawl's state as of a round
//! (`export --round N`; default: the latest state), from the crawl log: the version whose
//! payload digest the URL's last line up to that round names (an archived, changed or
//! revisited page), none for a URL last seen `gone` or first seen after that round.
//!
//! Over several output directories (the workers of one crawl) a URL's lines may sit in more
//! than one log: within a log the later line wins, as in one directory; across logs the line
//! of the later round, then of the later time, wins. A URL's current version is taken once,
//! from the first directory whose WARC files hold it; the same version met again in another
//! directory is reported as such ([`Take::AlreadyFrom`]).

use std::collections::{HashMap, HashSet};

use crate::crawl_outputs::CrawlOutputs;

/// The line that currently stands for a URL.
struct Current {
    /// Payload digest of the version (`None`: gone).
    digest: Option<String>,
    source: usize,
    round: u32,
    ts: Option<String>,
}

/// What to do with one response record (see [`RoundState::take`]).
#[derive(Debug, PartialEq, Eq)]
pub enum Take {
    /// The URL's current version: export it.
    Yes,
    /// Another version, or a URL gone or not yet found as of the round.
    No,
    /// The current version, already taken from the directory with this source index.
    AlreadyFrom(usize),
}

/// The current version of each URL as of one round.
pub struct RoundState {
    current: HashMap<String, Current>,
    /// Every URL the log names in any round.
    logged: HashSet<String>,
    /// Where each URL's current version was taken from (a page edited back to an earlier
    /// text has two records with its digest: the first one stands for both).
    taken: HashMap<String, usize>,
}

impl RoundState {
    /// The state of the crawl in `out` after round `round` (`None`: the latest).
    #[cfg(test)]
    pub fn from_log(out: &std::path::Path, round: Option<u32>) -> anyhow::Result<RoundState> {
        RoundState::from_logs(&CrawlOutputs::new(vec![out.to_path_buf()])?, round)
    }

    /// The state of the crawl whose output directories are `outputs` after round `round`
    /// (`None`: the latest).
    pub fn from_logs(outputs: &CrawlOutputs, round: Option<u32>) -> anyhow::Result<RoundState> {
        let mut current: HashMap<String, Current> = HashMap::new();
        let mut logged = HashSet::new();
        let mut last_round = 0;
        // Torn or foreign lines are skipped here; export warns about them once.
        outputs.each_log_line(false, |source, entry| {
            last_round = last_round.max(entry.round);
            logged.insert(entry.url.clone());
            if round.is_some_and(|limit| entry.round > limit) {
                return;
            }
            let digest = if entry.decision == "gone" {
                None
            } else if let Some(digest) = entry.content_digest {
                Some(digest)
            } else {
                return;
            };
            let line = Current {
                digest,
                source,
                round: entry.round,
                ts: entry.ts,
            };
            match current.get_mut(&entry.url) {
                Some(standing) if !replaces(&line, standing) => {}
                Some(standing) => *standing = line,
                None => {
                    current.insert(entry.url, line);
                }
            }
        })?;
        if let Some(round) = round {
            anyhow::ensure!(
                round >= 1 && round <= last_round,
                "--round {round}: {} rounds 1 to {last_round}",
                if outputs.dirs().len() > 1 {
                    format!("the crawl logs of {} have", outputs.describe())
                } else {
                    format!("the crawl log of {} has", outputs.describe())
                }
            );
        }
        Ok(RoundState {
            current,
            logged,
            taken: HashMap::new(),
        })
    }

    /// Whether the response record of `url` with payload digest `digest`, read from the
    /// directory `source`, is the URL's current version (yes at most once per URL). A URL the
    /// log does not name at all (its line lost to a kill) keeps its records, but only those of
    /// the first directory that holds it.
    pub fn take(&mut self, url: &str, digest: Option<&str>, source: usize) -> Take {
        let first = self.taken.get(url).copied();
        if !self.logged.contains(url) {
            return match first {
                Some(first) if first != source => Take::AlreadyFrom(first),
                Some(_) => Take::Yes,
                None => {
                    self.taken.insert(url.to_string(), source);
                    Take::Yes
                }
            };
        }
        let current = self
            .current
            .get(url)
            .and_then(|standing| standing.digest.as_deref());
        if current.is_none() || current != digest {
            return Take::No;
        }
        match first {
            Some(first) if first != source => Take::AlreadyFrom(first),
            Some(_) => Take::No,
            None => {
                self.taken.insert(url.to_string(), source);
                Take::Yes
            }
        }
    }
}

/// Whether `line` stands for its URL instead of `standing`: a later line of the same log
/// always does; a line of another log when its round, then its time, is not earlier.
fn replaces(line: &Current, standing: &Current) -> bool {
    line.source == standing.source
        || (line.round, line.ts.as_deref()) >= (standing.round, standing.ts.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn write_log(dir: &Path, lines: &[serde_json::Value]) {
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        std::fs::write(dir.join("crawl.log.jsonl"), text.join("\n")).unwrap();
    }

    #[test]
    fn the_later_round_wins_across_directories_whatever_their_order() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        // Round 2 of the page was fetched by the worker of the first directory.
        write_log(
            a.path(),
            &[
                serde_json::json!({"url": "http://h/p", "decision": "changed", "round": 2,
                "ts": "2026-11-25T10:00:00Z", "content_digest": "sha1:NEW"}),
            ],
        );
        write_log(
            b.path(),
            &[
                serde_json::json!({"url": "http://h/p", "decision": "archived", "round": 1,
                "ts": "2026-11-25T09:00:00Z", "content_digest": "sha1:OLD"}),
            ],
        );
        let outputs =
            CrawlOutputs::new(vec![a.path().to_path_buf(), b.path().to_path_buf()]).unwrap();
        let mut latest = RoundState::from_logs(&outputs, None).unwrap();
        assert_eq!(latest.take("http://h/p", Some("sha1:OLD"), 1), Take::No);
        assert_eq!(latest.take("http://h/p", Some("sha1:NEW"), 0), Take::Yes);
        let mut first = RoundState::from_logs(&outputs, Some(1)).unwrap();
        assert_eq!(first.take("http://h/p", Some("sha1:NEW"), 0), Take::No);
        assert_eq!(first.take("http://h/p", Some("sha1:OLD"), 1), Take::Yes);
        assert!(RoundState::from_logs(&outputs, Some(3)).is_err());
    }

    #[test]
    fn the_same_version_in_a_second_directory_is_taken_once_and_named() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let line = serde_json::json!({"url": "http://h/p", "decision": "archived",
            "content_digest": "sha1:X"});
        write_log(a.path(), std::slice::from_ref(&line));
        write_log(b.path(), &[line]);
        let outputs =
            CrawlOutputs::new(vec![a.path().to_path_buf(), b.path().to_path_buf()]).unwrap();
        let mut state = RoundState::from_logs(&outputs, None).unwrap();
        assert_eq!(state.take("http://h/p", Some("sha1:X"), 0), Take::Yes);
        assert_eq!(state.take("http://h/p", Some("sha1:X"), 0), Take::No);
        assert_eq!(
            state.take("http://h/p", Some("sha1:X"), 1),
            Take::AlreadyFrom(0)
        );
        // A URL whose line was lost keeps its records of one directory only.
        assert_eq!(state.take("http://h/lost", None, 1), Take::Yes);
        assert_eq!(state.take("http://h/lost", None, 1), Take::Yes);
        assert_eq!(state.take("http://h/lost", None, 0), Take::AlreadyFrom(1));
    }

    #[test]
    fn one_directory_keeps_its_last_line_per_url() {
        let dir = tempfile::tempdir().unwrap();
        // Times out of order within one log do not matter: the later line wins.
        write_log(
            dir.path(),
            &[
                serde_json::json!({"url": "http://h/p", "decision": "archived",
                    "ts": "2026-11-25T10:00:00Z", "content_digest": "sha1:A"}),
                serde_json::json!({"url": "http://h/p", "decision": "gone", "round": 2,
                    "ts": "2026-11-25T09:00:00Z"}),
            ],
        );
        let mut state = RoundState::from_log(dir.path(), None).unwrap();
        assert_eq!(state.take("http://h/p", Some("sha1:A"), 0), Take::No);
        let mut first = RoundState::from_log(dir.path(), Some(1)).unwrap();
        assert_eq!(first.take("http://h/p", Some("sha1:A"), 0), Take::Yes);
    }
}
