//! One response: status handling, redirects, robots and canonical rules, and dedup before link
//! expansion (the decision recorded: [`crate::page_decision`]; the links offered:
//! [`crate::page_links`]; the WARC records it writes: [`crate::page_archive`]).
//! In a recrawl round, a page that changed is first compared with its own previous version
//! (see [`crate::revisit`]).

use std::time::SystemTime;

use dedupcrawl_fetch::{FetchedResponse, StatusClass, decode_text, retry_after};
use dedupcrawl_frontier::{
    CanonicalUrl, EntryKind, FrontierEntry, HostOutcome, Lease, OfferOutcome, ScopeDecision,
};
use dedupcrawl_index::{Mechanism, Reason};
use dedupcrawl_pipeline::Fingerprinted;
use dedupcrawl_sketch::PayloadDigest;
use dedupcrawl_stagecpu::Stage;
use dedupcrawl_textprep::{PreparedPage, RobotsMeta};

use crate::config::NonHtmlPolicy;
use crate::context::Engine;
use crate::crawl_log::Decision;
use crate::crawl_state::{ArchivedRecord, RevisitState};
use crate::fetched::{Fetched, Handled};
use crate::page_decision::{PageLinks, log_with_links, record_decision, retire_changed_payload};
use crate::page_links::LinkChoice;
use crate::redirect_guard::RedirectGuard;

/// Handles one response; returns the frontier outcome and, for retryable failures, the line to
/// log if the frontier gives up.
/// `previous`: what an earlier round knows of the URL (recrawl); `archived`: what the state
/// had archived for it before the fetch.
pub(crate) fn handle_response(
    engine: &Engine,
    lease: &Lease,
    response: FetchedResponse,
    previous: Option<RevisitState>,
    archived: Option<ArchivedRecord>,
) -> Handled {
    engine.stage.stage_cpu().page_done();
    let fetched = Fetched::new(engine, lease, response, previous, archived);
    match fetched.response.status_class() {
        StatusClass::Success => {
            let handled = handle_success(&fetched)?;
            fetched.record_visit(fetched.visit.take())?;
            Ok(handled)
        }
        StatusClass::Redirect => {
            if let Some(previous) = &fetched.previous {
                // Moved: the content lives at the target now, which is not a duplicate of it.
                crate::revisit::retire_previous(engine, fetched.url.as_str(), previous)?;
            }
            let handled = handle_redirect(&fetched, lease)?;
            fetched.record_visit(fetched.visit.take())?;
            Ok(handled)
        }
        StatusClass::NotModified => {
            engine.log_line(fetched.line(Decision::NotModified))?;
            Ok((HostOutcome::Done, None))
        }
        StatusClass::RetryLater => {
            let mut line = fetched.line(Decision::Error);
            line.error = Some(format!(
                "HTTP {} {}",
                fetched.response.status, fetched.response.reason
            ));
            let outcome = match retry_after(&fetched.response, SystemTime::now()) {
                Some(pause) => HostOutcome::RetryAfter(pause),
                None => HostOutcome::Retry,
            };
            tracing::info!(url = %fetched.url, status = fetched.response.status, ?outcome, "server asks to retry later");
            Ok((outcome, Some(line)))
        }
        StatusClass::ServerError => {
            let mut line = fetched.line(Decision::Error);
            line.error = Some(format!(
                "HTTP {} {}",
                fetched.response.status, fetched.response.reason
            ));
            Ok((HostOutcome::Retry, Some(line)))
        }
        StatusClass::ClientError | StatusClass::Unexpected => {
            let mut line = fetched.line(Decision::Error);
            line.error = Some(format!(
                "HTTP {} {}",
                fetched.response.status, fetched.response.reason
            ));
            engine.log_line(line)?;
            Ok((HostOutcome::Failed, None))
        }
    }
}

fn handle_redirect(fetched: &Fetched<'_>, lease: &Lease) -> Handled {
    let engine = fetched.engine;
    if engine.config.archive.redirects {
        fetched.archive_capture()?;
    }
    let decision = if engine.config.archive.redirects {
        Decision::Archived
    } else {
        Decision::Filtered
    };
    let mut line = fetched.line(decision);
    let location = fetched.response.redirect_location();
    let refusal = location
        .as_ref()
        .and_then(|target| RedirectGuard::of(&engine.config).refusal_of(&fetched.response, target));
    if let Some(refusal) = refusal {
        tracing::info!(url = %fetched.url, "{refusal}");
        // The 3xx itself stays archived as decided above: the crawl log agrees with the WARC.
        Fetched::add_note(&mut line, &refusal);
        engine.log_line(line)?;
        return Ok((HostOutcome::Done, None));
    }
    let target = location.and_then(|t| CanonicalUrl::parse(t.as_str(), None, &engine.rules).ok());
    let Some(target) = target else {
        line.decision = Decision::Error;
        line.error = Some("redirect without a usable Location".into());
        engine.log_line(line)?;
        return Ok((HostOutcome::Done, None));
    };
    let hops = lease.entry.redirect_hops.saturating_add(1);
    if hops > engine.config.crawl.max_redirects {
        Fetched::add_note(
            &mut line,
            &format!(
                "redirect to {target} not followed: more than {} hops",
                engine.config.crawl.max_redirects
            ),
        );
        line.decision = Decision::Filtered;
    } else if target == fetched.url {
        Fetched::add_note(&mut line, "redirect to itself");
    } else {
        match engine.scope_check(&target, fetched.depth) {
            ScopeDecision::InScope => {
                let outcome = engine.frontier.offer(FrontierEntry {
                    url: target.clone(),
                    depth: fetched.depth,
                    via: Some(fetched.url.as_str().to_string()),
                    kind: EntryKind::Redirect,
                    redirect_hops: hops,
                    duplicate_hops: lease.entry.duplicate_hops,
                })?;
                let note = match outcome {
                    OfferOutcome::Enqueued => format!("redirect to {target}"),
                    OfferOutcome::AlreadySeen => {
                        format!("redirect to {target} (already seen: loop or known page)")
                    }
                };
                Fetched::add_note(&mut line, &note);
            }
            ScopeDecision::OutOfScope(reason) => {
                Fetched::add_note(
                    &mut line,
                    &format!("redirect to {target} out of scope: {reason}"),
                );
            }
        }
    }
    engine.log_line(line)?;
    Ok((HostOutcome::Done, None))
}

fn x_robots_tag(response: &FetchedResponse) -> RobotsMeta {
    let mut meta = RobotsMeta::default();
    for value in response.header_values("x-robots-tag") {
        meta.merge(&String::from_utf8_lossy(value));
    }
    meta
}

fn handle_success(fetched: &Fetched<'_>) -> Handled {
    let engine = fetched.engine;
    let header_robots = x_robots_tag(&fetched.response);
    let host = fetched.url.host().to_string();
    if fetched.kind == EntryKind::Script && !fetched.response.is_html() {
        return crate::script_links::handle_script_file(fetched);
    }
    if !fetched.response.is_html() {
        let content_type = fetched.response.content_type().unwrap_or_default();
        if engine.config.archive.non_html == NonHtmlPolicy::Skip || header_robots.noindex {
            let mut line = fetched.line(Decision::Filtered);
            let reason = if header_robots.noindex {
                "noindex (X-Robots-Tag)".to_string()
            } else {
                format!("non-HTML ({content_type}) not archived")
            };
            Fetched::add_note(&mut line, &reason);
            engine.log_line(line)?;
            return Ok((HostOutcome::Done, None));
        }
        retire_changed_payload(fetched)?;
        let verdict =
            engine
                .stage
                .check_payload(fetched.url.as_str(), &host, fetched.payload_digest)?;
        return record_decision(fetched, verdict.decision, None);
    }

    let mut text = engine
        .stage
        .stage_cpu()
        .time(Stage::Parse, || decode_text(&fetched.response).text);
    let render_note = crate::render_page::render_if_needed(fetched, &text)?.map(|rendered| {
        if let Some(html) = rendered.html {
            text = html.clone();
            *fetched.rendered.borrow_mut() = Some(html);
        }
        rendered.note
    });
    *fetched.render_note.borrow_mut() = render_note;
    let Fingerprinted {
        mut fingerprint,
        page,
        ..
    } = {
        // A rendered page's payload is its DOM: app shells are the same bytes for every page.
        let payload_digest = fetched
            .rendered
            .borrow()
            .as_deref()
            .map_or(fetched.payload_digest, |dom| {
                PayloadDigest::of(dom.as_bytes())
            });
        engine.stage.fingerprint_html_with_digest(
            fetched.url.as_str(),
            &host,
            payload_digest,
            &text,
        )?
    };
    if let Some(outcome) = crate::soft_404::handle_soft_404(fetched, &page)? {
        return Ok((outcome, None));
    }
    if let Some(previous) = &fetched.previous {
        // Compared with its own previous version first, which then leaves the index: the
        // index keeps one current record per URL.
        let similarity = crate::revisit::similarity_to_previous(engine, &fingerprint, previous)?;
        let mut visit = fetched.visit.borrow_mut();
        visit.similarity = similarity;
        visit.changed = true;
        drop(visit);
        crate::revisit::retire_previous(engine, fetched.url.as_str(), previous)?;
    }
    let mut robots = page.extracted.robots;
    robots.noindex |= header_robots.noindex;
    robots.nofollow |= header_robots.nofollow;

    // rel=canonical elsewhere: the canonical URL stands for this page.
    if let Some(canonical) = canonical_elsewhere(fetched, &page) {
        return canonical_page(fetched, &fingerprint, canonical);
    }
    if robots.noindex {
        return noindex_page(fetched, &fingerprint, &page, robots);
    }
    // A site with a stricter threshold than the index's (the lowest of all sites) asks it of
    // this page's near duplicates.
    let index_threshold = engine.stage.settings().threshold;
    fingerprint.threshold = engine
        .site_for(&fetched.url)
        .map(|site| site.threshold)
        .filter(|&threshold| threshold > index_threshold);
    let decision = engine.stage.decide(&fingerprint)?;
    let links = PageLinks {
        page: &page,
        robots,
    };
    record_decision(fetched, decision, Some(links))
}

/// A page whose `rel=canonical` names another in-scope URL: that URL is offered and stands for
/// the page, which is logged as its near duplicate (by the index's figure when the index
/// finds the two alike).
fn canonical_page(
    fetched: &Fetched<'_>,
    fingerprint: &dedupcrawl_index::DocumentFingerprint,
    canonical: CanonicalUrl,
) -> Handled {
    let engine = fetched.engine;
    let lookup = engine.stage.index().lookup(fingerprint)?;
    engine.frontier.offer(FrontierEntry {
        url: canonical.clone(),
        depth: fetched.depth,
        via: Some(fetched.url.as_str().to_string()),
        kind: EntryKind::Link,
        redirect_hops: 0,
        duplicate_hops: fetched.duplicate_hops,
    })?;
    let mut line = fetched.line(Decision::NearDuplicate);
    line.duplicate_of = Some(canonical.as_str().to_string());
    line.similarity = lookup
        .original()
        .filter(|(of, _)| of.name == canonical.as_str())
        .map(|(_, similarity)| similarity);
    line.reason = Some(Reason {
        verified: line.similarity,
        ..Reason::of(Mechanism::Canonical)
    });
    Fetched::add_note(&mut line, "rel=canonical");
    engine.log_line(line)?;
    Ok((HostOutcome::Done, None))
}

/// A page that asks not to be indexed: not archived, its links followed unless it is a
/// duplicate (the index is asked, not written) or asks that too.
fn noindex_page(
    fetched: &Fetched<'_>,
    fingerprint: &dedupcrawl_index::DocumentFingerprint,
    page: &PreparedPage,
    robots: RobotsMeta,
) -> Handled {
    let engine = fetched.engine;
    let lookup = engine.stage.index().lookup(fingerprint)?;
    let mut line = fetched.line(Decision::Filtered);
    Fetched::add_note(&mut line, "noindex");
    let mut link_lines = Vec::new();
    if let Some((of, similarity)) = lookup.original() {
        line.duplicate_of = Some(of.name.clone());
        line.similarity = Some(similarity);
        line.reason = Some(lookup.reason().clone());
    } else if !robots.nofollow {
        let (lines, capped) = fetched.enqueue_links(page, &LinkChoice::All)?;
        link_lines = lines;
        if let Some(capped) = capped {
            Fetched::add_note(&mut line, &capped);
        }
    }
    log_with_links(engine, line, link_lines)
}

fn canonical_elsewhere(fetched: &Fetched<'_>, page: &PreparedPage) -> Option<CanonicalUrl> {
    let href = page.extracted.canonical.as_deref()?;
    let engine = fetched.engine;
    let canonical = CanonicalUrl::parse(href, Some(fetched.url.url()), &engine.rules).ok()?;
    (canonical != fetched.url && engine.scope_check(&canonical, fetched.depth).is_in_scope())
        .then_some(canonical)
}
