//! Recrawl rounds on the mutating fixture site: every decision of a second and third round
//! (`not_modified` with a strong ETag, a weak ETag and Last-Modified only; `unchanged` without
//! validators; edited a little and a lot; added; moved; `gone`, then dropped), the revisit
//! records checked with warcio, and the revisit interval adapted per URL.

use crate::common;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use dedupcrawl_crawler::{CrawlConfig, Decision, LogLine, run_crawl, run_recrawl, warc_files};
use dedupcrawl_testsite::{MutatingSite, Validation, text};

use common::*;

/// Paths of the site and how they are validated.
const PAGES: [(&str, Validation, u64); 8] = [
    ("/strong", Validation::StrongEtag, 1),
    ("/weak", Validation::WeakEtag, 2),
    ("/modified-only", Validation::LastModifiedOnly, 3),
    ("/plain", Validation::None, 4),
    ("/edit-small", Validation::StrongEtag, 5),
    ("/edit-big", Validation::StrongEtag, 6),
    ("/deleted", Validation::StrongEtag, 7),
    ("/moved", Validation::StrongEtag, 8),
];

fn home(site: &MutatingSite, extra: &[&str]) {
    let mut links: Vec<&str> = PAGES.iter().map(|(path, _, _)| *path).collect();
    links.extend_from_slice(extra);
    // The home page has no validators: it is revisited by content.
    site.put("/", "Home", &text(100, 200), &links, Validation::None);
}

fn config(site: &MutatingSite, out: &Path) -> CrawlConfig {
    let mut config = config_for(vec![site.url("/")], out);
    config.crawl.sitemaps = false;
    // Every URL is due at once: the rounds follow each other without waiting.
    config.recrawl.initial_interval = 0.0;
    config.recrawl.min_interval = 0.0;
    config
}

/// The lines of `round`, by URL.
fn round_lines(out: &Path, round: u32) -> HashMap<String, LogLine> {
    crawl_log(out)
        .into_iter()
        .filter(|line| line.round == round)
        .map(|line| (line.url.clone(), line))
        .collect()
}

/// warcio's view of every record: `(type, target, profile, refers-to target)`.
fn warcio_records(out: &Path) -> Vec<(String, String, String, String)> {
    let mut records = Vec::new();
    for file in warc_files(&out.join("warc")).unwrap() {
        let check = Command::new("warcio")
            .arg("check")
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "warcio check {}: {check:?}",
            file.display()
        );
        let index = Command::new("warcio")
            .args([
                "index",
                "-f",
                "warc-type,warc-target-uri,warc-profile,warc-refers-to-target-uri",
            ])
            .arg(&file)
            .output()
            .unwrap();
        assert!(index.status.success(), "warcio index: {index:?}");
        for line in String::from_utf8_lossy(&index.stdout).lines() {
            let value: serde_json::Value = serde_json::from_str(line).unwrap();
            let field = |name: &str| value[name].as_str().unwrap_or_default().to_string();
            records.push((
                field("warc-type"),
                field("warc-target-uri"),
                field("warc-profile"),
                field("warc-refers-to-target-uri"),
            ));
        }
    }
    records
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rounds_record_every_decision_and_revisits_refer_to_the_earlier_response() {
    let site = MutatingSite::start().await.unwrap();
    for (path, validation, seed) in PAGES {
        site.put(path, path, &text(seed, 300), &["/"], validation);
    }
    home(&site, &[]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let report = run_crawl(config(&site, out)).await.unwrap();
    assert!(report.finished);
    let first = round_lines(out, 1);
    for (path, _, _) in PAGES {
        assert_eq!(
            first[&site.url(path)].decision,
            Decision::Archived,
            "{path}"
        );
    }

    // Round 2: a small edit, a rewrite, a deletion, a move, an added page.
    let small = text(5, 300).replacen(' ', " inserted ", 1);
    site.put(
        "/edit-small",
        "/edit-small",
        &small,
        &["/"],
        Validation::StrongEtag,
    );
    site.put(
        "/edit-big",
        "/edit-big",
        &text(60, 300),
        &["/"],
        Validation::StrongEtag,
    );
    site.delete("/deleted");
    site.move_to("/moved", "/moved-here");
    site.put(
        "/moved-here",
        "/moved-here",
        &text(8, 300),
        &["/"],
        Validation::StrongEtag,
    );
    site.put(
        "/added",
        "/added",
        &text(9, 300),
        &["/"],
        Validation::StrongEtag,
    );
    home(&site, &["/added"]);
    site.clear_requests();
    let report = run_recrawl(config(&site, out), false).await.unwrap();
    assert!(report.finished);
    let second = round_lines(out, 2);
    let decision = |path: &str| second[&site.url(path)].decision;
    assert_eq!(decision("/strong"), Decision::NotModified);
    assert_eq!(decision("/weak"), Decision::NotModified);
    assert_eq!(decision("/modified-only"), Decision::NotModified);
    assert_eq!(decision("/plain"), Decision::Unchanged);
    for path in ["/strong", "/weak", "/modified-only"] {
        assert!(
            site.requests().contains(&(path.to_string(), 304)),
            "{path}: conditional GET answered 304"
        );
    }
    let small_line = &second[&site.url("/edit-small")];
    let big_line = &second[&site.url("/edit-big")];
    for line in [small_line, big_line] {
        assert_eq!(line.decision, Decision::Archived, "{line:?}");
        assert_eq!(
            line.previous_digest, first[&line.url].content_digest,
            "{line:?}"
        );
        assert!(
            line.duplicate_of.is_none(),
            "never a duplicate of itself: {line:?}"
        );
    }
    let small_similarity = small_line.change_similarity.unwrap();
    let big_similarity = big_line.change_similarity.unwrap();
    assert!(small_similarity > 0.8, "small edit: {small_similarity}");
    assert!(big_similarity < 0.2, "rewrite: {big_similarity}");
    assert_eq!(decision("/deleted"), Decision::Gone);
    assert_eq!(decision("/added"), Decision::Archived);
    assert!(second[&site.url("/added")].previous_digest.is_none());
    assert_eq!(decision("/moved-here"), Decision::Archived);
    assert_eq!(second[&site.url("/moved")].status, Some(301));
    assert!(crawl_log(out).iter().all(|line| line.round >= 1));

    let records = warcio_records(out);
    let revisits = |profile_end: &str| -> Vec<String> {
        records
            .iter()
            .filter(|(kind, _, profile, _)| kind == "revisit" && profile.ends_with(profile_end))
            .map(|(_, target, _, refers)| {
                assert_eq!(
                    target, refers,
                    "a revisit refers to the URL's own earlier response"
                );
                target.clone()
            })
            .collect()
    };
    let mut not_modified = revisits("server-not-modified");
    not_modified.sort();
    let mut expected: Vec<String> = ["/modified-only", "/strong", "/weak"]
        .iter()
        .map(|p| site.url(p))
        .collect();
    expected.sort();
    assert_eq!(not_modified, expected);
    assert_eq!(
        revisits("identical-payload-digest"),
        vec![site.url("/plain")]
    );
    let responses_of = |path: &str| {
        records
            .iter()
            .filter(|(kind, target, _, _)| kind == "response" && *target == site.url(path))
            .count()
    };
    assert_eq!(
        responses_of("/edit-small"),
        2,
        "every edit is a new version"
    );
    assert_eq!(responses_of("/edit-big"), 2);
    assert_eq!(responses_of("/strong"), 1);

    // Round 3: still deleted → dropped; round 4 does not ask for it again.
    site.clear_requests();
    run_recrawl(config(&site, out), false).await.unwrap();
    let third = round_lines(out, 3);
    assert_eq!(third[&site.url("/deleted")].decision, Decision::Gone);
    assert!(
        third[&site.url("/deleted")]
            .note
            .as_deref()
            .unwrap_or_default()
            .contains("dropped"),
        "{:?}",
        third[&site.url("/deleted")]
    );
    assert_eq!(
        third[&site.url("/edit-small")].decision,
        Decision::NotModified
    );
    site.clear_requests();
    run_recrawl(config(&site, out), false).await.unwrap();
    assert!(
        !site.requests().iter().any(|(path, _)| path == "/deleted"),
        "a page gone twice is not asked for again"
    );
    assert!(round_lines(out, 4).contains_key(&site.url("/strong")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn urls_not_due_wait_and_all_revisits_them() {
    let site = MutatingSite::start().await.unwrap();
    site.put(
        "/strong",
        "s",
        &text(1, 200),
        &["/"],
        Validation::StrongEtag,
    );
    home(&site, &[]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let mut config = config(&site, out);
    config.recrawl.initial_interval = 3600.0;
    config.recrawl.min_interval = 60.0;
    run_crawl(config.clone()).await.unwrap();
    site.clear_requests();
    run_recrawl(config.clone(), false).await.unwrap();
    assert!(
        round_lines(out, 2).is_empty(),
        "nothing is due after a second"
    );
    run_recrawl(config, true).await.unwrap();
    let fourth = round_lines(out, 3);
    assert_eq!(fourth[&site.url("/strong")].decision, Decision::NotModified);
}
