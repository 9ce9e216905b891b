//! `dedupcrawl extract PATH... [--view main|full] [--format text|jsonl]`: the text a page is
//! compared on, before stop words and stemming, each file on its own (no host evidence).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use dedupcrawl_pipeline::DedupSettings;
use dedupcrawl_textprep::{TextPrep, View};

use crate::compare::{ViewArg, read_document};

#[derive(clap::Args)]
pub struct ExtractArgs {
    /// HTML files, in the order they are printed.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// `main`: the main content as the page-level extractor decides it (what the dedup
    /// compares on a host's first pages); `full`: every visible block.
    #[arg(long, value_enum, default_value = "main")]
    pub view: ViewArg,
    /// `text`: a `==> PATH <==` header and the text, per file; `jsonl`: one
    /// `{"path","text","title"}` line per file.
    #[arg(long, value_enum, default_value = "text")]
    pub format: ExtractFormat,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ExtractFormat {
    Text,
    Jsonl,
}

#[derive(serde::Serialize)]
struct ExtractLine<'a> {
    path: &'a str,
    text: &'a str,
    title: Option<&'a str>,
}

pub fn run(args: ExtractArgs) -> anyhow::Result<()> {
    let prep = TextPrep::new(DedupSettings::default().text);
    let view: View = args.view.into();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for path in &args.paths {
        let html = read_document(path)?;
        let page = match view {
            View::MainContent => prep.prepare_alone(&html, None),
            View::FullPage => prep.prepare(&html),
        };
        let text = prep.view_text(&page, view, &|_| false);
        let shown = path.display().to_string();
        match args.format {
            ExtractFormat::Text => writeln!(out, "==> {shown} <==\n{text}\n"),
            ExtractFormat::Jsonl => {
                let line = ExtractLine {
                    path: &shown,
                    text: &text,
                    title: page.extracted.title.as_deref(),
                };
                serde_json::to_writer(&mut out, &line).map_err(std::io::Error::from)?;
                writeln!(out)
            }
        }
        .context("cannot write to standard output")?;
    }
    out.flush().context("cannot write to standard output")?;
    Ok(())
}
