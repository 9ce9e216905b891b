//! `dedupcrawl why OUT URL --json` on a crawl of the fixture site: one check per decision kind
//! the crawl produced, each against the crawl log's line for that URL: the recorded reason,
//! its mechanism, and the compared texts with their counts recomputed.

use crate::support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use dedupcrawl_crawler::{Decision, LogLine, read_crawl_log};
use dedupcrawl_testsite::{TestSite, TestSiteOptions};
use serde_json::Value;

use support::{run, why};

/// Test-sized timeouts; near duplicates are only logged (`archive.near_duplicates = "log"`, the
/// default): `why` shows their compared text from the index's records.
const CONFIG: &str = "[crawl]\nprogress = false\nconcurrency = 8\n\n[fetch]\nconnect_timeout = 1.0\n\
                      read_timeout = 1.0\ntotal_timeout = 2.0\nretry_backoff = 0.2\n\
                      max_retry_after = 5.0\nrobots_retry = 1.0\nmax_body_bytes = 2097152\n";

/// Crawls `seeds` with `dedupcrawl crawl` and [`CONFIG`] into `dir/out`, returned.
fn crawl(dir: &Path, seeds: &[String]) -> PathBuf {
    let out = dir.join("out");
    let config = dir.join("crawl.toml");
    std::fs::write(&config, CONFIG).expect("write config");
    let mut command = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"));
    command
        .arg("crawl")
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .args(["--delay", "0"]);
    for seed in seeds {
        command.arg("--seed").arg(seed);
    }
    run(&mut command);
    out
}

#[test]
fn why_explains_every_decision_kind_of_a_fixture_crawl() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = runtime
        .block_on(TestSite::start_with(TestSiteOptions {
            crawl_delay: Some(0.05),
            retry_after_secs: 1,
            slow_delay: Duration::from_secs(3),
            huge_bytes: 30 * 1024 * 1024,
            separate_ips: true,
        }))
        .expect("site starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = crawl(dir.path(), &[site.main_url(), site.host_b_url()]);

    // The last line per URL, one URL per decision kind (`contained`, `out_of_scope` and the
    // recrawl kinds are in why_recrawl_decisions.rs).
    let mut last: BTreeMap<String, LogLine> = BTreeMap::new();
    for line in read_crawl_log(&out.join("crawl.log.jsonl")).expect("crawl log") {
        last.insert(line.url.clone(), line);
    }
    let mut examples: BTreeMap<&'static str, &LogLine> = BTreeMap::new();
    for line in last.values() {
        let better = |old: &&LogLine| {
            // Prefer a near duplicate with a similarity (not a rel=canonical one).
            line.decision == Decision::NearDuplicate
                && old.similarity.is_none()
                && line.similarity.is_some()
                && !line.note.as_deref().unwrap_or("").contains("rel=canonical")
        };
        match examples.get(line.decision.as_str()) {
            Some(old) if !better(old) => {}
            _ => {
                examples.insert(line.decision.as_str(), line);
            }
        }
    }
    for kind in [
        "archived",
        "exact_duplicate",
        "near_duplicate",
        "robots_disallowed",
        "filtered",
        "error",
    ] {
        assert!(
            examples.contains_key(kind),
            "the fixture crawl has no {kind} line: {:?}",
            examples.keys().collect::<Vec<_>>()
        );
    }

    let mut failures = Vec::new();
    for (kind, line) in &examples {
        let answer = why(&out, &line.url);
        let mut check = |ok: bool, what: &str| {
            if !ok {
                failures.push(format!("{kind} {}: {what}: {answer:#}", line.url));
            }
        };
        check(answer["decision"] == *kind, "decision");
        check(answer["url"] == line.url.as_str(), "url");
        check(
            answer["reason"].as_str().is_some_and(|r| !r.is_empty()),
            "reason",
        );
        let found_via = answer["found_via"].as_array().cloned().unwrap_or_default();
        check(
            found_via.last().and_then(Value::as_str) == Some(line.url.as_str()),
            "found_via ends at the URL",
        );
        if let Some(via) = &line.via {
            check(
                found_via.iter().any(|u| u.as_str() == Some(via.as_str())),
                "found_via has the page it was found on",
            );
        }
        match *kind {
            "exact_duplicate" | "near_duplicate" | "contained" => {
                let duplicate = &answer["duplicate"];
                check(
                    duplicate["of"].as_str() == line.duplicate_of.as_deref(),
                    "duplicate.of",
                );
                check(
                    duplicate["original_decision"] == "archived",
                    "original archived",
                );
                // The reason is the one the crawl log recorded, not a reconstruction.
                let recorded = serde_json::to_value(&line.reason).expect("reason");
                check(
                    !recorded.is_null() && answer["explanation"] == recorded,
                    "the recorded reason",
                );
                check(
                    duplicate["mechanism"] == recorded["mechanism"],
                    "the mechanism",
                );
                if line
                    .note
                    .as_deref()
                    .is_some_and(|n| n.contains("rel=canonical"))
                {
                    continue;
                }
                // The texts both pages were compared on, read from the index's records: the
                // shared blocks are shown, and the exact counts recomputed from the stored
                // texts are the ones the decision recorded.
                let compared = &duplicate["compared"];
                let shared = compared["shared"].as_array().map_or(0, Vec::len);
                check(shared > 0, "shared blocks");
                if let Some(counts) = recorded.get("shingles") {
                    check(compared["shingles"] == *counts, "recomputed shingle counts");
                    check(
                        compared["resemblance"].as_f64() == line.similarity
                            || compared["containment"].as_f64() == line.similarity,
                        "the similarity recomputed",
                    );
                }
                // Same payload: the same blocks.
                if recorded["mechanism"] == "exact_payload" {
                    check(
                        compared["only_in_page"]
                            .as_array()
                            .is_some_and(Vec::is_empty),
                        "a same-payload duplicate has no block of its own",
                    );
                }
            }
            "robots_disallowed" => check(
                answer["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("robots.txt")),
                "robots reason",
            ),
            "out_of_scope" | "filtered" => check(
                answer["note"]
                    .as_str()
                    .is_some_and(|n| answer["reason"].as_str().is_some_and(|r| r.contains(n))),
                "the scope/policy rule is named",
            ),
            "error" => check(
                answer["error"].as_str() == line.error.as_deref() && line.error.is_some(),
                "error",
            ),
            _ => check(answer["duplicate"].is_null(), "no duplicate"),
        }
    }

    // Every line the dedup decided names its mechanism, and why prints the same one; the
    // fixture crawl has pages decided by each of these.
    let mut mechanisms = std::collections::BTreeSet::new();
    for line in last.values() {
        if let Some(reason) = &line.reason {
            mechanisms.insert(reason.mechanism.as_str());
        }
        if matches!(
            line.decision,
            Decision::Archived
                | Decision::ExactDuplicate
                | Decision::NearDuplicate
                | Decision::Contained
        ) && line.status == Some(200)
        {
            assert!(line.reason.is_some(), "no reason: {line:?}");
        }
    }
    for mechanism in ["new", "exact_payload", "near_lsh", "canonical"] {
        assert!(
            mechanisms.contains(mechanism),
            "no {mechanism} decision in the fixture crawl: {mechanisms:?}"
        );
    }

    // A redirect chain: a URL whose line says "redirect to".
    let redirecting = last
        .values()
        .find(|l| {
            l.note
                .as_deref()
                .is_some_and(|n| n.starts_with("redirect to "))
        })
        .expect("the fixture site redirects");
    let answer = why(&out, &redirecting.url);
    let chain = answer["redirect_chain"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if chain.len() < 2
        || chain[0] != redirecting.url.as_str()
            && !chain.iter().any(|u| u == redirecting.url.as_str())
    {
        failures.push(format!("redirect chain of {}: {answer:#}", redirecting.url));
    }
    // A URL never seen is an error, not an empty answer.
    let missing = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .args(["why"])
        .arg(&out)
        .arg(format!("{}never-linked-anywhere", site.main_url()))
        .output()
        .expect("run why");
    assert!(!missing.status.success(), "an unknown URL fails");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A soft 404 of the soft-404 shop, crawled with `dedupcrawl crawl` (probes on by default):
/// `why` names the probe URL whose answer the page resembles and the resemblance.
#[test]
fn why_names_the_probe_a_soft_404_resembles() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let shop = runtime
        .block_on(dedupcrawl_testsite::Soft404Site::start())
        .expect("shop starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = crawl(dir.path(), std::slice::from_ref(&shop.truth().seed));
    let url = &shop.truth().soft_404s[0];
    let lines = read_crawl_log(&out.join("crawl.log.jsonl")).expect("crawl log");
    let line = lines
        .iter()
        .rev()
        .find(|l| &l.url == url)
        .expect("the soft 404 has a line");
    let probe = line.resembles.as_deref().expect("resembles logged");
    let answer = why(&out, url);
    assert_eq!(answer["decision"], "soft_404", "{answer:#}");
    assert_eq!(answer["resembles"], probe, "{answer:#}");
    let reason = answer["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains(probe)
            && reason.contains(&format!("{:.3}", line.similarity.unwrap_or(-1.0))),
        "{reason}"
    );
}
