//! `dedupcrawl recrawl OUT` from the command line: the crawl's saved configuration is reused
//! (no flags), a second round of an unchanged site answers `not_modified` for pages with
//! validators and archives only revisit records. An exact duplicate (no response record of its
//! own) is asked conditionally too, so no body comes again.

use std::process::Command;

use dedupcrawl_testsite::{MutatingSite, Validation, text};

#[test]
fn a_second_round_of_an_unchanged_site_is_all_revisits() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = runtime.block_on(MutatingSite::start()).expect("site");
    let mut paths: Vec<String> = (0..10).map(|n| format!("/p/{n}")).collect();
    paths.push("/copy-of-p0".to_string());
    let links: Vec<&str> = paths.iter().map(String::as_str).collect();
    for (n, path) in paths.iter().enumerate() {
        site.put(
            path,
            &paths[n % 10],
            // The last page is a byte-for-byte copy of /p/0: an exact duplicate.
            &text((n % 10) as u64, 150),
            &["/"],
            Validation::StrongEtag,
        );
    }
    site.put("/", "Home", &text(99, 80), &links, Validation::StrongEtag);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let crawl = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .args(["crawl", "--delay", "0", "--seed", &site.url("/"), "--out"])
        .arg(&out)
        .output()
        .expect("run crawl");
    assert!(crawl.status.success(), "{crawl:?}");
    assert!(
        out.join("crawl.toml").exists(),
        "the crawl saves its configuration"
    );
    site.clear_requests();
    let recrawl = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .args(["recrawl", "--all"])
        .arg(&out)
        .output()
        .expect("run recrawl");
    assert!(recrawl.status.success(), "{recrawl:?}");
    let requests = site.requests();
    let pages: Vec<&(String, u16)> = requests
        .iter()
        .filter(|(p, _)| p != "/robots.txt")
        .collect();
    assert_eq!(pages.len(), 12, "{requests:?}");
    assert!(
        pages.iter().all(|(_, status)| *status == 304),
        "{requests:?}"
    );
    let log = std::fs::read_to_string(out.join("crawl.log.jsonl")).expect("crawl log");
    let round_two: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
        .filter(|v| v["round"] == 2)
        .collect();
    assert_eq!(round_two.len(), 12);
    let copy_line = |round: u64| {
        log.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON line"))
            .find(|v| {
                v["round"] == round && v["url"].as_str().unwrap_or("").ends_with("/copy-of-p0")
            })
            .expect("a line of the copy")
    };
    assert_eq!(copy_line(1)["decision"], "exact_duplicate", "{log}");
    assert!(
        copy_line(2)["note"]
            .as_str()
            .is_some_and(|n| n.contains("no earlier response record")),
        "{log}"
    );
    assert!(
        round_two.iter().all(|v| v["decision"] == "not_modified"),
        "{round_two:?}"
    );
    let changes = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .arg("changes")
        .arg(&out)
        .output()
        .expect("run changes");
    assert!(changes.status.success(), "{changes:?}");
    let reported: Vec<serde_json::Value> = String::from_utf8_lossy(&changes.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(reported.len(), 12);
    assert!(
        reported
            .iter()
            .all(|v| v["change"] == "not_modified" && v["round"] == 2)
    );
}
