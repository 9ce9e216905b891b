//! `dedupcrawl clusters OUT...`: the near-duplicate clusters of a crawl, as JSONL
//! (`OUT/clusters.jsonl`) and a self-contained HTML report (`OUT/clusters.html`) with a
//! similarity histogram and, per cluster, the text that differs. Several OUTs (the workers of
//! one crawl) are read as one crawl, their logs and WARC files together: a duplicate logged by
//! one worker joins the cluster of an original archived by another; the outputs default to the
//! first OUT.
//!
//! A cluster is an archived page (the representative) and every URL the crawl log names as its
//! duplicate (exact, near, contained), followed transitively. The text that differs is shown
//! where the WARC holds the member's text: archived copies (`near_duplicates = "archive"`) or
//! near-duplicate metadata records (`near_duplicates = "metadata"`), which carry the page's text.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::PathBuf;

use crate::crawl_outputs::{CrawlOutputs, OutputsArgs};
use crate::export::cluster_root;
use crate::warc_texts::each_page_text;
use anyhow::Context;

#[derive(clap::Args)]
pub struct ClustersArgs {
    /// The crawl: its OUT directory, the OUTs of its workers (clustered as one crawl), or
    /// --store/--crawl.
    #[command(flatten)]
    pub crawl: OutputsArgs,
    /// Write the JSONL here instead of OUT/clusters.jsonl (the first OUT when several).
    #[arg(long)]
    pub jsonl: Option<PathBuf>,
    /// Write the HTML report here instead of OUT/clusters.html (the first OUT when several).
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// The clusters as of this recrawl round (default: the latest): crawl-log lines of later
    /// rounds are left out.
    #[arg(long, value_name = "N")]
    pub round: Option<u32>,
}

#[derive(serde::Serialize, Clone, Debug)]
pub struct ClusterMember {
    pub url: String,
    pub decision: String,
    /// The page this one was linked to (the representative, or another member): `similarity`
    /// is to that page.
    pub duplicate_of: String,
    pub similarity: Option<f64>,
}

#[derive(serde::Serialize, Debug)]
pub struct Cluster {
    pub representative: String,
    pub size: usize,
    pub min_similarity: Option<f64>,
    pub members: Vec<ClusterMember>,
    /// Archived pages the representative contains (the crawl log's `contains`: parts fetched
    /// before their all-in-one page); left out when empty. A page that contains others is a
    /// cluster even without duplicates.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contains: Vec<String>,
}

/// Clusters from the crawl logs of `outputs`: duplicates grouped under the archived page they
/// lead to, from the lines of rounds up to `round` (`None`: all).
pub fn clusters_from_logs(
    outputs: &CrawlOutputs,
    round: Option<u32>,
) -> anyhow::Result<Vec<Cluster>> {
    let mut parent: HashMap<String, ClusterMember> = HashMap::new();
    let mut parent_url: HashMap<String, String> = HashMap::new();
    let mut contains: HashMap<String, Vec<String>> = HashMap::new();
    outputs.each_log_line(false, |_, entry| {
        if round.is_some_and(|limit| entry.round > limit) {
            return;
        }
        if !entry.contains.is_empty() {
            contains.insert(entry.url.clone(), entry.contains.clone());
        }
        if let Some(original) = entry.duplicate_of
            && original != entry.url
        {
            parent_url.insert(entry.url.clone(), original.clone());
            parent.insert(
                entry.url.clone(),
                ClusterMember {
                    url: entry.url,
                    decision: entry.decision,
                    duplicate_of: original,
                    similarity: entry.similarity,
                },
            );
        }
    })?;
    let mut by_root: BTreeMap<String, Vec<ClusterMember>> = BTreeMap::new();
    for (url, member) in &parent {
        by_root
            .entry(cluster_root(&parent_url, url))
            .or_default()
            .push(member.clone());
    }
    for url in contains.keys() {
        by_root.entry(url.clone()).or_default();
    }
    let mut clusters: Vec<Cluster> = by_root
        .into_iter()
        .map(|(representative, mut members)| {
            members.sort_by(|a, b| a.url.cmp(&b.url));
            Cluster {
                contains: contains.remove(&representative).unwrap_or_default(),
                size: members.len() + 1,
                min_similarity: members
                    .iter()
                    .filter_map(|m| m.similarity)
                    .min_by(|a, b| a.total_cmp(b)),
                representative,
                members,
            }
        })
        .collect();
    clusters.sort_by(|a, b| {
        b.size
            .cmp(&a.size)
            .then(a.representative.cmp(&b.representative))
    });
    Ok(clusters)
}

pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Texts (one block per line) of the cluster URLs the WARC files hold (the first record of
/// each).
fn texts_in_warc(
    outputs: &CrawlOutputs,
    wanted: &HashSet<&str>,
) -> anyhow::Result<HashMap<String, String>> {
    let mut texts = HashMap::new();
    each_page_text(
        outputs.dirs().iter().map(PathBuf::as_path),
        |url| wanted.contains(url),
        |url, _, text| {
            texts.entry(url.to_string()).or_insert(text);
        },
    )?;
    Ok(texts)
}

/// Lines of `text` that `other` does not have.
fn lines_not_in<'a>(text: &'a str, other: &str) -> Vec<&'a str> {
    let known: HashSet<&str> = other.lines().collect();
    text.lines().filter(|l| !known.contains(l)).collect()
}

fn histogram_svg(clusters: &[Cluster]) -> String {
    let mut bins = [0u32; 20];
    for member in clusters.iter().flat_map(|c| &c.members) {
        if let Some(s) = member.similarity {
            bins[((s.clamp(0.0, 1.0) * 20.0) as usize).min(19)] += 1;
        }
    }
    let max = bins.iter().copied().max().unwrap_or(0).max(1);
    let mut svg = String::from(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"640\" height=\"220\" role=\"img\" \
         aria-label=\"similarity histogram\">",
    );
    for (i, &count) in bins.iter().enumerate() {
        let height = 160.0 * count as f64 / max as f64;
        let x = 20 + i * 30;
        svg.push_str(&format!(
            "<rect x=\"{x}\" y=\"{:.1}\" width=\"26\" height=\"{height:.1}\" fill=\"#4a7bd0\"><title>{:.2}–{:.2}: {count}</title></rect>\
             <text x=\"{}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
            180.0 - height,
            i as f64 / 20.0,
            (i + 1) as f64 / 20.0,
            x + 13,
            175.0 - height,
            if count > 0 { count.to_string() } else { String::new() },
        ));
        if i % 4 == 0 {
            svg.push_str(&format!(
                "<text x=\"{x}\" y=\"200\" font-size=\"11\">{:.1}</text>",
                i as f64 / 20.0
            ));
        }
    }
    svg.push_str("<text x=\"560\" y=\"215\" font-size=\"11\">similarity</text></svg>");
    svg
}

pub fn run(args: ClustersArgs) -> anyhow::Result<()> {
    let outputs = CrawlOutputs::from_args(&args.crawl)?;
    let clusters = clusters_from_logs(&outputs, args.round)?;
    let jsonl_path = args
        .jsonl
        .unwrap_or_else(|| outputs.first().join("clusters.jsonl"));
    let mut jsonl = crate::dedup_common::output(Some(&jsonl_path))?;
    for cluster in &clusters {
        serde_json::to_writer(&mut jsonl, cluster)?;
        jsonl.write_all(b"\n")?;
    }
    jsonl.flush()?;

    let wanted: HashSet<&str> = clusters
        .iter()
        .flat_map(|c| {
            std::iter::once(c.representative.as_str())
                .chain(c.members.iter().map(|m| m.url.as_str()))
        })
        .collect();
    let texts = texts_in_warc(&outputs, &wanted)?;
    let members: usize = clusters.iter().map(|c| c.members.len()).sum();
    let mut html = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>dedupcrawl clusters: {out}</title>\
         <style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:2px 6px;text-align:left}}pre{{white-space:pre-wrap;background:#f6f6f6;padding:4px}}\
         details{{margin:1em 0}}</style></head><body><h1>Duplicate clusters of {out}</h1>\
         <p>{n} clusters, {members} duplicates.</p><h2>Similarity of duplicates to the page each was linked to</h2>{svg}",
        out = escape(&outputs.describe()),
        n = clusters.len(),
        svg = histogram_svg(&clusters),
    );
    for (i, cluster) in clusters.iter().enumerate() {
        html.push_str(&format!(
            "<details{open}><summary>#{n} {rep} — {size} pages</summary><table><tr><th>url</th><th>decision</th><th>duplicate of</th><th>similarity</th></tr>",
            open = if i < 5 { " open" } else { "" },
            n = i + 1,
            rep = escape(&cluster.representative),
            size = cluster.size,
        ));
        for member in &cluster.members {
            html.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&member.url),
                escape(&member.decision),
                if member.duplicate_of == cluster.representative {
                    "(the representative)".to_string()
                } else {
                    escape(&member.duplicate_of)
                },
                member
                    .similarity
                    .map_or(String::new(), |s| format!("{s:.3}"))
            ));
        }
        html.push_str("</table>");
        if !cluster.contains.is_empty() {
            let parts: Vec<String> = cluster
                .contains
                .iter()
                .map(|url| format!("<li>{}</li>", escape(url)))
                .collect();
            html.push_str(&format!(
                "<p>Contains these archived pages (parts fetched before it):</p><ul>{}</ul>",
                parts.concat()
            ));
        }
        let representative_text = texts.get(&cluster.representative);
        for member in &cluster.members {
            let (Some(original), Some(text)) = (representative_text, texts.get(&member.url)) else {
                continue;
            };
            let only_member = lines_not_in(text, original);
            let only_original = lines_not_in(original, text);
            html.push_str(&format!(
                "<p>{}: only in the duplicate</p><pre>{}</pre><p>only in the original</p><pre>{}</pre>",
                escape(&member.url),
                escape(&only_member.join("\n")),
                escape(&only_original.join("\n"))
            ));
        }
        if !cluster.members.is_empty()
            && cluster.members.iter().all(|m| !texts.contains_key(&m.url))
        {
            html.push_str("<p><i>The duplicates' text is not in the archive (not archived by policy).</i></p>");
        }
        html.push_str("</details>");
    }
    html.push_str("</body></html>\n");
    let html_path = args
        .html
        .unwrap_or_else(|| outputs.first().join("clusters.html"));
    std::fs::write(&html_path, html)
        .with_context(|| format!("cannot write {}", html_path.display()))?;
    eprintln!(
        "{} clusters ({members} duplicates): {} and {}",
        clusters.len(),
        jsonl_path.display(),
        html_path.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chain_of_duplicates_is_one_cluster_and_each_member_names_its_link() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crawl.log.jsonl");
        let outputs = CrawlOutputs::new(vec![dir.path().to_path_buf()]).unwrap();
        let line = |url: &str, decision: &str, of: Option<&str>, similarity: f64| {
            serde_json::json!({"url": url, "decision": decision, "duplicate_of": of, "similarity": similarity})
                .to_string()
        };
        let log = [
            line("http://a/x", "archived", None, 0.0),
            line("http://a/y", "near_duplicate", Some("http://a/x"), 0.85),
            line("http://a/z", "near_duplicate", Some("http://a/y"), 0.97),
            line("http://a/v", "archived", None, 0.0),
        ]
        .join("\n");
        std::fs::write(&path, log).unwrap();
        let clusters = clusters_from_logs(&outputs, None).unwrap();
        assert_eq!(clusters.len(), 1);
        let cluster = &clusters[0];
        assert_eq!(
            (cluster.representative.as_str(), cluster.size),
            ("http://a/x", 3)
        );
        assert_eq!(cluster.min_similarity, Some(0.85));
        let links: Vec<(&str, &str)> = cluster
            .members
            .iter()
            .map(|m| (m.url.as_str(), m.duplicate_of.as_str()))
            .collect();
        assert_eq!(
            links,
            [("http://a/y", "http://a/x"), ("http://a/z", "http://a/y")]
        );
    }
}
