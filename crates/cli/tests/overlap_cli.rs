//! `dedupcrawl overlap A B`: two real crawls of one fixture host with chosen scopes, so the
//! overlap is known (crawl A: its hub, 60 pages of its own and 40 shared ones; crawl B: its
//! hub, 30 of its own and the same 40), checked against the sampled estimate.

use std::path::Path;
use std::process::Command;

use dedupcrawl_testsite::{MutatingSite, Validation, text};

const ONLY_A: u64 = 60;
const ONLY_B: u64 = 30;
const SHARED: u64 = 40;

fn crawl(site: &MutatingSite, seed: &str, out: &Path, store: &[&str]) {
    let crawl = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .args([
            "crawl",
            "--delay",
            "0",
            "--quiet",
            "--seed",
            &site.url(seed),
            "--out",
        ])
        .arg(out)
        .args(store)
        .output()
        .expect("run crawl");
    assert!(crawl.status.success(), "{crawl:?}");
}

fn overlap(a: &Path, b: &Path, sample: usize, seed: u64) -> serde_json::Value {
    overlap_with(&[a.as_os_str(), b.as_os_str()], sample, seed)
}

fn overlap_with(crawls: &[&std::ffi::OsStr], sample: usize, seed: u64) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .arg("overlap")
        .args(crawls)
        .args(["--json", "--sample", &sample.to_string()])
        .args(["--seed", &seed.to_string()])
        .output()
        .expect("run overlap");
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

fn number(value: &serde_json::Value, key: &str) -> f64 {
    value[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} in {value}"))
}

/// The fixture host: two hubs, each linking to its own pages and the shared ones.
fn two_scopes_site(runtime: &tokio::runtime::Runtime) -> MutatingSite {
    let site = runtime.block_on(MutatingSite::start()).expect("site");
    let section = |prefix: &str, count: u64, first_seed: u64| -> Vec<String> {
        (0..count)
            .map(|n| {
                let path = format!("/{prefix}/{n}");
                site.put(
                    &path,
                    &path,
                    &text(first_seed + n, 150),
                    &[],
                    Validation::None,
                );
                path
            })
            .collect()
    };
    let only_a = section("a", ONLY_A, 1_000);
    let only_b = section("b", ONLY_B, 2_000);
    let shared = section("s", SHARED, 3_000);
    let hub = |path: &str, seed: u64, own: &[String]| {
        let links: Vec<&str> = own.iter().chain(&shared).map(String::as_str).collect();
        site.put(path, path, &text(seed, 80), &links, Validation::None);
    };
    hub("/hub-a", 1, &only_a);
    hub("/hub-b", 2, &only_b);
    site
}

const SIZE_A: f64 = (1 + ONLY_A + SHARED) as f64;
const SIZE_B: f64 = (1 + ONLY_B + SHARED) as f64;

/// Every page sampled: the estimate is the truth.
fn assert_census_is_exact(census: &serde_json::Value) {
    assert_eq!(number(census, "documents_a"), SIZE_A, "{census}");
    assert_eq!(number(census, "documents_b"), SIZE_B, "{census}");
    assert_eq!(number(census, "sampled_a"), SIZE_A, "{census}");
    for (key, truth) in [
        ("a_in_b", SHARED as f64 / SIZE_A),
        ("b_in_a", SHARED as f64 / SIZE_B),
        ("size_ratio", SIZE_A / SIZE_B),
        ("union", SIZE_A + SIZE_B - SHARED as f64),
    ] {
        assert!(
            (number(census, key) - truth).abs() < 1e-9,
            "{key}: {census}"
        );
    }
}

#[test]
fn overlap_of_two_crawls_with_known_scopes() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = two_scopes_site(&runtime);
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    crawl(&site, "/hub-a", &a, &[]);
    crawl(&site, "/hub-b", &b, &[]);

    let (true_a_in_b, true_b_in_a) = (SHARED as f64 / SIZE_A, SHARED as f64 / SIZE_B);
    let true_ratio = SIZE_A / SIZE_B;
    assert_census_is_exact(&overlap(&a, &b, 1_000, 1));

    // Samples of 30 pages of each crawl under 20 seeds: the true size ratio is inside the 95 %
    // interval in at least 19 of them, and the shares' intervals hold the true shares as often.
    let mut ratio_inside = 0;
    let mut shares_inside = 0;
    let mut estimates = Vec::new();
    for seed in 1..=20 {
        let estimate = overlap(&a, &b, 30, seed);
        assert_eq!(number(&estimate, "sampled_a"), 30.0, "{estimate}");
        let within = |key: &str, truth: f64| {
            let bounds = estimate[key].as_array().expect("an interval");
            let (lo, hi) = (
                bounds[0].as_f64().expect("bound"),
                bounds[1].as_f64().expect("bound"),
            );
            lo <= truth && truth <= hi
        };
        ratio_inside += usize::from(within("size_ratio_ci95", true_ratio));
        shares_inside +=
            usize::from(within("a_in_b_ci95", true_a_in_b) && within("b_in_a_ci95", true_b_in_a));
        estimates.push(number(&estimate, "size_ratio"));
    }
    eprintln!("size ratio inside its interval {ratio_inside}/20, shares {shares_inside}/20");
    assert!(
        ratio_inside >= 19,
        "true |A|/|B| {true_ratio:.3} inside the interval {ratio_inside} of 20 times: {estimates:?}"
    );
    assert!(shares_inside >= 18, "{shares_inside} of 20");
    let distinct: std::collections::HashSet<u64> = estimates.iter().map(|e| e.to_bits()).collect();
    assert!(distinct.len() > 1, "different seeds draw different samples");
}

#[test]
fn overlap_of_a_directory_that_is_no_crawl_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .arg("overlap")
        .arg(dir.path())
        .arg(dir.path())
        .output()
        .expect("run overlap");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("holds no crawl state"), "{stderr}");
}

/// `--store`: both crawls in one PostgreSQL database, named instead of their directories.
#[test]
fn overlap_of_two_crawls_in_postgresql() {
    let server = std::env::var("DEDUPCRAWL_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "DEDUPCRAWL_TEST_POSTGRES is not set: run through ./scripts/test or \
             ./scripts/with-postgres"
        )
    });
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = two_scopes_site(&runtime);
    let dir = tempfile::tempdir().expect("tempdir");
    let unique = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_nanos();
    let (name_a, name_b) = (format!("overlap-a-{unique}"), format!("overlap-b-{unique}"));
    crawl(
        &site,
        "/hub-a",
        &dir.path().join("a"),
        &["--store", &server, "--crawl", &name_a],
    );
    crawl(
        &site,
        "/hub-b",
        &dir.path().join("b"),
        &["--store", &server, "--crawl", &name_b],
    );
    let census = overlap_with(
        &[
            name_a.as_ref(),
            name_b.as_ref(),
            "--store".as_ref(),
            server.as_ref(),
        ],
        1_000,
        1,
    );
    assert_census_is_exact(&census);
}
