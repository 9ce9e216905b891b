//! A box of teaser cards ("Trending now": a linked title and a caption each) inside an
//! article, drawn anew on every request, is not what the article is: two fetches of a note
//! that differ only by the box are one page. A listing, whose cards are what it is, keeps
//! them: two listings of a host linking to different notes are two pages, also when the
//! host's template prose outweighs their own words.

use crate::common;

use common::{prose, stage};
use dedupcrawl_index::DedupDecision;
use dedupcrawl_pipeline::DedupStage;
use dedupcrawl_textprep::View;

const HOST: &str = "notes.example";
const NOTES: u64 = 16;

fn title(note: u64) -> String {
    prose(9_000 + note, 6)
}

/// A page of the host: class names that say nothing (as a CSS-in-JS site's), a menu, the
/// page's own part and, in the same column, the host's "about us" prose.
fn page(title: &str, own: &str) -> String {
    format!(
        "<html lang=\"en\"><head><title>{title}</title></head><body>\
         <div class=\"x1\"><a href=\"/\">Home</a> <a href=\"/about\">About us</a> \
         <a href=\"/latest\">Latest notes</a></div>\
         <div class=\"x2\"><div class=\"x3\">{title}</div>{own}\
         <div class=\"x4\">{}</div><div class=\"x4\">{}</div></div></body></html>",
        prose(7, 90),
        prose(17, 90)
    )
}

/// Cards for `notes`: a linked title and a caption each.
fn cards(notes: &[u64]) -> String {
    notes
        .iter()
        .map(|&n| {
            format!(
                "<div class=\"x5\"><span class=\"x6\"><a href=\"/notes/{n}\">{}</a></span>\
                 <div class=\"x7\">{}</div></div>",
                title(n),
                prose(8_000 + n, 20)
            )
        })
        .collect()
}

/// Note `note` with a "Trending now" box of the four notes `box_of` picks.
fn note_page(note: u64, box_of: &[u64]) -> String {
    let body: String = (0..3)
        .map(|p| format!("<div class=\"x8\">{}</div>", prose(note * 10 + p, 45)))
        .collect();
    let trending = format!(
        "<div class=\"x9\"><div class=\"x0\">Trending now</div>{}</div>",
        cards(box_of)
    );
    page(&title(note), &format!("{body}{trending}"))
}

/// Four other notes, drawn by `draw`.
fn drawn_box(note: u64, draw: u64) -> Vec<u64> {
    (1..=4)
        .map(|k| (note + draw * 5 + k * 3) % NOTES)
        .filter(|&n| n != note)
        .collect()
}

fn check(stage: &DedupStage, path: &str, html: &str) -> DedupDecision {
    common::check(stage, HOST, path, html)
}

#[test]
fn a_note_with_another_trending_box_is_the_same_note() {
    let dir = tempfile::tempdir().unwrap();
    let stage = stage(dir.path(), View::MainContent);
    for note in 0..NOTES {
        let decision = check(
            &stage,
            &format!("/notes/{note}"),
            &note_page(note, &drawn_box(note, 0)),
        );
        assert!(decision.is_new(), "note {note}: {decision:?}");
    }
    // The same notes fetched again under a tracking parameter, each with another box.
    for note in [0, 1, 2, 3, 7, 12] {
        let copy = check(
            &stage,
            &format!("/notes/{note}?ref=trending"),
            &note_page(note, &drawn_box(note, 1)),
        );
        let original = format!("https://{HOST}/notes/{note}");
        match &copy {
            DedupDecision::ExactDuplicate { of, .. }
            | DedupDecision::NearDuplicate { of, .. }
            | DedupDecision::Contained { within: of, .. } => {
                assert_eq!(of.name, original, "{copy:?}")
            }
            other => panic!("note {note} with another trending box: {other:?}"),
        }
    }
}

#[test]
fn listings_whose_own_words_are_few_keep_their_cards() {
    let dir = tempfile::tempdir().unwrap();
    let stage = stage(dir.path(), View::MainContent);
    for note in 0..NOTES {
        assert!(
            check(
                &stage,
                &format!("/notes/{note}"),
                &note_page(note, &drawn_box(note, 0))
            )
            .is_new()
        );
    }
    // Tag pages: the line every tag page shows, then cards of the notes with that tag. Two
    // tags list different notes, which only their cards tell: without the cards' titles and
    // links their compared text would be that one line.
    for (tag, notes) in [
        ("energy", [0, 2, 4, 6, 8, 10]),
        ("farming", [1, 3, 5, 7, 9, 11]),
        ("football", [4, 5, 12, 13, 14, 15]),
    ] {
        let listing = page(
            &format!("Notes tagged {tag}"),
            &format!(
                "<div class=\"x8\">{}</div><div class=\"x9\">{}</div>",
                prose(6, 25),
                cards(&notes)
            ),
        );
        let decision = check(&stage, &format!("/tag/{tag}/"), &listing);
        assert!(decision.is_new(), "tag {tag}: {decision:?}");
    }
}
