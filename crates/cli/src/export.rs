//! `dedupcrawl export OUT... --format jsonl|text|warc --to PATH`: the deduplicated archive of a
//! crawl, for search and dataset pipelines (JSONL, plain text) or archivists (WARC + CDXJ).
//!
//! Reads `OUT/warc/*.warc.gz` record by record (originals are the `response` records; revisits
//! and metadata are left out) and `OUT/crawl.log.jsonl` for the duplicates of each original.
//! Several OUTs (the workers of one crawl shared through PostgreSQL) are read as one crawl:
//! all their logs, then their WARC files directory by directory; a page whose current version
//! an earlier directory already gave is left out with a warning (see [`crate::round_state`]).
//! Of a URL fetched in several recrawl rounds only the version current after the chosen round
//! (`--round N`, default the latest) is exported (see [`crate::round_state`]).
//! Memory holds the duplicate list (URLs of duplicates, not pages) and one record at a time.
//! The main-content view here uses the per-page boilerplate rules only: the per-host template
//! learnt during the crawl lives in the crawl's index, which export does not need to open.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use dedupcrawl_archive::{RecordType, WarcWriter, WarcWriterConfig};
use dedupcrawl_textprep::{TextPrep, TextPrepConfig, View};

use crate::compare::ViewArg;
use crate::crawl_outputs::{CrawlOutputs, OutputsArgs};
use crate::dedup_warc::{records_reporting_damage, stored_page_reporting};
use crate::round_state::{RoundState, Take};

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ExportFormat {
    Jsonl,
    Text,
    Warc,
}

#[derive(clap::Args)]
pub struct ExportArgs {
    /// The crawl (holds warc/ and crawl.log.jsonl): its OUT directory, the OUTs of its
    /// workers (each page exported once), or --store/--crawl.
    #[command(flatten)]
    pub crawl: OutputsArgs,
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// A file for jsonl, a directory for text and warc.
    #[arg(long)]
    pub to: PathBuf,
    /// Only pages of this host (e.g. `docs.example.org`, or `127.0.0.1:8080`).
    #[arg(long)]
    pub host: Option<String>,
    /// Only pages fetched at or after this date (`2026-11-01` or RFC 3339).
    #[arg(long)]
    pub since: Option<String>,
    /// Which text to export: main (boilerplate out) or full.
    #[arg(long, value_enum, default_value = "main")]
    pub view: ViewArg,
    /// The crawl's state after this recrawl round (default: the latest): each URL's version
    /// current then, without pages gone by then or first found later.
    #[arg(long, value_name = "N")]
    pub round: Option<u32>,
    /// No progress bar (on a terminal) and no progress lines (off one).
    #[arg(long)]
    pub quiet: bool,
    /// Export what is intact of a damaged archive (a WARC file cut short or corrupt, pages
    /// whose records are lost): a warning names every damaged region and page left out.
    /// Without it, export refuses a damaged archive.
    #[arg(long)]
    pub allow_damaged: bool,
}

/// Checks each OUT's WARC files against its crawl log before anything is exported: a damaged
/// archive is an error, or with `--allow-damaged` a warning naming what is left out.
fn check_archives(outputs: &CrawlOutputs, allow_damaged: bool) -> anyhow::Result<()> {
    for dir in outputs.dirs() {
        let check = dedupcrawl_crawler::check_archive(dir)
            .with_context(|| format!("cannot check the archive of {}", dir.display()))?;
        if check.is_clean() {
            continue;
        }
        let problems: String = check
            .describe()
            .iter()
            .map(|line| format!("\n  {line}"))
            .collect();
        if !allow_damaged {
            anyhow::bail!(
                "the archive in {dir} is damaged:{problems}\nresume the crawl (the same \
                 `dedupcrawl crawl` or `recrawl` command on {dir}) to move the damaged bytes to \
                 {dir}/damaged/ and fetch the lost pages again, then export; or pass \
                 --allow-damaged to export what is intact",
                dir = dir.display()
            );
        }
        eprintln!(
            "dedupcrawl: warning: the archive in {} is damaged; exporting what is intact \
             (--allow-damaged):{problems}",
            dir.display()
        );
        for url in &check.lost_pages {
            eprintln!("dedupcrawl: warning: page left out (its record is lost): {url}");
        }
    }
    Ok(())
}

#[derive(serde::Serialize, Clone)]
struct DuplicateRef {
    url: String,
    decision: String,
    similarity: Option<f64>,
}

#[derive(serde::Serialize)]
struct ExportedPage<'a> {
    url: &'a str,
    fetched_at: String,
    status: u16,
    title: Option<&'a str>,
    language: Option<&'a str>,
    text: &'a str,
    content_digest: Option<&'a str>,
    word_count: usize,
    duplicates: &'a [DuplicateRef],
    /// Archived pages this page contains (parts of a story fetched before it), from the crawl
    /// log's `contains`; left out when empty.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    contains: &'a [String],
}

/// The fields of a crawl-log line that export and clusters read (a lenient subset of
/// `dedupcrawl_crawler::LogLine`: lines are streamed, and a torn last line is skipped).
#[derive(serde::Deserialize)]
pub(crate) struct CrawlLogLine {
    pub(crate) url: String,
    pub(crate) decision: String,
    pub(crate) duplicate_of: Option<String>,
    pub(crate) similarity: Option<f64>,
    /// Archived pages a new page contains (only on `archived` lines, often absent).
    #[serde(default)]
    pub(crate) contains: Vec<String>,
    /// The recrawl round (1: the first crawl; absent in logs older than rounds).
    #[serde(default = "first_round")]
    pub(crate) round: u32,
    /// Payload digest of the version the line is about.
    #[serde(default)]
    pub(crate) content_digest: Option<String>,
    /// RFC 3339 UTC time of the decision (orders lines of one URL across workers' logs).
    #[serde(default)]
    pub(crate) ts: Option<String>,
}

fn first_round() -> u32 {
    1
}

/// The first page of `start`'s chain of `duplicate_of` links (a duplicate names the most
/// similar earlier page, which may itself be a duplicate).
pub(crate) fn cluster_root(parent_url: &HashMap<String, String>, start: &str) -> String {
    let mut url = start;
    let mut seen = std::collections::HashSet::new();
    while let Some(next) = parent_url.get(url) {
        if !seen.insert(url) {
            break; // a cycle in a damaged log: stop where it closes
        }
        url = next;
    }
    url.to_string()
}

/// What the crawl log says about each original: its duplicates (the whole cluster, duplicates
/// of duplicates included) and the archived pages it contains.
#[derive(Default)]
struct Relations {
    duplicates: HashMap<String, Vec<DuplicateRef>>,
    contains: HashMap<String, Vec<String>>,
}

/// [`Relations`] of every original, from the crawl logs of `outputs`.
fn relations_by_original(outputs: &CrawlOutputs, round: Option<u32>) -> anyhow::Result<Relations> {
    let mut parent_url: HashMap<String, String> = HashMap::new();
    let mut duplicates: Vec<DuplicateRef> = Vec::new();
    let mut contains: HashMap<String, Vec<String>> = HashMap::new();
    // A torn last line (the crawler was killed mid-write) is skipped, not fatal.
    outputs.each_log_line(true, |_, entry| {
        if round.is_some_and(|limit| entry.round > limit) {
            return;
        }
        if !entry.contains.is_empty() {
            contains.insert(entry.url.clone(), entry.contains);
        }
        if let Some(original) = entry.duplicate_of
            && original != entry.url
        {
            parent_url.insert(entry.url.clone(), original);
            duplicates.push(DuplicateRef {
                url: entry.url,
                decision: entry.decision,
                similarity: entry.similarity,
            });
        }
    })?;
    let mut map: HashMap<String, Vec<DuplicateRef>> = HashMap::new();
    for duplicate in duplicates {
        map.entry(cluster_root(&parent_url, &duplicate.url))
            .or_default()
            .push(duplicate);
    }
    Ok(Relations {
        duplicates: map,
        contains,
    })
}

fn parse_since(text: &str) -> anyhow::Result<chrono::DateTime<chrono::Utc>> {
    if let Ok(date) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(date.with_timezone(&chrono::Utc));
    }
    let day = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").with_context(|| {
        format!("--since {text:?}: expected a date like 2026-11-01 or 2026-11-01T12:00:00Z")
    })?;
    Ok(day.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc())
}

/// A file path for a URL: `host/path`, `index` for directories, the query escaped in.
fn text_path(root: &Path, url: &str) -> PathBuf {
    let Ok(parsed) = url::Url::parse(url) else {
        return root.join("invalid-url.txt");
    };
    let safe = |part: &str| -> String {
        part.chars()
            .map(|c| {
                if c.is_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect()
    };
    let mut path = root.join(safe(&parsed.host_str().map_or(
        String::new(),
        |h| match parsed.port() {
            Some(port) => format!("{h}_{port}"),
            None => h.to_string(),
        },
    )));
    let segments: Vec<&str> = parsed.path().split('/').filter(|s| !s.is_empty()).collect();
    for segment in segments.iter().take(segments.len().saturating_sub(1)) {
        path.push(safe(segment));
    }
    let mut leaf = match segments.last() {
        Some(last) if !parsed.path().ends_with('/') => safe(last),
        Some(last) => {
            path.push(safe(last));
            "index".to_string()
        }
        None => "index".to_string(),
    };
    if let Some(query) = parsed.query() {
        leaf.push_str("__");
        leaf.push_str(&safe(query));
    }
    leaf.push_str(".txt");
    path.push(leaf);
    path
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let since = args.since.as_deref().map(parse_since).transpose()?;
    let outputs = CrawlOutputs::from_args(&args.crawl)?;
    check_archives(&outputs, args.allow_damaged)?;
    let relations = relations_by_original(&outputs, args.round)?;
    let mut state = RoundState::from_logs(&outputs, args.round)?;
    let files = outputs.warc_files()?;
    let prep = TextPrep::new(TextPrepConfig::default());
    let view: View = args.view.into();
    let mut jsonl: Option<Box<dyn Write>> = None;
    let mut warc: Option<WarcWriter> = None;
    match args.format {
        ExportFormat::Jsonl => {
            if let Some(parent) = args.to.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent)?;
            }
            jsonl = Some(crate::dedup_common::output(Some(&args.to))?);
        }
        ExportFormat::Text => std::fs::create_dir_all(&args.to)
            .with_context(|| format!("cannot create {}", args.to.display()))?,
        ExportFormat::Warc => {
            let mut config = WarcWriterConfig::new(&args.to, "dedupcrawl-export");
            config.warcinfo_fields.push((
                "description".into(),
                format!("deduplicated export of {}", outputs.describe()),
            ));
            warc = Some(WarcWriter::open(config)?);
        }
    }
    let mut exported = 0u64;
    let no_template = |_: u64| false;
    let progress = crate::dedup_common::progress_bar(files.len() as u64, args.quiet, "WARC files");
    let mut repeated = RepeatedPages::default();
    for (source, file) in &files {
        progress.inc(1);
        progress.set_message(format!("{exported} records exported"));
        // Request records come after their response in our files: keep the id of every
        // exported response so its request can follow it into a WARC export.
        let mut exported_ids: std::collections::HashSet<String> = Default::default();
        for record in records_reporting_damage(file)? {
            let Some(record) = record else { continue };
            if record.record_type() == RecordType::Request {
                let companion = record
                    .headers
                    .get_all("WARC-Concurrent-To")
                    .any(|id| exported_ids.contains(id));
                if let (true, Some(writer)) = (companion, warc.as_mut()) {
                    writer.write_verbatim(&record)?;
                }
                continue;
            }
            let Some(url) = record.target_uri().map(str::to_string) else {
                continue;
            };
            if record.record_type() != RecordType::Response {
                continue;
            }
            match state.take(&url, record.headers.get("WARC-Payload-Digest"), *source) {
                Take::Yes => {}
                Take::No => continue,
                Take::AlreadyFrom(first) => {
                    repeated.report(&url, &outputs.dirs()[first], &outputs.dirs()[*source]);
                    continue;
                }
            }
            if let Some(host) = &args.host {
                let record_host = url::Url::parse(&url).ok().map(|u| match u.port() {
                    Some(port) => format!("{}:{port}", u.host_str().unwrap_or_default()),
                    None => u.host_str().unwrap_or_default().to_string(),
                });
                let bare = url::Url::parse(&url)
                    .ok()
                    .and_then(|u| u.host_str().map(str::to_string));
                if record_host.as_deref() != Some(host.as_str())
                    && bare.as_deref() != Some(host.as_str())
                {
                    continue;
                }
            }
            if let (Some(since), Some(date)) = (since, record.date())
                && date < since
            {
                continue;
            }
            if let Some(writer) = warc.as_mut() {
                writer.write_verbatim(&record)?;
                exported_ids.extend(record.record_id().map(str::to_string));
                exported += 1;
                continue;
            }
            let Ok(Some(page)) = stored_page_reporting(&record) else {
                continue;
            };
            let (title, language, text) = match &page.html {
                Some(html) => {
                    let prepared = match view {
                        View::MainContent => prep.prepare_alone(html, Some(&page.url)),
                        View::FullPage => prep.prepare(html),
                    };
                    let text = prep.view_text(&prepared, view, &no_template);
                    (
                        prepared.extracted.title.clone(),
                        Some(prepared.language.code()),
                        text,
                    )
                }
                None => (None, None, String::new()),
            };
            let status = record.http_response().map(|r| r.status).unwrap_or(200);
            match args.format {
                ExportFormat::Jsonl => {
                    let fetched_at = record
                        .date()
                        .map(|d| d.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
                        .unwrap_or_default();
                    let line = ExportedPage {
                        url: &url,
                        fetched_at,
                        status,
                        title: title.as_deref(),
                        language,
                        word_count: text.split_whitespace().count(),
                        text: &text,
                        content_digest: record.headers.get("WARC-Payload-Digest"),
                        duplicates: relations.duplicates.get(&url).map_or(&[], Vec::as_slice),
                        contains: relations.contains.get(&url).map_or(&[], Vec::as_slice),
                    };
                    if let Some(out) = jsonl.as_mut() {
                        serde_json::to_writer(&mut *out, &line)?;
                        out.write_all(b"\n")?;
                    }
                }
                ExportFormat::Text => {
                    let path = text_path(&args.to, &url);
                    if let Some(parent) = path.parent() {
                        std::fs::create_dir_all(parent)?;
                    }
                    std::fs::write(&path, format!("{text}\n"))
                        .with_context(|| format!("cannot write {}", path.display()))?;
                }
                ExportFormat::Warc => {}
            }
            exported += 1;
        }
    }
    if let Some(mut out) = jsonl {
        out.flush()?;
    }
    if let Some(writer) = warc {
        let written = writer.close()?;
        let report = dedupcrawl_archive::build_cdxj(&written, args.to.join("index.cdxj"))?;
        eprintln!(
            "{} CDXJ lines in {}",
            report.lines,
            args.to.join("index.cdxj").display()
        );
    }
    progress.finish_and_clear();
    repeated.summarize();
    eprintln!("exported {exported} pages to {}", args.to.display());
    Ok(())
}

/// Pages archived in more than one of the OUT directories (e.g. a worker restarted into
/// another directory): each is exported once, from the first directory, and named on stderr.
#[derive(Default)]
struct RepeatedPages {
    count: u64,
}

impl RepeatedPages {
    /// Warnings named one by one; past that only the total is given.
    const NAMED: u64 = 20;

    fn report(&mut self, url: &str, kept_from: &Path, left_out_from: &Path) {
        self.count += 1;
        if self.count <= Self::NAMED {
            eprintln!(
                "dedupcrawl: warning: {url} is archived in both {} and {}: exported once, \
                 from {}",
                kept_from.display(),
                left_out_from.display(),
                kept_from.display()
            );
        }
    }

    fn summarize(&self) {
        if self.count > Self::NAMED {
            eprintln!(
                "dedupcrawl: warning: {} pages in all were archived in more than one OUT \
                 directory and exported once each ({} named above)",
                self.count,
                Self::NAMED
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_duplicate_of_a_duplicate_belongs_to_the_first_page_of_the_chain() {
        let dir = tempfile::tempdir().unwrap();
        let line = |url: &str, decision: &str, of: Option<&str>| {
            serde_json::json!({"url": url, "decision": decision, "duplicate_of": of, "similarity": 0.9})
                .to_string()
        };
        let log = [
            line("http://a/x", "archived", None),
            line("http://a/y", "near_duplicate", Some("http://a/x")),
            line("http://a/z", "near_duplicate", Some("http://a/y")),
            line("http://a/w", "exact_duplicate", Some("http://a/z")),
            // A damaged log with a cycle ends where the cycle closes instead of looping.
            line("http://a/p", "near_duplicate", Some("http://a/q")),
            line("http://a/q", "near_duplicate", Some("http://a/p")),
        ]
        .join("\n");
        std::fs::write(dir.path().join("crawl.log.jsonl"), log).unwrap();
        let outputs = CrawlOutputs::new(vec![dir.path().to_path_buf()]).unwrap();
        let map = relations_by_original(&outputs, None).unwrap().duplicates;
        let mut cluster: Vec<&str> = map["http://a/x"].iter().map(|d| d.url.as_str()).collect();
        cluster.sort();
        assert_eq!(cluster, ["http://a/w", "http://a/y", "http://a/z"]);
        assert_eq!(map.values().map(Vec::len).sum::<usize>(), 5);
    }

    #[test]
    fn a_whole_lists_the_parts_it_contains() {
        let dir = tempfile::tempdir().unwrap();
        let log = [
            serde_json::json!({"url": "http://a/part-1", "decision": "archived"}),
            serde_json::json!({"url": "http://a/part-2", "decision": "archived"}),
            serde_json::json!({"url": "http://a/whole", "decision": "archived",
                "contains": ["http://a/part-2", "http://a/part-1"]}),
        ]
        .map(|l| l.to_string())
        .join("\n");
        std::fs::write(dir.path().join("crawl.log.jsonl"), log).unwrap();
        let outputs = CrawlOutputs::new(vec![dir.path().to_path_buf()]).unwrap();
        let relations = relations_by_original(&outputs, None).unwrap();
        assert_eq!(
            relations.contains["http://a/whole"],
            ["http://a/part-2", "http://a/part-1"]
        );
        assert_eq!(relations.contains.len(), 1);
        let clusters = crate::clusters::clusters_from_logs(&outputs, None).unwrap();
        assert_eq!(clusters.len(), 1, "the whole is a cluster of its own");
        assert_eq!(clusters[0].representative, "http://a/whole");
        assert_eq!(clusters[0].contains, ["http://a/part-2", "http://a/part-1"]);
        assert!(clusters[0].members.is_empty());
    }

    #[test]
    fn text_paths_follow_urls() {
        let root = Path::new("/x");
        assert_eq!(
            text_path(root, "http://a.org/"),
            Path::new("/x/a.org/index.txt")
        );
        assert_eq!(
            text_path(root, "http://a.org:81/b/c"),
            Path::new("/x/a.org_81/b/c.txt")
        );
        assert_eq!(
            text_path(root, "http://a.org/b/"),
            Path::new("/x/a.org/b/index.txt")
        );
        assert_eq!(
            text_path(root, "http://a.org/l?a=1&b=2"),
            Path::new("/x/a.org/l__a_1_b_2.txt")
        );
        assert_eq!(
            text_path(root, "http://a.org/../etc"),
            Path::new("/x/a.org/etc.txt")
        );
    }
}
