//! The texts the reports show (`clusters.html`, the `changes` HTML report): the main content
//! (one block per line) of archived pages, and the text of near-duplicate metadata records.

use std::path::Path;

use dedupcrawl_archive::RecordType;
use dedupcrawl_textprep::{TextPrep, TextPrepConfig, View};

use crate::crawl_outputs::crawl_warc_files;
use crate::dedup_warc::{records_reporting_damage, stored_page};

/// Calls `found(url, payload digest, text)` for each page record of the crawl in `outs` (its
/// output directories one after another, each in archive order) whose URL `wanted` accepts:
/// responses with an HTML body, and metadata records that carry a `text`.
pub fn each_page_text<'a>(
    outs: impl IntoIterator<Item = &'a Path>,
    wanted: impl Fn(&str) -> bool,
    mut found: impl FnMut(&str, Option<&str>, String),
) -> anyhow::Result<()> {
    let prep = TextPrep::new(TextPrepConfig::default());
    let mut files = Vec::new();
    for out in outs {
        files.extend(crawl_warc_files(out)?);
    }
    for file in files {
        for record in records_reporting_damage(&file)?.flatten() {
            let Some(url) = record.target_uri() else {
                continue;
            };
            if !wanted(url) {
                continue;
            }
            let digest = record.headers.get("WARC-Payload-Digest");
            match record.record_type() {
                RecordType::Response => {
                    if let Ok(Some(page)) = stored_page(&record)
                        && let Some(html) = &page.html
                    {
                        let prepared = prep.prepare_alone(html, Some(url));
                        found(
                            url,
                            digest,
                            prep.view_text(&prepared, View::MainContent, &|_| false),
                        );
                    }
                }
                RecordType::Metadata => {
                    let value: serde_json::Value =
                        serde_json::from_slice(&record.block).unwrap_or_default();
                    if let Some(text) = value.get("text").and_then(|t| t.as_str()) {
                        found(url, digest, text.to_string());
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}
