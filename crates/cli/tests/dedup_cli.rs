//! The `dedupcrawl compare` and `dedupcrawl dedup` commands, run as a user would.

use std::path::Path;
use std::process::Command;

use crate::support;
use support::{json_lines, run};

fn dedupcrawl() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
}

fn article(seed: u64, words: usize) -> String {
    const BANK: &[&str] = &[
        "harbor", "lantern", "meadow", "granite", "falcon", "orchard", "thunder", "voyage",
        "crystal", "saddle", "timber", "nectar", "quartz", "walnut", "zephyr", "glacier",
        "compass", "ember", "bakery", "cellar", "dynamo", "goblet", "kettle", "lagoon",
    ];
    let mut state = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    (0..words)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            BANK[(state >> 33) as usize % BANK.len()]
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn page(body: &str) -> String {
    format!("<html lang=\"en\"><body><nav><a href=\"/\">Home</a></nav><p>{body}</p></body></html>")
}

fn write(dir: &Path, name: &str, content: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

#[derive(serde::Deserialize, Debug)]
struct Line {
    path: String,
    decision: String,
    duplicate_of: Option<String>,
    similarity: Option<f64>,
}

fn run_dedup(site: &Path, index: &Path) -> Vec<Line> {
    let output = run(dedupcrawl()
        .args(["dedup", "--quiet", "--index"])
        .arg(index)
        .arg(site));
    json_lines(&output)
}

#[test]
fn dedup_names_duplicates_and_remembers_them_across_runs() {
    let work = tempfile::tempdir().unwrap();
    let site = work.path().join("mirror");
    let original = page(&article(1, 400));
    write(&site, "a/original.html", &original);
    write(&site, "b/copy.html", &original);
    let mut words: Vec<&str> = article(1, 400).leak().split(' ').collect();
    words[200] = "changed";
    write(&site, "c/edited.html", &page(&words.join(" ")));
    write(&site, "d/other.html", &page(&article(2, 400)));
    write(&site, "e/notes.txt", "not html, ignored");

    let index = work.path().join("index");
    let lines = run_dedup(&site, &index);
    assert_eq!(lines.len(), 4, "{lines:?}");
    let by_name = |suffix: &str| lines.iter().find(|l| l.path.ends_with(suffix)).unwrap();
    assert_eq!(by_name("original.html").decision, "new");
    assert_eq!(by_name("other.html").decision, "new");
    let copy = by_name("copy.html");
    assert_eq!(copy.decision, "exact_duplicate");
    assert!(
        copy.duplicate_of
            .as_deref()
            .unwrap()
            .ends_with("a/original.html")
    );
    let edited = by_name("edited.html");
    assert_eq!(edited.decision, "near_duplicate");
    assert!(
        edited
            .duplicate_of
            .as_deref()
            .unwrap()
            .ends_with("a/original.html")
    );
    assert!(edited.similarity.unwrap() > 0.8);
    // Paths are under the PATH given.
    assert!(lines.iter().all(|l| Path::new(&l.path).starts_with(&site)));

    // Re-running against the same index finds everything already known.
    let again = run_dedup(&site, &index);
    assert_eq!(again.len(), 4);
    assert!(again.iter().all(|l| l.decision != "new"), "{again:?}");
}

#[test]
fn a_duplicate_names_its_original_and_the_cluster_stays_one() {
    let work = tempfile::tempdir().unwrap();
    let site = work.path().join("mirror");
    let words: Vec<String> = article(7, 400).split(' ').map(str::to_string).collect();
    let edit = |words: &[String], at: &[usize]| -> Vec<String> {
        let mut out = words.to_vec();
        for &i in at {
            out[i] = format!("edit{i}");
        }
        out
    };
    // a: 5 words changed (J ≈ 0.88 with x); b: a with one more (J ≈ 0.97 with a, 0.86 with x).
    let a = edit(&words, &[40, 110, 180, 250, 320]);
    let b = edit(&a, &[360]);
    write(&site, "1-x.html", &page(&words.join(" ")));
    write(&site, "2-a.html", &page(&a.join(" ")));
    write(&site, "3-b.html", &page(&b.join(" ")));
    write(&site, "4-a-copy.html", &page(&a.join(" ")));
    let index = work.path().join("index");
    let output = run(dedupcrawl()
        .args(["dedup", "--quiet", "--index"])
        .arg(&index)
        .arg(&site));
    let lines: Vec<Line> = json_lines(&output);
    let by_name = |suffix: &str| lines.iter().find(|l| l.path.ends_with(suffix)).unwrap();
    let of = |line: &Line| {
        let path = line.duplicate_of.clone().unwrap_or_default();
        path.rsplit('/').next().unwrap_or_default().to_string()
    };
    assert_eq!(by_name("1-x.html").decision, "new");
    let a_line = by_name("2-a.html");
    assert_eq!(
        (a_line.decision.as_str(), of(a_line).as_str()),
        ("near_duplicate", "1-x.html")
    );
    // b is closer to a than to x, but a is a duplicate: b names x, the original, with their
    // own resemblance.
    let b_line = by_name("3-b.html");
    assert_eq!(
        (b_line.decision.as_str(), of(b_line).as_str()),
        ("near_duplicate", "1-x.html")
    );
    assert!(b_line.similarity < a_line.similarity, "{lines:?}");
    // The same bytes as a: an exact duplicate of a, not a weaker near duplicate of x.
    let copy = by_name("4-a-copy.html");
    assert_eq!(
        (copy.decision.as_str(), of(copy).as_str()),
        ("exact_duplicate", "2-a.html")
    );
    // One cluster, rooted at x.
    let summary = String::from_utf8(output.stderr).unwrap();
    assert!(summary.contains("clusters 1"), "{summary}");
}

#[test]
fn super_shingles_are_named_as_in_the_config_file_too() {
    let work = tempfile::tempdir().unwrap();
    let site = work.path().join("site");
    let mut words: Vec<String> = article(11, 400).split(' ').map(str::to_string).collect();
    write(&site, "1-x.html", &page(&words.join(" ")));
    words[200] = "edited".into();
    write(&site, "2-y.html", &page(&words.join(" ")));
    for spelling in ["super-shingles", "super_shingles"] {
        let index = work.path().join(spelling);
        let output = run(dedupcrawl()
            .args(["dedup", "--quiet", "--near-method", spelling, "--index"])
            .arg(&index)
            .arg(&site));
        let lines: Vec<Line> = json_lines(&output);
        let y = lines.iter().find(|l| l.path.ends_with("2-y.html")).unwrap();
        assert_eq!(y.decision, "near_duplicate", "{spelling}: {lines:?}");
    }
}

#[test]
fn compare_reports_the_rose_example() {
    let work = tempfile::tempdir().unwrap();
    let (a, b) = (work.path().join("a.txt"), work.path().join("b.txt"));
    std::fs::write(&a, "a rose is a rose is a rose").unwrap();
    std::fs::write(&b, "a rose is a flower which is a rose").unwrap();
    let output = run(dedupcrawl()
        .args(["compare", "--json", "--view", "full", "--shingle-size", "1"])
        .arg(&a)
        .arg(&b));
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    // Stop words and stemming are on by default: "a", "is", "which" go; rose/flower stay.
    assert_eq!(report["tokens"], serde_json::json!([3, 3]));
    assert_eq!(report["exact_resemblance"], serde_json::json!(0.5));

    let explained = dedupcrawl()
        .args(["compare", "--explain"])
        .arg(&a)
        .arg(&a)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&explained.stdout);
    assert!(
        text.contains("exact resemblance |A∩B|/|A∪B|        1.0000"),
        "{text}"
    );
    assert!(text.contains("== shared (1 blocks)"), "{text}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let work = tempfile::tempdir().unwrap();
    let output = dedupcrawl()
        .args(["dedup", "--threshold", "1.5", "--index"])
        .arg(work.path().join("i"))
        .arg(work.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("threshold") && stderr.contains("(0, 1]"),
        "{stderr}"
    );

    let output = dedupcrawl()
        .args(["dedup", "--index"])
        .arg(work.path().join("i"))
        .arg(work.path().join("missing"))
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("neither a file nor a directory"),
        "{stderr}"
    );
}

/// `compare A B --exact` prints the figures a decision is verified on, and they are the
/// figures `dedup` reports for the same two files: a page that is the first 300 words of a
/// 400-word page is contained in it exactly, and a copy with words changed resembles it by
/// the exact count of shared shingles.
#[test]
fn compare_exact_prints_the_figures_dedup_decides_on() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("pages");
    let text = article(11, 400);
    let words: Vec<&str> = text.split(' ').collect();
    write(&dir, "1-whole.html", &page(&words.join(" ")));
    write(&dir, "2-part.html", &page(&words[..300].join(" ")));
    let mut edited = words.clone();
    edited[200] = "changed";
    write(&dir, "3-edited.html", &page(&edited.join(" ")));
    let exact = |a: &str, b: &str| -> serde_json::Value {
        let output = run(dedupcrawl()
            .args(["compare", "--exact", "--json"])
            .arg(dir.join(a))
            .arg(dir.join(b)));
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let part = exact("2-part.html", "1-whole.html");
    assert_eq!(part["containment_a_in_b"], 1.0, "{part:#}");
    let shingles = &part["shingles"];
    assert_eq!(shingles["shared"], shingles["page"], "{part:#}");
    let copy = exact("3-edited.html", "1-whole.html");
    let resemblance = copy["resemblance"].as_f64().unwrap();
    assert!((0.9..1.0).contains(&resemblance), "{copy:#}");
    // The same figures from `dedup`, in its lines' `similarity` and `reason.verified`.
    let index = work.path().join("index");
    let output = run(dedupcrawl()
        .args(["dedup", "--quiet", "--index"])
        .arg(&index)
        .arg(&dir));
    let lines: Vec<serde_json::Value> = json_lines(&output);
    let edited_line = lines
        .iter()
        .find(|l| l["path"].as_str().unwrap().ends_with("3-edited.html"))
        .unwrap();
    assert_eq!(edited_line["decision"], "near_duplicate", "{edited_line:#}");
    assert_eq!(edited_line["similarity"].as_f64(), Some(resemblance));
    assert_eq!(
        edited_line["reason"]["verified"].as_f64(),
        Some(resemblance)
    );
    assert_eq!(edited_line["reason"]["mechanism"], "near_lsh");
}
