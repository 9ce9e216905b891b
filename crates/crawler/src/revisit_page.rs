//! A response in a recrawl round for a URL an earlier round fetched: `304` → `not_modified`
//! (WARC revisit, server-not-modified), the same payload → `unchanged` (WARC revisit,
//! identical-payload-digest), 404/410 → `gone`; anything else (a changed page, a redirect, an
//! error) goes through [`crate::page`] like a first fetch, compared with its previous version.

use dedupcrawl_archive::OriginalCapture;
use dedupcrawl_fetch::FetchedResponse;
use dedupcrawl_frontier::{HostOutcome, Lease};

use crate::context::Engine;
use crate::crawl_log::Decision;
use crate::crawl_state::{ArchivedRecord, RevisitState};
use crate::error::CrawlError;
use crate::fetched::{Fetched, Handled};
use crate::mutex::lock;
use crate::revisit::Visit;

/// Which revisit record to write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Revisit {
    NotModified,
    IdenticalPayload,
}

/// Handles one response, as a revisit when an earlier round fetched the URL (`previous`, its
/// version then). `archived`: what the state had archived for the URL before the fetch.
pub(crate) fn handle_response(
    engine: &Engine,
    lease: &Lease,
    response: FetchedResponse,
    previous: Option<RevisitState>,
    archived: Option<ArchivedRecord>,
) -> Handled {
    let Some(previous) = previous else {
        return crate::page::handle_response(engine, lease, response, None, archived);
    };
    let fetched = Fetched::new(engine, lease, response, Some(previous.clone()), archived);
    let status = fetched.response.status;
    // Validators were sent only for a version with a known payload (see `request_for`).
    if status == 304 && previous.payload_digest.is_some() {
        return revisit(&fetched, &previous, Revisit::NotModified);
    }
    if status == 404 || status == 410 {
        return gone(&fetched, previous);
    }
    if (200..300).contains(&status)
        && !fetched.response.body_truncated
        && previous.payload_digest.as_deref() == Some(fetched.digest())
    {
        return revisit(&fetched, &previous, Revisit::IdenticalPayload);
    }
    let (response, archived) = fetched.into_response();
    crate::page::handle_response(engine, lease, response, Some(previous), archived)
}

/// Writes a `revisit` record referring to the previous version's response (once per round),
/// logs `not_modified` or `unchanged`, and lengthens the URL's revisit interval.
fn revisit(fetched: &Fetched<'_>, previous: &RevisitState, kind: Revisit) -> Handled {
    let engine = fetched.engine;
    let decision = match kind {
        Revisit::NotModified => Decision::NotModified,
        Revisit::IdenticalPayload => Decision::Unchanged,
    };
    let mut line = fetched.line(decision);
    // The line names the content the URL still has, not the empty body of a 304.
    line.content_digest = previous.payload_digest.clone();
    line.previous_digest = None;
    line.change_similarity = None;
    match &previous.record {
        Some(record) if record.record_type == "response" && record.date.is_some() => {
            if fetched.already_archived().is_none() {
                let original = OriginalCapture {
                    target_uri: fetched.url.as_str().to_string(),
                    warc_date: record.date.unwrap_or_default(),
                    record_id: record.record_id.clone(),
                    payload_digest: record.payload_digest.clone(),
                };
                write_revisit(fetched, &original, kind)?;
            }
        }
        _ => Fetched::add_note(&mut line, "no earlier response record: no revisit record"),
    }
    engine.log_line(line)?;
    fetched.record_visit(Visit {
        similarity: Some(1.0),
        ..Visit::default()
    })?;
    Ok((HostOutcome::Done, None))
}

fn write_revisit(
    fetched: &Fetched<'_>,
    original: &OriginalCapture,
    kind: Revisit,
) -> Result<(), CrawlError> {
    let (request, response) = fetched.heads();
    let capture = fetched.capture(&request, &response);
    // Remembered under the archive lock, as every record (see `page::archive_capture`).
    let mut sink = lock(&fetched.engine.archive);
    let written = match kind {
        Revisit::NotModified => sink.warc.write_not_modified_revisit(&capture, original)?,
        Revisit::IdenticalPayload => sink
            .warc
            .write_identical_payload_revisit(&capture, original)?,
    };
    sink.cdxj.append_location(&written.response)?;
    fetched.remember(&written.response)
}

/// A 404/410: logged `gone`; after `recrawl.gone_after_misses` rounds in a row the URL is
/// dropped from later rounds.
fn gone(fetched: &Fetched<'_>, previous: RevisitState) -> Handled {
    let engine = fetched.engine;
    let mut line = fetched.line(Decision::Gone);
    line.previous_digest = previous.payload_digest.clone();
    line.change_similarity = None;
    line.error = Some(format!(
        "HTTP {} {}",
        fetched.response.status, fetched.response.reason
    ));
    let misses = previous.misses.saturating_add(1);
    let limit = engine.config.recrawl.gone_after_misses;
    Fetched::add_note(
        &mut line,
        &if misses >= limit {
            format!("missing {misses} rounds in a row: dropped from later rounds")
        } else {
            format!("missing {misses} of {limit} rounds before it is dropped")
        },
    );
    engine.log_line(line)?;
    crate::revisit::record_gone(engine, &fetched.url, previous)?;
    Ok((HostOutcome::Failed, None))
}
