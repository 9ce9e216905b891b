//! A page's dedup decision recorded: its crawl-log line (with the reason the decider produced),
//! what it archives, the URL rules it teaches, and the links it offers (all of a new page's,
//! of a duplicate's those the duplicate-links rule follows).

use dedupcrawl_frontier::HostOutcome;
use dedupcrawl_index::{DedupDecision, ExactBasis, Mechanism, Reason};
use dedupcrawl_stagecpu::Stage;
use dedupcrawl_textprep::{PreparedPage, RobotsMeta};

use crate::config::NearDuplicatePolicy;
use crate::context::Engine;
use crate::crawl_log::{Decision, LogLine};
use crate::error::CrawlError;
use crate::fetched::{Fetched, Handled};
use crate::page_links::LinkChoice;

/// An HTML page's links, for the decision's line.
pub(crate) struct PageLinks<'p> {
    pub(crate) page: &'p PreparedPage,
    pub(crate) robots: RobotsMeta,
}

/// Logs the index's decision (and archives what it says to archive), then offers the page's
/// links: all of a new page's, and of a duplicate's those the duplicate-links rule follows.
pub(crate) fn record_decision(
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

/// Logs a page's line, then the lines of its links seen for the first time.
pub(crate) fn log_with_links(engine: &Engine, line: LogLine, link_lines: Vec<LogLine>) -> Handled {
    engine.log_line(line)?;
    for link_line in link_lines {
        engine.log_line(link_line)?;
    }
    Ok((HostOutcome::Done, None))
}
