//! One response: status handling, redirects, dedup before link expansion, links (the WARC
//! records it writes: [`crate::page_archive`]).
//! In a recrawl round, a page that changed is first compared with its own previous version
//! (see [`crate::revisit`]).

use std::cell::RefCell;
use std::time::SystemTime;

use dedupcrawl_fetch::{FetchedResponse, StatusClass, decode_text, retry_after};
use dedupcrawl_frontier::{
    CanonicalUrl, EntryKind, FrontierEntry, HostOutcome, Lease, OfferOutcome, OutOfScopeReason,
    ScopeDecision,
};
use dedupcrawl_index::{DedupDecision, ExactBasis};
use dedupcrawl_pipeline::Fingerprinted;
use dedupcrawl_sketch::PayloadDigest;
use dedupcrawl_textprep::{PreparedPage, RobotsMeta};

use crate::config::{NearDuplicatePolicy, NonHtmlPolicy};
use crate::context::Engine;
use crate::crawl_log::{Decision, LogLine};
use crate::crawl_state::{ArchivedRecord, RevisitState};
use crate::error::CrawlError;
use crate::redirect_guard::RedirectGuard;
use crate::revisit::Visit;

/// Links offered to the frontier in one transaction: bounds the memory of enqueueing a page
/// with very many links.
const OFFER_BATCH: usize = 1000;

pub(crate) type Handled = Result<(HostOutcome, Option<LogLine>), CrawlError>;

/// A response and what we know about the URL it answers.
pub(crate) struct Fetched<'a> {
    pub(crate) engine: &'a Engine,
    pub(crate) url: CanonicalUrl,
    pub(crate) depth: u32,
    via: Option<String>,
    pub(crate) response: FetchedResponse,
    digest: String,
    /// Recrawl: what an earlier round knows of the URL.
    pub(crate) previous: Option<RevisitState>,
    /// What the state has archived for the URL: read before the fetch, then this fetch's own
    /// record once remembered (the URL is leased to this fetch alone, so nobody else writes
    /// it meanwhile).
    pub(crate) archived: RefCell<Option<ArchivedRecord>>,
    /// What this fetch found, for the URL's revisit state.
    pub(crate) visit: RefCell<Visit>,
}

impl<'a> Fetched<'a> {
    pub(crate) fn new(
        engine: &'a Engine,
        lease: &Lease,
        response: FetchedResponse,
        previous: Option<RevisitState>,
        archived: Option<ArchivedRecord>,
    ) -> Fetched<'a> {
        let digest = PayloadDigest::of(&response.body).to_string();
        Fetched {
            engine,
            url: lease.url().clone(),
            depth: lease.entry.depth,
            via: lease.entry.via.clone(),
            response,
            digest,
            previous,
            archived: RefCell::new(archived),
            visit: RefCell::new(Visit::default()),
        }
    }

    /// The response back, with what is archived for the URL (to hand both to
    /// [`handle_response`]).
    pub(crate) fn into_response(self) -> (FetchedResponse, Option<ArchivedRecord>) {
        (self.response, self.archived.into_inner())
    }

    /// The payload digest (`sha1:BASE32`).
    pub(crate) fn digest(&self) -> &str {
        &self.digest
    }

    /// Records the URL's revisit state from this fetch (after its crawl-log line).
    pub(crate) fn record_visit(&self, visit: Visit) -> Result<(), CrawlError> {
        crate::revisit::record_visit(
            self.engine,
            &self.url,
            self.previous.as_ref(),
            self.depth,
            &self.response,
            Some(&self.digest),
            visit,
        )
    }
}

impl Fetched<'_> {
    pub(crate) fn line(&self, decision: Decision) -> LogLine {
        let mut line = LogLine::new(self.url.as_str(), decision, self.depth, self.via.clone());
        line.status = Some(self.response.status);
        line.content_digest = Some(self.digest.clone());
        line.bytes = Some(self.response.body.len() as u64);
        if self.response.body_truncated {
            line.note = Some(format!(
                "body truncated at {} bytes",
                self.response.body.len()
            ));
        }
        if let Some(previous) = &self.previous {
            line.previous_digest = previous.payload_digest.clone();
            line.change_similarity = self.visit.borrow().similarity;
        }
        line
    }

    pub(crate) fn add_note(line: &mut LogLine, note: &str) {
        line.note = Some(match line.note.take() {
            Some(existing) => format!("{existing}; {note}"),
            None => note.to_string(),
        });
    }

    /// Resolves, canonicalizes and scopes the page's links and offers them to the frontier,
    /// at most `crawl.max_links_per_page` of them, in batches of [`OFFER_BATCH`]. Returns the
    /// `out_of_scope` lines of links seen for the first time (logged after the page's own
    /// line) and, when links were left out, the note for the page's line.
    fn enqueue_links(
        &self,
        page: &PreparedPage,
    ) -> Result<(Vec<LogLine>, Option<String>), CrawlError> {
        let engine = self.engine;
        let base = page
            .extracted
            .base_href
            .as_deref()
            .and_then(|href| self.url.url().join(href).ok())
            .unwrap_or_else(|| self.url.url().clone());
        let depth = self.depth + 1;
        let max_links = engine.config.crawl.max_links_per_page;
        let followable = page.extracted.links.iter().filter(|link| !link.nofollow);
        // The extraction kept at most `max_links` of them and counted the rest.
        let total = followable.clone().count() + page.extracted.links_left_out as usize;
        let mut entries = Vec::new();
        let mut out_of_scope = Vec::new();
        let mut out_of_scope_targets = Vec::new();
        for link in followable.take(max_links) {
            let Ok(target) = CanonicalUrl::parse(&link.href, Some(&base), &engine.rules) else {
                continue;
            };
            match engine.scope_check(&target, depth) {
                ScopeDecision::InScope => {
                    entries.push(FrontierEntry::link(target, depth, self.url.as_str()));
                    // Bounded batches: one transaction (and its memory) per batch, not per page.
                    if entries.len() >= OFFER_BATCH {
                        engine.frontier.offer_all(std::mem::take(&mut entries))?;
                    }
                }
                ScopeDecision::OutOfScope(OutOfScopeReason::TooDeep { .. }) => {}
                ScopeDecision::OutOfScope(reason) => {
                    out_of_scope_targets.push((target, reason.to_string()));
                }
            }
        }
        // Logged once: the out-of-scope URLs join the seen set (one round trip for the page's
        // links, with the in-scope ones).
        let targets: Vec<CanonicalUrl> = out_of_scope_targets
            .iter()
            .map(|(target, _)| target.clone())
            .collect();
        let (_, new) = engine.frontier.offer_and_mark_seen(entries, &targets)?;
        for ((target, reason), new) in out_of_scope_targets.into_iter().zip(new) {
            if new {
                let mut line = LogLine::new(
                    target.as_str(),
                    Decision::OutOfScope,
                    depth,
                    Some(self.url.as_str().to_string()),
                );
                line.note = Some(reason);
                out_of_scope.push(line);
            }
        }
        let note = (total > max_links).then(|| {
            format!(
                "links capped: took the first {max_links} of {total} (crawl.max_links_per_page)"
            )
        });
        Ok((out_of_scope, note))
    }
}

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
        if let Some(previous) = &fetched.previous {
            // A new payload (an equal one was `unchanged`): this version replaces the last.
            fetched.visit.borrow_mut().changed = true;
            crate::revisit::retire_previous(engine, fetched.url.as_str(), previous)?;
        }
        let verdict =
            engine
                .stage
                .check_payload(fetched.url.as_str(), &host, &fetched.response.body)?;
        return record_decision(fetched, verdict.decision, None);
    }

    let text = decode_text(&fetched.response).text;
    let Fingerprinted {
        fingerprint, page, ..
    } = engine.stage.fingerprint_html(
        fetched.url.as_str(),
        &host,
        &fetched.response.body,
        &text,
    )?;
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
        let lookup = engine.stage.index().lookup(&fingerprint)?;
        engine.frontier.offer(FrontierEntry {
            url: canonical.clone(),
            depth: fetched.depth,
            via: Some(fetched.url.as_str().to_string()),
            kind: EntryKind::Link,
            redirect_hops: 0,
        })?;
        let mut line = fetched.line(Decision::NearDuplicate);
        line.duplicate_of = Some(canonical.as_str().to_string());
        line.similarity = match lookup {
            DedupDecision::ExactDuplicate { of, .. } if of.name == canonical.as_str() => Some(1.0),
            DedupDecision::NearDuplicate { of, similarity } if of.name == canonical.as_str() => {
                Some(similarity)
            }
            _ => None,
        };
        Fetched::add_note(&mut line, "rel=canonical");
        engine.log_line(line)?;
        return Ok((HostOutcome::Done, None));
    }

    if robots.noindex {
        let lookup = engine.stage.index().lookup(&fingerprint)?;
        let mut line = fetched.line(Decision::Filtered);
        Fetched::add_note(&mut line, "noindex");
        let mut link_lines = Vec::new();
        if let Some((of, similarity)) = duplicate_of(&lookup) {
            line.duplicate_of = Some(of);
            line.similarity = Some(similarity);
        } else if !robots.nofollow {
            let (lines, capped) = fetched.enqueue_links(&page)?;
            link_lines = lines;
            if let Some(capped) = capped {
                Fetched::add_note(&mut line, &capped);
            }
        }
        engine.log_line(line)?;
        for link_line in link_lines {
            engine.log_line(link_line)?;
        }
        return Ok((HostOutcome::Done, None));
    }

    let decision = engine.stage.index().check_and_insert(&fingerprint)?;
    record_decision(fetched, decision, Some((&page, robots)))
}

fn duplicate_of(decision: &DedupDecision) -> Option<(String, f64)> {
    match decision {
        DedupDecision::New { .. } => None,
        DedupDecision::ExactDuplicate { of, .. } => Some((of.name.clone(), 1.0)),
        DedupDecision::NearDuplicate { of, similarity } => Some((of.name.clone(), *similarity)),
        DedupDecision::Contained {
            within,
            containment,
        } => Some((within.name.clone(), *containment)),
    }
}

fn canonical_elsewhere(fetched: &Fetched<'_>, page: &PreparedPage) -> Option<CanonicalUrl> {
    let href = page.extracted.canonical.as_deref()?;
    let engine = fetched.engine;
    let canonical = CanonicalUrl::parse(href, Some(fetched.url.url()), &engine.rules).ok()?;
    (canonical != fetched.url && engine.scope_check(&canonical, fetched.depth).is_in_scope())
        .then_some(canonical)
}

fn record_decision(
    fetched: &Fetched<'_>,
    decision: DedupDecision,
    page: Option<(&PreparedPage, RobotsMeta)>,
) -> Handled {
    let engine = fetched.engine;
    let url = fetched.url.as_str();
    // A page named as the duplicate of itself was indexed by a run that died before logging
    // it (resume): it is new.
    let mut decision = match decision {
        DedupDecision::ExactDuplicate { ref of, .. }
        | DedupDecision::NearDuplicate { ref of, .. }
            if of.name == url =>
        {
            DedupDecision::New {
                id: Some(of.id),
                contains: Vec::new(),
            }
        }
        DedupDecision::Contained { ref within, .. } if within.name == url => DedupDecision::New {
            id: Some(within.id),
            contains: Vec::new(),
        },
        other => other,
    };
    // A site with a stricter threshold than the index's (the lowest of all sites) keeps pages
    // the index calls similar. A site at the index's threshold takes the index's decision as
    // it is, also that of a copy that holds all of another host's page and so is a near
    // duplicate a little below the threshold (see the index's `find_containment`).
    let index_threshold = engine.stage.settings().threshold;
    let site_threshold = engine
        .site_for(&fetched.url)
        .map(|s| s.threshold)
        .filter(|&threshold| threshold > index_threshold);
    let mut note: Option<String> = None;
    if let (DedupDecision::NearDuplicate { similarity, of }, Some(threshold)) =
        (&decision, site_threshold)
        && *similarity < threshold
    {
        note = Some(format!(
            "similar to {} ({similarity:.3}) below the site threshold {threshold}",
            of.name
        ));
        decision = DedupDecision::New {
            id: None,
            contains: Vec::new(),
        };
    }
    let near_policy = engine.config.archive.near_duplicates;
    let (mut line, follow_links) = match &decision {
        DedupDecision::New { contains, id } => {
            fetched.visit.borrow_mut().document = *id;
            fetched.archive_capture()?;
            let mut line = fetched.line(Decision::Archived);
            line.contains = contains
                .iter()
                .map(|(inner, _)| inner.name.clone())
                .collect();
            (line, true)
        }
        DedupDecision::ExactDuplicate {
            of,
            basis: ExactBasis::Payload,
        } => {
            let mut line = fetched.line(Decision::ExactDuplicate);
            line.duplicate_of = Some(of.name.clone());
            line.similarity = Some(1.0);
            if !fetched.archive_revisit(&of.name)? {
                if of.cluster != of.id {
                    // The same bytes as a near duplicate the index keeps as a cluster member:
                    // there is no response record to revisit, so this page is recorded the way
                    // that near duplicate was.
                    near_duplicate_policy(
                        fetched,
                        near_policy,
                        &of.name,
                        1.0,
                        "payload-digest",
                        page.map(|(p, _)| p),
                    )?;
                } else {
                    Fetched::add_note(&mut line, "original not archived: no revisit record");
                }
            }
            (line, false)
        }
        DedupDecision::ExactDuplicate {
            of,
            basis: ExactBasis::NormalizedText,
        } => {
            let mut line = fetched.line(Decision::ExactDuplicate);
            line.duplicate_of = Some(of.name.clone());
            line.similarity = Some(1.0);
            Fetched::add_note(&mut line, "same normalized text");
            near_duplicate_policy(
                fetched,
                near_policy,
                &of.name,
                1.0,
                "normalized-text-digest",
                page.map(|(p, _)| p),
            )?;
            (line, false)
        }
        DedupDecision::NearDuplicate { of, similarity } => {
            let mut line = fetched.line(Decision::NearDuplicate);
            line.duplicate_of = Some(of.name.clone());
            line.similarity = Some(*similarity);
            near_duplicate_policy(
                fetched,
                near_policy,
                &of.name,
                *similarity,
                "minhash-lsh",
                page.map(|(p, _)| p),
            )?;
            (line, false)
        }
        DedupDecision::Contained {
            within,
            containment,
        } => {
            let mut line = fetched.line(Decision::Contained);
            line.duplicate_of = Some(within.name.clone());
            line.similarity = Some(*containment);
            near_duplicate_policy(
                fetched,
                near_policy,
                &within.name,
                *containment,
                "containment",
                page.map(|(p, _)| p),
            )?;
            (line, false)
        }
    };
    if let Some(note) = note {
        Fetched::add_note(&mut line, &note);
    }
    let mut link_lines = Vec::new();
    if follow_links && let Some((page, robots)) = page {
        if robots.nofollow {
            Fetched::add_note(&mut line, "nofollow");
        } else {
            let (lines, capped) = fetched.enqueue_links(page)?;
            link_lines = lines;
            if let Some(capped) = capped {
                Fetched::add_note(&mut line, &capped);
            }
        }
    }
    engine.log_line(line)?;
    for link_line in link_lines {
        engine.log_line(link_line)?;
    }
    Ok((HostOutcome::Done, None))
}

fn near_duplicate_policy(
    fetched: &Fetched<'_>,
    policy: NearDuplicatePolicy,
    original: &str,
    similarity: f64,
    method: &str,
    page: Option<&PreparedPage>,
) -> Result<(), CrawlError> {
    match policy {
        NearDuplicatePolicy::Log => Ok(()),
        NearDuplicatePolicy::Metadata => {
            // The page's own content blocks: what `clusters` compares with the original.
            let text = page.map(|page| {
                fetched.engine.stage.textprep().view_text(
                    page,
                    dedupcrawl_textprep::View::MainContent,
                    &|_| false,
                )
            });
            fetched.archive_near_duplicate_metadata(original, similarity, method, text)
        }
        NearDuplicatePolicy::Archive => fetched.archive_capture(),
    }
}
