//! Pages whose record the WARC files no longer hold (a file cut short, damaged or deleted):
//! the state forgets them, the dedup index drops their documents, and they go back to the
//! frontier to be fetched and archived again.

use std::collections::HashMap;

use dedupcrawl_frontier::{
    CanonicalUrl, CanonicalizationRules, EntryKind, FrontierEntry, FrontierStore,
};
use dedupcrawl_pipeline::DedupStage;

use crate::archive_integrity::ArchiveScan;
use crate::crawl_log::LogLine;
use crate::crawl_state::CrawlStateStore;
use crate::error::CrawlError;
use crate::log_checkpoint::LogCounts;
use crate::report::CrawlReport;

/// A page the state or the crawl log says is archived whose `response` record is not in
/// the WARC files.
#[derive(Debug, Clone)]
pub(crate) struct LostPage {
    pub(crate) url: String,
    /// Its `archived` line, when the crawl log has one.
    pub(crate) line: Option<LogLine>,
}

/// The pages archived per the state (its `response` record ids) or per the crawl log
/// (`archived_lines`) whose record no good WARC record has.
fn find_lost_pages(
    crawl_state: &dyn CrawlStateStore,
    scan: &ArchiveScan,
    mut archived_lines: HashMap<String, LogLine>,
) -> Result<Vec<LostPage>, CrawlError> {
    let responses = scan.responses();
    let mut candidates: Vec<String> = archived_lines.keys().cloned().collect();
    if let Some(own) = crawl_state.own_archived_urls()? {
        candidates.extend(own);
    }
    candidates.sort();
    candidates.dedup();
    let mut lost = Vec::new();
    for url in candidates {
        let present = responses.get(&url);
        let is_lost = match crawl_state.archived_record(&url)? {
            Some(record) if record.record_type == "response" => present
                .is_none_or(|ids| record.record_id.is_some() && !ids.contains(&record.record_id)),
            // A duplicate's revisit or metadata record: the page itself is another's.
            Some(_) => false,
            None => archived_lines.contains_key(&url) && present.is_none(),
        };
        if is_lost {
            let line = archived_lines.remove(&url);
            lost.push(LostPage { url, line });
        }
    }
    Ok(lost)
}

/// Finds the lost pages (against the crawl log as it is now) and makes them pages to fetch
/// again; their number goes into the report.
pub(crate) fn requeue_lost_pages(
    paths: &crate::output_paths::OutputPaths,
    scan: &ArchiveScan,
    parts: LostPageParts<'_>,
) -> Result<(), CrawlError> {
    let lost = find_lost_pages(
        parts.crawl_state,
        scan,
        crate::archive_integrity::archived_lines(&paths.crawl_log),
    )?;
    parts.report.resume_scan.pages_lost = lost.len() as u64;
    refetch_lost_pages(&lost, parts)
}

/// What the engine's parts that [`refetch_lost_pages`] changes.
pub(crate) struct LostPageParts<'a> {
    pub(crate) crawl_state: &'a dyn CrawlStateStore,
    pub(crate) frontier: &'a dyn FrontierStore,
    pub(crate) stage: &'a DedupStage,
    pub(crate) counts: &'a mut LogCounts,
    pub(crate) report: &'a mut CrawlReport,
    pub(crate) round: u32,
}

/// Makes each lost page one to fetch again: the state forgets it (archived record, revisit
/// state, crawl-log mark), the index drops its document, its `archived` line of this round
/// no longer counts in the report or the page budgets, and the frontier has it again.
fn refetch_lost_pages(lost: &[LostPage], parts: LostPageParts<'_>) -> Result<(), CrawlError> {
    let mut entries = Vec::with_capacity(lost.len());
    for page in lost {
        if let Some(document) = parts
            .crawl_state
            .revisit_state(&page.url)?
            .and_then(|state| state.document)
        {
            parts.stage.index().remove(document)?;
        }
        parts
            .crawl_state
            .forget_page(&page.url, &crate::revisit::log_key(parts.round, &page.url))?;
        if let Some(line) = page.line.as_ref().filter(|l| l.round == parts.round) {
            parts.counts.uncount_archived(parts.report, line);
        }
        let Ok(url) = CanonicalUrl::parse(&page.url, None, &CanonicalizationRules::none()) else {
            continue;
        };
        let line = page.line.as_ref();
        entries.push(FrontierEntry {
            url,
            depth: line.map_or(0, |l| l.depth),
            via: line.and_then(|l| l.via.clone()),
            kind: if line.and_then(|l| l.via.as_ref()).is_some() {
                EntryKind::Link
            } else {
                EntryKind::Seed
            },
            redirect_hops: 0,
            duplicate_hops: 0,
        });
    }
    if !lost.is_empty() {
        tracing::warn!(
            pages = lost.len(),
            "archived pages whose WARC record is lost (cut off, damaged or its file deleted) are \
             fetched again"
        );
    }
    parts.frontier.offer_again(entries)?;
    parts.frontier.flush()?;
    parts.crawl_state.flush()?;
    Ok(())
}

/// Moves the damaged bytes out of the WARC files and makes `index.cdxj` match what they
/// hold, saying what it did in the log; the figures go into the run's report.
pub(crate) fn mend_archive(
    paths: &crate::output_paths::OutputPaths,
) -> Result<(ArchiveScan, crate::report::ResumeScan), CrawlError> {
    let (scan, mending) = crate::archive_integrity::mend_warc_files(paths)?;
    for region in &mending.moved_out {
        tracing::warn!(
            file = %region.file,
            offset = region.offset,
            bytes = region.length,
            reason = %region.reason,
            "damaged WARC bytes moved to damaged/ (the pages whose records they held are fetched again)"
        );
    }
    for region in &mending.left {
        tracing::error!(
            file = %region.file,
            offset = region.offset,
            bytes = region.length,
            reason = %region.reason,
            "damaged WARC bytes left in place: the file has no record boundary to cut at"
        );
    }
    let (dropped, added) = crate::archive_integrity::rewrite_cdxj(paths, &scan)?;
    if dropped + added > 0 {
        tracing::warn!(
            dropped,
            added,
            "index.cdxj rewritten to match the WARC files (lines pointing at no record dropped, \
             records without a line added)"
        );
    }
    let figures = crate::report::ResumeScan {
        damaged_bytes_moved: mending.moved_out.iter().map(|r| r.length).sum(),
        cdxj_lines_dropped: dropped as u64,
        cdxj_lines_added: added as u64,
        ..Default::default()
    };
    Ok((scan, figures))
}

/// A state without a round beside a crawl log with lines was lost (deleted, truncated,
/// replaced): resuming on it would fetch nothing and report the old counts, so it stops,
/// pointing at `dedupcrawl repair`.
pub(crate) fn refuse_lost_state(
    crawl_state: &dyn CrawlStateStore,
    paths: &crate::output_paths::OutputPaths,
) -> Result<(), CrawlError> {
    if crawl_state.round()?.is_some() {
        return Ok(());
    }
    let mut lines = 0;
    crate::archive_integrity::each_log_line(&paths.crawl_log, |_| lines += 1);
    if lines == 0 {
        return Ok(());
    }
    Err(CrawlError::StateLost {
        state: paths.state.display().to_string(),
        log: paths.crawl_log.clone(),
        lines,
        out: paths.root.clone(),
    })
}

/// An error opening the embedded state, as one that points at `dedupcrawl repair` when the
/// files are damaged (a state in use by another process is not damaged).
pub(crate) fn state_damaged(
    paths: &crate::output_paths::OutputPaths,
    error: CrawlError,
) -> CrawlError {
    let message = error.to_string();
    if message.contains("in use") || message.contains("lock") {
        return error;
    }
    CrawlError::StateDamaged {
        state: paths.state.clone(),
        message,
        out: paths.root.clone(),
    }
}
