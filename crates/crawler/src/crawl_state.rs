//! The engine's own progress, behind a storage seam ([`CrawlStateStore`]): which URLs have a
//! WARC record (and which record), which have a crawl-log line from an earlier run, whose
//! sitemaps were read, and how far the WARC files are known to the state (the checkpoint).

use serde::{Deserialize, Serialize};

use crate::error::CrawlError;

/// What the archive holds for a URL (enough to write a revisit pointing at it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ArchivedRecord {
    pub(crate) record_type: String,
    pub(crate) record_id: Option<String>,
    pub(crate) date: Option<chrono::DateTime<chrono::Utc>>,
    pub(crate) payload_digest: Option<String>,
}

/// How far the WARC files are known to the state: every record of the files before `file`
/// (in name order) and of `file` before byte `offset` is recorded as archived, durably.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ArchiveCheckpoint {
    pub(crate) file: String,
    pub(crate) offset: u64,
}

/// The engine's progress records. Thread-safe; each call is atomic on its own.
///
/// Contract: a write is visible to every later read at once and durable after
/// [`flush`](CrawlStateStore::flush) (a backend may be durable earlier). After a crash the
/// engine does not trust this store past the last checkpoint: it rescans the WARC files and the
/// crawl log written since and writes what was lost again, so a backend may lose writes made
/// after the last `flush`, never older ones.
pub(crate) trait CrawlStateStore: Send + Sync {
    /// What was archived for `url`, if anything.
    fn archived_record(&self, url: &str) -> Result<Option<ArchivedRecord>, CrawlError>;
    /// Records (or replaces) what was archived for `url`.
    fn record_archived(&self, url: &str, record: &ArchivedRecord) -> Result<(), CrawlError>;
    /// How many URLs have an archived record.
    fn archived_count(&self) -> usize;
    /// Records that `url` has a crawl-log line (from an earlier run).
    fn mark_logged(&self, url: &str) -> Result<(), CrawlError>;
    /// Whether [`mark_logged`](CrawlStateStore::mark_logged) was called for `url`.
    fn is_logged(&self, url: &str) -> Result<bool, CrawlError>;
    /// Records that the sitemaps of `host` were read.
    fn mark_sitemaps_read(&self, host: &str) -> Result<(), CrawlError>;
    /// Whether [`mark_sitemaps_read`](CrawlStateStore::mark_sitemaps_read) was called for `host`.
    fn sitemaps_read(&self, host: &str) -> Result<bool, CrawlError>;
    /// The last checkpoint recorded.
    fn checkpoint(&self) -> Result<Option<ArchiveCheckpoint>, CrawlError>;
    /// Records a checkpoint (durable with the next [`flush`](CrawlStateStore::flush)).
    fn set_checkpoint(&self, checkpoint: &ArchiveCheckpoint) -> Result<(), CrawlError>;
    /// Makes every write so far durable; with the embedded stores this flushes the whole
    /// state database (frontier and index trees too).
    fn flush(&self) -> Result<(), CrawlError>;
}

/// The behaviour every [`CrawlStateStore`] backend must show, run by each backend's tests with
/// a function that opens a store on fresh state and, called again, on the same state.
#[cfg(test)]
pub(crate) mod behaviour_suite {
    use super::*;

    fn record(id: &str) -> ArchivedRecord {
        ArchivedRecord {
            record_type: "response".into(),
            record_id: Some(format!("<urn:uuid:{id}>")),
            date: None,
            payload_digest: Some("sha1:AAAA".into()),
        }
    }

    /// Every case, on the stores `open` gives (each call reopens the same state; the caller
    /// drops a store before the next call).
    pub(crate) fn run(open: &dyn Fn() -> Box<dyn CrawlStateStore>) {
        {
            let state = open();
            assert_eq!(state.archived_record("http://a.example/").unwrap(), None);
            assert_eq!(state.archived_count(), 0);
            state
                .record_archived("http://a.example/", &record("1"))
                .unwrap();
            state
                .record_archived("http://a.example/", &record("2"))
                .unwrap();
            assert_eq!(
                state.archived_record("http://a.example/").unwrap(),
                Some(record("2")),
                "the last record wins"
            );
            assert_eq!(state.archived_count(), 1);

            assert!(!state.is_logged("http://a.example/x").unwrap());
            state.mark_logged("http://a.example/x").unwrap();
            assert!(state.is_logged("http://a.example/x").unwrap());

            assert!(!state.sitemaps_read("a.example").unwrap());
            state.mark_sitemaps_read("a.example").unwrap();
            assert!(state.sitemaps_read("a.example").unwrap());
            assert!(!state.sitemaps_read("b.example").unwrap());

            assert_eq!(state.checkpoint().unwrap(), None);
            let checkpoint = ArchiveCheckpoint {
                file: "a-00001.warc.gz".into(),
                offset: 1234,
            };
            state.set_checkpoint(&checkpoint).unwrap();
            assert_eq!(state.checkpoint().unwrap(), Some(checkpoint));
            state.flush().unwrap();
        }
        // Reopened: everything flushed is there.
        let state = open();
        assert_eq!(
            state.archived_record("http://a.example/").unwrap(),
            Some(record("2"))
        );
        assert!(state.is_logged("http://a.example/x").unwrap());
        assert!(state.sitemaps_read("a.example").unwrap());
        assert_eq!(
            state.checkpoint().unwrap().map(|c| c.offset),
            Some(1234),
            "the checkpoint survives"
        );
    }
}
