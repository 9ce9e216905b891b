//! `dedupcrawl changes OUT --html FILE` on the mutating fixture site: after a second round
//! where pages were added, edited a little and a lot, left alone (with and without
//! validators) and deleted, the HTML report lists each URL under its kind, with the change
//! similarity and a diff of the old and new text for changed pages; the JSONL is unchanged.

use std::collections::BTreeMap;
use std::process::Command;

use dedupcrawl_testsite::{MutatingSite, Validation, text};
use scraper::{Html, Selector};

fn dedupcrawl() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
}

#[test]
fn the_html_report_lists_every_kind_of_change_with_diffs() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = runtime.block_on(MutatingSite::start()).expect("site");
    let little = text(1, 200);
    site.put("/little", "Little", &little, &["/"], Validation::StrongEtag);
    site.put("/lot", "Lot", &text(2, 200), &["/"], Validation::StrongEtag);
    site.put("/same", "Same", &text(3, 200), &["/"], Validation::StrongEtag);
    site.put("/plain", "Plain", &text(4, 200), &["/"], Validation::None);
    site.put("/doomed", "Doomed", &text(5, 200), &["/"], Validation::StrongEtag);
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
    site.put("/lot", "Lot", &text(20, 200), &["/"], Validation::StrongEtag);
    site.delete("/doomed");
    site.put("/fresh", "Fresh", &text(6, 200), &["/"], Validation::StrongEtag);
    let home = ["/little", "/lot", "/same", "/plain", "/doomed", "/fresh"];
    site.put("/", "Home", &text(9, 60), &home, Validation::StrongEtag);
    let recrawl = dedupcrawl()
        .args(["recrawl", "--all"])
        .arg(&out)
        .output()
        .expect("run recrawl");
    assert!(recrawl.status.success(), "{recrawl:?}");

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
    let similarity = |path: &str| -> f64 {
        kinds[&site.url(path)].1.parse().expect("a similarity")
    };
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
