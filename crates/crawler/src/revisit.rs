//! Recrawl rounds: which round a run belongs to, which URLs a new round visits again, the
//! conditional request for a known URL, and each URL's [`RevisitState`] after a fetch (its
//! validators, current version and adaptive revisit interval).
//!
//! Round 1 is the first `crawl`; every `recrawl` of a finished round starts the next one, and a
//! `recrawl` of an unfinished round (killed, interrupted) resumes it. The crawl log and the
//! archived-record bookkeeping are per round, so a URL gets one line and at most one WARC
//! record per round, also across a resume.

use chrono::{DateTime, Utc};
use dedupcrawl_fetch::{FetchRequest, FetchedResponse, Validators};
use dedupcrawl_frontier::{CanonicalUrl, CanonicalizationRules, EntryKind, FrontierEntry};
use dedupcrawl_index::DocumentFingerprint;

use crate::context::Engine;
use crate::crawl_state::{ArchivedRecord, CrawlStateStore, RevisitState, RoundState, UrlProgress};
use crate::error::CrawlError;

/// How a run relates to the rounds before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RoundStart {
    /// `crawl`: the current round (round 1 on a fresh directory), resumed.
    Continue,
    /// `recrawl`: a new round after a finished one, or the unfinished one resumed. `all`:
    /// every known URL, due or not.
    New { all: bool },
}

/// The round this run works on (recorded in the state before anything is fetched).
pub(crate) fn open_round(
    state: &dyn CrawlStateStore,
    start: RoundStart,
) -> Result<RoundState, CrawlError> {
    let current = state.round()?;
    let round = match (current, start) {
        (Some(current), RoundStart::Continue) => current,
        (None, RoundStart::Continue) => {
            // A crawl from before rounds existed, or a fresh one: round 1 has no URL to visit
            // again, only its seeds.
            let round = RoundState {
                number: 1,
                started: Utc::now(),
                seeded: true,
                finished: false,
                all: false,
            };
            state.set_round(&round)?;
            // Durable before the first crawl-log line: a state without a round beside a crawl
            // log with lines is a lost state (`lost_pages::refuse_lost_state`).
            state.flush()?;
            round
        }
        (None, RoundStart::New { .. }) => {
            if state.archived_count() == 0 && state.revisit_states()?.is_empty() {
                return Err(CrawlError::Worker(
                    "nothing to recrawl: the output directory (or --store crawl) has no earlier \
                     crawl; run `dedupcrawl crawl` first"
                        .into(),
                ));
            }
            new_round(state, 2, start)?
        }
        (Some(current), RoundStart::New { .. }) if !current.finished => {
            tracing::info!(
                round = current.number,
                "resuming round {} (it did not finish)",
                current.number
            );
            current
        }
        (Some(current), RoundStart::New { .. }) => {
            new_round(state, current.number.saturating_add(1), start)?
        }
    };
    Ok(round)
}

fn new_round(
    state: &dyn CrawlStateStore,
    number: u32,
    start: RoundStart,
) -> Result<RoundState, CrawlError> {
    let round = RoundState {
        number,
        started: Utc::now(),
        seeded: false,
        finished: false,
        all: matches!(start, RoundStart::New { all: true }),
    };
    state.set_round(&round)?;
    tracing::info!(round = number, all = round.all, "starting round {number}");
    Ok(round)
}

/// The key under which a URL's crawl-log line of `round` is marked logged (round 1 keeps the
/// plain URL, as crawls before rounds existed did).
pub(crate) fn log_key(round: u32, url: &str) -> String {
    if round <= 1 {
        url.to_string()
    } else {
        format!("{round} {url}")
    }
}

/// Puts every URL due in the engine's round (every known one with `--all`) back in the
/// frontier, unless the round was seeded already; returns how many.
pub(crate) fn seed_round(engine: &Engine) -> Result<usize, CrawlError> {
    let mut round = engine.round.clone();
    if round.seeded {
        return Ok(0);
    }
    let now = Utc::now();
    let mut entries = Vec::new();
    let (mut gone, mut not_due) = (0usize, 0usize);
    for (url, state) in engine.crawl_state.revisit_states()? {
        if state.round >= round.number {
            continue;
        }
        if state.gone {
            gone += 1;
            continue;
        }
        if !round.all && state.next_due > now {
            not_due += 1;
            continue;
        }
        let Ok(url) = CanonicalUrl::parse(&url, None, &CanonicalizationRules::none()) else {
            continue;
        };
        if !engine.scope_check(&url, state.depth).is_in_scope() {
            continue;
        }
        entries.push(FrontierEntry {
            url,
            depth: state.depth,
            via: None,
            kind: EntryKind::Seed,
            redirect_hops: 0,
            duplicate_hops: 0,
        });
    }
    let count = entries.len();
    for batch in entries.chunks(1000) {
        engine.frontier.offer_again(batch.to_vec())?;
    }
    engine.frontier.flush()?;
    round.seeded = true;
    engine.crawl_state.set_round(&round)?;
    tracing::info!(
        round = round.number,
        due = count,
        not_due,
        gone,
        "round {} seeded with the URLs due",
        round.number
    );
    Ok(count)
}

/// Whether the engine's round already fetched the URL whose `progress` this is (a URL queued
/// twice by a seeding that was cut short, or refetched after a resume): it is not fetched
/// again.
pub(crate) fn fetched_this_round(engine: &Engine, progress: &UrlProgress) -> bool {
    progress
        .revisit
        .as_ref()
        .is_some_and(|state| state.round >= engine.round.number)
}

/// What an earlier round knows of the URL whose `progress` this is, when this round revisits
/// it.
pub(crate) fn previous_version(engine: &Engine, progress: &UrlProgress) -> Option<RevisitState> {
    progress
        .revisit
        .clone()
        .filter(|state| state.round < engine.round.number)
}

/// The request for `url`: conditional (`If-None-Match`, `If-Modified-Since`) when an earlier
/// round fetched a version whose content is known (its payload digest): an archived page, and
/// also a duplicate, which has no response record of its own but whose body need not come
/// again when it did not change (a `304` is then `not_modified` without a revisit record).
pub(crate) fn request_for(url: &CanonicalUrl, previous: Option<&RevisitState>) -> FetchRequest {
    let request = FetchRequest::new(url.url().clone());
    let Some(previous) = previous else {
        return request;
    };
    if previous.payload_digest.is_none() {
        return request;
    }
    let validators = Validators {
        etag: previous.etag.clone(),
        last_modified: previous.last_modified.clone(),
    };
    request.conditional(&validators)
}

/// Resemblance of a page with its previous version's document in the index (MinHash, or the
/// exact shingle sets of two small pages), if the index still has it.
pub(crate) fn similarity_to_previous(
    engine: &Engine,
    fingerprint: &DocumentFingerprint,
    previous: &RevisitState,
) -> Result<Option<f64>, CrawlError> {
    let Some(id) = previous.document else {
        return Ok(None);
    };
    let Some(stored) = engine.stage.index().document(id)? else {
        return Ok(None);
    };
    if stored.name != fingerprint.name {
        // The id was reused for another page: not this page's version.
        return Ok(None);
    }
    if !stored.sequence.is_empty() && !fingerprint.shingles.is_empty() {
        let counts = dedupcrawl_index::shingle_counts(&fingerprint.shingles, &stored.shingle_set());
        return Ok(Some(counts.resemblance()));
    }
    Ok(match (&stored.signature, &fingerprint.signature) {
        // The index keeps the low bits of each value (b-bit MinHash): compare those.
        (Some(old), Some(new)) => Some(
            old.low_bits(dedupcrawl_index::SIGNATURE_BITS)
                .similarity(&new.low_bits(dedupcrawl_index::SIGNATURE_BITS)),
        ),
        _ => None,
    })
}

/// Takes the previous version's document out of the index, so the index keeps one current
/// record per URL and a changed page is never a duplicate of its own earlier version.
pub(crate) fn retire_previous(
    engine: &Engine,
    url: &str,
    previous: &RevisitState,
) -> Result<(), CrawlError> {
    if let Some(id) = previous.document
        && let Some(stored) = engine.stage.index().document(id)?
        && stored.name == url
    {
        engine.stage.index().remove(id)?;
    }
    Ok(())
}

/// What a fetch of this round found, for [`record_visit`].
#[derive(Debug, Default)]
pub(crate) struct Visit {
    /// The index document of the page's current version (`None`: keep the previous one).
    pub(crate) document: Option<u32>,
    /// The response record written for it (`None`: keep the previous one).
    pub(crate) record: Option<ArchivedRecord>,
    /// Resemblance with the previous version (1.0: unchanged; `None`: no comparison).
    pub(crate) similarity: Option<f64>,
    /// The page changed but could not be compared (non-HTML, no previous signature).
    pub(crate) changed: bool,
}

/// Records the URL's revisit state after this round's fetch (called after its crawl-log line:
/// a state of this round means the URL is done for the round).
pub(crate) fn record_visit(
    engine: &Engine,
    url: &CanonicalUrl,
    previous: Option<&RevisitState>,
    depth: u32,
    response: &FetchedResponse,
    digest: Option<&str>,
    visit: Visit,
) -> Result<(), CrawlError> {
    let settings = &engine.config.recrawl;
    let validators = response.validators();
    let interval = match (&previous, visit.similarity) {
        (Some(previous), Some(similarity)) => {
            settings.next_interval(previous.interval_secs, similarity)
        }
        (Some(previous), None) if visit.changed => {
            settings.next_interval(previous.interval_secs, 0.0)
        }
        (Some(previous), None) => previous.interval_secs,
        (None, _) => settings.first_interval(),
    };
    let not_modified = response.status == 304;
    let state = RevisitState {
        round: engine.round.number,
        depth: previous.as_ref().map_or(depth, |p| p.depth.min(depth)),
        // A 304 may omit the validators: the previous ones still describe the version.
        etag: validators.etag.or_else(|| {
            not_modified
                .then(|| previous.as_ref()?.etag.clone())
                .flatten()
        }),
        last_modified: validators.last_modified.or_else(|| {
            not_modified
                .then(|| previous.as_ref()?.last_modified.clone())
                .flatten()
        }),
        payload_digest: if not_modified {
            previous.as_ref().and_then(|p| p.payload_digest.clone())
        } else {
            digest.map(str::to_string)
        },
        document: visit
            .document
            .or_else(|| previous.as_ref().and_then(|p| p.document)),
        record: visit
            .record
            .or_else(|| previous.as_ref().and_then(|p| p.record.clone())),
        interval_secs: interval,
        next_due: due_after(Utc::now(), interval),
        misses: 0,
        gone: false,
        last_similarity: visit.similarity,
    };
    engine
        .crawl_state
        .record_revisit_state(url.as_str(), &state)
}

/// Records a 404/410 of a URL an earlier round fetched; returns whether it is now dropped from
/// later rounds.
pub(crate) fn record_gone(
    engine: &Engine,
    url: &CanonicalUrl,
    mut state: RevisitState,
) -> Result<bool, CrawlError> {
    state.round = engine.round.number;
    state.misses = state.misses.saturating_add(1);
    state.gone = state.misses >= engine.config.recrawl.gone_after_misses;
    // Asked again at the next round: a page may come back.
    state.next_due = Utc::now();
    engine
        .crawl_state
        .record_revisit_state(url.as_str(), &state)?;
    Ok(state.gone)
}

fn due_after(now: DateTime<Utc>, interval_secs: f64) -> DateTime<Utc> {
    let millis = (interval_secs * 1000.0).clamp(0.0, 1e15) as i64;
    now + chrono::Duration::milliseconds(millis)
}
