//! `dedupcrawl dedup PATH... --index DIR`: offline dedup of HTML files on disk.
//!
//! Files are read in sorted order per PATH (deterministic decisions). Extraction and language
//! detection, the expensive part, run in parallel in chunks; the decision (which depends on
//! the host's learnt template and on every earlier document) runs in order.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use dedupcrawl_index::{DedupDecision, SledDedupIndex};
use dedupcrawl_pipeline::{DedupSettings, DedupStage};
use rayon::prelude::*;

use crate::compare::ViewArg;

#[derive(clap::Args)]
pub struct DedupArgs {
    /// Directories (mirrors on disk) or single HTML files. Each PATH is one site for template
    /// learning.
    #[arg(required_unless_present = "warc")]
    pub paths: Vec<PathBuf>,
    /// Dedup the responses stored in WARC files (other crawlers' archives, e.g. wget's
    /// `--warc-file`) instead of files on disk.
    #[arg(long, num_args = 1.., conflicts_with = "paths")]
    pub warc: Vec<PathBuf>,
    /// The persistent index directory (created if missing; reuse it to dedup across runs).
    #[arg(long)]
    pub index: PathBuf,
    /// Near-duplicate threshold on estimated resemblance.
    #[arg(long, default_value_t = 0.8)]
    pub threshold: f64,
    /// Write the JSONL decisions to FILE instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Which text to compare: main (boilerplate out) or full.
    #[arg(long, value_enum, default_value = "main")]
    pub view: ViewArg,
    /// With --warc: also write a deduplicated copy (originals only, no revisits) as WARC files
    /// plus `index.cdxj` into DIR.
    #[arg(long, requires = "warc")]
    pub write: Option<PathBuf>,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(serde::Serialize)]
struct DecisionLine<'a> {
    path: &'a str,
    decision: &'static str,
    duplicate_of: Option<&'a str>,
    similarity: Option<f64>,
}

#[derive(Default)]
pub struct Summary {
    pub documents: u64,
    pub new: u64,
    pub exact: u64,
    pub near: u64,
    pub contained: u64,
    pub unreadable: u64,
    pub originals_with_duplicates: std::collections::HashSet<u32>,
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

/// Progress bar on stderr (hidden with `--quiet` or when stderr is not a terminal).
pub fn progress_bar(total: u64, quiet: bool, unit: &str) -> indicatif::ProgressBar {
    if quiet {
        return indicatif::ProgressBar::hidden();
    }
    let progress = indicatif::ProgressBar::new(total);
    progress.set_style(
        indicatif::ProgressStyle::with_template(&format!(
            "{{elapsed_precise}} [{{bar:40}}] {{pos}}/{{len}} {unit} {{per_sec}} {{msg}}"
        ))
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    progress
}

/// The JSONL output: FILE or stdout.
pub fn output(path: Option<&Path>) -> anyhow::Result<Box<dyn Write>> {
    Ok(match path {
        Some(path) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .with_context(|| format!("cannot create {}", path.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    })
}

/// Opens the index and the dedup stage the command line asks for.
pub fn open_stage(index_dir: &Path, threshold: f64, view: ViewArg) -> anyhow::Result<DedupStage> {
    let settings = DedupSettings {
        threshold,
        view: view.into(),
        ..DedupSettings::default()
    };
    settings
        .validate()
        .map_err(|e| anyhow::anyhow!("--threshold: {e}"))?;
    std::fs::create_dir_all(index_dir)
        .with_context(|| format!("cannot create the index directory {}", index_dir.display()))?;
    let index = SledDedupIndex::open(index_dir, settings.index_config())
        .with_context(|| format!("cannot open the index at {}", index_dir.display()))?;
    Ok(DedupStage::new(Arc::new(index), settings))
}

impl Summary {
    /// Counts a decision; returns its JSONL name, the original and the similarity.
    pub fn record<'a>(
        &mut self,
        decision: &'a DedupDecision,
    ) -> (&'static str, Option<&'a str>, Option<f64>) {
        self.documents += 1;
        match decision {
            DedupDecision::New { .. } => {
                self.new += 1;
                ("new", None, None)
            }
            DedupDecision::ExactDuplicate { of, .. } => {
                self.exact += 1;
                self.originals_with_duplicates.insert(of.cluster);
                ("exact_duplicate", Some(of.name.as_str()), Some(1.0))
            }
            DedupDecision::NearDuplicate { of, similarity } => {
                self.near += 1;
                self.originals_with_duplicates.insert(of.cluster);
                ("near_duplicate", Some(of.name.as_str()), Some(*similarity))
            }
            DedupDecision::Contained {
                within,
                containment,
            } => {
                self.contained += 1;
                self.originals_with_duplicates.insert(within.cluster);
                ("contained", Some(within.name.as_str()), Some(*containment))
            }
        }
    }

    pub fn print(&self) {
        eprintln!(
            "documents {}  new {}  exact duplicates {}  near duplicates {}  contained {}  clusters {}{}",
            self.documents,
            self.new,
            self.exact,
            self.near,
            self.contained,
            self.originals_with_duplicates.len(),
            if self.unreadable > 0 {
                format!("  unreadable {}", self.unreadable)
            } else {
                String::new()
            }
        );
    }
}

pub fn run(args: DedupArgs) -> anyhow::Result<()> {
    if !args.warc.is_empty() {
        return crate::dedup_warc::run(args);
    }
    run_files(args)
}

fn run_files(args: DedupArgs) -> anyhow::Result<()> {
    let stage = open_stage(&args.index, args.threshold, args.view)?;
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
