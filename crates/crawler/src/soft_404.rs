//! Soft 404s: hosts that answer `200` to any path. Once per host, right after its robots.txt
//! (and sitemaps), the engine requests `crawl.soft_404_probes` random paths that cannot exist,
//! through the host's delay. A `200` HTML answer becomes the host's soft-404 model; a 404, 410,
//! redirect or non-HTML answer means the host answers honestly and gets none. What the probes
//! found is kept in the crawl state ([`Soft404Probe`]), so a resumed crawl or a later round
//! does not probe again. A page that resembles a probe answer
//! ([`crate::soft_404_model`]) is logged `soft_404`: not archived, links not followed.
//!
//! Never a soft 404: a seed, or the root of a host (a site that serves its home page for
//! unknown paths would otherwise lose its home page and every link on it).

use std::sync::Arc;
use std::time::Duration;

use dedupcrawl_fetch::{FetchRequest, FetchedResponse, decode_text};
use dedupcrawl_frontier::{CanonicalUrl, HostOutcome, RobotsPolicy};
use dedupcrawl_textprep::PreparedPage;
use rand::Rng as _;

use crate::context::Engine;
use crate::crawl_log::{Decision, LogLine};
use crate::crawl_state::{ProbeAnswer, Soft404Probe};
use crate::error::CrawlError;
use crate::fetched::Fetched;
use crate::mutex::lock;
use crate::soft_404_model::{compare, masked_blocks, url_words};

/// Most probes per host (`crawl.soft_404_probes`).
pub(crate) const MAX_PROBES: u32 = 4;
/// Tokens kept of a probe answer (a not-found page, even one with a heavy template, has a
/// few thousand; a huge one would make every host's state and memory copy huge).
const MAX_PROBE_TOKENS: usize = 5000;
/// Hosts whose probe is kept in memory; past this the memory copy is dropped and read again
/// from the crawl state when needed (a model is a few tens of KB: this bounds them to tens of
/// MB on a crawl of many hosts).
const MAX_HOSTS_IN_MEMORY: usize = 1024;

/// The crawl-log note of a `soft_404` line.
const SOFT_404_NOTE: &str =
    "resembles the host's answer to a path that cannot exist: not archived, links not followed";

/// Random paths that cannot exist, of two shapes: `/<24 hex>` and `/<12 hex>/<12 hex>.html`
/// (some servers answer unknown `.html` paths differently from bare ones).
fn probe_paths(count: u32) -> Vec<String> {
    let mut random = rand::rng();
    let mut hex = |digits: usize| -> String {
        (0..digits)
            .map(|_| char::from_digit(random.random_range(0..16), 16).unwrap_or('0'))
            .collect()
    };
    (0..count)
        .map(|n| {
            if n % 2 == 0 {
                format!("/{}", hex(24))
            } else {
                format!("/{}/{}.html", hex(12), hex(12))
            }
        })
        .collect()
}

impl Engine {
    /// Probes the URL's host for soft 404s unless its probe is on record (then loads it).
    /// Called once per host by the robots.txt step, under the host's robots lock, with the
    /// host's delay before each request (the robots.txt step then pauses the host before its
    /// page, as after any extra request).
    pub(crate) async fn probe_soft_404(
        &self,
        url: &CanonicalUrl,
        policy: &RobotsPolicy,
        delay: Duration,
    ) -> Result<(), CrawlError> {
        let host = url.host().to_string();
        let probes = self.config.crawl.soft_404_probes;
        if probes == 0 {
            return Ok(());
        }
        if let Some(probe) = self.crawl_state.soft_404_probe(&host)? {
            self.keep_soft_404_probe(host, Some(Arc::new(probe)));
            return Ok(());
        }
        let mut answers = Vec::new();
        let mut outcomes = Vec::new();
        for path in probe_paths(probes) {
            if !policy.allows_path(&path) {
                outcomes.push(format!("{path}: disallowed by robots.txt"));
                continue;
            }
            let mut target = url.url().clone();
            target.set_path(&path);
            target.set_query(None);
            target.set_fragment(None);
            tokio::time::sleep(delay).await;
            // Interrupted: nothing is recorded, the host is probed on the next run.
            self.ensure_not_stopping()?;
            match self.fetcher.fetch(FetchRequest::new(target.clone())).await {
                Ok(response) => {
                    let html = response.status == 200 && response.is_html();
                    outcomes.push(format!(
                        "{path}: {}{}",
                        response.status,
                        if html { " HTML" } else { "" }
                    ));
                    if html {
                        answers.push(self.probe_answer(&target, &response));
                    }
                }
                Err(error) => {
                    // Not recorded: the host is probed again at its next robots.txt fetch.
                    tracing::info!(%host, %error, "soft-404 probe failed; probing again later");
                    return Ok(());
                }
            }
        }
        let probe = Soft404Probe {
            probed: chrono::Utc::now(),
            answers,
            outcomes,
        };
        tracing::info!(
            %host,
            model = !probe.answers.is_empty(),
            outcomes = ?probe.outcomes,
            "soft-404 probes"
        );
        self.crawl_state.record_soft_404_probe(&host, &probe)?;
        self.keep_soft_404_probe(host, Some(Arc::new(probe)));
        Ok(())
    }

    /// A probe's `200` HTML answer reduced to its masked blocks, at most
    /// [`MAX_PROBE_TOKENS`] tokens of them.
    fn probe_answer(&self, target: &url::Url, response: &FetchedResponse) -> ProbeAnswer {
        let prep = self.stage.textprep();
        let page = prep.prepare(&decode_text(response).text);
        let words = url_words(prep, &page, target);
        let mut room = MAX_PROBE_TOKENS;
        let mut blocks = Vec::new();
        for mut block in masked_blocks(prep, &page, &words) {
            if room == 0 {
                break;
            }
            block.tokens.truncate(room);
            room -= block.tokens.len();
            blocks.push(block.tokens);
        }
        ProbeAnswer {
            url: target.to_string(),
            blocks,
        }
    }

    /// What the probes of `host` found, from memory or the crawl state (`None`: not probed).
    fn soft_404_probe_of(&self, host: &str) -> Result<Option<Arc<Soft404Probe>>, CrawlError> {
        if let Some(known) = lock(&self.soft_404).get(host) {
            return Ok(known.clone());
        }
        let probe = self.crawl_state.soft_404_probe(host)?.map(Arc::new);
        self.keep_soft_404_probe(host.to_string(), probe.clone());
        Ok(probe)
    }

    /// Keeps a host's probe in memory, within [`MAX_HOSTS_IN_MEMORY`] hosts.
    fn keep_soft_404_probe(&self, host: String, probe: Option<Arc<Soft404Probe>>) {
        let mut kept = lock(&self.soft_404);
        if kept.len() >= MAX_HOSTS_IN_MEMORY && !kept.contains_key(&host) {
            // The crawl state has every probe: dropping the copies costs reads, not answers.
            kept.clear();
        }
        kept.insert(host, probe);
    }
}

/// Logs a `200` HTML page that resembles its host's answer to a path that cannot exist as
/// `soft_404` (the probe URL in `resembles`, the resemblance in `similarity`) and returns the
/// outcome; `None` when it is not a soft 404.
pub(crate) fn handle_soft_404(
    fetched: &Fetched<'_>,
    page: &PreparedPage,
) -> Result<Option<HostOutcome>, CrawlError> {
    let engine = fetched.engine;
    let url = &fetched.url;
    if engine.config.crawl.soft_404_probes == 0 {
        // Off: probes an earlier run recorded are not used either.
        return Ok(None);
    }
    let Some(probe) = engine.soft_404_probe_of(url.host())? else {
        return Ok(None);
    };
    if probe.answers.is_empty() || url.url().path() == "/" || engine.is_seed(url.as_str()) {
        return Ok(None);
    }
    let prep = engine.stage.textprep();
    let words = url_words(prep, page, url.url());
    let blocks = masked_blocks(prep, page, &words);
    let min_resemblance = engine.config.crawl.soft_404_resemblance;
    let best = probe
        .answers
        .iter()
        .filter_map(|answer| Some((answer, compare(&blocks, &answer.blocks, &words)?)))
        .filter(|(_, comparison)| comparison.is_soft_404(min_resemblance))
        .max_by(|a, b| a.1.resemblance.total_cmp(&b.1.resemblance));
    let Some((answer, comparison)) = best else {
        return Ok(None);
    };
    if let Some(previous) = &fetched.previous {
        // A page an earlier round archived now answers "not found": its content is gone.
        crate::revisit::retire_previous(engine, url.as_str(), previous)?;
    }
    let mut line: LogLine = fetched.line(Decision::Soft404);
    line.resembles = Some(answer.url.clone());
    line.similarity = Some(comparison.resemblance);
    line.reason = Some(dedupcrawl_index::Reason {
        verified: Some(comparison.resemblance),
        threshold: Some(min_resemblance),
        ..dedupcrawl_index::Reason::of(dedupcrawl_index::Mechanism::Soft404)
    });
    Fetched::add_note(&mut line, SOFT_404_NOTE);
    engine.log_line(line)?;
    Ok(Some(HostOutcome::Done))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_paths_are_random_and_of_two_shapes() {
        let paths = probe_paths(2);
        assert_eq!(paths.len(), 2);
        assert_eq!(paths[0].len(), 25, "{paths:?}");
        assert!(paths[1].ends_with(".html") && paths[1].matches('/').count() == 2);
        assert!(paths[0][1..].chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(probe_paths(1), probe_paths(1), "fresh paths each time");
    }
}
