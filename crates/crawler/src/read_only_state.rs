//! The commands that only read a crawl (`overlap`, `why`) open a copy of its embedded state,
//! never the state itself: sled writes whenever it opens a database (a snapshot, its config,
//! recovery), so opening `OUT/state/` would change a crawl that is only being read, and fail
//! on a read-only one. The copy lives in a temporary directory removed when it is dropped.

use std::fs::{File, TryLockError};
use std::path::Path;

use dedupcrawl_index::{
    DedupDecision, DedupIndex, DocumentFingerprint, DocumentId, IndexError, IndexStats,
    SledDedupIndex, StoredDocument,
};

use crate::error::CrawlError;

/// A copy of a crawl's `state/` directory, deleted when dropped.
pub(crate) struct StateCopy {
    dir: tempfile::TempDir,
}

impl StateCopy {
    /// Copies `state_dir` (which a running crawl must not hold: its files would change while
    /// they are copied). Only reads `state_dir`.
    pub(crate) fn of(state_dir: &Path) -> Result<StateCopy, CrawlError> {
        refuse_if_in_use(state_dir)?;
        let dir = tempfile::Builder::new()
            .prefix("dedupcrawl-state-copy-")
            .tempdir()
            .map_err(|e| {
                CrawlError::io("create a temporary directory in", std::env::temp_dir(), e)
            })?;
        copy_tree(state_dir, dir.path())?;
        Ok(StateCopy { dir })
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// sled holds an exclusive lock on `db` while a process has the database open: a shared
/// lock that cannot be had means a crawl is running there.
pub(crate) fn refuse_if_in_use(state_dir: &Path) -> Result<(), CrawlError> {
    let db = state_dir.join("db");
    let Ok(file) = File::open(&db) else {
        return Ok(());
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => Err(CrawlError::Worker(format!(
            "{} is in use by a running crawl: wait for it to finish",
            state_dir.display()
        ))),
        Err(TryLockError::Error(error)) => Err(CrawlError::io("cannot lock", &db, error)),
    }
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), CrawlError> {
    let entries = std::fs::read_dir(from).map_err(|e| CrawlError::io("list", from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| CrawlError::io("list", from, e))?;
        let source = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry
            .file_type()
            .map_err(|e| CrawlError::io("read the type of", &source, e))?;
        if kind.is_dir() {
            std::fs::create_dir_all(&target)
                .map_err(|e| CrawlError::io("create directory", &target, e))?;
            copy_tree(&source, &target)?;
        } else if kind.is_file() {
            std::fs::copy(&source, &target).map_err(|e| CrawlError::io("copy", &source, e))?;
        }
    }
    Ok(())
}

/// A dedup index opened on a [`StateCopy`], which it keeps until dropped.
pub(crate) struct CopiedIndex {
    pub(crate) index: SledDedupIndex,
    pub(crate) _copy: StateCopy,
}

impl DedupIndex for CopiedIndex {
    fn check_and_insert(
        &self,
        document: &DocumentFingerprint,
    ) -> Result<DedupDecision, IndexError> {
        self.index.check_and_insert(document)
    }
    fn lookup(&self, document: &DocumentFingerprint) -> Result<DedupDecision, IndexError> {
        self.index.lookup(document)
    }
    fn remove(&self, id: DocumentId) -> Result<bool, IndexError> {
        self.index.remove(id)
    }
    fn document(&self, id: DocumentId) -> Result<Option<StoredDocument>, IndexError> {
        self.index.document(id)
    }
    fn block_page_counts(&self, host: &str, fingerprints: &[u64]) -> Result<Vec<u32>, IndexError> {
        self.index.block_page_counts(host, fingerprints)
    }
    fn host_document_count(&self, host: &str) -> Result<u32, IndexError> {
        self.index.host_document_count(host)
    }
    fn stats(&self) -> Result<IndexStats, IndexError> {
        self.index.stats()
    }
    fn flush(&self) -> Result<(), IndexError> {
        self.index.flush()
    }
}
