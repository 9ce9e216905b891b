//! Resume: the WARC files written before a crash are read back into the crawl state (and
//! into the dedup index where it lost an insert), from the last checkpoint on.

use std::path::Path;

use dedupcrawl_archive::{CdxjEntry, CdxjWriter, RecordType, WarcReader};
use dedupcrawl_frontier::{CanonicalUrl, CanonicalizationRules};
use dedupcrawl_pipeline::DedupStage;

use crate::crawl_state::{ArchiveCheckpoint, ArchivedRecord, CrawlStateStore};
use crate::error::CrawlError;
use crate::output_paths::warc_files;
use crate::report::ResumeScan;

/// Reads the WARC files already written (a resumed crawl) and records every captured URL, so
/// nothing is archived twice; also re-adds their CDXJ lines (the sort drops duplicates).
///
/// A `response` the state did not know (sled lost its last writes) may also have lost its dedup
/// index insert, which came first: it is checked into the index again from the stored payload,
/// so a near duplicate fetched later is still recognised.
///
/// Records past the checkpoint belong to `round`, the round being resumed: a round starts
/// only after the one before finished, and finishing checkpoints.
pub(crate) fn reconcile_archive(
    warc_dir: &Path,
    crawl_state: &dyn CrawlStateStore,
    cdxj: &mut CdxjWriter,
    stage: &DedupStage,
    round: u32,
) -> Result<ResumeScan, CrawlError> {
    let files = warc_files(warc_dir)?;
    let checkpoint: Option<ArchiveCheckpoint> = crawl_state.checkpoint()?;
    let mut stats = ResumeScan::default();
    for path in &files {
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // What the last checkpoint covers is known to the state already (file names sort in
        // writing order: time, then serial).
        let start = match &checkpoint {
            Some(c) if file_name < c.file => {
                stats.files_skipped += 1;
                continue;
            }
            Some(c) if file_name == c.file => {
                let length = std::fs::metadata(path)
                    .map_err(|e| CrawlError::io("read the size of", path, e))?
                    .len();
                if c.offset <= length { c.offset } else { 0 }
            }
            _ => 0,
        };
        stats.bytes_skipped += start;
        let reader = if start > 0 {
            WarcReader::open_at(path, start, Default::default())?
        } else {
            WarcReader::open(path)?
        };
        for record in reader {
            stats.records_read += 1;
            let record = match record {
                Ok(record) => record,
                Err(error) => {
                    tracing::warn!(%error, "damaged WARC record skipped during resume");
                    continue;
                }
            };
            let record_type = record.record_type();
            if !matches!(
                record_type,
                RecordType::Response | RecordType::Revisit | RecordType::Metadata
            ) {
                continue;
            }
            let Some(target) = record.target_uri() else {
                continue;
            };
            if let Some(entry) = CdxjEntry::from_record(&record, &file_name) {
                cdxj.append(&entry)?;
            }
            // A record of an earlier round is not this round's.
            let existing = crawl_state
                .archived_record(target)?
                .filter(|existing| existing.round >= round);
            if existing.is_none() && record_type == RecordType::Response {
                reindex_response(stage, target, &record)?;
            }
            // A response wins over a metadata record for the same URL.
            let keep_existing = existing.is_some() && record_type == RecordType::Metadata;
            if keep_existing {
                continue;
            }
            let info = ArchivedRecord {
                record_type: record_type.as_str().to_string(),
                record_id: record.record_id().map(str::to_string),
                date: record.date(),
                payload_digest: record
                    .headers
                    .get("WARC-Payload-Digest")
                    .map(str::to_string),
                round,
            };
            crawl_state.record_archived(target, &info)?;
        }
    }
    if !files.is_empty() {
        tracing::info!(
            files = files.len(),
            files_skipped = stats.files_skipped,
            bytes_skipped = stats.bytes_skipped,
            records_read = stats.records_read,
            records = crawl_state.archived_count(),
            "reconciled the WARC files with the crawl state (what the last checkpoint covers is skipped)"
        );
    }
    Ok(stats)
}

/// Checks an archived 2xx response into the dedup index again (see [`reconcile_archive`]).
fn reindex_response(
    stage: &DedupStage,
    target: &str,
    record: &dedupcrawl_archive::WarcRecord,
) -> Result<(), CrawlError> {
    let Ok(response) = record.http_response() else {
        return Ok(());
    };
    if !(200..300).contains(&response.status) {
        return Ok(());
    }
    let Ok(url) = CanonicalUrl::parse(target, None, &CanonicalizationRules::none()) else {
        return Ok(());
    };
    let content_type = response.header("content-type");
    let essence = content_type
        .map(|v| {
            String::from_utf8_lossy(v)
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .unwrap_or_default();
    let decision = if essence == "text/html" || essence == "application/xhtml+xml" {
        let text = dedupcrawl_fetch::decode_bytes(response.payload, content_type, true).text;
        stage
            .check_html(target, url.host(), response.payload, &text)?
            .decision
    } else {
        stage
            .check_payload(
                target,
                url.host(),
                dedupcrawl_sketch::PayloadDigest::of(response.payload),
            )?
            .decision
    };
    tracing::debug!(
        url = target,
        ?decision,
        "re-indexed an archived page on resume"
    );
    Ok(())
}
