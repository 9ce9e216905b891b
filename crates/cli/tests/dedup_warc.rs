//! `dedupcrawl dedup --warc` on a WARC written by real `wget --warc-file` crawling the fixture
//! site: duplicate groups found, originals named, a deduplicated copy that warcio accepts.

use std::collections::{HashMap, HashSet};
use std::process::Command;

use dedupcrawl_testsite::TestSite;
use support::{json_lines, run, wget_warc};

use crate::support;

#[derive(serde::Deserialize, Debug)]
struct Line {
    url: String,
    decision: String,
    duplicate_of: Option<String>,
    similarity: Option<f64>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dedup_of_a_wget_warc_names_every_duplicate_and_writes_a_clean_copy() {
    let site = TestSite::start().await.unwrap();
    let expected = site.expected();
    let work = tempfile::tempdir().unwrap();
    let main_url = site.main_url();
    let work_dir = work.path().to_path_buf();
    let warc = tokio::task::spawn_blocking(move || wget_warc(&work_dir, &[main_url]))
        .await
        .unwrap();

    let copy_dir = work.path().join("dedup-copy");
    let output = run(Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .args(["dedup", "--quiet", "--index"])
        .arg(work.path().join("index"))
        .arg("--warc")
        .arg(&warc)
        .arg("--write")
        .arg(&copy_dir));
    let lines: Vec<Line> = json_lines(&output);
    assert!(lines.len() > 50, "only {} decisions", lines.len());
    // wget may fetch a page twice (a redirect target): judge each URL by its first decision.
    let mut first: HashMap<&str, &Line> = HashMap::new();
    for line in &lines {
        first.entry(line.url.as_str()).or_insert(line);
    }

    // Each duplicate group wget fetched has exactly one new member; the others name a member.
    let mut groups_checked = 0;
    for group in &expected.duplicate_groups {
        let fetched: Vec<&&Line> = group
            .members
            .iter()
            .filter_map(|m| first.get(m.as_str()))
            .collect();
        if fetched.len() < 2 {
            continue;
        }
        groups_checked += 1;
        let new: Vec<_> = fetched.iter().filter(|l| l.decision == "new").collect();
        assert_eq!(
            new.len(),
            1,
            "group {:?}: {fetched:?}",
            group.representative
        );
        for line in fetched.iter().filter(|l| l.decision != "new") {
            let original = line.duplicate_of.as_deref().unwrap();
            assert!(group.members.iter().any(|m| m == original), "{line:?}");
            assert!(line.similarity.unwrap() >= 0.8, "{line:?}");
        }
    }
    assert!(
        groups_checked >= 5,
        "only {groups_checked} groups fetched by wget"
    );
    // Pages in no group are new.
    for line in first.values() {
        if expected.group_of(&line.url).is_none() && line.decision != "new" {
            panic!("distinct page judged a duplicate: {line:?}");
        }
    }

    // The copy: valid for warcio, and its 200 responses are exactly the new pages.
    let copies: Vec<_> = std::fs::read_dir(&copy_dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".warc.gz"))
        .collect();
    assert_eq!(copies.len(), 1);
    run(Command::new("warcio").arg("check").arg(&copies[0]));
    let listing = run(Command::new("python3")
        .arg("-c")
        .arg(
            "import sys\nfrom warcio.archiveiterator import ArchiveIterator\n\
         for r in ArchiveIterator(open(sys.argv[1], 'rb')):\n\
         \x20   if r.rec_type == 'response' and r.http_headers.get_statuscode() == '200':\n\
         \x20       print(r.rec_headers.get_header('WARC-Target-URI'))\n",
        )
        .arg(&copies[0]));
    let copied: HashSet<String> = String::from_utf8(listing.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let new: HashSet<String> = lines
        .iter()
        .filter(|l| l.decision == "new")
        .map(|l| l.url.clone())
        .collect();
    assert_eq!(copied, new);
    assert!(copy_dir.join("index.cdxj").exists());
}
