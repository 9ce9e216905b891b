//! Page URLs written in scripts (`crawl.script_links`; which of a page's links are followed as
//! script links: [`crate::page_links`]): a fetched `<script src>` file, which is archived as a
//! non-HTML payload and read once for the page URLs in its string literals
//! ([`dedupcrawl_textprep::links_in_script`]). A script file whose payload is an exact
//! duplicate of one already fetched is not read again (its twin's URLs were offered).
//!
//! A script file's URLs resolve against the file's own URL: a script is shared by pages at
//! every depth, and the sites that write navigation in a script (mdBook's `toc-*.js`) write
//! it relative to the folder the script is in. Relative ones are taken only from a script in
//! the folder of the page that loaded it or above it: scripts kept in a folder of their own
//! (rustdoc's `static.files/`, `trait.impl/`) write paths that their code joins to a root
//! computed at run time, and read against the script's folder those name nothing.
//! The URLs' crawl-log lines carry
//! `"found_in": "script"`, the file's `"found_in": "script_file"`; those out of scope are
//! dropped without a line.

use dedupcrawl_fetch::decode_text;
use dedupcrawl_frontier::{CanonicalUrl, EntryKind, FrontierEntry, HostOutcome};
use dedupcrawl_index::DedupDecision;
use dedupcrawl_textprep::links_in_script;

use crate::config::NonHtmlPolicy;
use crate::crawl_log::Decision;
use crate::error::CrawlError;
use crate::fetched::{Fetched, Handled};

/// A fetched script file (not HTML): its payload decided like any non-HTML payload, then,
/// when it is new (or not archived by policy), its page URLs offered.
pub(crate) fn handle_script_file(fetched: &Fetched<'_>) -> Handled {
    let engine = fetched.engine;
    if engine.config.archive.non_html == NonHtmlPolicy::Skip {
        let offered = offer_script_links(fetched)?;
        let mut line = fetched.line(Decision::Filtered);
        Fetched::add_note(
            &mut line,
            "script not archived (archive.non_html = \"skip\")",
        );
        Fetched::add_note(&mut line, &offered_note(offered));
        engine.log_line(line)?;
        return Ok((HostOutcome::Done, None));
    }
    crate::page_decision::retire_changed_payload(fetched)?;
    let host = fetched.url.host().to_string();
    let verdict =
        engine
            .stage
            .check_payload(fetched.url.as_str(), &host, fetched.payload_digest)?;
    let note = match verdict.decision {
        DedupDecision::New { .. } => offered_note(offer_script_links(fetched)?),
        _ => "script read before under the duplicate's URL".to_string(),
    };
    crate::page_decision::record_payload_decision(fetched, verdict.decision, &note)
}

fn offered_note(offered: usize) -> String {
    format!("script: {offered} page URLs in scope offered")
}

/// Offers the in-scope page URLs of the fetched script; returns how many.
fn offer_script_links(fetched: &Fetched<'_>) -> Result<usize, CrawlError> {
    let engine = fetched.engine;
    let text = decode_text(&fetched.response).text;
    let max_links = engine.config.crawl.max_links_per_page;
    let page = fetched.via().and_then(|via| url::Url::parse(via).ok());
    let entries: Vec<FrontierEntry> = links_in_script(&text, max_links)
        .iter()
        .filter_map(|href| {
            let target = CanonicalUrl::parse(href, Some(fetched.url.url()), &engine.rules).ok()?;
            resolves_as_written(href, fetched.url.url(), page.as_ref()).then_some(target)
        })
        .filter(|target| engine.scope_check(target, fetched.depth).is_in_scope())
        .map(|target| FrontierEntry {
            kind: EntryKind::ScriptLink,
            duplicate_hops: fetched.duplicate_hops,
            ..FrontierEntry::link(target, fetched.depth, fetched.url.as_str())
        })
        .collect();
    let offered = entries.len();
    engine.frontier.offer_all(entries)?;
    Ok(offered)
}

/// Whether a script file's `href` means what it says read against the script's URL: it is
/// absolute or root-relative, or the script sits in the folder of `page` (the page that
/// loaded it) or in one above it.
fn resolves_as_written(href: &str, script: &url::Url, page: Option<&url::Url>) -> bool {
    if href.starts_with('/') || href.contains("://") {
        return true;
    }
    let Some(page) = page else {
        return true;
    };
    let folder = &script.path()[..script.path().rfind('/').map_or(0, |slash| slash + 1)];
    script.host_str() == page.host_str()
        && script.port_or_known_default() == page.port_or_known_default()
        && page.path().starts_with(folder)
}
