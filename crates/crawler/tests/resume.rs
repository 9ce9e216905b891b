//! Kill -9 a real crawl process at several points, resume it to the end, and check that every
//! distinct page is archived exactly once, no URL is missing and the WARC files are valid.
//!
//! The crawl runs in a child process: this test binary re-executed with
//! `DEDUPCRAWL_RESUME_CHILD` set, which makes `resume_child_process` run the crawl.

use crate::common;

use dedupcrawl_crawler::{Decision, run_crawl, warc_files};
use dedupcrawl_testsite::TestSite;

use common::child_crawl::*;
use common::*;

/// The test the child runs: [`resume_child_process`] (its full name for `--exact`).
const CHILD_TEST: &str = "resume::resume_child_process";

/// Child mode (see `common::child_crawl`); a no-op in a normal test run.
#[test]
fn resume_child_process() {
    child_entry();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_nine_and_resume_archives_every_page_once() {
    let site = TestSite::start_with(site_options())
        .await
        .expect("site starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).expect("out dir");
    let spec = format!(
        "{},{}|{}",
        site.main_url(),
        site.host_b_url(),
        out.display()
    );
    let mut run = 0;
    let kills = [
        KillAt::Millis(300),
        KillAt::Lines(3),
        KillAt::Lines(20),
        KillAt::Millis(1200),
        KillAt::Lines(45),
        KillAt::Lines(80),
        KillAt::Lines(110),
    ];
    for kill_at in kills {
        run += 1;
        let end = run_child(CHILD_TEST, &spec, &out, kill_at, run).await;
        assert_eq!(
            end,
            ChildEnd::Killed,
            "run {run}: the child ended before {kill_at:?}"
        );
    }
    run += 1;
    assert!(
        run_child(CHILD_TEST, &spec, &out, KillAt::Never, run).await == ChildEnd::Finished,
        "the resumed crawl must finish with exit status 0 (see {}.child{run}.stderr)",
        out.display()
    );

    // One more run: the finished crawl's last checkpoint covers every WARC record, so the
    // resume skips the earlier files whole and reads nothing of the last one.
    let seeds = vec![site.main_url(), site.host_b_url()];
    let again = run_crawl(child_config(seeds, &out))
        .await
        .expect("a finished crawl runs again");
    let files_before = warc_files(&out.join("warc")).expect("warcs").len() as u64;
    assert!(
        again.resume_scan.files_skipped + 2 >= files_before && again.resume_scan.records_read <= 1,
        "the resume read what the checkpoint covers: {:?} ({files_before} files)",
        again.resume_scan
    );
    assert!(
        again.resume_scan.bytes_skipped > 0,
        "{:?}",
        again.resume_scan
    );
    // The crawl log too: the last run's checkpoint covers it, so the resume reads only its
    // end (the torn-line check), and the report still counts the whole round.
    assert!(
        again.resume_scan.crawl_log_bytes_read * 4 <= again.resume_scan.crawl_log_bytes
            && again.resume_scan.crawl_log_bytes_read <= 8 * 1024,
        "the resume read the crawl log its checkpoint covers: {:?}",
        again.resume_scan
    );
    let lines = crawl_log(&out);
    let round = lines.last().expect("a crawl log").round;
    let mut whole = dedupcrawl_crawler::CrawlReport::default();
    for line in lines.iter().filter(|l| l.round == round) {
        whole.add(line);
    }
    assert_eq!(
        again.total, whole.total,
        "the report starts from the checkpoint's counts"
    );
    assert_eq!(again.hosts, whole.hosts);

    let expected = site.expected();
    let mut failures = archive_problems(&expected, &out);
    // No URL lost: every distinct page has a decision in the log.
    let last = last_line_per_url(&crawl_log(&out));
    for url in &expected.distinct_pages {
        if expected.group_of(url).is_none()
            && last
                .get(url)
                .is_none_or(|l| l.decision != Decision::Archived)
        {
            failures.push(format!("{url} missing from the log: {:?}", last.get(url)));
        }
    }
    // The CDXJ index has one line per indexed record, even for records re-indexed on resume.
    let cdxj = std::fs::read_to_string(out.join("index.cdxj")).expect("index.cdxj");
    let mut positions = std::collections::HashSet::new();
    for line in cdxj.lines() {
        let entry = dedupcrawl_archive::CdxjEntry::parse(line).expect("valid CDXJ line");
        if !positions.insert((entry.filename.clone(), entry.offset)) {
            failures.push(format!("CDXJ record indexed twice: {line}"));
        }
    }
    assert!(positions.len() >= expected.distinct_pages.len());
    // The WARC files are valid for warcio.
    let files = warc_files(&out.join("warc")).expect("warcs");
    assert!(
        files.len() >= 6,
        "each run starts a new WARC file: {files:?}"
    );
    failures.extend(warcio_check(&files));
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
