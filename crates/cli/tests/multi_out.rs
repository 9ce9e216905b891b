//! `export`, `clusters` and `dedup --warc` over the OUT directories of several workers: two
//! real `dedupcrawl crawl` processes share one crawl of the fixture site through PostgreSQL
//! (`DEDUPCRAWL_TEST_POSTGRES`), one after the other, each with its own `--out`; the commands given both OUTs must
//! give every distinct page once and the same clusters as a single-worker sled crawl of the
//! same site. A page archived in two OUTs (a worker restarted into another directory) is
//! exported once, with a warning. `--store URL --crawl NAME` finds the OUTs itself.

use crate::common;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use dedupcrawl_archive::{RecordType, WarcReader};
use dedupcrawl_crawler::Decision;
use dedupcrawl_testsite::{Expectations, TestSite};

use crate::support;

fn dedupcrawl() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
}

/// `dedupcrawl export --quiet --format FORMAT --to TO DIRS...`, which must succeed.
fn export(format: &str, to: &Path, dirs: &[&Path]) -> std::process::Output {
    support::run(
        dedupcrawl()
            .args(["export", "--quiet", "--format", format, "--to"])
            .arg(to)
            .args(dirs),
    )
}

/// The exported pages of a JSONL export: url → its line.
fn exported(file: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(file)
        .expect("export wrote its file")
        .lines()
        .map(|line| serde_json::from_str(line).expect("a JSON line"))
        .collect()
}

fn urls_of(pages: &[serde_json::Value]) -> Vec<String> {
    pages
        .iter()
        .map(|page| page["url"].as_str().expect("url").to_string())
        .collect()
}

/// What a URL stands for, whichever member of its duplicate group a crawl archived: the
/// group's representative, or the URL itself outside the fixture's groups.
fn group_key(expected: &Expectations, url: &str) -> String {
    expected
        .group_of(url)
        .map_or_else(|| url.to_string(), |group| group.representative.clone())
}

/// The clusters of `clusters.jsonl` as sets of URLs (representative and members): which
/// member represents a cluster depends on fetch order, the grouping must not.
fn cluster_sets(file: &Path) -> BTreeSet<BTreeSet<String>> {
    std::fs::read_to_string(file)
        .expect("clusters wrote its JSONL")
        .lines()
        .map(|line| {
            let cluster: serde_json::Value = serde_json::from_str(line).expect("JSON");
            let mut urls = BTreeSet::from([cluster["representative"]
                .as_str()
                .expect("representative")
                .to_string()]);
            for member in cluster["members"].as_array().expect("members") {
                urls.insert(member["url"].as_str().expect("url").to_string());
            }
            urls
        })
        .collect()
}

/// URL → the OUT directory (index) whose WARC files hold its response record.
fn response_sources(outs: &[PathBuf]) -> HashMap<String, usize> {
    let mut sources = HashMap::new();
    for (index, out) in outs.iter().enumerate() {
        for record in common::read_warcs(out) {
            if record.record_type == RecordType::Response {
                let earlier = sources.insert(record.target_uri.clone(), index);
                assert!(earlier.is_none(), "{} archived twice", record.target_uri);
            }
        }
    }
    sources
}

/// Pages worker 1 fetches before it stops; worker 2 fetches the rest of the crawl. The
/// fixture's crawl reaches the originals `/article/4`, `/article/5` and the first calendar
/// day within about its first 25 pages, and their copies after about its 45th: 30 splits
/// them between the workers with a margin on both sides.
const WORKER_1_BUDGET: u64 = 30;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_and_clusters_over_the_outs_of_two_workers_of_one_crawl() {
    let server = std::env::var("DEDUPCRAWL_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "DEDUPCRAWL_TEST_POSTGRES is not set: run through ./scripts/test or \
             ./scripts/with-postgres"
        )
    });
    let site = TestSite::start_with(common::site_options())
        .await
        .expect("site starts");
    let expected = site.expected();
    let work = tempfile::tempdir().expect("tempdir");
    let root = work.path().to_path_buf();
    let mut config = common::test_config(&site, &root.join("unused"));
    // Near duplicates as metadata records: their text is in the WARC for clusters.html.
    config.archive.near_duplicates = dedupcrawl_crawler::NearDuplicatePolicy::Metadata;
    let config_path = root.join("crawl.toml");
    std::fs::write(&config_path, toml::to_string(&config).expect("TOML")).expect("write config");
    let crawl_name = format!(
        "multi-out-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_nanos()
    );
    let crawl = |out: &Path, store: &[&str]| {
        let mut command = dedupcrawl();
        command
            .args(["crawl", "--quiet", "--config"])
            .arg(&config_path)
            .arg("--out")
            .arg(out)
            .args(store)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        command
    };

    // Two workers of one crawl, each into its own OUT, one after the other: worker 1 stops at
    // a page budget and worker 2 finishes the crawl, so duplicates whose originals worker 1
    // archived are decided by worker 2 whatever the machine's load (with both at once, a
    // worker that started late on a loaded machine could leave none: a flaky check).
    // Workers crawling at once are tested in the crawler's postgres_crawl.
    let outs = [root.join("worker-1"), root.join("worker-2")];
    let budgets = [Some(WORKER_1_BUDGET), None];
    for (out, budget) in outs.iter().zip(budgets) {
        let mut command = crawl(out, &["--store", &server, "--crawl", &crawl_name]);
        if let Some(budget) = budget {
            command.args(["--max-pages", &budget.to_string()]);
        }
        let output = tokio::task::spawn_blocking(move || command.output().expect("run worker"))
            .await
            .expect("worker joined");
        assert!(
            output.status.success(),
            "worker {} failed: {}",
            out.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let problems = common::shared_crawl_problems(&expected, &outs);
    assert!(
        problems.is_empty(),
        "the shared crawl itself: {problems:#?}"
    );
    let sources = response_sources(&outs);
    for index in 0..2 {
        assert!(
            sources.values().any(|source| *source == index),
            "worker {} archived nothing: the merge would not be tested",
            index + 1
        );
    }

    // The same site crawled by one worker on sled, the reference.
    let single = root.join("single");
    let output = tokio::task::spawn_blocking({
        let mut command = crawl(&single, &[]);
        move || command.output().expect("run crawl")
    })
    .await
    .expect("crawl joined");
    assert!(output.status.success(), "single crawl: {output:?}");

    tokio::task::spawn_blocking(move || {
        check_outputs(&root, &outs, &single, &expected, &sources);
        check_store_form(&root, &outs, &server, &crawl_name);
    })
    .await
    .expect("checks joined");
}

/// `--store URL --crawl NAME` instead of the OUTs: the workers recorded their OUT
/// directories, so the output is the one of the OUTs given in worker-name order.
fn check_store_form(root: &Path, outs: &[PathBuf], server: &str, crawl_name: &str) {
    let by_store = root.join("by-store.jsonl");
    support::run(
        dedupcrawl()
            .args(["export", "--quiet", "--format", "jsonl", "--store", server])
            .args(["--crawl", crawl_name, "--to"])
            .arg(&by_store),
    );
    let by_dirs = std::fs::read_to_string(root.join("both.jsonl")).expect("the OUTs' export");
    assert_eq!(
        std::fs::read_to_string(&by_store).expect("the store's export"),
        by_dirs,
        "--store exports what the OUTs give"
    );
    let clusters = root.join("by-store-clusters.jsonl");
    support::run(
        dedupcrawl()
            .args(["clusters", "--store", server, "--crawl", crawl_name])
            .arg("--jsonl")
            .arg(&clusters)
            .arg("--html")
            .arg(root.join("by-store-clusters.html")),
    );
    assert_eq!(
        cluster_sets(&clusters),
        cluster_sets(&outs[0].join("clusters.jsonl"))
    );
    let unknown = dedupcrawl()
        .args(["export", "--format", "jsonl", "--store", server])
        .args(["--crawl", "no-such-crawl", "--to"])
        .arg(root.join("none.jsonl"))
        .output()
        .expect("run export");
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    assert!(!unknown.status.success());
    assert!(
        stderr.contains("recorded its OUT directory") && stderr.contains("no-such-crawl"),
        "{stderr}"
    );
}

/// Every check on the finished crawls (blocking: runs the binary many times).
fn check_outputs(
    root: &Path,
    outs: &[PathBuf],
    single: &Path,
    expected: &Expectations,
    sources: &HashMap<String, usize>,
) {
    let both: Vec<&Path> = outs.iter().map(PathBuf::as_path).collect();
    let logs: Vec<dedupcrawl_crawler::LogLine> =
        outs.iter().flat_map(|out| common::crawl_log(out)).collect();
    let archived: HashSet<String> = logs
        .iter()
        .filter(|line| line.decision == Decision::Archived && line.status == Some(200))
        .map(|line| line.url.clone())
        .collect();
    assert!(archived.len() > 100, "{} archived", archived.len());

    // JSONL over both OUTs: every archived page of either worker once, nothing else.
    let jsonl = root.join("both.jsonl");
    let output = export("jsonl", &jsonl, &both);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("archived in both"),
        "no page is in both OUTs: {stderr}"
    );
    let pages = exported(&jsonl);
    let urls = urls_of(&pages);
    let unique: HashSet<String> = urls.iter().cloned().collect();
    assert_eq!(unique.len(), urls.len(), "a page exported twice");
    assert_eq!(unique, archived, "the exported pages are the archived ones");

    // The same distinct pages as one worker on sled (up to which member of a group).
    let single_jsonl = root.join("single.jsonl");
    export("jsonl", &single_jsonl, &[single]);
    let keys = |urls: &[String]| -> Vec<String> {
        let mut keys: Vec<String> = urls.iter().map(|url| group_key(expected, url)).collect();
        keys.sort();
        keys
    };
    let single_pages = exported(&single_jsonl);
    assert_eq!(
        keys(&urls),
        keys(&urls_of(&single_pages)),
        "two workers and one export different pages"
    );

    // Each duplicate is listed under the original its chain leads to, also when the two were
    // decided by different workers.
    let listed: HashSet<(String, String)> = pages
        .iter()
        .flat_map(|page| {
            let original = page["url"].as_str().expect("url").to_string();
            page["duplicates"]
                .as_array()
                .expect("duplicates")
                .iter()
                .map(move |d| {
                    (
                        d["url"].as_str().expect("url").to_string(),
                        original.clone(),
                    )
                })
        })
        .collect();
    // URL → the worker whose log decided it.
    let logged_in: HashMap<String, usize> = outs
        .iter()
        .enumerate()
        .flat_map(|(index, out)| {
            common::crawl_log(out)
                .into_iter()
                .map(move |line| (line.url, index))
        })
        .collect();
    let mut across_workers = 0;
    for line in logs.iter().filter(|line| line.duplicate_of.is_some()) {
        let original = line.duplicate_of.clone().expect("duplicate_of");
        if !archived.contains(&original) {
            continue; // a duplicate of a duplicate: listed under the chain's first page
        }
        assert!(
            listed.contains(&(line.url.clone(), original.clone())),
            "{line:?} not listed under {original}"
        );
        if sources.get(&original) != logged_in.get(&line.url) {
            across_workers += 1;
        }
    }
    assert!(
        across_workers > 0,
        "no duplicate was decided by the other worker than its original's"
    );

    // --round works across the OUTs; a round neither log has is refused naming both.
    let round_jsonl = root.join("round-1.jsonl");
    let mut command = dedupcrawl();
    command
        .args([
            "export", "--quiet", "--round", "1", "--format", "jsonl", "--to",
        ])
        .arg(&round_jsonl)
        .args(&both);
    support::run(&mut command);
    assert_eq!(urls_of(&exported(&round_jsonl)).len(), urls.len());
    let refused = dedupcrawl()
        .args([
            "export", "--quiet", "--round", "2", "--format", "jsonl", "--to",
        ])
        .arg(root.join("round-2.jsonl"))
        .args(&both)
        .output()
        .expect("run export");
    let refusal = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "round 2 accepted");
    assert!(
        refusal.contains("rounds 1 to 1") && refusal.contains("worker-2"),
        "{refusal}"
    );

    // WARC over both OUTs: valid for warcio, every response of either worker once.
    let warc_dir = root.join("warc-export");
    export("warc", &warc_dir, &both);
    let mut responses = HashSet::new();
    for file in dedupcrawl_crawler::warc_files(&warc_dir).expect("list the export") {
        support::run(Command::new("warcio").arg("check").arg(&file));
        for record in WarcReader::open(&file).expect("open") {
            let record = record.expect("a whole record");
            assert_ne!(record.record_type(), RecordType::Revisit);
            if record.record_type() == RecordType::Response {
                let url = record.target_uri().expect("target").to_string();
                assert!(responses.insert(url.clone()), "{url} exported twice");
            }
        }
    }
    let all_responses: HashSet<String> = sources.keys().cloned().collect();
    assert_eq!(responses, all_responses);
    assert!(warc_dir.join("index.cdxj").is_file());

    // Clusters over both OUTs: written to the first, equal to the one worker's clusters.
    let mut command = dedupcrawl();
    command.arg("clusters").args(&both);
    support::run(&mut command);
    assert!(
        !outs[1].join("clusters.jsonl").exists(),
        "written to the first OUT only"
    );
    let merged = cluster_sets(&outs[0].join("clusters.jsonl"));
    let mut command = dedupcrawl();
    command.arg("clusters").arg(single);
    support::run(&mut command);
    let reference = cluster_sets(&single.join("clusters.jsonl"));
    assert!(!reference.is_empty());
    assert_eq!(merged, reference, "two workers and one cluster differently");
    let mut in_clusters: Vec<&String> = merged.iter().flatten().collect();
    let total = in_clusters.len();
    in_clusters.sort();
    in_clusters.dedup();
    assert_eq!(in_clusters.len(), total, "a URL in two clusters");
    let html = std::fs::read_to_string(outs[0].join("clusters.html")).expect("clusters.html");
    assert!(
        html.contains("worker-1") && html.contains("worker-2"),
        "the title names both"
    );
    assert!(
        html.contains("only in the duplicate"),
        "texts read from the WARCs"
    );

    // dedup --warc takes the OUTs as they are: every 200 response of both workers is checked.
    let decisions = root.join("dedup.jsonl");
    let mut command = dedupcrawl();
    command
        .args(["dedup", "--quiet", "--index"])
        .arg(root.join("dedup-index"))
        .arg("--out")
        .arg(&decisions)
        .arg("--warc")
        .args(&both);
    support::run(&mut command);
    let checked: Vec<serde_json::Value> = exported(&decisions);
    let checked_urls: HashSet<String> = urls_of(&checked).into_iter().collect();
    assert_eq!(
        checked_urls.len(),
        checked.len(),
        "a response checked twice"
    );
    assert!(
        checked_urls.is_superset(&archived),
        "not every page was checked"
    );
    for out in outs {
        let prefix = out.display().to_string();
        assert!(
            checked.iter().any(|line| line["warc"]
                .as_str()
                .is_some_and(|w| w.starts_with(&prefix))),
            "no WARC of {prefix} read"
        );
    }

    // A worker restarted into another directory: the same pages in a second OUT are exported
    // once, and the export says which.
    let copy = root.join("single-copy");
    copy_dir(single, &copy);
    let twice_jsonl = root.join("twice.jsonl");
    let output = export("jsonl", &twice_jsonl, &[single, &copy]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        urls_of(&exported(&twice_jsonl)),
        urls_of(&single_pages),
        "each page once, from the first OUT"
    );
    // Named one by one (the first 20), then counted.
    let named = urls_of(&single_pages)
        .iter()
        .filter(|url| stderr.contains(&format!("{url} is archived in both")))
        .count();
    assert!(named > 0, "{stderr}");
    assert!(
        stderr.contains("pages in all were archived in more than one OUT"),
        "{stderr}"
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("list") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}
