//! `crawl --url-rules on|off` on the URL variants host ([`UrlVariantsSite`]): with rules on,
//! the fetches of URL variants fall by at least 80 % against rules off while every distinct
//! page is still archived and no rule is applied on the counterexample classes; a rule that
//! turns wrong mid-crawl is retracted and every URL it skipped is fetched; rules survive a
//! restart.

use crate::support::run;

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::process::Command;

use dedupcrawl_crawler::{Decision, LogLine, read_crawl_log};
use dedupcrawl_testsite::{DRIFT_SAME, UrlVariantsSite, UrlVariantsTruth, VARIANT_ITEMS};
use serde_json::Value;

/// One host, one request at a time: the crawl meets each class's originals before its
/// variants, as the class indexes list them. No soft-404 probes or sitemaps: every request
/// is a page of the truth.
const CONFIG: &str = "[crawl]\nprogress = false\nconcurrency = 1\nper_host = 1\nsitemaps = false\n\
                      soft_404_probes = 0\n\n[fetch]\nconnect_timeout = 2.0\nread_timeout = 2.0\n\
                      total_timeout = 5.0\n";

/// Least share of the variant fetches (rules off) that rules on must save.
const MIN_SAVED_SHARE: f64 = 0.8;

/// Crawls `seed` into `dir/NAME` with `--url-rules RULES` (and `extra` flags); returns the
/// crawl log and report.json.
fn crawl(dir: &Path, name: &str, seed: &str, rules: &str, extra: &[&str]) -> (Vec<LogLine>, Value) {
    let out = dir.join(name);
    let mut command = crawl_command(dir, name, seed, rules, "0");
    command.args(extra);
    run(&mut command);
    let log = read_crawl_log(&out.join("crawl.log.jsonl")).expect("crawl log");
    let report = std::fs::read_to_string(out.join("report.json")).expect("report.json");
    (
        log,
        serde_json::from_str(&report).expect("report.json parses"),
    )
}

/// `dedupcrawl crawl` of `seed` into `dir/NAME` with the test's config, `--url-rules RULES`
/// and `--delay DELAY`.
fn crawl_command(dir: &Path, name: &str, seed: &str, rules: &str, delay: &str) -> Command {
    let config = dir.join("crawl.toml");
    std::fs::write(&config, CONFIG).expect("write config");
    let mut command = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"));
    command
        .arg("crawl")
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(dir.join(name))
        .args([
            "--delay",
            delay,
            "--quiet",
            "--seed",
            seed,
            "--url-rules",
            rules,
        ]);
    command
}

/// The requests the variants got.
fn variant_fetches(site: &UrlVariantsSite) -> usize {
    let requests = site.requests();
    site.truth()
        .variants
        .iter()
        .map(|v| requests.get(&v.url).copied().unwrap_or(0))
        .sum()
}

fn lines_of(log: &[LogLine], decision: Decision) -> Vec<&LogLine> {
    log.iter()
        .filter(|line| line.decision == decision)
        .collect()
}

/// Every distinct page has an `archived` line.
fn assert_every_distinct_page_archived(log: &[LogLine], truth: &UrlVariantsTruth) {
    let archived: HashSet<&str> = lines_of(log, Decision::Archived)
        .iter()
        .map(|line| line.url.as_str())
        .collect();
    let missing: Vec<&String> = truth
        .distinct
        .iter()
        .filter(|url| !archived.contains(url.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "distinct pages not archived: {missing:?}"
    );
}

/// A URL variants host (on its own runtime, which must outlive it), a directory for the
/// crawls, and the seed of the tracking-parameter class alone.
fn tracking_class() -> (
    tokio::runtime::Runtime,
    UrlVariantsSite,
    tempfile::TempDir,
    String,
) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = runtime.block_on(UrlVariantsSite::start()).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let seed = format!("{}idx/tracking", site.truth().seed);
    (runtime, site, dir, seed)
}

#[test]
fn url_rules_cut_variant_fetches_and_keep_every_distinct_page() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let (off_site, on_site) = runtime.block_on(async {
        (
            UrlVariantsSite::start().await.expect("host"),
            UrlVariantsSite::start().await.expect("host"),
        )
    });
    let dir = tempfile::tempdir().expect("tempdir");
    let (off_log, off_report) = crawl(dir.path(), "off", &off_site.truth().seed, "off", &[]);
    let (on_log, on_report) = crawl(dir.path(), "on", &on_site.truth().seed, "on", &[]);

    let truth = on_site.truth();
    let (off, on) = (variant_fetches(&off_site), variant_fetches(&on_site));
    assert_eq!(
        off,
        truth.variants.len(),
        "rules off fetches every variant once"
    );
    assert!(lines_of(&off_log, Decision::UrlDuplicate).is_empty());
    assert!(off_report.get("url_rules").is_none(), "{off_report}");
    let saved = 1.0 - on as f64 / off as f64;
    assert!(
        saved >= MIN_SAVED_SHARE,
        "rules on fetched {on} of {off} variants: {:.0} % saved",
        saved * 100.0
    );
    assert_every_distinct_page_archived(&off_log, off_site.truth());
    assert_every_distinct_page_archived(&on_log, truth);

    // Each variant skipped names its original and its class's rule; every class's rule was
    // applied.
    let by_url: HashMap<&str, &LogLine> = lines_of(&on_log, Decision::UrlDuplicate)
        .into_iter()
        .map(|line| (line.url.as_str(), line))
        .collect();
    let mut applied = HashSet::new();
    for (variant, rule) in truth.variants.iter().zip(
        truth
            .rules
            .iter()
            .flat_map(|r| std::iter::repeat_n(*r, VARIANT_ITEMS)),
    ) {
        if let Some(line) = by_url.get(variant.url.as_str()) {
            assert_eq!(
                line.duplicate_of.as_deref(),
                Some(variant.original.as_str())
            );
            assert_eq!(line.rule.as_deref(), Some(rule), "{}", variant.url);
            applied.insert(rule);
        }
    }
    assert_eq!(applied.len(), truth.rules.len(), "applied: {applied:?}");

    // The counterexample classes: every URL fetched, none skipped.
    let requests = on_site.requests();
    for url in &truth.counterexamples {
        assert!(
            !by_url.contains_key(url.as_str()),
            "{url} skipped: {:?}",
            by_url[url.as_str()]
        );
        assert!(
            requests.get(url).is_some_and(|&n| n >= 1),
            "{url} not fetched"
        );
    }
    let figures = &on_report["url_rules"];
    assert!(
        figures["vetoed"].as_u64() >= Some(4),
        "pagination, ids, sort, languages: {figures}"
    );
    assert_eq!(figures["retractions"], 1, "the drift class: {figures}");
    assert_eq!(
        figures["fetches_saved"], on_report["total"]["url_duplicates"],
        "{figures}"
    );
    assert_eq!(figures["fetches_saved"], (off - on) as u64, "{figures}");
    assert_served_figures(&dir.path().join("on"), &on_report);
    assert_why_names_the_rule(&dir.path().join("on"), &on_log, truth);
}

/// `serve OUT` of a finished crawl: `/api/state` has report.json's `url_rules` and
/// url_duplicate counts, `/metrics` each figure under `dedupcrawl_url_rules`.
fn assert_served_figures(out: &Path, report: &Value) {
    let address = crate::support::browser::free_address();
    let mut serve = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .arg("serve")
        .arg(out)
        .arg("--listen")
        .arg(address.to_string())
        .spawn()
        .expect("start serve");
    crate::support::browser::wait_for(address, &mut serve);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let state: Value = loop {
        let state: Value = serde_json::from_str(&crate::support::http_get(address, "/api/state"))
            .expect("/api/state is JSON");
        if state["running"] == false || std::time::Instant::now() > deadline {
            break state;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let metrics = crate::support::http_get(address, "/metrics");
    let _ = serve.kill();
    let _ = serve.wait();
    assert_eq!(state["url_rules"], report["url_rules"], "/api/state");
    assert_eq!(
        state["total"]["url_duplicates"], report["total"]["url_duplicates"],
        "/api/state totals"
    );
    let figures = report["url_rules"].as_object().expect("url_rules");
    for (figure, value) in figures {
        let line = format!("dedupcrawl_url_rules{{figure=\"{figure}\"}} {value}");
        assert!(
            metrics.lines().any(|l| l == line),
            "/metrics lacks {line:?}"
        );
    }
    // A counter never goes down: it keeps the lines of URLs restored after a retraction.
    let lines = report["total"]["url_duplicates"]
        .as_u64()
        .expect("url_duplicates")
        + report["url_rules"]["restored"].as_u64().expect("restored");
    let skips = format!("decision=\"url_duplicate\"}} {lines}");
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("dedupcrawl_pages_total{") && l.ends_with(&skips)),
        "/metrics pages_total lacks url_duplicate {skips:?}"
    );
}

/// `why` on a skipped variant prints its rule as stored: active, the support pairs it was
/// learned from (duplicates of their originals), its skips.
fn assert_why_names_the_rule(out: &Path, log: &[LogLine], truth: &UrlVariantsTruth) {
    let line = lines_of(log, Decision::UrlDuplicate)[0];
    let why = crate::support::why(out, &line.url);
    assert_eq!(why["explanation"]["mechanism"], "url_rule", "{why}");
    let rules = why["url_rules"]["rules"]
        .as_array()
        .expect("url_rules.rules");
    assert_eq!(rules.len(), 1, "{why}");
    let rule = &rules[0];
    assert_eq!(rule["status"], "active", "{rule}");
    let support = rule["support"].as_array().expect("support pairs");
    assert_eq!(support.len(), 5, "the default min_support: {rule}");
    for pair in support {
        let url = pair["url"].as_str().expect("url");
        let variant = truth.variants.iter().find(|v| v.url == url);
        assert_eq!(
            variant.map(|v| v.original.as_str()),
            pair["original"].as_str(),
            "a support pair is a variant and its original: {pair}"
        );
    }
    assert!(rule["skips"].as_u64() >= Some(1), "{rule}");
}

#[test]
fn a_rule_wrong_mid_crawl_is_retracted_and_every_skipped_url_is_fetched() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = runtime.block_on(UrlVariantsSite::start()).expect("host");
    let dir = tempfile::tempdir().expect("tempdir");
    let truth = site.truth();
    let (log, report) = crawl(dir.path(), "out", &truth.drift_seed, "on", &[]);

    let skipped: Vec<(usize, &LogLine)> = log
        .iter()
        .enumerate()
        .filter(|(_, line)| line.decision == Decision::UrlDuplicate)
        .collect();
    assert!(
        skipped.len() > DRIFT_SAME,
        "the rule skipped variants past the point where it turned wrong: {}",
        skipped.len()
    );
    for (at, line) in &skipped {
        assert_eq!(line.rule.as_deref(), Some("drop-param view"));
        let restored = log[at + 1..].iter().find(|later| later.url == line.url);
        assert!(
            restored.is_some_and(|l| matches!(
                l.decision,
                Decision::Archived | Decision::ExactDuplicate
            )),
            "{} skipped and not fetched after the retraction: {restored:?}",
            line.url
        );
    }
    for url in &truth.drift_variants[DRIFT_SAME..] {
        let line = log.iter().rev().find(|l| &l.url == url);
        assert_eq!(line.map(|l| l.decision), Some(Decision::Archived), "{url}");
    }
    let verification = log
        .iter()
        .find(|l| l.rule.is_some() && l.decision == Decision::Archived);
    assert!(
        verification.is_some(),
        "the verification that found distinct content"
    );
    let figures = &report["url_rules"];
    assert_eq!(figures["retractions"], 1, "{figures}");
    assert_eq!(figures["restored"], skipped.len() as u64, "{figures}");
    assert_eq!(
        report["total"]["url_duplicates"], 0,
        "every skip restored: {report}"
    );
}

#[test]
fn rules_survive_a_restart() {
    let (_runtime, site, dir, seed) = tracking_class();
    // The index, the originals and five variants: the rule is learned, then the run stops.
    let budget = (1 + VARIANT_ITEMS + 5).to_string();
    let (_, first) = crawl(dir.path(), "out", &seed, "on", &["--max-pages", &budget]);
    assert_eq!(
        first["url_rules"]["active"], 1,
        "learned in the first run: {first}"
    );
    let fetched_first = variant_fetches(&site);
    let (log, _) = crawl(dir.path(), "out", &seed, "on", &[]);
    let skipped = lines_of(&log, Decision::UrlDuplicate).len();
    assert_eq!(
        variant_fetches(&site) - fetched_first + skipped,
        VARIANT_ITEMS - fetched_first,
        "every variant left is fetched or skipped once"
    );
    assert!(
        variant_fetches(&site) - fetched_first <= 2,
        "the second run applies the rule from its start (one in 20 verified): {} fetched",
        variant_fetches(&site) - fetched_first
    );
}

/// Lines of `decision` in the crawl log as written so far (a line being written is not one).
fn logged(out: &Path, decision: &str) -> usize {
    let needle = format!("\"decision\":\"{decision}\"");
    std::fs::read_to_string(out.join("crawl.log.jsonl"))
        .map(|text| text.lines().filter(|line| line.contains(&needle)).count())
        .unwrap_or(0)
}

/// A crawl killed (SIGKILL) while its rule is skipping variants, then resumed: the rule
/// is active again from the resume's start (no second learning: at most the in-flight
/// verification fetched), every variant is fetched or skipped, none is both, every distinct
/// page is archived, and the report's figures count each skip once.
#[test]
fn rules_survive_a_kill() {
    let (_runtime, site, dir, seed) = tracking_class();
    let out = dir.path().join("out");
    // A host delay, so the skips are spread over time and the kill lands among them.
    let mut child = crawl_command(dir.path(), "out", &seed, "on", "0.05")
        .spawn()
        .expect("start the crawl");
    let started = std::time::Instant::now();
    while logged(&out, "url_duplicate") < 3 {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(60),
            "no skips within a minute"
        );
        assert!(
            child.try_wait().expect("wait").is_none(),
            "the crawl ended before the kill"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().expect("SIGKILL the crawl");
    child.wait().expect("reap the crawl");
    let skipped_before = logged(&out, "url_duplicate");
    let fetched_before = variant_fetches(&site);
    assert!(
        skipped_before < VARIANT_ITEMS - fetched_before,
        "killed with variants left: {skipped_before} skipped, {fetched_before} fetched"
    );

    let (log, report) = crawl(dir.path(), "out", &seed, "on", &[]);
    let variants: HashSet<&str> = site
        .truth()
        .variants
        .iter()
        .map(|v| v.url.as_str())
        .collect();
    let requests = site.requests();
    let skipped: HashSet<&str> = lines_of(&log, Decision::UrlDuplicate)
        .iter()
        .map(|line| line.url.as_str())
        .filter(|url| variants.contains(url))
        .collect();
    assert_eq!(
        skipped.len(),
        lines_of(&log, Decision::UrlDuplicate).len(),
        "each variant skipped once"
    );
    for url in site
        .truth()
        .variants
        .iter()
        .filter(|v| v.class == "tracking")
    {
        let url = url.url.as_str();
        let fetched = requests.get(url).copied().unwrap_or(0);
        assert!(
            skipped.contains(url) != (fetched >= 1),
            "{url}: skipped {}, fetched {fetched} times",
            skipped.contains(url)
        );
    }
    let fetched_after = variant_fetches(&site) - fetched_before;
    assert!(
        fetched_after <= 2,
        "the resume applies the rule from its start: {fetched_after} variants fetched"
    );
    let archived: HashSet<&str> = lines_of(&log, Decision::Archived)
        .iter()
        .map(|line| line.url.as_str())
        .collect();
    for variant in site
        .truth()
        .variants
        .iter()
        .filter(|v| v.class == "tracking")
    {
        assert!(
            archived.contains(variant.original.as_str()),
            "{} not archived",
            variant.original
        );
    }
    let figures = &report["url_rules"];
    assert_eq!(figures["active"], 1, "{figures}");
    assert_eq!(figures["fetches_saved"], skipped.len() as u64, "{figures}");
    assert_eq!(
        report["total"]["url_duplicates"],
        skipped.len() as u64,
        "{report}"
    );
}

/// A `recrawl --all` round after a crawl that learned a rule: the round leases the URLs the
/// first round fetched, the variants among them too (those fetched before the rule was
/// learned or to verify it); the rule, read from the crawl state, skips them from the
/// round's start, one in `verify_every` still fetched.
#[test]
fn rules_apply_in_a_recrawl_round() {
    let (_runtime, site, dir, seed) = tracking_class();
    let (first, _) = crawl(dir.path(), "out", &seed, "on", &[]);
    let skipped_first = lines_of(&first, Decision::UrlDuplicate).len();
    assert!(
        skipped_first >= VARIANT_ITEMS / 2,
        "{skipped_first} skipped"
    );
    let fetched_first = variant_fetches(&site);
    let out = dir.path().join("out");
    run(Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .args(["recrawl", "--all", "--quiet"])
        .arg(&out));
    let log = read_crawl_log(&out.join("crawl.log.jsonl")).expect("crawl log");
    let round_two: Vec<&LogLine> = log.iter().filter(|line| line.round == 2).collect();
    let skipped = round_two
        .iter()
        .filter(|line| line.decision == Decision::UrlDuplicate)
        .count();
    let fetched = variant_fetches(&site) - fetched_first;
    let variants: HashSet<&str> = site
        .truth()
        .variants
        .iter()
        .map(|v| v.url.as_str())
        .collect();
    let leased: Vec<(&str, Decision)> = round_two
        .iter()
        .filter(|line| variants.contains(line.url.as_str()))
        .map(|line| (line.url.as_str(), line.decision))
        .collect();
    // The round leases the URLs the first round fetched (its conditional requests): the
    // variants fetched as support or to verify. The rule skips them now.
    assert_eq!(leased.len(), fetched_first, "{leased:?}");
    assert_eq!(skipped + fetched, fetched_first, "{leased:?}");
    assert!(
        skipped + 2 >= fetched_first,
        "the rule applies in the round from its start: {leased:?}"
    );
    assert!(
        round_two
            .iter()
            .filter(|line| line.decision == Decision::UrlDuplicate)
            .all(|line| line.rule.as_deref() == Some("drop-param ref")),
        "{leased:?}"
    );
}
