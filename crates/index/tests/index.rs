//! The embedded (sled) index: the shared [`DedupIndex`] behaviour suite, and what only this
//! backend has: format checks and kill -9 durability.

use crate::index_suite;

use index_suite::{document, tokens};

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use dedupcrawl_index::{DedupDecision, DedupIndex, IndexConfig, IndexError, SledDedupIndex};

fn open(dir: &Path) -> SledDedupIndex {
    SledDedupIndex::open(dir, IndexConfig::default()).unwrap()
}

#[test]
fn a_missing_document_log_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    {
        let index = open(dir.path());
        index
            .check_and_insert(&document("a", &tokens(1, 500)))
            .unwrap();
        index.flush().unwrap();
    }
    std::fs::remove_file(dir.path().join(dedupcrawl_index::DOCUMENT_LOG_FILE)).unwrap();
    let error = SledDedupIndex::open(dir.path(), IndexConfig::default()).unwrap_err();
    assert!(matches!(error, IndexError::MissingLog { .. }), "{error}");
    assert!(
        error.to_string().contains("dedupcrawl repair OUT"),
        "{error}"
    );
    // A fresh index has no log yet, and that is fine.
    let fresh = tempfile::tempdir().unwrap();
    drop(open(fresh.path()));
    std::fs::remove_file(fresh.path().join(dedupcrawl_index::DOCUMENT_LOG_FILE)).unwrap();
    drop(open(fresh.path()));
}

#[test]
fn incompatible_settings_and_format_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    drop(open(dir.path()));
    // A different threshold is fine (buckets are rebuilt), a different k is not.
    drop(SledDedupIndex::open(dir.path(), IndexConfig::for_threshold(0.9, 128)).unwrap());
    let error = SledDedupIndex::open(dir.path(), IndexConfig::for_threshold(0.8, 64)).unwrap_err();
    assert!(
        matches!(error, IndexError::ParameterMismatch { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("k=128"), "{error}");
    {
        let db = dedupcrawl_index::open_sled_waiting_for_lock(dir.path()).unwrap();
        db.open_tree("dedup_index")
            .unwrap()
            .insert("Mformat", "dedupcrawl-index/999")
            .unwrap();
        db.flush().unwrap();
    }
    let error = SledDedupIndex::open(dir.path(), IndexConfig::default()).unwrap_err();
    assert!(
        matches!(error, IndexError::IncompatibleFormat { .. }),
        "{error}"
    );
    assert!(
        error.to_string().contains("new --index directory"),
        "{error}"
    );
}

const CHILD_DIR: &str = "DEDUPCRAWL_INDEX_KILL_CHILD_DIR";
const CHILD_START: &str = "DEDUPCRAWL_INDEX_KILL_CHILD_START";

/// Child side of the kill test: inserts documents forever, printing each flushed count.
#[test]
#[ignore = "run by kill_minus_nine_loses_nothing_that_was_flushed as a child process"]
fn kill_child_process() {
    let (Ok(dir), Ok(start)) = (std::env::var(CHILD_DIR), std::env::var(CHILD_START)) else {
        return;
    };
    let start: u64 = start.parse().unwrap();
    let index = open(Path::new(&dir));
    for i in start.. {
        index
            .check_and_insert(&document(&format!("doc-{i}"), &tokens(i, 300)))
            .unwrap();
        if i % 25 == 24 {
            index.flush().unwrap();
            println!("flushed {}", i + 1);
        }
    }
}

#[test]
fn kill_minus_nine_loses_nothing_that_was_flushed() {
    let dir = tempfile::tempdir().unwrap();
    let exe = std::env::current_exe().unwrap();
    let mut flushed_total = 0u64;
    for round in 0..5 {
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "index::kill_child_process",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_DIR, dir.path())
            .env(CHILD_START, flushed_total.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let target = flushed_total + 50 + round * 25;
        let mut last = flushed_total;
        for line in BufReader::new(stdout).lines() {
            let line = line.unwrap();
            if let Some(n) = line.strip_prefix("flushed ") {
                last = n.trim().parse().unwrap();
                if last >= target {
                    break;
                }
            }
        }
        // SIGKILL: no destructor, no final flush.
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(last >= target, "child stopped early at {last}");

        let index = open(dir.path());
        let stats = index.stats().unwrap();
        assert!(
            stats.documents >= last,
            "round {round}: {} < {last}",
            stats.documents
        );
        for i in 0..last {
            let decision = index
                .lookup(&document(&format!("doc-{i}"), &tokens(i, 300)))
                .unwrap();
            assert!(
                matches!(decision, DedupDecision::ExactDuplicate { .. }),
                "round {round}: doc-{i} lost after kill -9: {decision:?}"
            );
        }
        // Continue after what survived (unflushed tail documents may or may not be there).
        flushed_total = stats.documents;
    }
}

/// The embedded backend in a temporary directory of its own.
struct Embedded {
    dir: tempfile::TempDir,
}

impl index_suite::Backend for Embedded {
    fn open(&self) -> Arc<dyn DedupIndex> {
        Arc::new(open(self.dir.path()))
    }
}

fn embedded() -> Box<dyn index_suite::Backend> {
    Box::new(Embedded {
        dir: tempfile::tempdir().expect("temporary directory"),
    })
}

dedup_index_suite!(embedded);
