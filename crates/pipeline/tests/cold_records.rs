//! A host's first pages are recorded before the index knows the host's template, so their
//! records keep the chrome their cold start could not tell from content. A later copy of one
//! (a tracked URL, an AMP version) is compared with the template out: it is still a duplicate
//! of that page (near, or contained in the record), not a page of its own. Two listings of the host
//! with one heading and other links stay two pages, also when one was recorded cold.

use crate::common;

use common::{prose, stage};
use dedupcrawl_index::DedupDecision;
use dedupcrawl_pipeline::DedupStage;
use dedupcrawl_textprep::View;

const HOST: &str = "cold.example";

/// A page of the host: class names that say nothing, a menu, and beside the page's own part
/// the host's "about us" prose in the same column, which no page-level extractor can tell
/// from the page's text.
fn page(title: &str, own: &str) -> String {
    format!(
        "<html lang=\"en\"><head><title>{title}</title></head><body>\
         <div class=\"c1\"><a href=\"/\">Home</a> <a href=\"/about\">About us</a> \
         <a href=\"/latest\">Latest notes</a></div>\
         <div class=\"c2\"><div class=\"c3\">{title}</div>{own}\
         <div class=\"c4\">{}</div><div class=\"c4\">{}</div></div></body></html>",
        prose(71, 80),
        prose(72, 80)
    )
}

fn note_body(note: u64) -> String {
    (0..3)
        .map(|p| format!("<div class=\"c5\">{}</div>", prose(note * 10 + p, 45)))
        .collect()
}

fn note(note: u64) -> String {
    page(&prose(5_000 + note, 6), &note_body(note))
}

/// The AMP version of a note: its title and text, none of the host's chrome.
fn amp_note(note: u64) -> String {
    let title = prose(5_000 + note, 6);
    format!(
        "<html lang=\"en\"><head><title>{title}</title></head><body>\
         <div class=\"a1\"><div class=\"c3\">{title}</div>{}</div></body></html>",
        note_body(note)
    )
}

/// A listing: one line every listing shows, then links to `notes` by their titles.
fn listing(notes: std::ops::Range<u64>) -> String {
    let links: String = notes
        .map(|n| {
            format!(
                "<li><a href=\"/notes/{n}\">{}</a></li>",
                prose(5_000 + n, 6)
            )
        })
        .collect();
    page(
        "Latest notes",
        &format!(
            "<div class=\"c5\">{}</div><ul class=\"c6\">{links}</ul>",
            prose(9, 60)
        ),
    )
}

fn check(stage: &DedupStage, path: &str, html: &str) -> DedupDecision {
    common::check(stage, HOST, path, html)
}

#[test]
fn a_copy_of_one_of_a_hosts_first_pages_is_a_duplicate_of_it() {
    let dir = tempfile::tempdir().unwrap();
    let stage = stage(dir.path(), View::MainContent);
    for n in 0..12 {
        let decision = check(&stage, &format!("/notes/{n}"), &note(n));
        assert!(decision.is_new(), "note {n}: {decision:?}");
    }
    // A copy with a banner of its own (not the same bytes), and the AMP version, which has
    // none of the chrome the early records kept.
    for (n, path) in [
        (0, "/fast"),
        (1, "/fast"),
        (2, "/fast"),
        (6, "/fast"),
        (0, "/amp"),
        (2, "/amp"),
    ] {
        let copy = if path == "/amp" {
            amp_note(n)
        } else {
            note(n).replace(
                "<div class=\"c2\">",
                "<div class=\"c2\"><div class=\"c7\">You are reading the fast version</div>",
            )
        };
        let decision = check(&stage, &format!("{path}/notes/{n}"), &copy);
        match &decision {
            DedupDecision::NearDuplicate { of, similarity, .. } => {
                assert_eq!(of.name, format!("https://{HOST}/notes/{n}"), "{decision:?}");
                assert!(*similarity >= 0.8, "{decision:?}");
            }
            DedupDecision::Contained {
                within,
                containment,
                ..
            } => {
                assert_eq!(
                    within.name,
                    format!("https://{HOST}/notes/{n}"),
                    "{decision:?}"
                );
                assert!(*containment >= 0.9, "{decision:?}");
            }
            DedupDecision::ExactDuplicate { of, .. } => {
                assert_eq!(of.name, format!("https://{HOST}/notes/{n}"), "{decision:?}")
            }
            other => panic!("{path} version of note {n}: {other:?}"),
        }
    }
}

#[test]
fn a_listing_recorded_cold_and_a_later_one_with_other_links_are_two_pages() {
    let dir = tempfile::tempdir().unwrap();
    let stage = stage(dir.path(), View::MainContent);
    let first = check(&stage, "/latest", &listing(0..12));
    assert!(first.is_new(), "{first:?}");
    for n in 0..12 {
        let decision = check(&stage, &format!("/notes/{n}"), &note(n));
        assert!(decision.is_new(), "note {n}: {decision:?}");
    }
    let older = check(&stage, "/latest?page=2", &listing(12..24));
    assert!(older.is_new(), "the second listing page: {older:?}");
}
