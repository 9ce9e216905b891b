//! `dedupcrawl dedup --warc FILE... --index DIR [--write DIR]`: dedup the responses stored in
//! existing WARC archives (wget, Heritrix, warcio, Browsertrix, dedupcrawl) through the same
//! index the crawler uses.
//!
//! Every `response` record with status 200 is checked: HTML by its text (chunked transfer coding
//! and gzip/deflate/br content coding undone, charset from header, BOM or `<meta>`), anything
//! else by its payload digest. Damaged records are reported with file and offset and skipped;
//! reading goes on at the next good record.

use std::io::Write;

use anyhow::Context;
use dedupcrawl_archive::{RecordType, WarcReader, WarcRecord};

use crate::dedup::{DedupArgs, Summary, open_stage, output, progress_bar};

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

pub fn run(args: DedupArgs) -> anyhow::Result<()> {
    let stage = open_stage(&args.index, args.threshold, args.view)?;
    let mut out = output(args.out.as_deref())?;
    let mut summary = Summary::default();
    let progress = progress_bar(args.warc.len() as u64, args.quiet, "WARC files");
    for file in &args.warc {
        let reader = WarcReader::open(file)
            .with_context(|| format!("cannot open the WARC file {}", file.display()))?;
        for record in reader {
            let record = match record {
                Ok(record) => record,
                Err(error) => {
                    eprintln!("dedupcrawl: warning: {error} (record skipped, reading on)");
                    summary.unreadable += 1;
                    continue;
                }
            };
            let page = match stored_page(&record) {
                Ok(Some(page)) => page,
                Ok(None) => continue,
                Err(error) => {
                    eprintln!(
                        "dedupcrawl: warning: {}, offset {}: {error:#} (record skipped)",
                        file.display(),
                        record.offset
                    );
                    summary.unreadable += 1;
                    continue;
                }
            };
            let verdict = match &page.html {
                Some(html) => stage.check_html(&page.url, &page.host, &page.body, html),
                None => stage.check_payload(&page.url, &page.host, &page.body),
            }
            .with_context(|| format!("index update failed at {}", page.url))?;
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
    Ok(())
}
