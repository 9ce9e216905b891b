//! `dedupcrawl dedup --warc` on a WARC written by real `wget --warc-file` finds the same
//! duplicate groups as a dedupcrawl crawl of the same fixture site (issue 4, "Tests with real
//! clients").
//!
//! The two crawls do not fetch the same URLs, so the comparison is made on what both judged:
//!
//! * dedupcrawl canonicalizes URLs and never fetches tracking-parameter or session-id variants
//!   (`/article/3?utm_source=…`), nor both orders of a query; wget fetches them all. It also
//!   reads the sitemap, follows the calendar and retries 429/503/500, which wget (run with
//!   `--tries=1` and the traps rejected) does not.
//! * A URL is *judged* by wget's side when `dedupcrawl dedup --warc` gave it a decision (its
//!   first one: wget may store a redirect target twice), and by the crawl when its log says
//!   `archived`, `exact_duplicate`, `near_duplicate` or `contained` with status 200 (noindex
//!   pages, non-HTML skipped by policy, errors and redirects are not judged on content).
//! * Each tool's decisions partition its judged URLs into clusters: a URL judged new/archived
//!   is the root of its cluster; a duplicate belongs to the cluster of its `duplicate_of`
//!   (followed to the root).
//!
//! The rule: for every pair of URLs judged by **both** tools, "same cluster" must agree between
//! the two; and for every expected duplicate group (`expected().duplicate_groups`) that both
//! tools saw (judged at least one member), each tool judged exactly one of the members it saw
//! new/archived and put all the others in that member's cluster. At least four groups must be
//! seen with two or more common members, so the check is not vacuous.

use crate::common;
use crate::support;

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

use dedupcrawl_crawler::{Decision, run_crawl};
use dedupcrawl_testsite::TestSite;
use support::{run, wget_warc};

#[derive(serde::Deserialize, Debug)]
struct WarcDecision {
    url: String,
    decision: String,
    duplicate_of: Option<String>,
}

/// One tool's view: URL → (is an original, the original it duplicates).
struct Judged {
    name: &'static str,
    parent: HashMap<String, Option<String>>,
}

impl Judged {
    /// The cluster root of a judged URL: its chain of `duplicate_of` followed to an original.
    fn root(&self, url: &str) -> String {
        let mut current = url.to_string();
        for _ in 0..64 {
            match self.parent.get(&current) {
                Some(Some(next)) if *next != current => current = next.clone(),
                _ => return current,
            }
        }
        panic!("{}: duplicate_of cycle from {url}", self.name)
    }

    fn is_original(&self, url: &str) -> bool {
        matches!(self.parent.get(url), Some(None))
    }
}

fn wget_judged(site: &TestSite, work: &std::path::Path) -> Judged {
    let warc = wget_warc(work, &[site.main_url(), site.host_b_url()]);

    let output = run(Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .args(["dedup", "--quiet", "--index"])
        .arg(work.join("wget-index"))
        .arg("--warc")
        .arg(&warc));
    let mut parent = HashMap::new();
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let line: WarcDecision = serde_json::from_str(line).unwrap();
        let original = if line.decision == "new" {
            None
        } else {
            Some(line.duplicate_of.unwrap_or_else(|| {
                panic!("{} judged {} without an original", line.url, line.decision)
            }))
        };
        parent.entry(line.url).or_insert(original);
    }
    Judged {
        name: "wget + dedup --warc",
        parent,
    }
}

fn crawl_judged(out: &std::path::Path) -> Judged {
    let mut parent = HashMap::new();
    for line in common::crawl_log(out) {
        if line.status != Some(200) {
            continue;
        }
        let original = match line.decision {
            Decision::Archived => None,
            Decision::ExactDuplicate | Decision::NearDuplicate | Decision::Contained => {
                Some(line.duplicate_of.clone().unwrap_or_else(|| {
                    panic!("crawl log: duplicate without an original: {line:?}")
                }))
            }
            _ => continue,
        };
        parent.entry(line.url).or_insert(original);
    }
    Judged {
        name: "dedupcrawl crawl",
        parent,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wget_warc_dedup_and_a_crawl_find_the_same_duplicate_groups() {
    let site = TestSite::start_with(common::site_options()).await.unwrap();
    let expected = site.expected();
    let work = tempfile::tempdir().unwrap();

    // wget first, then the crawl: the fixture's retry pages count requests per URL.
    let wget = tokio::task::block_in_place(|| wget_judged(&site, work.path()));
    let out = work.path().join("crawl");
    run_crawl(common::test_config(&site, &out))
        .await
        .expect("crawl finishes");
    let crawl = crawl_judged(&out);

    let common_urls: BTreeSet<&String> = wget
        .parent
        .keys()
        .filter(|url| crawl.parent.contains_key(*url))
        .collect();
    assert!(
        common_urls.len() > 50,
        "only {} URLs judged by both (wget {}, crawl {})",
        common_urls.len(),
        wget.parent.len(),
        crawl.parent.len()
    );

    // Pairwise: same cluster in one tool iff same cluster in the other.
    let roots: Vec<(&String, String, String)> = common_urls
        .iter()
        .map(|url| (*url, wget.root(url), crawl.root(url)))
        .collect();
    let mut disagreements = Vec::new();
    for (i, (u, wu, cu)) in roots.iter().enumerate() {
        for (v, wv, cv) in &roots[i + 1..] {
            let same_wget = wu == wv;
            let same_crawl = cu == cv;
            if same_wget != same_crawl {
                disagreements.push(format!(
                    "{u} and {v}: wget says {}, crawl says {} (wget roots {wu} / {wv}, \
                     crawl roots {cu} / {cv})",
                    if same_wget { "same" } else { "different" },
                    if same_crawl { "same" } else { "different" },
                ));
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );

    // Per expected group both tools saw: exactly one original in each, the rest in its cluster.
    let mut compared = 0;
    for group in &expected.duplicate_groups {
        let seen = |judged: &Judged| -> Vec<String> {
            group
                .members
                .iter()
                .filter(|m| judged.parent.contains_key(*m))
                .cloned()
                .collect()
        };
        let (seen_wget, seen_crawl) = (seen(&wget), seen(&crawl));
        if seen_wget.is_empty() || seen_crawl.is_empty() {
            continue;
        }
        for (judged, members) in [(&wget, &seen_wget), (&crawl, &seen_crawl)] {
            let originals: Vec<&String> =
                members.iter().filter(|m| judged.is_original(m)).collect();
            assert_eq!(
                originals.len(),
                1,
                "{}: group {:?} judged {members:?}, originals {originals:?}",
                judged.name,
                group.representative
            );
            for member in members {
                assert_eq!(
                    judged.root(member),
                    *originals[0],
                    "{}: {member} is not in the cluster of {}",
                    judged.name,
                    originals[0]
                );
            }
        }
        let both = seen_wget.iter().filter(|m| seen_crawl.contains(m)).count();
        if both >= 2 {
            compared += 1;
        }
    }
    eprintln!(
        "judged: wget {}, crawl {}, both {}; groups compared: {compared}",
        wget.parent.len(),
        crawl.parent.len(),
        common_urls.len()
    );
    assert!(
        compared >= 4,
        "only {compared} duplicate groups with two or more members judged by both tools"
    );
}
