//! `dedupcrawl why OUT URL [--json]`: what the crawl decided for one URL and why, from the
//! crawl log and the WARC files: the decision and its lines, how the URL was found, its
//! redirect chain, the robots/scope/error detail the crawler logged, and for a duplicate the
//! page it duplicates, the method, and the text blocks the two share (as `compare --explain`);
//! for a soft 404, the probe URL whose answer it resembles.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use dedupcrawl_archive::{RecordType, WarcReader};
use dedupcrawl_crawler::{Decision, LogLine, OutputPaths, read_crawl_log, warc_files};
use dedupcrawl_pipeline::DedupSettings;
use dedupcrawl_sketch::{jaccard, shingle_set};
use dedupcrawl_textprep::{PreparedPage, TextPrep, View};
use serde::Serialize;

#[derive(Debug, clap::Args)]
pub struct WhyArgs {
    /// The crawl's output directory.
    pub out: PathBuf,
    /// The URL to explain (as in the crawl log; a trailing-slash or case variant of the host
    /// is found too).
    pub url: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Longest "found via" path printed (links from a seed).
const MAX_VIA_HOPS: usize = 64;

#[derive(Debug, Serialize)]
pub struct Why {
    url: String,
    decision: Decision,
    status: Option<u16>,
    ts: String,
    depth: u32,
    /// Plain-language reason.
    reason: String,
    error: Option<String>,
    note: Option<String>,
    /// Earlier lines of the same URL (e.g. a host given up in an earlier run).
    earlier: Vec<LogLine>,
    /// From a seed to this URL: each page linked to (or redirected to) the next.
    found_via: Vec<String>,
    /// URLs redirecting into this one, this URL, and the targets it redirected to.
    redirect_chain: Vec<String>,
    duplicate: Option<DuplicateWhy>,
    /// `soft_404`: the probe URL (a path that cannot exist) whose answer the page resembles.
    #[serde(skip_serializing_if = "Option::is_none")]
    resembles: Option<String>,
}

#[derive(Debug, Serialize)]
struct DuplicateWhy {
    of: String,
    similarity: Option<f64>,
    method: &'static str,
    /// The original's own decision (normally `archived`).
    original_decision: Option<Decision>,
    /// Shared and unique text blocks, when both texts are in the archive.
    blocks: Option<BlockExplanation>,
    /// Why `blocks` is missing.
    blocks_missing: Option<String>,
}

#[derive(Debug, Serialize)]
struct BlockExplanation {
    view: View,
    shingle_size: usize,
    /// Tokens kept after normalization: [this page, original].
    tokens: [usize; 2],
    /// Exact resemblance of the shingle sets, recomputed here.
    exact_resemblance: f64,
    shared: Vec<String>,
    only_in_page: Vec<String>,
    only_in_original: Vec<String>,
}

pub fn run(args: WhyArgs) -> anyhow::Result<()> {
    let why = explain(&args.out, &args.url)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&why)?);
    } else {
        print_text(&why);
    }
    Ok(())
}

pub fn explain(out: &Path, url: &str) -> anyhow::Result<Why> {
    let paths = OutputPaths::new(out);
    let lines = read_crawl_log(&paths.crawl_log)
        .with_context(|| format!("{} is not a crawl output directory", out.display()))?;
    let mut by_url: HashMap<&str, Vec<&LogLine>> = HashMap::new();
    for line in &lines {
        by_url.entry(line.url.as_str()).or_default().push(line);
    }
    let key = candidates(url)
        .into_iter()
        .find(|candidate| by_url.contains_key(candidate.as_str()))
        .with_context(|| {
            format!(
                "{url} is not in the crawl log: never found, or found only past crawl.max_depth"
            )
        })?;
    let own = &by_url[key.as_str()];
    let Some((last, earlier)) = own.split_last() else {
        anyhow::bail!("{url} has no crawl-log line");
    };
    let last: &LogLine = last;
    let duplicate = match last.decision {
        Decision::ExactDuplicate | Decision::NearDuplicate | Decision::Contained => last
            .duplicate_of
            .as_deref()
            .map(|of| duplicate_why(&paths, last, of, by_url.get(of).and_then(|l| l.last()))),
        _ => None,
    };
    Ok(Why {
        url: last.url.clone(),
        decision: last.decision,
        status: last.status,
        ts: last.ts.clone(),
        depth: last.depth,
        reason: reason(last),
        error: last.error.clone(),
        note: last.note.clone(),
        earlier: earlier.iter().map(|l| (*l).clone()).collect(),
        found_via: found_via(last, &by_url),
        redirect_chain: redirect_chain(last, &by_url),
        duplicate,
        resembles: last.resembles.clone(),
    })
}

/// The URL as given, and the forms the crawl log may have it in.
fn candidates(url: &str) -> Vec<String> {
    let mut list = vec![url.to_string()];
    if let Ok(parsed) = url::Url::parse(url) {
        list.push(parsed.to_string());
    }
    if let Some(without) = url.strip_suffix('/') {
        list.push(without.to_string());
    } else {
        list.push(format!("{url}/"));
    }
    list
}

fn reason(line: &LogLine) -> String {
    let note = line.note.as_deref().unwrap_or("");
    match line.decision {
        Decision::Archived => "new content: archived as a WARC response record".into(),
        Decision::ExactDuplicate if note.contains("same normalized text") => {
            "the same normalized text as an earlier page: not archived".into()
        }
        Decision::ExactDuplicate => {
            "the same payload bytes as an earlier page: a WARC revisit record points at it".into()
        }
        Decision::NearDuplicate if note.contains("rel=canonical") => {
            "the page names another URL as canonical (rel=canonical): that URL stands for it".into()
        }
        Decision::NearDuplicate => format!(
            "resembles an earlier page ({}) at or above the threshold: by the estimate of their \
             shingles, or, for a copy on another host, by their blocks (a copy that holds all of \
             another host's page counts from {} under the threshold)",
            line.similarity.map_or("-".into(), |s| format!("{s:.3}")),
            dedupcrawl_index::ADDED_TO_COPY_DRIFT
        ),
        Decision::Contained => "its text is contained in an earlier page".into(),
        Decision::NotModified => {
            "304 Not Modified to a conditional request (a recrawl): a WARC revisit record \
             (server-not-modified) points at the earlier response"
                .into()
        }
        Decision::Unchanged => {
            "fetched again in a recrawl with the payload of its previous version: a WARC \
             revisit record (identical-payload-digest) points at it"
                .into()
        }
        Decision::Gone => format!("404/410 in a recrawl: the page is gone ({note})"),
        Decision::RobotsDisallowed => {
            "the host's robots.txt disallows this URL for the crawler's user agent (robots.txt \
             is cached per host, not archived)"
                .into()
        }
        Decision::Soft404 => format!(
            "a soft 404: answered 200, but resembles the host's answer to {} (a path that cannot \
             exist; resemblance {}, no substantial text block of its own): not archived, links \
             not followed",
            line.resembles
                .as_deref()
                .unwrap_or("(probe URL not logged)"),
            line.similarity.map_or("-".into(), |s| format!("{s:.3}"))
        ),
        Decision::OutOfScope => format!("out of scope: {note}"),
        Decision::Filtered => format!("fetched, not archived by policy: {note}"),
        Decision::Error => format!(
            "failed: {}",
            line.error.as_deref().unwrap_or("(no detail logged)")
        ),
    }
}

fn duplicate_why(
    paths: &OutputPaths,
    line: &LogLine,
    of: &str,
    original: Option<&&LogLine>,
) -> DuplicateWhy {
    let note = line.note.as_deref().unwrap_or("");
    let method = match line.decision {
        Decision::ExactDuplicate if note.contains("same normalized text") => {
            "normalized-text digest"
        }
        Decision::ExactDuplicate => "payload digest (SHA-1)",
        Decision::NearDuplicate if note.contains("rel=canonical") => "rel=canonical",
        Decision::NearDuplicate => "MinHash-LSH resemblance estimate",
        _ => "containment of shingles",
    };
    let (blocks, blocks_missing) = match block_explanation(paths, line, of) {
        Ok(blocks) => (Some(blocks), None),
        Err(missing) => (None, Some(format!("{missing:#}"))),
    };
    DuplicateWhy {
        of: of.to_string(),
        similarity: line.similarity,
        method,
        original_decision: original.map(|l| l.decision),
        blocks,
        blocks_missing,
    }
}

/// The texts the archive has of the page and of its original: the original's response
/// payload; the page's own payload (archived, or the original's for a same-payload
/// duplicate) or the main-content text of its near-duplicate metadata record.
fn block_explanation(
    paths: &OutputPaths,
    line: &LogLine,
    of: &str,
) -> anyhow::Result<BlockExplanation> {
    let mut original_html = None;
    let mut page_html = None;
    let mut page_text = None;
    let mut config = String::new();
    for file in warc_files(&paths.warc_dir)? {
        for record in WarcReader::open(&file)? {
            let Ok(record) = record else { break };
            match (record.record_type(), record.target_uri()) {
                (RecordType::Warcinfo, _) if config.is_empty() => {
                    config = String::from_utf8_lossy(record.payload()).into_owned();
                }
                (RecordType::Response, Some(uri)) if uri == of || uri == line.url => {
                    let payload = record
                        .http_response()
                        .map(|r| dedupcrawl_fetch::decode_bytes(r.payload, None, true).text)
                        .ok();
                    if uri == of {
                        original_html = payload;
                    } else {
                        page_html = payload;
                    }
                }
                (RecordType::Metadata, Some(uri)) if uri == line.url => {
                    page_text = serde_json::from_slice::<serde_json::Value>(record.payload())
                        .ok()
                        .and_then(|v| v.get("text")?.as_str().map(str::to_string));
                }
                _ => {}
            }
        }
    }
    let original_html = original_html
        .with_context(|| format!("the original {of} has no response record in the archive"))?;
    let exact_payload = line.decision == Decision::ExactDuplicate
        && !line
            .note
            .as_deref()
            .unwrap_or("")
            .contains("same normalized text");
    if exact_payload && page_html.is_none() {
        page_html = Some(original_html.clone());
    }
    let page_html = match (page_html, page_text) {
        (Some(html), _) => html,
        (None, Some(text)) => text_as_html(&text),
        (None, None) => anyhow::bail!(
            "the page's own text is not in the archive (archive.near_duplicates = \"log\"; \
             \"metadata\" or \"archive\" keeps it)"
        ),
    };
    let view = if config.contains("dedup.view=FullPage") {
        View::FullPage
    } else {
        View::MainContent
    };
    let shingle_size = config
        .split_whitespace()
        .find_map(|field| field.strip_prefix("dedup.shingle_size=")?.parse().ok())
        .unwrap_or(5);
    let prep = TextPrep::new(DedupSettings::default().text);
    let prepare = |html: &str| match view {
        View::MainContent => prep.prepare_alone(html, None),
        View::FullPage => prep.prepare(html),
    };
    let (page, original) = (prepare(&page_html), prepare(&original_html));
    let no_template = |_: u64| false;
    let tokens = |p: &PreparedPage| prep.token_hashes(p, view, &no_template);
    let (tokens_page, tokens_original) = (tokens(&page), tokens(&original));
    let blocks = |p: &PreparedPage| -> Vec<(u64, String)> {
        prep.view_blocks(p, view, &no_template)
            .map(|block| (block.fingerprint(), block.text.clone()))
            .collect()
    };
    let (blocks_page, blocks_original) = (blocks(&page), blocks(&original));
    let in_page: HashSet<u64> = blocks_page.iter().map(|(f, _)| *f).collect();
    let in_original: HashSet<u64> = blocks_original.iter().map(|(f, _)| *f).collect();
    let pick = |list: &[(u64, String)], keep: &dyn Fn(u64) -> bool| -> Vec<String> {
        list.iter()
            .filter(|(f, _)| keep(*f))
            .map(|(_, t)| t.clone())
            .collect()
    };
    Ok(BlockExplanation {
        view,
        shingle_size,
        tokens: [tokens_page.len(), tokens_original.len()],
        exact_resemblance: jaccard(
            &shingle_set(&tokens_page, shingle_size),
            &shingle_set(&tokens_original, shingle_size),
        ),
        shared: pick(&blocks_page, &|f| in_original.contains(&f)),
        only_in_page: pick(&blocks_page, &|f| !in_original.contains(&f)),
        only_in_original: pick(&blocks_original, &|f| !in_page.contains(&f)),
    })
}

/// Stored main-content text (blocks separated by blank lines) as HTML paragraphs.
fn text_as_html(text: &str) -> String {
    let mut html = String::from("<html><body>");
    for block in text.split('\n').filter(|b| !b.trim().is_empty()) {
        html.push_str("<p>");
        html.push_str(&html_escape::encode_text(block));
        html.push_str("</p>");
    }
    html.push_str("</body></html>");
    html
}

/// Seed → ... → this URL, following `via` (the page, sitemap or redirect it was found on).
fn found_via(line: &LogLine, by_url: &HashMap<&str, Vec<&LogLine>>) -> Vec<String> {
    let mut path = vec![line.url.clone()];
    let mut seen: HashSet<String> = HashSet::from([line.url.clone()]);
    let mut via = line.via.clone();
    while let Some(url) = via {
        if path.len() > MAX_VIA_HOPS || !seen.insert(url.clone()) {
            break;
        }
        via = by_url
            .get(url.as_str())
            .and_then(|lines| lines.last())
            .and_then(|l| l.via.clone());
        path.push(url);
    }
    path.reverse();
    path
}

/// `redirect to URL` notes: the URLs that redirected into this one, then its own targets.
fn redirect_chain(line: &LogLine, by_url: &HashMap<&str, Vec<&LogLine>>) -> Vec<String> {
    let target_of = |l: &LogLine| -> Option<String> {
        let note = l.note.as_deref()?;
        let rest = note.split("redirect to ").nth(1)?;
        rest.split([' ', ';']).next().map(str::to_string)
    };
    let mut chain = vec![line.url.clone()];
    let mut seen: HashSet<String> = HashSet::from([line.url.clone()]);
    // Backwards: the `via` of a redirect target is the URL that redirected to it.
    let mut current = line.clone();
    while let Some(via) = current.via.clone() {
        let Some(previous) = by_url.get(via.as_str()).and_then(|l| l.last()) else {
            break;
        };
        if target_of(previous).as_deref() != Some(current.url.as_str()) || !seen.insert(via.clone())
        {
            break;
        }
        chain.insert(0, via);
        current = (*previous).clone();
    }
    // Forwards.
    let mut current = line.clone();
    while let Some(target) = target_of(&current) {
        if !seen.insert(target.clone()) {
            chain.push(format!("{target} (loop)"));
            break;
        }
        chain.push(target.clone());
        match by_url.get(target.as_str()).and_then(|l| l.last()) {
            Some(next) => current = (*next).clone(),
            None => break,
        }
    }
    if chain.len() == 1 { Vec::new() } else { chain }
}

fn print_text(why: &Why) {
    println!("{}", why.url);
    println!(
        "  decision   {} (HTTP {}), {}",
        why.decision.as_str(),
        why.status.map_or("-".to_string(), |s| s.to_string()),
        why.ts
    );
    println!("  why        {}", why.reason);
    if let Some(error) = &why.error {
        println!("  error      {error}");
    }
    if let Some(note) = &why.note {
        println!("  note       {note}");
    }
    println!("  found via  {}", why.found_via.join("\n          -> "));
    if !why.redirect_chain.is_empty() {
        println!(
            "  redirects  {}",
            why.redirect_chain.join("\n          -> ")
        );
    }
    for line in &why.earlier {
        println!(
            "  earlier    {} {} {}",
            line.ts,
            line.decision.as_str(),
            line.error.as_deref().or(line.note.as_deref()).unwrap_or("")
        );
    }
    let Some(duplicate) = &why.duplicate else {
        return;
    };
    println!("  duplicate of {}", duplicate.of);
    println!(
        "  similarity {} by {}",
        duplicate
            .similarity
            .map_or("-".into(), |s| format!("{s:.4}")),
        duplicate.method
    );
    match (&duplicate.blocks, &duplicate.blocks_missing) {
        (Some(blocks), _) => {
            println!(
                "  view {:?}, shingle size {}, tokens {} (page) / {} (original), exact \
                 resemblance {:.4}",
                blocks.view,
                blocks.shingle_size,
                blocks.tokens[0],
                blocks.tokens[1],
                blocks.exact_resemblance
            );
            for (title, list) in [
                ("shared", &blocks.shared),
                ("only in this page", &blocks.only_in_page),
                ("only in the original", &blocks.only_in_original),
            ] {
                println!("\n== {title} ({} blocks)", list.len());
                for text in list {
                    let short: String = text.chars().take(160).collect();
                    println!("  {short}");
                }
            }
        }
        (None, Some(missing)) => println!("  blocks     not shown: {missing}"),
        (None, None) => {}
    }
}
