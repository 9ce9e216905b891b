//! Disk full (issue 15): a crawl whose output directory is on a small tmpfs stops with an
//! error naming the full disk; nothing is corrupted (`warcio check`), and once space is freed
//! the same crawl resumes to the end with every distinct page archived exactly once. Needs
//! root (mount); `./scripts/test` runs as root on CI.

use crate::common;

use std::path::Path;
use std::process::Command;

use dedupcrawl_crawler::{run_crawl, warc_files};
use dedupcrawl_testsite::TestSite;

use common::child_crawl::warcio_check;
use common::*;

/// A tmpfs mounted at a directory for the test's life.
struct SmallDisk<'a>(&'a Path);

impl<'a> SmallDisk<'a> {
    fn mount(dir: &'a Path, size: &str) -> Self {
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .expect("mount runs");
        assert!(
            status.success(),
            "cannot mount a tmpfs at {} (the disk-full test needs root)",
            dir.display()
        );
        SmallDisk(dir)
    }

    fn resize(&self, size: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(self.0)
            .status()
            .expect("mount runs");
        assert!(status.success(), "cannot resize the tmpfs");
    }
}

impl Drop for SmallDisk<'_> {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0).status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_stops_the_crawl_cleanly_and_it_resumes_when_space_is_freed() {
    let site = TestSite::start_with(site_options())
        .await
        .expect("site starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let disk = SmallDisk::mount(dir.path(), "400k");
    let out = dir.path().join("out");
    let error = run_crawl(test_config(&site, &out))
        .await
        .expect_err("the crawl cannot fit in 400 KB");
    let message = format!("{error}");
    assert!(
        message.contains("No space left on device"),
        "the error names the full disk: {message}"
    );
    // What was written is readable: no torn record.
    let files = warc_files(&out.join("warc")).expect("warcs");
    assert!(!files.is_empty());
    assert_eq!(warcio_check(&files), None);
    disk.resize("64m");
    let report = run_crawl(test_config(&site, &out))
        .await
        .expect("the crawl resumes once space is freed");
    assert!(report.finished);
    let mut problems = archive_problems(&site.expected(), &out);
    problems.extend(warcio_check(&warc_files(&out.join("warc")).expect("warcs")));
    assert!(problems.is_empty(), "{problems:#?}");
}
