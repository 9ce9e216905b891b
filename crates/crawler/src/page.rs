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
use dedupcrawl_index::{DedupDecision, ExactBasis, Mechanism, Reason};
use dedupcrawl_pipeline::Fingerprinted;
use dedupcrawl_sketch::PayloadDigest;
use dedupcrawl_stagecpu::Stage;
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

/// Which of a page's links are offered to the frontier.
pub(crate) enum LinkChoice {
    /// All of them (a new page).
    All,
    /// Those whose target key ([`dedupcrawl_pipeline::DedupStage::link_target_key`]) is one of
    /// `targets` (a duplicate's new targets: [`crate::duplicate_links`]), and the page's script
    /// files, offered with `duplicate_hops`.
    NewTargets {
        targets: rustc_hash::FxHashSet<u32>,
        duplicate_hops: u8,
    },
}

/// A response and what we know about the URL it answers.
pub(crate) struct Fetched<'a> {
    pub(crate) engine: &'a Engine,
    pub(crate) url: CanonicalUrl,
    pub(crate) depth: u32,
    /// Duplicates in a row whose new links led here ([`FrontierEntry::duplicate_hops`]).
    pub(crate) duplicate_hops: u8,
    via: Option<String>,
    /// How the URL came to the frontier (a script file is read for links, not parsed).
    pub(crate) kind: EntryKind,
    pub(crate) response: FetchedResponse,
    /// The response body's SHA-1, computed once: the index, the WARC header, the CDXJ line and
    /// the state all take it from here.
    pub(crate) payload_digest: PayloadDigest,
    /// [`payload_digest`](Self::payload_digest) as `sha1:BASE32`.
    digest: String,
    /// Recrawl: what an earlier round knows of the URL.
    pub(crate) previous: Option<RevisitState>,
    /// What the state has archived for the URL: read before the fetch, then this fetch's own
    /// record once remembered (the URL is leased to this fetch alone, so nobody else writes
    /// it meanwhile).
    pub(crate) archived: RefCell<Option<ArchivedRecord>>,
    /// What this fetch found, for the URL's revisit state.
    pub(crate) visit: RefCell<Visit>,
    /// The page's DOM as the browser rendered it (`crawl.render`), archived as a
    /// `conversion` record beside the response.
    pub(crate) rendered: RefCell<Option<String>>,
    /// What rendering did, for the page's crawl-log line.
    pub(crate) render_note: RefCell<Option<String>>,
}

impl<'a> Fetched<'a> {
    pub(crate) fn new(
        engine: &'a Engine,
        lease: &Lease,
        response: FetchedResponse,
        previous: Option<RevisitState>,
        archived: Option<ArchivedRecord>,
    ) -> Fetched<'a> {
        let payload_digest = PayloadDigest::of(&response.body);
        let digest = payload_digest.to_string();
        Fetched {
            engine,
            url: lease.url().clone(),
            depth: lease.entry.depth,
            duplicate_hops: lease.entry.duplicate_hops,
            via: lease.entry.via.clone(),
            kind: lease.entry.kind,
            response,
            payload_digest,
            digest,
            previous,
            archived: RefCell::new(archived),
            visit: RefCell::new(Visit::default()),
            rendered: RefCell::new(None),
            render_note: RefCell::new(None),
        }
    }

    /// The response back, with what is archived for the URL (to hand both to
    /// [`handle_response`]).
    pub(crate) fn into_response(self) -> (FetchedResponse, Option<ArchivedRecord>) {
        (self.response, self.archived.into_inner())
    }

    /// The page (or sitemap, or redirecting URL) the URL was found on.
    pub(crate) fn via(&self) -> Option<&str> {
        self.via.as_deref()
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
        line.found_in = crate::script_links::found_in(self.kind);
        line.rendered = self.rendered.borrow().is_some().then_some(true);
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
        if let Some(note) = self.render_note.borrow().as_deref() {
            Fetched::add_note(&mut line, note);
        }
        line
    }

    pub(crate) fn add_note(line: &mut LogLine, note: &str) {
        line.note = Some(match line.note.take() {
            Some(existing) => format!("{existing}; {note}"),
            None => note.to_string(),
        });
    }

    /// The page's followable links as canonical targets with the kind of entry each makes:
    /// at most `crawl.max_links_per_page` links, each distinct href of a kind once (a page
    /// names most of its targets several times: menu, text, breadcrumbs), of a duplicate only
    /// those `choice` follows.
    fn link_targets(
        &self,
        page: &PreparedPage,
        choice: &LinkChoice,
    ) -> Vec<(CanonicalUrl, EntryKind)> {
        let engine = self.engine;
        let base = page
            .extracted
            .base_href
            .as_deref()
            .and_then(|href| self.url.url().join(href).ok())
            .unwrap_or_else(|| self.url.url().clone());
        let page_url = Some(self.url.url().clone());
        let chosen = match choice {
            LinkChoice::All => None,
            LinkChoice::NewTargets { targets, .. } => Some(targets),
        };
        let script_links = engine.config.crawl.script_links;
        let mut distinct = rustc_hash::FxHashSet::default();
        page.extracted
            .links
            .iter()
            .filter(|link| !link.nofollow)
            .take(engine.config.crawl.max_links_per_page)
            .filter(|link| distinct.insert((link.href.as_str(), link.kind)))
            .filter_map(|link| {
                let kind = crate::script_links::entry_kind(link.kind, script_links)?;
                if let Some(targets) = chosen
                    && kind != EntryKind::Script
                    && !dedupcrawl_pipeline::DedupStage::link_target_key(&page_url, &link.href)
                        .is_some_and(|key| targets.contains(&key))
                {
                    return None;
                }
                let target = CanonicalUrl::parse(&link.href, Some(&base), &engine.rules).ok()?;
                Some((target, kind))
            })
            .collect()
    }

    /// Scopes the page's [`link_targets`](Self::link_targets) and offers them to the
    /// frontier, in batches of [`OFFER_BATCH`]. Returns the `out_of_scope` lines of links seen
    /// for the first time (logged after the page's own line) and, when links were left out,
    /// the note for the page's line.
    fn enqueue_links(
        &self,
        page: &PreparedPage,
        choice: &LinkChoice,
    ) -> Result<(Vec<LogLine>, Option<String>), CrawlError> {
        let engine = self.engine;
        let depth = self.depth + 1;
        let duplicate_hops = match choice {
            LinkChoice::All => 0,
            LinkChoice::NewTargets { duplicate_hops, .. } => *duplicate_hops,
        };
        let mut entries = Vec::new();
        let mut out_of_scope_targets = Vec::new();
        for (target, kind) in self.link_targets(page, choice) {
            match engine.scope_check(&target, depth) {
                ScopeDecision::InScope => {
                    let mut entry = FrontierEntry::link(target, depth, self.url.as_str());
                    entry.duplicate_hops = duplicate_hops;
                    entry.kind = kind;
                    entries.push(entry);
                    // Bounded batches: one transaction (and its memory) per batch, not per page.
                    if entries.len() >= OFFER_BATCH {
                        engine.frontier.offer_all(std::mem::take(&mut entries))?;
                    }
                }
                ScopeDecision::OutOfScope(OutOfScopeReason::TooDeep { .. }) => {}
                // A script's URLs out of scope (libraries on CDNs, other sites' APIs) are
                // not worth a line each.
                ScopeDecision::OutOfScope(_) if kind != EntryKind::Link => {}
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
        let out_of_scope = out_of_scope_targets
            .into_iter()
            .zip(new)
            .filter(|(_, new)| *new)
            .map(|((target, reason), _)| {
                let mut line = LogLine::new(
                    target.as_str(),
                    Decision::OutOfScope,
                    depth,
                    Some(self.url.as_str().to_string()),
                );
                line.note = Some(reason);
                line
            })
            .collect();
        Ok((out_of_scope, self.links_capped_note(page)))
    }

    /// The note for a page whose followable links are more than `crawl.max_links_per_page`.
    fn links_capped_note(&self, page: &PreparedPage) -> Option<String> {
        let max_links = self.engine.config.crawl.max_links_per_page;
        // The extraction kept at most `max_links` of them and counted the rest.
        let total = page
            .extracted
            .links
            .iter()
            .filter(|link| !link.nofollow)
            .count()
            + page.extracted.links_left_out as usize;
        (total > max_links).then(|| {
            format!(
                "links capped: took the first {max_links} of {total} (crawl.max_links_per_page)"
            )
        })
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

/// Logs a page's line, then the lines of its links seen for the first time.
fn log_with_links(engine: &Engine, line: LogLine, link_lines: Vec<LogLine>) -> Handled {
    engine.log_line(line)?;
    for link_line in link_lines {
        engine.log_line(link_line)?;
    }
    Ok((HostOutcome::Done, None))
}

fn canonical_elsewhere(fetched: &Fetched<'_>, page: &PreparedPage) -> Option<CanonicalUrl> {
    let href = page.extracted.canonical.as_deref()?;
    let engine = fetched.engine;
    let canonical = CanonicalUrl::parse(href, Some(fetched.url.url()), &engine.rules).ok()?;
    (canonical != fetched.url && engine.scope_check(&canonical, fetched.depth).is_in_scope())
        .then_some(canonical)
}

/// An HTML page's links, for the decision's line.
struct PageLinks<'p> {
    page: &'p PreparedPage,
    robots: RobotsMeta,
}

/// Logs the index's decision (and archives what it says to archive), then offers the page's
/// links: all of a new page's, and of a duplicate's those the duplicate-links rule follows.
fn record_decision(
    fetched: &Fetched<'_>,
    decision: DedupDecision,
    links: Option<PageLinks<'_>>,
) -> Handled {
    let engine = fetched.engine;
    let page = links.as_ref().map(|l| l.page);
    let decision = indexed_before_logged(decision, fetched.url.as_str());
    let mut line = decision_line(fetched, &decision, page)?;
    line.reason = Some(decision.reason().clone());
    learn_url_rules(fetched, &decision, &mut line)?;
    let choice = match (&decision, &links) {
        (_, None) => None,
        (DedupDecision::New { .. }, Some(_)) => Some(LinkChoice::All),
        (duplicate, Some(links)) => Some(crate::duplicate_links::new_targets(
            fetched, duplicate, links.page,
        )?),
    };
    let mut link_lines = Vec::new();
    if let (Some(choice), Some(links)) = (choice, &links) {
        let targets_followed = match &choice {
            LinkChoice::All => None,
            LinkChoice::NewTargets { targets, .. } => Some(targets.len() as u32),
        };
        if links.robots.nofollow {
            if targets_followed != Some(0) {
                Fetched::add_note(&mut line, "nofollow");
            }
        } else {
            line.links_followed = targets_followed.filter(|&followed| followed > 0);
            let (lines, capped) = engine.stage.stage_cpu().time(Stage::Frontier, || {
                fetched.enqueue_links(links.page, &choice)
            })?;
            link_lines = lines;
            if let Some(capped) = capped {
                Fetched::add_note(&mut line, &capped);
            }
        }
    }
    log_with_links(engine, line, link_lines)
}

/// Recrawl: a non-HTML payload fetched again is a new one (an equal one was `unchanged`),
/// which replaces the URL's last version.
pub(crate) fn retire_changed_payload(fetched: &Fetched<'_>) -> Result<(), CrawlError> {
    if let Some(previous) = &fetched.previous {
        fetched.visit.borrow_mut().changed = true;
        crate::revisit::retire_previous(fetched.engine, fetched.url.as_str(), previous)?;
    }
    Ok(())
}

/// Logs a non-HTML payload's decision (and writes its records) with `note` on its line.
pub(crate) fn record_payload_decision(
    fetched: &Fetched<'_>,
    decision: DedupDecision,
    note: &str,
) -> Handled {
    let decision = indexed_before_logged(decision, fetched.url.as_str());
    let mut line = decision_line(fetched, &decision, None)?;
    line.reason = Some(decision.reason().clone());
    Fetched::add_note(&mut line, note);
    log_with_links(fetched.engine, line, Vec::new())
}

/// The URL rules learn from the decision (a page archived as new, or an exact or near
/// duplicate of one);
/// a page fetched to verify a rule says so on its line.
fn learn_url_rules(
    fetched: &Fetched<'_>,
    decision: &DedupDecision,
    line: &mut LogLine,
) -> Result<(), CrawlError> {
    let engine = fetched.engine;
    let Some(book) = &engine.url_rules else {
        return Ok(());
    };
    if let Some(rule) = book.verifying(fetched.url.as_str()) {
        line.rule = Some(rule);
        Fetched::add_note(line, "fetched to verify its URL rule");
    }
    match decision {
        DedupDecision::New { .. } if line.decision == Decision::Archived => {
            engine.learn_url_rules(&fetched.url, None)
        }
        // Part of a larger page is not the same content: it teaches no rule.
        DedupDecision::New { .. } | DedupDecision::Contained { .. } => Ok(()),
        DedupDecision::ExactDuplicate { of, .. } | DedupDecision::NearDuplicate { of, .. } => {
            engine.learn_url_rules(&fetched.url, Some(&of.name))
        }
    }
}

/// A page the index names as the exact duplicate of itself was recorded by a run that died
/// before it logged the page (a resumed crawl): it is the new page it was then, its reason
/// `new`, recorded.
fn indexed_before_logged(decision: DedupDecision, url: &str) -> DedupDecision {
    match decision {
        DedupDecision::ExactDuplicate { of, .. } if of.name == url => DedupDecision::New {
            id: Some(of.id),
            contains: Vec::new(),
            reason: Reason {
                recorded: true,
                page_record: Some(of.id),
                ..Reason::of(Mechanism::New)
            },
        },
        other => other,
    }
}

/// The crawl-log line of a decision, and the WARC records it asks for: a response for a new
/// page, a revisit for a same-payload duplicate, what `archive.near_duplicates` says for the
/// others.
fn decision_line(
    fetched: &Fetched<'_>,
    decision: &DedupDecision,
    page: Option<&PreparedPage>,
) -> Result<LogLine, CrawlError> {
    let near_policy = fetched.engine.config.archive.near_duplicates;
    let (kind, method) = match decision {
        DedupDecision::New { contains, id, .. } => {
            fetched.visit.borrow_mut().document = *id;
            fetched.archive_capture()?;
            let mut line = fetched.line(Decision::Archived);
            line.contains = contains
                .iter()
                .map(|(inner, _)| inner.name.clone())
                .collect();
            return Ok(line);
        }
        DedupDecision::ExactDuplicate {
            of,
            basis: ExactBasis::Payload,
            ..
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
                        page,
                    )?;
                } else if fetched.rendered.borrow().is_some() {
                    Fetched::add_note(
                        &mut line,
                        "the same rendered DOM as the original's: no revisit record",
                    );
                } else {
                    Fetched::add_note(&mut line, "original not archived: no revisit record");
                }
            }
            return Ok(line);
        }
        DedupDecision::ExactDuplicate { .. } => {
            (Decision::ExactDuplicate, "normalized-text-digest")
        }
        DedupDecision::NearDuplicate { .. } => (Decision::NearDuplicate, "minhash-lsh"),
        DedupDecision::Contained { .. } => (Decision::Contained, "containment"),
    };
    let mut line = fetched.line(kind);
    if let Some((of, similarity)) = decision.original() {
        line.duplicate_of = Some(of.name.clone());
        line.similarity = Some(similarity);
        near_duplicate_policy(fetched, near_policy, &of.name, similarity, method, page)?;
    }
    if matches!(decision, DedupDecision::ExactDuplicate { .. }) {
        Fetched::add_note(&mut line, "same normalized text");
    }
    Ok(line)
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
