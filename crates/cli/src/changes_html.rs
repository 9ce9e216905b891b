//! The HTML report of `dedupcrawl changes OUT --html FILE`: one self-contained page (like
//! `clusters.html`) with a section per kind of change (added, changed, unchanged, not
//! modified, gone); each changed page shows its change similarity and a short line diff of
//! its previous and new text, both read from the crawl's WARC files.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use anyhow::Context as _;
use similar::{ChangeTag, TextDiff};

use crate::changes::Change;
use crate::clusters::escape;
use crate::warc_texts::each_page_text;

/// The sections of the report, in order: `change` value and heading.
const KINDS: [(&str, &str); 5] = [
    ("added", "Added"),
    ("changed", "Changed"),
    ("unchanged", "Unchanged (same payload)"),
    ("not_modified", "Not modified (304)"),
    ("gone", "Gone (404/410)"),
];

/// Most diff lines shown per page: the report is an overview, the WARC has the rest.
const DIFF_LINES: usize = 40;

/// The changed lines of `old` → `new` (`-`/`+`), at most [`DIFF_LINES`] of them.
fn short_diff(old: &str, new: &str) -> String {
    let diff = TextDiff::from_lines(old, new);
    let mut lines: Vec<String> = Vec::new();
    let mut more = 0usize;
    for change in diff.iter_all_changes() {
        let sign = match change.tag() {
            ChangeTag::Equal => continue,
            ChangeTag::Delete => '-',
            ChangeTag::Insert => '+',
        };
        if lines.len() < DIFF_LINES {
            lines.push(format!("{sign} {}", change.value().trim_end_matches('\n')));
        } else {
            more += 1;
        }
    }
    if more > 0 {
        lines.push(format!("… {more} more changed lines"));
    }
    lines.join("\n")
}

/// Writes the report of `round` of the crawl in `out` to `path`.
pub fn write_report(
    out: &Path,
    round: u32,
    changes: &[Change<'_>],
    path: &Path,
) -> anyhow::Result<()> {
    // Both versions of every changed page, by (url, payload digest).
    let changed: HashSet<&str> = changes
        .iter()
        .filter(|c| c.change == "changed")
        .map(|c| c.url)
        .collect();
    let mut texts: HashMap<(String, String), String> = HashMap::new();
    if !changed.is_empty() {
        each_page_text(
            [out],
            |url| changed.contains(url),
            |url, digest, text| {
                if let Some(digest) = digest {
                    texts.insert((url.to_string(), digest.to_string()), text);
                }
            },
        )?;
    }
    let text_of = |url: &str, digest: Option<&str>| {
        digest.and_then(|d| texts.get(&(url.to_string(), d.to_string())))
    };
    let counts: Vec<String> = KINDS
        .iter()
        .map(|(kind, heading)| {
            let n = changes.iter().filter(|c| c.change == *kind).count();
            format!("<li><a href=\"#{kind}\">{heading}</a>: {n}</li>")
        })
        .collect();
    let mut html = format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>dedupcrawl changes: \
         {out} round {round}</title><style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto}}\
         table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:2px 6px;text-align:left}}\
         pre{{white-space:pre-wrap;background:#f6f6f6;padding:4px}}.del{{color:#a00}}.ins{{color:#070}}\
         details{{margin:.5em 0}}</style></head><body><h1>Changes in round {round} of {out}</h1><ul>{counts}</ul>",
        out = escape(&out.display().to_string()),
        counts = counts.concat(),
    );
    for (kind, heading) in KINDS {
        let rows: Vec<&Change> = changes.iter().filter(|c| c.change == kind).collect();
        html.push_str(&format!(
            "<section id=\"{kind}\"><h2>{heading} ({})</h2>",
            rows.len()
        ));
        if rows.is_empty() {
            html.push_str("<p>none</p></section>");
            continue;
        }
        html.push_str("<table><tr><th>url</th><th>change similarity</th></tr>");
        for row in &rows {
            html.push_str(&format!(
                "<tr data-change=\"{kind}\"><td class=\"url\">{}</td><td class=\"similarity\">{}</td></tr>",
                escape(row.url),
                row.change_similarity
                    .map_or(String::new(), |s| format!("{s:.3}"))
            ));
        }
        html.push_str("</table>");
        if kind == "changed" {
            for row in &rows {
                let diff = match (
                    text_of(row.url, row.previous_digest),
                    text_of(row.url, row.content_digest),
                ) {
                    (Some(old), Some(new)) => escape(&short_diff(old, new)),
                    _ => "(a version's text is not in the archive)".to_string(),
                };
                html.push_str(&format!(
                    "<details class=\"diff\" data-url=\"{url}\"><summary>{url}</summary><pre>{diff}</pre></details>",
                    url = escape(row.url),
                ));
            }
        }
        html.push_str("</section>");
    }
    html.push_str("</body></html>\n");
    std::fs::write(path, html).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_diff_shows_only_changed_lines() {
        let diff = short_diff("same\nold line\nkept\n", "same\nnew line\nkept\n");
        assert_eq!(diff, "- old line\n+ new line");
    }
}
