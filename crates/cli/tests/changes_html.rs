//! `dedupcrawl changes OUT --html FILE` on the mutating fixture site: after a second round
//! where pages were added, edited a little and a lot, left alone (with and without
//! validators) and deleted, the HTML report lists each URL under its kind, with the change
//! similarity and a diff of the old and new text for changed pages; the JSONL is unchanged.
//! `export --round N`, `clusters --round N` and `report.round-N.json` give each round's state.

use std::collections::BTreeMap;
use std::process::Command;

use dedupcrawl_testsite::{MutatingSite, Validation, text};
use scraper::{Html, Selector};

fn dedupcrawl() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
}

/// The crawl of both rounds (the site must outlive the runtime's use: kept together).
struct TwoRounds {
    _runtime: tokio::runtime::Runtime,
    site: MutatingSite,
    dir: tempfile::TempDir,
    out: std::path::PathBuf,
}

/// Round 1: a home page and five pages. Round 2: one edited a little, one a lot, one deleted,
/// one added, one exact copy of an unchanged page added, the rest left alone.
fn two_rounds() -> TwoRounds {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = runtime.block_on(MutatingSite::start()).expect("site");
    let little = text(1, 200);
    site.put("/little", "Little", &little, &["/"], Validation::StrongEtag);
    site.put("/lot", "Lot", &text(2, 200), &["/"], Validation::StrongEtag);
    site.put(
        "/same",
        "Same",
        &text(3, 200),
        &["/"],
        Validation::StrongEtag,
    );
    site.put("/plain", "Plain", &text(4, 200), &["/"], Validation::None);
    site.put(
        "/doomed",
        "Doomed",
        &text(5, 200),
        &["/"],
        Validation::StrongEtag,
    );
    let home = ["/little", "/lot", "/same", "/plain", "/doomed"];
    site.put("/", "Home", &text(9, 60), &home, Validation::StrongEtag);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let crawl = dedupcrawl()
        .args(["crawl", "--delay", "0", "--seed", &site.url("/"), "--out"])
        .arg(&out)
        .output()
        .expect("run crawl");
    assert!(crawl.status.success(), "{crawl:?}");

    let edited = format!("{little} zephyr quokka marmalade");
    site.put("/little", "Little", &edited, &["/"], Validation::StrongEtag);
    site.put(
        "/lot",
        "Lot",
        &text(20, 200),
        &["/"],
        Validation::StrongEtag,
    );
    site.delete("/doomed");
    site.put(
        "/fresh",
        "Fresh",
        &text(6, 200),
        &["/"],
        Validation::StrongEtag,
    );
    site.put(
        "/copy",
        "Same",
        &text(3, 200),
        &["/"],
        Validation::StrongEtag,
    );
    let home = [
        "/little", "/lot", "/same", "/plain", "/doomed", "/fresh", "/copy",
    ];
    site.put("/", "Home", &text(9, 60), &home, Validation::StrongEtag);
    let recrawl = dedupcrawl()
        .args(["recrawl", "--all"])
        .arg(&out)
        .output()
        .expect("run recrawl");
    assert!(recrawl.status.success(), "{recrawl:?}");
    TwoRounds {
        _runtime: runtime,
        site,
        dir,
        out,
    }
}

#[test]
fn the_html_report_lists_every_kind_of_change_with_diffs() {
    let TwoRounds { site, dir, out, .. } = two_rounds();
    let report = dir.path().join("changes.html");
    let changes = dedupcrawl()
        .arg("changes")
        .arg(&out)
        .arg("--html")
        .arg(&report)
        .output()
        .expect("run changes");
    assert!(changes.status.success(), "{changes:?}");
    let jsonl: BTreeMap<String, String> = String::from_utf8_lossy(&changes.stdout)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON line");
            (
                v["url"].as_str().expect("url").to_string(),
                v["change"].as_str().expect("change").to_string(),
            )
        })
        .collect();

    let html = Html::parse_document(&std::fs::read_to_string(&report).expect("report"));
    let row = Selector::parse("tr[data-change]").expect("selector");
    let cell = Selector::parse("td").expect("selector");
    let mut kinds: BTreeMap<String, (String, String)> = BTreeMap::new();
    for tr in html.select(&row) {
        let cells: Vec<String> = tr
            .select(&cell)
            .map(|td| td.text().collect::<String>())
            .collect();
        let kind = tr.value().attr("data-change").expect("kind").to_string();
        kinds.insert(cells[0].clone(), (kind, cells[1].clone()));
    }
    let kind_of = |path: &str| kinds.get(&site.url(path)).map(|(k, _)| k.as_str());
    assert_eq!(kind_of("/fresh"), Some("added"), "{kinds:?}");
    assert_eq!(kind_of("/little"), Some("changed"), "{kinds:?}");
    assert_eq!(kind_of("/lot"), Some("changed"), "{kinds:?}");
    assert_eq!(kind_of("/"), Some("changed"), "{kinds:?}");
    assert_eq!(kind_of("/same"), Some("not_modified"), "{kinds:?}");
    assert_eq!(kind_of("/plain"), Some("unchanged"), "{kinds:?}");
    assert_eq!(kind_of("/doomed"), Some("gone"), "{kinds:?}");
    for (url, (kind, _)) in &kinds {
        assert_eq!(jsonl.get(url), Some(kind), "HTML and JSONL agree on {url}");
    }
    assert_eq!(kinds.len(), jsonl.len());
    let similarity =
        |path: &str| -> f64 { kinds[&site.url(path)].1.parse().expect("a similarity") };
    assert!(similarity("/little") > 0.8, "{kinds:?}");
    assert!(similarity("/lot") < 0.3, "{kinds:?}");

    let details = Selector::parse("details.diff").expect("selector");
    let pre = Selector::parse("pre").expect("selector");
    let diff_of = |path: &str| -> String {
        let url = site.url(path);
        let detail = html
            .select(&details)
            .find(|d| d.value().attr("data-url") == Some(url.as_str()))
            .unwrap_or_else(|| panic!("no diff for {url}"));
        detail
            .select(&pre)
            .map(|p| p.text().collect::<String>())
            .collect()
    };
    let little_diff = diff_of("/little");
    assert!(
        little_diff.contains("+ ") && little_diff.contains("zephyr quokka marmalade"),
        "{little_diff}"
    );
    assert!(little_diff.contains("- "), "{little_diff}");
    let lot_diff = diff_of("/lot");
    assert!(lot_diff.contains(&text(20, 200)[..40]), "{lot_diff}");
}

/// `export --format jsonl --round N` (and the default): URL → text.
fn export(out: &std::path::Path, round: Option<&str>) -> BTreeMap<String, serde_json::Value> {
    let to = out.with_extension(format!("export-{}.jsonl", round.unwrap_or("latest")));
    let mut command = dedupcrawl();
    command
        .arg("export")
        .arg(out)
        .args(["--format", "jsonl", "--to"])
        .arg(&to);
    if let Some(round) = round {
        command.args(["--round", round]);
    }
    let run = command.output().expect("run export");
    assert!(run.status.success(), "{run:?}");
    let mut pages = BTreeMap::new();
    for line in std::fs::read_to_string(&to).expect("export").lines() {
        let value: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        let url = value["url"].as_str().expect("url").to_string();
        assert!(
            pages.insert(url.clone(), value).is_none(),
            "{url} exported twice"
        );
    }
    pages
}

#[test]
fn export_clusters_and_reports_give_each_rounds_state() {
    let TwoRounds {
        site,
        dir: _dir,
        out,
        ..
    } = two_rounds();
    let paths = |list: &[&str]| -> Vec<String> { list.iter().map(|p| site.url(p)).collect() };
    let first = export(&out, Some("1"));
    let second = export(&out, Some("2"));
    let latest = export(&out, None);
    assert_eq!(
        first.keys().cloned().collect::<Vec<_>>(),
        paths(&["/", "/doomed", "/little", "/lot", "/plain", "/same"])
    );
    assert_eq!(
        second.keys().cloned().collect::<Vec<_>>(),
        paths(&["/", "/fresh", "/little", "/lot", "/plain", "/same"]),
        "round 2: /doomed gone, /fresh added, /copy a duplicate"
    );
    let text_of = |pages: &BTreeMap<String, serde_json::Value>, path: &str| {
        pages[&site.url(path)]["text"]
            .as_str()
            .expect("text")
            .to_string()
    };
    assert!(!text_of(&first, "/little").contains("zephyr"));
    assert!(text_of(&second, "/little").contains("zephyr quokka marmalade"));
    assert!(text_of(&first, "/lot").contains(&text(2, 200)[..40]));
    assert!(text_of(&second, "/lot").contains(&text(20, 200)[..40]));
    assert_eq!(second, latest, "the default is the latest round");
    let duplicates = |pages: &BTreeMap<String, serde_json::Value>| {
        pages[&site.url("/same")]["duplicates"]
            .as_array()
            .expect("list")
            .len()
    };
    assert_eq!(duplicates(&first), 0);
    assert_eq!(duplicates(&second), 1, "{}", second[&site.url("/same")]);

    let bad = dedupcrawl()
        .arg("export")
        .arg(&out)
        .args(["--format", "jsonl", "--round", "3", "--to"])
        .arg(out.with_extension("bad.jsonl"))
        .output()
        .expect("run export");
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("has rounds 1 to 2"),
        "{bad:?}"
    );

    let clusters = |round: &str| -> String {
        let jsonl = out.with_extension(format!("clusters-{round}.jsonl"));
        let run = dedupcrawl()
            .arg("clusters")
            .arg(&out)
            .args(["--round", round, "--jsonl"])
            .arg(&jsonl)
            .arg("--html")
            .arg(out.with_extension(format!("clusters-{round}.html")))
            .output()
            .expect("run clusters");
        assert!(run.status.success(), "{run:?}");
        std::fs::read_to_string(&jsonl).expect("clusters")
    };
    assert!(!clusters("1").contains(&site.url("/copy")));
    assert!(clusters("2").contains(&site.url("/copy")));

    for round in [1, 2] {
        let path = out.join(format!("report.round-{round}.json"));
        let report: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("round report"))
                .expect("JSON");
        assert!(report.is_object(), "{path:?}");
    }
    assert_eq!(
        std::fs::read_to_string(out.join("report.round-2.json")).expect("round 2"),
        std::fs::read_to_string(out.join("report.json")).expect("latest")
    );
    assert_ne!(
        std::fs::read_to_string(out.join("report.round-1.json")).expect("round 1"),
        std::fs::read_to_string(out.join("report.json")).expect("latest")
    );
}
