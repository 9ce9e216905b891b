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

use crate::changes_html::{ChangedUrl, write_report};

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
struct Change<'a> {
    url: &'a str,
    round: u32,
    change: &'static str,
    change_similarity: Option<f64>,
    previous_digest: Option<&'a str>,
    content_digest: Option<&'a str>,
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
    let round = args
        .round
        .or_else(|| lines.iter().map(|l| l.round).max())
        .unwrap_or(1);
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut report: Vec<ChangedUrl> = Vec::new();
    for line in lines.iter().filter(|l| l.round == round) {
        let Some(change) = change_of(line) else {
            continue;
        };
        *counts.entry(change).or_default() += 1;
        let record = Change {
            url: &line.url,
            round,
            change,
            change_similarity: line.change_similarity,
            previous_digest: line.previous_digest.as_deref(),
            content_digest: line.content_digest.as_deref(),
        };
        serde_json::to_writer(&mut out, &record)?;
        out.write_all(b"\n")?;
        report.push(ChangedUrl {
            url: record.url,
            change,
            change_similarity: record.change_similarity,
            previous_digest: record.previous_digest,
            content_digest: record.content_digest,
        });
    }
    out.flush()?;
    if let Some(html) = &args.html {
        write_report(&args.out, round, &report, html)?;
    }
    eprintln!("round {round}: {counts:?}");
    Ok(())
}
