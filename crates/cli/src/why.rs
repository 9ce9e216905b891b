//! `dedupcrawl why OUT URL [--json]`: what the crawl decided for one URL and why: the decision
//! and its lines from the crawl log, how the URL was found, its redirect chain, the
//! robots/scope/error detail the crawler logged, the reason the deciding mechanism recorded
//! (its name and figures, as the crawl log has them), and for a duplicate the texts the two
//! pages were compared on, read from the index records the reason names, with their exact
//! shingle counts recomputed from those texts; for a soft 404, the probe URL whose answer it
//! resembles.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use dedupcrawl_crawler::{Decision, LogLine, OutputPaths, RuleRecord, read_crawl_log};
use dedupcrawl_index::{Mechanism, Reason, ShingleCounts, compared_shingle_set, shingle_counts};
use dedupcrawl_sketch::shingle_set;
use dedupcrawl_textprep::{ComparedText, TextPrep};
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
    /// The reason the deciding mechanism recorded (the crawl log's `reason`).
    explanation: Option<Reason>,
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
    /// A line with a `rule` (a `url_duplicate`, or a fetch that verified a rule): the rules
    /// as the crawl state holds them, with the pairs they were learned from.
    #[serde(skip_serializing_if = "Option::is_none")]
    url_rules: Option<UrlRulesWhy>,
}

#[derive(Debug, Serialize)]
struct UrlRulesWhy {
    /// Each rule the line names, as stored (status, support pairs, counterexample, counts).
    rules: Vec<RuleRecord>,
    /// Why some rule the line names is not shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    rules_missing: Option<String>,
}

#[derive(Debug, Serialize)]
struct DuplicateWhy {
    of: String,
    similarity: Option<f64>,
    /// The mechanism that decided, as the crawl log recorded it.
    mechanism: Option<Mechanism>,
    /// The original's own decision (normally `archived`).
    original_decision: Option<Decision>,
    /// The two compared texts, when the index holds them.
    compared: Option<ComparedTexts>,
    /// Why `compared` is missing.
    compared_missing: Option<String>,
}

#[derive(Debug, Serialize)]
struct ComparedTexts {
    shingle_size: usize,
    /// Exact counts recomputed here from the two stored texts (the reason's `shingles`
    /// when the texts are what was compared).
    shingles: ShingleCounts,
    resemblance: f64,
    containment: f64,
    /// Blocks (lines of the compared texts) in both, only in this page, only in the original.
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
            .map(|of| duplicate_why(out, last, of, by_url.get(of).and_then(|l| l.last()))),
        _ => None,
    };
    Ok(Why {
        url: last.url.clone(),
        decision: last.decision,
        status: last.status,
        ts: last.ts.clone(),
        depth: last.depth,
        reason: checked_reason(out, last)?,
        explanation: last.reason.clone(),
        error: last.error.clone(),
        note: last.note.clone(),
        earlier: earlier.iter().map(|l| (*l).clone()).collect(),
        found_via: found_via(last, &by_url),
        redirect_chain: redirect_chain(last, &by_url),
        duplicate,
        resembles: last.resembles.clone(),
        url_rules: last
            .rule
            .as_deref()
            .map(|rules| url_rules_why(out, &last.url, rules)),
    })
}

/// The rules `rules` (a crawl-log `rule` field: keys joined by "; ") of `url`'s host, read
/// from the crawl state.
fn url_rules_why(out: &Path, url: &str, rules: &str) -> UrlRulesWhy {
    let keys: Vec<&str> = rules.split("; ").collect();
    let stored = (|| -> anyhow::Result<Vec<RuleRecord>> {
        let mut config = crate::overlap::saved_config(out)?;
        config.crawl.out = out.to_path_buf();
        let host = dedupcrawl_observe::host_of(url);
        dedupcrawl_crawler::read_url_rules(&config, &host)
            .context("the crawl's state cannot be read (a running crawl holds it)")
    })();
    match stored {
        Ok(records) => {
            let found: Vec<RuleRecord> = keys
                .iter()
                .filter_map(|key| records.iter().find(|r| r.rule.key() == *key).cloned())
                .collect();
            let missing: Vec<&str> = keys
                .iter()
                .filter(|key| !found.iter().any(|r| r.rule.key() == **key))
                .copied()
                .collect();
            UrlRulesWhy {
                rules: found,
                rules_missing: (!missing.is_empty())
                    .then(|| format!("not in the crawl state: {}", missing.join("; "))),
            }
        }
        Err(error) => UrlRulesWhy {
            rules: Vec::new(),
            rules_missing: Some(format!("{error:#}")),
        },
    }
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

/// [`reason`], checked against the archive for an archived page: its record may be lost
/// since (a WARC file cut short, damaged or deleted).
fn checked_reason(out: &Path, line: &LogLine) -> anyhow::Result<String> {
    if line.decision != Decision::Archived {
        return Ok(reason(line));
    }
    let check = dedupcrawl_crawler::check_archive(out)
        .with_context(|| format!("cannot check the archive of {}", out.display()))?;
    if check.lost_pages.contains(&line.url) {
        return Ok(format!(
            "archived when fetched, but its WARC record is lost (a WARC file was cut short, \
             damaged or deleted): run the crawl again on {} to fetch it again",
            out.display()
        ));
    }
    Ok(reason(line))
}

fn reason(line: &LogLine) -> String {
    let note = line.note.as_deref().unwrap_or("");
    match line.decision {
        Decision::Archived => match line.reason.as_ref().map(|r| r.mechanism) {
            Some(Mechanism::SiteThreshold) => format!(
                "archived as a WARC response record: {}",
                Mechanism::SiteThreshold.describe()
            ),
            _ => "new content: archived as a WARC response record".into(),
        },
        Decision::ExactDuplicate | Decision::NearDuplicate | Decision::Contained => {
            match &line.reason {
                Some(reason) => format!("{}: not archived", reason.mechanism.describe()),
                None => "a duplicate of an earlier page (no reason recorded)".into(),
            }
        }
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
        Decision::UrlDuplicate => format!(
            "not fetched: the URL rule {} (learned from duplicates found earlier) maps it onto \
             {}, a page archived as new; its links were not enqueued",
            line.rule.as_deref().unwrap_or("(rule not logged)"),
            line.duplicate_of.as_deref().unwrap_or("(not logged)")
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
    out: &Path,
    line: &LogLine,
    of: &str,
    original: Option<&&LogLine>,
) -> DuplicateWhy {
    let (compared, compared_missing) = match compared_texts(out, line) {
        Ok(compared) => (Some(compared), None),
        Err(missing) => (None, Some(format!("{missing:#}"))),
    };
    DuplicateWhy {
        of: of.to_string(),
        similarity: line.similarity,
        mechanism: line.reason.as_ref().map(|r| r.mechanism),
        original_decision: original.map(|l| l.decision),
        compared,
        compared_missing,
    }
}

/// The texts the index records of the page and of its original (named by the line's
/// reason), with their exact shingle counts recomputed. An exact duplicate keeps no record
/// of its own: its compared text is its original's.
fn compared_texts(out: &Path, line: &LogLine) -> anyhow::Result<ComparedTexts> {
    let reason = line
        .reason
        .as_ref()
        .context("the crawl log line has no recorded reason")?;
    let original_id = reason
        .original_record
        .context("the reason names no index record of the original")?;
    let mut config = crate::overlap::saved_config(out)?;
    config.crawl.out = out.to_path_buf();
    let index = dedupcrawl_crawler::open_crawl_index(&config)
        .context("the crawl's state cannot be opened (a running crawl holds it)")?;
    let text_of = |id: u32| -> anyhow::Result<ComparedText> {
        let record = index
            .document(id)?
            .with_context(|| format!("the index has no record {id} (removed by a recrawl)"))?;
        Ok(ComparedText::decode(&record.compared_text)?)
    };
    let original = text_of(original_id)?;
    let page = match reason.page_record {
        Some(id) => text_of(id)?,
        None => original.clone(),
    };
    let prep = TextPrep::new(config.dedup.text);
    let shingle_size = config.dedup.shingle_size;
    let set = |text: &ComparedText| {
        let mut tokens = Vec::new();
        text.token_hashes(prep.normalizer(), &mut tokens);
        if tokens.len() < shingle_size {
            return Vec::new();
        }
        compared_shingle_set(&shingle_set(&tokens, shingle_size))
    };
    let shingles = shingle_counts(&set(&page), &set(&original));
    let lines = |text: &ComparedText| -> Vec<String> {
        text.blocks().map(|(_, block)| block.to_string()).collect()
    };
    let (page_lines, original_lines) = (lines(&page), lines(&original));
    let in_page: HashSet<&str> = page_lines.iter().map(String::as_str).collect();
    let in_original: HashSet<&str> = original_lines.iter().map(String::as_str).collect();
    let pick = |list: &[String], keep: &dyn Fn(&str) -> bool| -> Vec<String> {
        list.iter().filter(|b| keep(b)).cloned().collect()
    };
    Ok(ComparedTexts {
        shingle_size,
        resemblance: shingles.resemblance(),
        containment: shingles.containment(),
        shingles,
        shared: pick(&page_lines, &|b| in_original.contains(b)),
        only_in_page: pick(&page_lines, &|b| !in_original.contains(b)),
        only_in_original: pick(&original_lines, &|b| !in_page.contains(b)),
    })
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
    if let Some(reason) = &why.explanation {
        print_reason(reason);
    }
    if let Some(rules) = &why.url_rules {
        print_url_rules(rules);
    }
    let Some(duplicate) = &why.duplicate else {
        return;
    };
    println!("  duplicate of {}", duplicate.of);
    match (&duplicate.compared, &duplicate.compared_missing) {
        (Some(compared), _) => {
            let counts = compared.shingles;
            println!(
                "  compared   {}-shingles, recomputed from the stored texts: {} (page) / {} \
                 (original), {} shared; resemblance {:.4}, containment {:.4}",
                compared.shingle_size,
                counts.page,
                counts.other,
                counts.shared,
                compared.resemblance,
                compared.containment
            );
            for (title, list) in [
                ("shared", &compared.shared),
                ("only in this page", &compared.only_in_page),
                ("only in the original", &compared.only_in_original),
            ] {
                println!("\n== {title} ({} blocks)", list.len());
                for text in list {
                    let short: String = text.chars().take(160).collect();
                    println!("  {short}");
                }
            }
        }
        (None, Some(missing)) => println!("  compared   texts not shown: {missing}"),
        (None, None) => {}
    }
}

/// The URL rules a line names: status, what they were learned from, what they did.
fn print_url_rules(rules: &UrlRulesWhy) {
    for record in &rules.rules {
        let status = format!("{:?}", record.status).to_lowercase();
        println!(
            "  url rule   {}: {status}; explained {} duplicate pairs; {} URLs skipped, {} verified, \
             {} restored",
            record.rule, record.pairs_seen, record.skips, record.verifications, record.restored
        );
        let shapes: Vec<&str> = record.shapes.iter().map(String::as_str).collect();
        println!(
            "  learned from {} pairs (duplicate <- original), for pages shaped {}:",
            record.support.len(),
            if shapes.is_empty() {
                "(none recorded)".to_string()
            } else {
                shapes.join(", ")
            }
        );
        for pair in &record.support {
            println!("             {} <- {}", pair.url, pair.original);
        }
        if let Some(pair) = &record.counterexample {
            println!(
                "  counterexample (distinct pages it maps together): {} / {}",
                pair.url, pair.original
            );
        }
    }
    if let Some(missing) = &rules.rules_missing {
        println!("  url rule   not shown: {missing}");
    }
}

/// The recorded reason: the mechanism and the figures it decided on.
fn print_reason(reason: &Reason) {
    let figure = |value: Option<f64>| value.map_or("-".to_string(), |v| format!("{v:.4}"));
    if reason.mechanism == Mechanism::UrlRule {
        // Decided before any fetch: no figures, the rule below is the evidence.
        println!("  mechanism  {}", reason.mechanism);
        return;
    }
    let mut parts = vec![format!("verified {}", figure(reason.verified))];
    if reason.estimate.is_some() {
        parts.push(format!("estimate {}", figure(reason.estimate)));
    }
    if reason.threshold.is_some() {
        parts.push(format!("threshold {}", figure(reason.threshold)));
    }
    if let Some(counts) = reason.shingles {
        parts.push(format!(
            "shingles {} / {}, {} shared",
            counts.page, counts.other, counts.shared
        ));
    }
    if reason.candidates > 0 {
        parts.push(format!("{} candidates compared", reason.candidates));
    }
    if reason.recorded {
        parts.push("recorded when the page was first decided".to_string());
    }
    if let Some(prose) = reason.prose_tokens {
        parts.push(format!(
            "not contained: {prose} tokens of prose, a part needs {}",
            dedupcrawl_index::MIN_PART_TOKENS
        ));
    }
    println!("  mechanism  {}: {}", reason.mechanism, parts.join("; "));
    if let Some(closest) = &reason.closest {
        println!(
            "  closest    {} (resemblance {:.4}, containment {:.4})",
            closest.name, closest.resemblance, closest.containment
        );
    }
}
