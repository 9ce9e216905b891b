//! `dedupcrawl dedup --warc FILE... --index DIR [--write DIR]`: dedup the responses stored in
//! existing WARC archives (wget, Heritrix, warcio, Browsertrix, dedupcrawl) through the same
//! index the crawler uses.
//!
//! Every `response` record with status 200 is checked: HTML by its text (chunked transfer coding
//! and gzip/deflate/br content coding undone, charset from header, BOM or `<meta>`), anything
//! else by its payload digest. Damaged records are reported with file and offset and skipped;
//! reading goes on at the next good record.

use std::io::Write;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use anyhow::Context;
use dedupcrawl_archive::{RecordType, WarcReader, WarcRecord, WarcWriter, WarcWriterConfig};

use crate::dedup_common::{DedupArgs, Summary, contained_pages, open_stage, output, progress_bar};

/// Decoded bodies larger than this are cut (as the crawler's default body limit).
const MAX_DECODED_BODY: u64 = 32 * 1024 * 1024;

#[derive(serde::Serialize)]
struct WarcDecisionLine<'a> {
    url: &'a str,
    warc: String,
    offset: u64,
    decision: &'static str,
    duplicate_of: Option<&'a str>,
    similarity: Option<f64>,
    /// Earlier pages this (new) page contains, as in the crawl log; only when not empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    contains: Vec<&'a str>,
    /// The mechanism that decided and its figures, as in the crawl log.
    reason: &'a dedupcrawl_index::Reason,
}

/// A stored response made ready for the dedup stage.
pub struct StoredPage {
    pub url: String,
    pub host: String,
    /// The payload as the server meant it (de-chunked, content coding removed).
    pub body: Vec<u8>,
    /// Decoded text when the response is HTML.
    pub html: Option<String>,
}

/// Turns a `response` record with status 200 into a [`StoredPage`]; `None` for other records.
pub fn stored_page(record: &WarcRecord) -> anyhow::Result<Option<StoredPage>> {
    if record.record_type() != RecordType::Response || !record.is_http() {
        return Ok(None);
    }
    let Some(url) = record.target_uri() else {
        return Ok(None);
    };
    let response = record
        .http_response()
        .with_context(|| format!("unparsable HTTP response for {url}"))?;
    if response.status != 200 {
        return Ok(None);
    }
    let payload = response
        .dechunked_payload()
        .with_context(|| format!("bad chunked body for {url}"))?;
    let (body, _cut) = dedupcrawl_fetch::decode_content_encoding(
        &payload,
        response.header("content-encoding"),
        MAX_DECODED_BODY,
    )
    .with_context(|| format!("bad content coding for {url}"))?;
    let content_type = response.header("content-type");
    let is_html = content_type.is_some_and(|value| {
        let value = String::from_utf8_lossy(value).to_ascii_lowercase();
        value.contains("text/html") || value.contains("application/xhtml")
    });
    let html = is_html.then(|| dedupcrawl_fetch::decode_bytes(&body, content_type, true).text);
    let host = url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    Ok(Some(StoredPage {
        url: url.to_string(),
        host,
        body,
        html,
    }))
}

/// The records of a WARC file; a damaged one is reported on stderr (file, offset, what was
/// wrong) and comes as `None`, and reading goes on at the next good record.
pub fn records_reporting_damage(
    file: &Path,
) -> anyhow::Result<impl Iterator<Item = Option<WarcRecord>>> {
    let reader = WarcReader::open(file)
        .with_context(|| format!("cannot open the WARC file {}", file.display()))?;
    Ok(reader.map(|record| {
        record
            .map_err(|error| eprintln!("dedupcrawl: warning: {error} (record skipped, reading on)"))
            .ok()
    }))
}

/// A response that could not be decoded (already reported on stderr).
pub struct Undecodable;

/// [`stored_page`], reporting a response that cannot be decoded on stderr.
pub fn stored_page_reporting(record: &WarcRecord) -> Result<Option<StoredPage>, Undecodable> {
    stored_page(record).map_err(|error| {
        eprintln!(
            "dedupcrawl: warning: {}, offset {}: {error:#} (record skipped)",
            record.file.display(),
            record.offset
        );
        Undecodable
    })
}

/// The WARC files `--warc` names: a file as it is; a directory stands for its WARC files (name
/// order), or for a crawl's when it is an OUT directory (`OUT/warc/`), so the OUTs of a
/// crawl's workers can be given as they are.
fn warc_files_named(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let dir = if path.join("warc").is_dir() {
            path.join("warc")
        } else {
            path.clone()
        };
        let found = dedupcrawl_crawler::warc_files(&dir)?;
        anyhow::ensure!(
            !found.is_empty(),
            "--warc {}: no .warc or .warc.gz file in {}; name WARC files, directories of them \
             or crawl OUT directories",
            path.display(),
            dir.display()
        );
        files.extend(found);
    }
    Ok(files)
}

pub fn run(args: DedupArgs) -> anyhow::Result<()> {
    let warc_files = warc_files_named(&args.warc)?;
    let stage = open_stage(&args)?;
    let mut out = output(args.out.as_deref())?;
    let mut summary = Summary::default();
    let progress = progress_bar(warc_files.len() as u64, args.quiet, "WARC files");
    // Record ids of duplicate responses, and of the records they name as concurrent: left out
    // of the deduplicated copy.
    let mut dropped: HashSet<String> = HashSet::new();
    for file in &warc_files {
        for record in records_reporting_damage(file)? {
            let Some(record) = record else {
                summary.unreadable += 1;
                continue;
            };
            let page = match stored_page_reporting(&record) {
                Ok(Some(page)) => page,
                Ok(None) => continue,
                Err(Undecodable) => {
                    summary.unreadable += 1;
                    continue;
                }
            };
            let verdict = match &page.html {
                Some(html) => stage.check_html(&page.url, &page.host, &page.body, html),
                None => stage.check_payload(
                    &page.url,
                    &page.host,
                    dedupcrawl_sketch::PayloadDigest::of(&page.body),
                ),
            }
            .with_context(|| format!("index update failed at {}", page.url))?;
            if !verdict.decision.is_new() {
                dropped.extend(record.record_id().map(str::to_string));
                dropped.extend(
                    record
                        .headers
                        .get_all("WARC-Concurrent-To")
                        .map(str::to_string),
                );
            }
            let (decision, duplicate_of, similarity) = summary.record(&verdict.decision);
            serde_json::to_writer(
                &mut out,
                &WarcDecisionLine {
                    url: &page.url,
                    warc: file.display().to_string(),
                    offset: record.offset,
                    decision,
                    duplicate_of,
                    similarity,
                    contains: contained_pages(&verdict.decision),
                    reason: verdict.decision.reason(),
                },
            )?;
            out.write_all(b"\n")?;
        }
        progress.inc(1);
    }
    out.flush()?;
    stage.index().flush().context("cannot flush the index")?;
    progress.finish_and_clear();
    summary.print();
    if let Some(dir) = &args.write {
        write_deduplicated_copy(&warc_files, dir, &dropped)?;
    }
    Ok(())
}

/// Copies every record but duplicates (and their request/metadata companions), revisits and
/// the source files' warcinfo records (the copy has its own) into new WARC files under `dir`,
/// and indexes them in `dir/index.cdxj`.
fn write_deduplicated_copy(
    sources: &[PathBuf],
    dir: &Path,
    dropped: &HashSet<String>,
) -> anyhow::Result<()> {
    let mut config = WarcWriterConfig::new(dir, "dedupcrawl-dedup");
    config.warcinfo_fields.push((
        "description".to_string(),
        format!(
            "deduplicated copy of {} WARC file(s) by dedupcrawl dedup --warc",
            sources.len()
        ),
    ));
    let mut writer = WarcWriter::open(config)
        .with_context(|| format!("cannot write WARC files into {}", dir.display()))?;
    let mut copied = 0u64;
    for file in sources {
        let reader = WarcReader::open(file)
            .with_context(|| format!("cannot open the WARC file {}", file.display()))?;
        for record in reader.flatten() {
            let kind = record.record_type();
            let is_dropped = record.record_id().is_some_and(|id| dropped.contains(id))
                || record
                    .headers
                    .get_all("WARC-Concurrent-To")
                    .any(|id| dropped.contains(id));
            if is_dropped || matches!(kind, RecordType::Revisit | RecordType::Warcinfo) {
                continue;
            }
            writer
                .write_verbatim(&record)
                .with_context(|| format!("cannot write into {}", dir.display()))?;
            copied += 1;
        }
    }
    let files = writer
        .close()
        .context("cannot close the deduplicated WARC")?;
    let report = dedupcrawl_archive::build_cdxj(&files, dir.join("index.cdxj"))
        .context("cannot index the deduplicated WARC")?;
    eprintln!(
        "wrote {copied} records to {} file(s) in {} ({} CDXJ lines)",
        files.len(),
        dir.display(),
        report.lines
    );
    Ok(())
}
