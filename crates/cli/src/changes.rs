//! `dedupcrawl changes OUT [--round N]`: what changed in a recrawl round, as JSONL on stdout
//! (one line per URL: `url`, `round`, `change` = `added` | `changed` | `unchanged` |
//! `not_modified` | `gone`, `change_similarity`, `previous_digest`, `content_digest`) and the
//! counts on stderr. Default round: the latest in the crawl log. `--html FILE` also writes an
//! HTML report with a short text diff of each changed page (see [`crate::changes_html`]).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use dedupcrawl_crawler::{Decision, LogLine, read_crawl_log};

use crate::changes_html::write_report;

#[derive(clap::Args)]
pub struct ChangesArgs {
    /// The crawl's output directory.
    pub out: PathBuf,
    /// The round to report (default: the latest).
    #[arg(long)]
    pub round: Option<u32>,
    /// Also write an HTML report here (each change kind, change similarity, a short diff of
    /// each changed page's text).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
}

#[derive(serde::Serialize)]
pub struct Change<'a> {
    pub url: &'a str,
    pub round: u32,
    pub change: &'static str,
    pub change_similarity: Option<f64>,
    pub previous_digest: Option<&'a str>,
    pub content_digest: Option<&'a str>,
}

/// The changes of `round` (default: the latest round in `lines`), with that round.
pub fn changes_in_round(lines: &[LogLine], round: Option<u32>) -> (u32, Vec<Change<'_>>) {
    let round = round
        .or_else(|| lines.iter().map(|l| l.round).max())
        .unwrap_or(1);
    let changes = lines
        .iter()
        .filter(|l| l.round == round)
        .filter_map(|line| {
            Some(Change {
                url: &line.url,
                round,
                change: change_of(line)?,
                change_similarity: line.change_similarity,
                previous_digest: line.previous_digest.as_deref(),
                content_digest: line.content_digest.as_deref(),
            })
        })
        .collect();
    (round, changes)
}

/// How many URLs each kind of change has.
pub fn change_counts<'a>(changes: &[Change<'a>]) -> BTreeMap<&'static str, u64> {
    let mut counts = BTreeMap::new();
    for change in changes {
        *counts.entry(change.change).or_default() += 1;
    }
    counts
}

/// What a line of a round says changed, if it says so.
fn change_of(line: &LogLine) -> Option<&'static str> {
    match line.decision {
        Decision::Archived if line.previous_digest.is_some() => Some("changed"),
        Decision::Archived if line.round > 1 => Some("added"),
        Decision::Unchanged => Some("unchanged"),
        Decision::NotModified => Some("not_modified"),
        Decision::Gone => Some("gone"),
        _ => None,
    }
}

pub fn run(args: ChangesArgs) -> anyhow::Result<()> {
    let path = args.out.join("crawl.log.jsonl");
    let lines = read_crawl_log(&path).with_context(|| {
        format!(
            "cannot read {}: is this a crawl output directory?",
            path.display()
        )
    })?;
    let (round, changes) = changes_in_round(&lines, args.round);
    let counts = change_counts(&changes);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for change in &changes {
        serde_json::to_writer(&mut out, change)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    if let Some(html) = &args.html {
        write_report(&args.out, round, &changes, html)?;
    }
    eprintln!("round {round}: {counts:?}");
    Ok(())
}
