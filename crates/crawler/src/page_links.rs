//! A page's links offered to the frontier: the distinct, chosen, canonical targets, their
//! scope, and the note of a page whose links were capped.

use dedupcrawl_frontier::{
    CanonicalUrl, EntryKind, FrontierEntry, OutOfScopeReason, ScopeDecision,
};
use dedupcrawl_textprep::{LinkKind, PreparedPage};

use crate::crawl_log::{Decision, LogLine};
use crate::error::CrawlError;
use crate::fetched::Fetched;

/// Links offered to the frontier in one transaction: bounds the memory of enqueueing a page
/// with very many links.
const OFFER_BATCH: usize = 1000;

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

impl Fetched<'_> {
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
                let kind = entry_kind(link.kind, script_links)?;
                // A duplicate's own script files go whatever it follows; with no new targets
                // (most duplicates) no other link's key is worth computing.
                if let Some(targets) = chosen
                    && kind != EntryKind::Script
                    && (targets.is_empty()
                        || !dedupcrawl_pipeline::DedupStage::link_target_key(&page_url, &link.href)
                            .is_some_and(|key| targets.contains(&key)))
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
    pub(crate) fn enqueue_links(
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

/// The frontier kind a link of a page is offered as; `None`: not followed (a script link
/// with `crawl.script_links` off).
fn entry_kind(kind: LinkKind, script_links: bool) -> Option<EntryKind> {
    match kind {
        LinkKind::Anchor | LinkKind::Frame | LinkKind::MetaRefresh => Some(EntryKind::Link),
        LinkKind::Script => script_links.then_some(EntryKind::ScriptLink),
        LinkKind::ScriptFile => script_links.then_some(EntryKind::Script),
    }
}
