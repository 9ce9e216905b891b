//! `dedupcrawl dedup PATH... --index DIR`: offline dedup of HTML files on disk.
//!
//! Files are read in sorted order per PATH (deterministic decisions). Extraction and language
//! detection, the expensive part, run in parallel in chunks; the decision (which depends on
//! the host's learnt template and on every earlier document) runs in order.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use rayon::prelude::*;

use crate::dedup_common::{DedupArgs, Summary, contained_pages, open_stage, output, progress_bar};

#[derive(serde::Serialize)]
struct DecisionLine<'a> {
    path: &'a str,
    decision: &'static str,
    duplicate_of: Option<&'a str>,
    similarity: Option<f64>,
    /// Earlier pages this (new) page contains, as in the crawl log; only when not empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    contains: Vec<&'a str>,
    /// The mechanism that decided and its figures, as in the crawl log.
    reason: &'a dedupcrawl_index::Reason,
}

fn html_files(root: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if root.is_file() {
        return Ok(vec![root.to_path_buf()]);
    }
    if !root.is_dir() {
        anyhow::bail!(
            "{} is neither a file nor a directory: check the path",
            root.display()
        );
    }
    dedupcrawl_pipeline::html_files(root).with_context(|| format!("cannot walk {}", root.display()))
}

pub fn run(args: DedupArgs) -> anyhow::Result<()> {
    if !args.warc.is_empty() {
        return crate::dedup_warc::run(args);
    }
    run_files(args)
}

fn run_files(args: DedupArgs) -> anyhow::Result<()> {
    let stage = open_stage(&args)?;
    let mut sites = Vec::new();
    for root in &args.paths {
        sites.push((root.clone(), html_files(root)?));
    }
    let total: usize = sites.iter().map(|(_, files)| files.len()).sum();
    let progress = progress_bar(total as u64, args.quiet, "files");
    let mut out = output(args.out.as_deref())?;
    let mut summary = Summary::default();
    for (root, files) in &sites {
        let host = root.display().to_string();
        for chunk in files.chunks(256) {
            // Reading and block extraction in parallel; the main content (host models learn
            // from it) and the decisions in file order, so that a run is reproducible.
            let loaded: Vec<_> = chunk
                .par_iter()
                .map(|path| {
                    let bytes = std::fs::read(path);
                    let name = path.display().to_string();
                    let page = bytes.as_ref().ok().map(|b| {
                        let html = dedupcrawl_fetch::decode_bytes(b, None, true).text;
                        let page = stage.prepare_blocks(&html);
                        (html, page)
                    });
                    (name, bytes, page)
                })
                .collect();
            for (path, bytes, page) in loaded {
                progress.inc(1);
                let bytes = match bytes {
                    Ok(bytes) => bytes,
                    Err(error) => {
                        summary.documents += 1;
                        tracing::warn!(%path, %error, "unreadable file skipped");
                        summary.unreadable += 1;
                        continue;
                    }
                };
                let Some((html, mut page)) = page else {
                    continue;
                };
                stage.decide_main_content(&path, &host, &html, &mut page);
                let verdict = stage
                    .check_prepared(&path, &host, &bytes, page)
                    .with_context(|| format!("index update failed at {path}"))?;
                let (decision, duplicate_of, similarity) = summary.record(&verdict.decision);
                serde_json::to_writer(
                    &mut out,
                    &DecisionLine {
                        path: &path,
                        decision,
                        duplicate_of,
                        similarity,
                        contains: contained_pages(&verdict.decision),
                        reason: verdict.decision.reason(),
                    },
                )?;
                out.write_all(b"\n")?;
            }
        }
    }
    out.flush()?;
    stage.index().flush().context("cannot flush the index")?;
    progress.finish_and_clear();
    summary.print();
    Ok(())
}
