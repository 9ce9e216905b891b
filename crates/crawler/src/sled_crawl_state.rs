//! The embedded [`CrawlStateStore`]: four trees of the crawl's sled database (`OUT/state/`).

use crate::crawl_state::{ArchiveCheckpoint, ArchivedRecord, CrawlStateStore};
use crate::error::CrawlError;

/// Sled tree: canonical URL → [`ArchivedRecord`] (JSON) of the WARC record written for it.
const TREE_ARCHIVED: &str = "crawl_archived";
/// Sled tree: canonical URL → empty, URLs with a crawl-log line from an earlier run.
const TREE_LOGGED: &str = "crawl_logged";
/// Sled tree: host → empty, hosts whose sitemaps were read.
const TREE_SITEMAPS_DONE: &str = "crawl_sitemaps_done";
/// Sled tree of [`ArchiveCheckpoint`]s (one key).
const TREE_CHECKPOINT: &str = "crawl_checkpoint";
const CHECKPOINT_KEY: &[u8] = b"archive";

/// The crawl state in sled trees; [`flush`](CrawlStateStore::flush) flushes the whole db.
pub(crate) struct SledCrawlState {
    db: sled::Db,
    archived: sled::Tree,
    logged: sled::Tree,
    sitemaps_done: sled::Tree,
    checkpoints: sled::Tree,
}

impl SledCrawlState {
    pub(crate) fn open(db: &sled::Db) -> Result<SledCrawlState, CrawlError> {
        Ok(SledCrawlState {
            db: db.clone(),
            archived: db.open_tree(TREE_ARCHIVED)?,
            logged: db.open_tree(TREE_LOGGED)?,
            sitemaps_done: db.open_tree(TREE_SITEMAPS_DONE)?,
            checkpoints: db.open_tree(TREE_CHECKPOINT)?,
        })
    }
}

impl CrawlStateStore for SledCrawlState {
    fn archived_record(&self, url: &str) -> Result<Option<ArchivedRecord>, CrawlError> {
        Ok(self
            .archived
            .get(url.as_bytes())?
            .and_then(|v| serde_json::from_slice(&v).ok()))
    }

    fn record_archived(&self, url: &str, record: &ArchivedRecord) -> Result<(), CrawlError> {
        self.archived.insert(
            url.as_bytes(),
            serde_json::to_vec(record).unwrap_or_default(),
        )?;
        Ok(())
    }

    fn archived_count(&self) -> usize {
        self.archived.len()
    }

    fn mark_logged(&self, url: &str) -> Result<(), CrawlError> {
        self.logged.insert(url.as_bytes(), &[])?;
        Ok(())
    }

    fn is_logged(&self, url: &str) -> Result<bool, CrawlError> {
        Ok(self.logged.contains_key(url.as_bytes())?)
    }

    fn mark_sitemaps_read(&self, host: &str) -> Result<(), CrawlError> {
        self.sitemaps_done.insert(host.as_bytes(), &[])?;
        Ok(())
    }

    fn sitemaps_read(&self, host: &str) -> Result<bool, CrawlError> {
        Ok(self.sitemaps_done.contains_key(host.as_bytes())?)
    }

    fn checkpoint(&self) -> Result<Option<ArchiveCheckpoint>, CrawlError> {
        Ok(self
            .checkpoints
            .get(CHECKPOINT_KEY)?
            .and_then(|v| serde_json::from_slice(&v).ok()))
    }

    fn set_checkpoint(&self, checkpoint: &ArchiveCheckpoint) -> Result<(), CrawlError> {
        self.checkpoints.insert(
            CHECKPOINT_KEY,
            serde_json::to_vec(checkpoint).unwrap_or_default(),
        )?;
        Ok(())
    }

    fn flush(&self) -> Result<(), CrawlError> {
        self.db.flush()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_the_crawl_state_behaviour_suite() {
        let dir = tempfile::tempdir().unwrap();
        crate::crawl_state::behaviour_suite::run(&|| {
            let db = dedupcrawl_index::open_sled_waiting_for_lock(dir.path()).unwrap();
            Box::new(SledCrawlState::open(&db).unwrap())
        });
    }
}
