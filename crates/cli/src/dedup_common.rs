//! What both offline dedup commands (`dedup PATH...` and `dedup --warc FILE...`) share: their
//! arguments, the index they open, the JSONL output and the summary they print.

use std::io::IsTerminal as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use dedupcrawl_index::{DedupDecision, SledDedupIndex};
use dedupcrawl_pipeline::{DedupSettings, DedupStage, NearMethodName};

use crate::compare::ViewArg;

#[derive(clap::Args)]
pub struct DedupArgs {
    /// Directories (mirrors on disk) or single HTML files. Each PATH is one site for template
    /// learning.
    #[arg(required_unless_present = "warc")]
    pub paths: Vec<PathBuf>,
    /// Dedup the responses stored in WARC files (other crawlers' archives, e.g. wget's
    /// `--warc-file`) instead of files on disk. A directory stands for the WARC files in it,
    /// a crawl's OUT directory for those of `OUT/warc/` (several: a crawl's workers).
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
    /// How near-duplicate candidates are found: lsh (a shared LSH band) or super-shingles
    /// (Broder: several shared super-shingles; see the README). Part of the index's layout:
    /// an index built with the other method rebuilds its lookup files once.
    #[arg(long, value_enum, default_value = "lsh")]
    pub near_method: NearMethodArg,
    /// With --warc: also write a deduplicated copy (originals only, no revisits) as WARC files
    /// plus `index.cdxj` into DIR.
    #[arg(long, requires = "warc")]
    pub write: Option<PathBuf>,
    /// Hide the progress bar.
    #[arg(long)]
    pub quiet: bool,
}

/// `--near-method`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum NearMethodArg {
    Lsh,
    /// Also accepted as `super_shingles`, as the config file writes it.
    #[value(alias = "super_shingles")]
    SuperShingles,
}

impl From<NearMethodArg> for NearMethodName {
    fn from(method: NearMethodArg) -> Self {
        match method {
            NearMethodArg::Lsh => NearMethodName::Lsh,
            NearMethodArg::SuperShingles => NearMethodName::SuperShingles,
        }
    }
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

/// Progress bar on stderr; when stderr is not a terminal, a progress log line every
/// [`progress_line_every`](crate::progress_lines::progress_line_every) instead. `--quiet`:
/// neither.
pub fn progress_bar(total: u64, quiet: bool, unit: &str) -> indicatif::ProgressBar {
    if quiet {
        return indicatif::ProgressBar::hidden();
    }
    let progress = indicatif::ProgressBar::new(total);
    if !std::io::stderr().is_terminal() {
        progress.set_draw_target(indicatif::ProgressDrawTarget::term_like(Box::new(
            crate::progress_lines::ProgressLines::new(crate::progress_lines::progress_line_every()),
        )));
        progress.set_style(
            indicatif::ProgressStyle::with_template(&format!(
                "{{pos}}/{{len}} {unit} ({{per_sec}}) {{msg}}"
            ))
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        // Redrawn (and so logged when due) on a tick too, not only when a file is done.
        progress.enable_steady_tick(std::time::Duration::from_secs(1));
        return progress;
    }
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
pub fn open_stage(args: &DedupArgs) -> anyhow::Result<DedupStage> {
    let index_dir = &args.index;
    let settings = DedupSettings {
        threshold: args.threshold,
        view: args.view.into(),
        near_method: args.near_method.into(),
        ..DedupSettings::default()
    };
    settings
        .validate()
        .map_err(|e| anyhow::anyhow!("--threshold: {e}"))?;
    refuse_crawl_state(index_dir)?;
    std::fs::create_dir_all(index_dir)
        .with_context(|| format!("cannot create the index directory {}", index_dir.display()))?;
    let index = SledDedupIndex::open(index_dir, settings.index_config())
        .with_context(|| format!("cannot open the index at {}", index_dir.display()))?;
    Ok(DedupStage::new(Arc::new(index), settings))
}

/// A crawl's `state/` is not an index `dedup` may open: its index keeps its documents in a
/// log of its own name and commits with the crawl's frontier and state, and opening it would
/// write into the crawl (a sled snapshot at least). Refused before anything is opened.
fn refuse_crawl_state(index_dir: &std::path::Path) -> anyhow::Result<()> {
    let is_crawl_state = index_dir.join("dedup-documents.log").exists()
        || index_dir
            .parent()
            .is_some_and(|out| out.join("crawl.log.jsonl").exists() && out.join("warc").is_dir());
    if is_crawl_state {
        anyhow::bail!(
            "--index {} is the state of a crawl (OUT/state/), which dedup does not open: the \
             crawl's state is left as it is; give --index a directory of its own (a new one \
             starts an empty index). To compare a crawl's pages with another archive, see \
             `dedupcrawl overlap`",
            index_dir.display()
        );
    }
    Ok(())
}

/// The pages a new page contains (names, most contained first): a decision line's `contains`,
/// empty for every other decision.
pub fn contained_pages(decision: &DedupDecision) -> Vec<&str> {
    match decision {
        DedupDecision::New { contains, .. } => contains
            .iter()
            .map(|(page, _)| page.name.as_str())
            .collect(),
        _ => Vec::new(),
    }
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
            DedupDecision::NearDuplicate { of, similarity, .. } => {
                self.near += 1;
                self.originals_with_duplicates.insert(of.cluster);
                ("near_duplicate", Some(of.name.as_str()), Some(*similarity))
            }
            DedupDecision::Contained {
                within,
                containment,
                ..
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
