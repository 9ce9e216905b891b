//! The duplicate-links rule: which links of a duplicate the crawl follows.
//!
//! A duplicate's text is its original's, and so, mostly, are its links: those were offered
//! when the original was archived, and following a copy's links is how a crawler walks into
//! mirrors, session-id loops and calendars. But a page can have its original's words and list
//! other pages (page 2 of a listing whose items are links under one heading). So a duplicate's
//! content links (outside its chrome) whose targets its original does not link to — targets
//! compared by path and query, so a mirror linking to its own copies of the same paths has
//! none — are followed when they are at least [`CrawlSettings::duplicate_links_min_share`] of
//! its content link targets and at least [`CrawlSettings::duplicate_links_min_count`] of
//! them. A chain of such pages stops: each link followed this way carries one more hop, and a
//! duplicate reached by [`CrawlSettings::duplicate_links_max_hops`] of them follows none.
//! Fewer new targets (a link to a page only the copy has) are followed as a last step: what
//! they lead to follows no stray targets of its own, only a listing's, as the last hop of its
//! chain (a listing only a copy links to, such as another edition's index, is still walked).
//! So a calendar's day page, whose only new targets are the day before and after, leads one
//! day further, and that day's page follows none.
//! A duplicate's own script files (`<script src>`, with `crawl.script_links` on) are fetched
//! whatever it follows: they are at its own paths, and a copy's script can hold what its
//! original's does not (another module's item list).
//! With both thresholds at 0 every link of every duplicate is followed: the reach of a crawl
//! without dedup, for comparing the two (`benches/crawl/run` with `REACH=1`).
//!
//! [`CrawlSettings::duplicate_links_min_share`]: crate::config::CrawlSettings::duplicate_links_min_share
//! [`CrawlSettings::duplicate_links_min_count`]: crate::config::CrawlSettings::duplicate_links_min_count
//! [`CrawlSettings::duplicate_links_max_hops`]: crate::config::CrawlSettings::duplicate_links_max_hops

use dedupcrawl_index::DedupDecision;
use dedupcrawl_textprep::PreparedPage;
use rustc_hash::FxHashSet;

use crate::error::CrawlError;
use crate::fetched::Fetched;
use crate::page_links::LinkChoice;

/// The links of `duplicate` the rule follows. Its own script files are always among them
/// (resources the page loads, at its own paths; one already fetched costs nothing), offered as
/// a last step when no other target is.
pub(crate) fn new_targets(
    fetched: &Fetched<'_>,
    duplicate: &DedupDecision,
    page: &PreparedPage,
) -> Result<LinkChoice, CrawlError> {
    let settings = &fetched.engine.config.crawl;
    if settings.follows_every_duplicate_link() {
        return Ok(LinkChoice::All);
    }
    let max_hops = settings.duplicate_links_max_hops;
    Ok(
        listing_or_stray_targets(fetched, duplicate, page, max_hops)?.unwrap_or_else(|| {
            LinkChoice::NewTargets {
                targets: FxHashSet::default(),
                duplicate_hops: last_step_hops(max_hops),
            }
        }),
    )
}

/// The targets `duplicate` has and its original lacks, when the rule follows them (`None`:
/// none), with the hop count they are offered with.
fn listing_or_stray_targets(
    fetched: &Fetched<'_>,
    duplicate: &DedupDecision,
    page: &PreparedPage,
    max_hops: u8,
) -> Result<Option<LinkChoice>, CrawlError> {
    let settings = &fetched.engine.config.crawl;
    if fetched.duplicate_hops == max_hops {
        return Ok(None);
    }
    let after_last_step = fetched.duplicate_hops > max_hops;
    let Some((original, _)) = duplicate.original() else {
        return Ok(None);
    };
    let mine =
        fetched
            .engine
            .stage
            .content_link_targets(fetched.url.as_str(), fetched.url.host(), page);
    if mine.is_empty() {
        return Ok(None);
    }
    let theirs: FxHashSet<u32> = match fetched.engine.stage.index().document(original.id)? {
        Some(record) => record.link_targets.into_iter().collect(),
        None => FxHashSet::default(),
    };
    let targets: FxHashSet<u32> = mine
        .iter()
        .copied()
        .filter(|target| !theirs.contains(target))
        .collect();
    if targets.is_empty() {
        return Ok(None);
    }
    let share = targets.len() as f64 / mine.len() as f64;
    let listing = targets.len() >= settings.duplicate_links_min_count
        && share >= settings.duplicate_links_min_share;
    let duplicate_hops = match (after_last_step, listing) {
        // Reached by a last step: a listing's targets as the chain's last hop, nothing stray.
        (true, true) => max_hops,
        (true, false) => return Ok(None),
        (false, true) => fetched.duplicate_hops + 1,
        // A few stray targets: one last step, so a page only a copy links to is still fetched,
        // while a calendar stops a day further.
        (false, false) => last_step_hops(max_hops),
    };
    Ok(Some(LinkChoice::NewTargets {
        targets,
        duplicate_hops,
    }))
}

/// The hop count of a target followed as a last step: above `max_hops`, which no chain of
/// listings reaches (a duplicate at exactly `max_hops` follows none).
fn last_step_hops(max_hops: u8) -> u8 {
    max_hops.saturating_add(1)
}
