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
//! they lead to follows no duplicate's links. So a
//! calendar's day page, whose only new targets are the day before and after, leads one day
//! further, and that day's page follows none.
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
use crate::page::{Fetched, LinkChoice};

/// The links of `duplicate` the rule follows (`None`: none).
pub(crate) fn new_targets(
    fetched: &Fetched<'_>,
    duplicate: &DedupDecision,
    page: &PreparedPage,
) -> Result<Option<LinkChoice>, CrawlError> {
    let settings = &fetched.engine.config.crawl;
    if settings.follows_every_duplicate_link() {
        return Ok(Some(LinkChoice::All));
    }
    if fetched.duplicate_hops >= settings.duplicate_links_max_hops {
        return Ok(None);
    }
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
    // A few stray targets: one last step, so a page only a copy links to is still fetched,
    // while a calendar stops a day further.
    let duplicate_hops = if listing {
        fetched.duplicate_hops + 1
    } else {
        settings.duplicate_links_max_hops
    };
    Ok(Some(LinkChoice::NewTargets {
        targets,
        duplicate_hops,
    }))
}
