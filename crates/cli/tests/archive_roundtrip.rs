//! Round trip: crawl the fixture site, then `export` and `clusters` its output with the real
//! binary. The distinct pages exported are exactly the pages the crawl log marks archived; the
//! WARC export holds originals only; warcio accepts what export writes.

use crate::common;

use std::collections::HashSet;
use std::process::Command;

use dedupcrawl_archive::{RecordType, WarcReader};
use dedupcrawl_crawler::{Decision, run_crawl};
use dedupcrawl_testsite::TestSite;
use support::run;

use crate::support;

fn dedupcrawl(args: &[&str]) -> std::process::Output {
    run(Command::new(env!("CARGO_BIN_EXE_dedupcrawl")).args(args))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_and_clusters_of_a_crawl() {
    let site = TestSite::start_with(common::site_options()).await.unwrap();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("crawl");
    let mut config = common::test_config(&site, &out);
    // Near duplicates as metadata records: they carry the page's text for the clusters report.
    config.archive.near_duplicates = dedupcrawl_crawler::NearDuplicatePolicy::Metadata;
    run_crawl(config).await.expect("crawl finishes");
    let out_str = out.to_str().unwrap();
    let log = common::crawl_log(&out);
    let archived: HashSet<String> = log
        .iter()
        .filter(|l| l.decision == Decision::Archived && l.status == Some(200))
        .map(|l| l.url.clone())
        .collect();
    let duplicates: Vec<_> = log.iter().filter(|l| l.duplicate_of.is_some()).collect();
    assert!(archived.len() > 100, "{} archived", archived.len());
    // Every crawl WARC starts with a warcinfo naming the software, format, robots policy and
    // the crawl's settings.
    for file in dedupcrawl_crawler::warc_files(&out.join("warc")).unwrap() {
        let first = WarcReader::open(&file).unwrap().next().unwrap().unwrap();
        assert_eq!(first.record_type(), RecordType::Warcinfo);
        let info = String::from_utf8_lossy(&first.block).to_string();
        for field in [
            "software: dedupcrawl",
            "format: WARC File Format 1.1",
            "robots: obey",
        ] {
            assert!(
                info.contains(field),
                "{field} missing from warcinfo: {info}"
            );
        }
        assert!(info.contains("dedupcrawl-config: seeds=2"), "{info}");
    }
    assert!(duplicates.len() >= 5, "{} duplicates", duplicates.len());

    // JSONL: one line per distinct page = the archived set; each duplicate listed once under
    // its original.
    let jsonl = work.path().join("pages.jsonl");
    dedupcrawl(&[
        "export",
        out_str,
        "--format",
        "jsonl",
        "--to",
        jsonl.to_str().unwrap(),
    ]);
    let pages: Vec<serde_json::Value> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let exported: HashSet<String> = pages
        .iter()
        .map(|p| p["url"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(exported.len(), pages.len(), "a page exported twice");
    assert_eq!(exported, archived);
    let listed: HashSet<(String, String)> = pages
        .iter()
        .flat_map(|p| {
            let original = p["url"].as_str().unwrap().to_string();
            p["duplicates"]
                .as_array()
                .unwrap()
                .iter()
                .map(move |d| (d["url"].as_str().unwrap().to_string(), original.clone()))
        })
        .collect();
    for line in &duplicates {
        let original = line.duplicate_of.clone().unwrap();
        if archived.contains(&original) {
            assert!(
                listed.contains(&(line.url.clone(), original)),
                "{line:?} not listed"
            );
        }
    }
    let article = pages
        .iter()
        .find(|p| p["url"].as_str().unwrap().ends_with("/article/1"))
        .expect("article 1 exported");
    assert_eq!(article["language"], "en");
    assert!(article["word_count"].as_u64().unwrap() > 200);
    let text = article["text"].as_str().unwrap();
    for marker in ["SCRIPTMARKER", "STYLEMARKER", "COMMENTMARKER"] {
        assert!(!text.contains(marker), "{marker} in exported text");
    }

    // WARC: originals only (no revisit, no duplicate), valid for warcio, with a CDXJ.
    let warc_dir = work.path().join("warc-export");
    dedupcrawl(&[
        "export",
        out_str,
        "--format",
        "warc",
        "--to",
        warc_dir.to_str().unwrap(),
    ]);
    let duplicate_urls: HashSet<&str> = duplicates.iter().map(|l| l.url.as_str()).collect();
    let mut responses = HashSet::new();
    for entry in std::fs::read_dir(&warc_dir).unwrap() {
        let path = entry.unwrap().path();
        if !path.to_string_lossy().ends_with(".warc.gz") {
            continue;
        }
        let check = Command::new("warcio")
            .arg("check")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            check.status.success(),
            "warcio check {}: {check:?}",
            path.display()
        );
        for record in WarcReader::open(&path).unwrap() {
            let record = record.unwrap();
            assert_ne!(record.record_type(), RecordType::Revisit);
            if record.record_type() == RecordType::Response {
                let url = record.target_uri().unwrap().to_string();
                assert!(
                    !duplicate_urls.contains(url.as_str()),
                    "duplicate {url} exported"
                );
                assert!(responses.insert(url), "response exported twice");
            }
        }
    }
    assert!(archived.iter().all(|url| responses.contains(url)));
    assert!(warc_dir.join("index.cdxj").exists());

    // Text: one file per page.
    let text_dir = work.path().join("text");
    dedupcrawl(&[
        "export",
        out_str,
        "--format",
        "text",
        "--to",
        text_dir.to_str().unwrap(),
    ]);
    let files = walk(&text_dir);
    assert_eq!(files, archived.len());

    // Clusters: every representative is an archived page, and the report is written.
    dedupcrawl(&["clusters", out_str]);
    let clusters: Vec<serde_json::Value> = std::fs::read_to_string(out.join("clusters.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!clusters.is_empty());
    for cluster in &clusters {
        let representative = cluster["representative"].as_str().unwrap();
        assert!(archived.contains(representative), "{representative}");
    }
    let html = std::fs::read_to_string(out.join("clusters.html")).unwrap();
    assert!(html.contains("<svg") && html.contains("similarity"));
    // The timestamped copy of article 7 differs from it by its "Generated at" line, and the
    // report shows that line as the duplicate's own text.
    assert!(
        html.contains("only in the duplicate"),
        "no differing text in the report; metadata records: {:?}",
        common::read_warcs(&out)
            .iter()
            .filter(|r| r.record_type == RecordType::Metadata)
            .map(|r| r.target_uri.clone())
            .collect::<Vec<_>>()
    );
    assert!(
        html.contains("Generated at"),
        "the differing line is not shown"
    );
}

fn walk(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let path = e.unwrap().path();
            if path.is_dir() { walk(&path) } else { 1 }
        })
        .sum()
}
