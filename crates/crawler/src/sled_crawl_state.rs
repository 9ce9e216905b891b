//! The embedded [`CrawlStateStore`]: twelve trees of the crawl's sled database (`OUT/state/`;
//! a schedule's own database, `OUT/schedule-state/`, uses the same trees).

use crate::crawl_state::{
    ArchiveCheckpoint, ArchivedRecord, CrawlLogCheckpoint, CrawlStateStore, LoggedHost,
    RevisitState, RoundState, ScheduledSiteState, Soft404Probe,
};
use crate::error::CrawlError;
use crate::report::HostReport;
use dedupcrawl_urlrules::RuleRecord;

/// Sled tree: canonical URL → [`ArchivedRecord`] (JSON) of the WARC record written for it.
const TREE_ARCHIVED: &str = "crawl_archived";
/// Sled tree: canonical URL → empty, URLs with a crawl-log line from an earlier run.
const TREE_LOGGED: &str = "crawl_logged";
/// Sled tree: host → empty, hosts whose sitemaps were read.
const TREE_SITEMAPS_DONE: &str = "crawl_sitemaps_done";
/// Sled tree of [`ArchiveCheckpoint`]s (one key).
const TREE_CHECKPOINT: &str = "crawl_checkpoint";
const CHECKPOINT_KEY: &[u8] = b"archive";
/// Sled tree: canonical URL → [`RevisitState`] (JSON).
const TREE_REVISIT: &str = "crawl_revisit";
/// Sled tree of the current [`RoundState`] (one key).
const TREE_ROUND: &str = "crawl_round";
const ROUND_KEY: &[u8] = b"current";
/// Sled tree: `[[site]] name` → [`ScheduledSiteState`] (JSON), in a schedule's database.
const TREE_SCHEDULED_SITES: &str = "schedule_sites";
/// Sled tree of the crawl's output directory (one key: the embedded store has one worker).
const TREE_OUTPUT_DIR: &str = "crawl_output_dir";
const OUTPUT_DIR_KEY: &[u8] = b"out";
/// Sled tree: host → [`Soft404Probe`] (JSON).
const TREE_SOFT_404: &str = "crawl_soft_404";
/// Sled tree of the [`CrawlLogCheckpoint`]: `meta` → offset, round and total (JSON), `h/` +
/// host → [`LoggedHost`] (JSON).
const TREE_LOG_CHECKPOINT: &str = "crawl_log_checkpoint";
const LOG_CHECKPOINT_META: &[u8] = b"meta";
const LOG_CHECKPOINT_HOST: &[u8] = b"h/";
/// Sled tree: host, NUL, rule key → [`RuleRecord`] (JSON).
const TREE_URL_RULES: &str = "crawl_url_rules";
/// Sled tree: host, NUL, set name, NUL, item → empty (the URL rules' sets).
const TREE_URL_RULE_SETS: &str = "crawl_url_rule_sets";

/// The key of `parts` joined by NUL (which no host, rule key or URL holds), and the prefix
/// of every key that starts with them.
fn joined_key(parts: &[&str]) -> Vec<u8> {
    parts.join("\0").into_bytes()
}

/// The stored part of a [`CrawlLogCheckpoint`] beside its host rows.
#[derive(serde::Serialize, serde::Deserialize)]
struct LogCheckpointMeta {
    offset: u64,
    round: u32,
    total: HostReport,
}

/// The crawl state in sled trees; [`flush`](CrawlStateStore::flush) flushes the whole db.
pub(crate) struct SledCrawlState {
    db: sled::Db,
    archived: sled::Tree,
    logged: sled::Tree,
    sitemaps_done: sled::Tree,
    checkpoints: sled::Tree,
    revisit: sled::Tree,
    rounds: sled::Tree,
    scheduled_sites: sled::Tree,
    output_dir: sled::Tree,
    soft_404: sled::Tree,
    log_checkpoint: sled::Tree,
    url_rules: sled::Tree,
    url_rule_sets: sled::Tree,
}

impl SledCrawlState {
    pub(crate) fn open(db: &sled::Db) -> Result<SledCrawlState, CrawlError> {
        Ok(SledCrawlState {
            db: db.clone(),
            archived: db.open_tree(TREE_ARCHIVED)?,
            logged: db.open_tree(TREE_LOGGED)?,
            sitemaps_done: db.open_tree(TREE_SITEMAPS_DONE)?,
            checkpoints: db.open_tree(TREE_CHECKPOINT)?,
            revisit: db.open_tree(TREE_REVISIT)?,
            rounds: db.open_tree(TREE_ROUND)?,
            scheduled_sites: db.open_tree(TREE_SCHEDULED_SITES)?,
            output_dir: db.open_tree(TREE_OUTPUT_DIR)?,
            soft_404: db.open_tree(TREE_SOFT_404)?,
            log_checkpoint: db.open_tree(TREE_LOG_CHECKPOINT)?,
            url_rules: db.open_tree(TREE_URL_RULES)?,
            url_rule_sets: db.open_tree(TREE_URL_RULE_SETS)?,
        })
    }
}

/// Every entry of a tree of JSON values. Like the single reads, a value that does not parse is
/// no value: a revisit state lost that way is fetched as new, a site's schedule state lost that
/// way is due at once.
fn json_entries<T: serde::de::DeserializeOwned>(
    tree: &sled::Tree,
) -> Result<Vec<(String, T)>, CrawlError> {
    let mut entries = Vec::new();
    for item in tree.iter() {
        let (key, value) = item?;
        if let Ok(value) = serde_json::from_slice(&value) {
            entries.push((String::from_utf8_lossy(&key).into_owned(), value));
        }
    }
    Ok(entries)
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

    fn forget_page(&self, url: &str, logged: &str) -> Result<(), CrawlError> {
        self.archived.remove(url.as_bytes())?;
        self.revisit.remove(url.as_bytes())?;
        self.logged.remove(logged.as_bytes())?;
        Ok(())
    }

    fn own_archived_urls(&self) -> Result<Option<Vec<String>>, CrawlError> {
        let mut urls = Vec::new();
        for key in self.archived.iter().keys() {
            urls.push(String::from_utf8_lossy(&key?).into_owned());
        }
        Ok(Some(urls))
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

    fn record_output_dir(&self, dir: &str) -> Result<(), CrawlError> {
        self.output_dir.insert(OUTPUT_DIR_KEY, dir.as_bytes())?;
        Ok(())
    }

    fn output_dirs(&self) -> Result<Vec<String>, CrawlError> {
        Ok(self
            .output_dir
            .get(OUTPUT_DIR_KEY)?
            .map(|dir| String::from_utf8_lossy(&dir).into_owned())
            .into_iter()
            .collect())
    }

    fn crawl_log_checkpoint(&self) -> Result<Option<CrawlLogCheckpoint>, CrawlError> {
        let Some(meta) = self
            .log_checkpoint
            .get(LOG_CHECKPOINT_META)?
            .and_then(|v| serde_json::from_slice::<LogCheckpointMeta>(&v).ok())
        else {
            return Ok(None);
        };
        let mut hosts = Vec::new();
        for item in self.log_checkpoint.scan_prefix(LOG_CHECKPOINT_HOST) {
            let (key, value) = item?;
            // A row that does not parse is a clear error: counts lost silently would be wrong.
            let row: LoggedHost = serde_json::from_slice(&value).map_err(|e| {
                CrawlError::Worker(format!(
                    "the crawl state's crawl-log checkpoint is damaged ({e}); `dedupcrawl \
                     repair OUT` rebuilds the state from the WARC files and the crawl log"
                ))
            })?;
            let host = String::from_utf8_lossy(&key[LOG_CHECKPOINT_HOST.len()..]).into_owned();
            hosts.push((host, row));
        }
        Ok(Some(CrawlLogCheckpoint {
            offset: meta.offset,
            round: meta.round,
            total: meta.total,
            hosts,
        }))
    }

    fn record_crawl_log_checkpoint(
        &self,
        checkpoint: &CrawlLogCheckpoint,
        logged: &[String],
    ) -> Result<(), CrawlError> {
        let mut marks = sled::Batch::default();
        for key in logged {
            marks.insert(key.as_bytes(), &[]);
        }
        self.logged.apply_batch(marks)?;
        let mut batch = sled::Batch::default();
        let stored_round = self
            .log_checkpoint
            .get(LOG_CHECKPOINT_META)?
            .and_then(|v| serde_json::from_slice::<LogCheckpointMeta>(&v).ok())
            .map(|meta| meta.round);
        if stored_round.is_some_and(|round| round != checkpoint.round) {
            for key in self.log_checkpoint.scan_prefix(LOG_CHECKPOINT_HOST).keys() {
                batch.remove(key?);
            }
        }
        for (host, row) in &checkpoint.hosts {
            let mut key = LOG_CHECKPOINT_HOST.to_vec();
            key.extend_from_slice(host.as_bytes());
            batch.insert(key, serde_json::to_vec(row).unwrap_or_default());
        }
        let meta = LogCheckpointMeta {
            offset: checkpoint.offset,
            round: checkpoint.round,
            total: checkpoint.total.clone(),
        };
        batch.insert(
            LOG_CHECKPOINT_META,
            serde_json::to_vec(&meta).unwrap_or_default(),
        );
        self.log_checkpoint.apply_batch(batch)?;
        Ok(())
    }

    fn revisit_state(&self, url: &str) -> Result<Option<RevisitState>, CrawlError> {
        Ok(self
            .revisit
            .get(url.as_bytes())?
            .and_then(|v| serde_json::from_slice(&v).ok()))
    }

    fn record_revisit_state(&self, url: &str, state: &RevisitState) -> Result<(), CrawlError> {
        self.revisit.insert(
            url.as_bytes(),
            serde_json::to_vec(state).unwrap_or_default(),
        )?;
        Ok(())
    }

    fn revisit_states(&self) -> Result<Vec<(String, RevisitState)>, CrawlError> {
        json_entries(&self.revisit)
    }

    fn round(&self) -> Result<Option<RoundState>, CrawlError> {
        Ok(self
            .rounds
            .get(ROUND_KEY)?
            .and_then(|v| serde_json::from_slice(&v).ok()))
    }

    fn set_round(&self, round: &RoundState) -> Result<(), CrawlError> {
        self.rounds
            .insert(ROUND_KEY, serde_json::to_vec(round).unwrap_or_default())?;
        Ok(())
    }

    fn scheduled_sites(&self) -> Result<Vec<(String, ScheduledSiteState)>, CrawlError> {
        json_entries(&self.scheduled_sites)
    }

    fn record_scheduled_site(
        &self,
        site: &str,
        state: &ScheduledSiteState,
    ) -> Result<(), CrawlError> {
        self.scheduled_sites.insert(
            site.as_bytes(),
            serde_json::to_vec(state).unwrap_or_default(),
        )?;
        Ok(())
    }

    fn soft_404_probe(&self, host: &str) -> Result<Option<Soft404Probe>, CrawlError> {
        Ok(self
            .soft_404
            .get(host.as_bytes())?
            .and_then(|v| serde_json::from_slice(&v).ok()))
    }

    fn record_soft_404_probe(&self, host: &str, probe: &Soft404Probe) -> Result<(), CrawlError> {
        self.soft_404.insert(
            host.as_bytes(),
            serde_json::to_vec(probe).unwrap_or_default(),
        )?;
        Ok(())
    }

    fn url_rules(&self, host: &str) -> Result<Vec<RuleRecord>, CrawlError> {
        let mut prefix = joined_key(&[host]);
        prefix.push(0);
        let mut records = Vec::new();
        for item in self.url_rules.scan_prefix(prefix) {
            let (_, value) = item?;
            if let Ok(record) = serde_json::from_slice(&value) {
                records.push(record);
            }
        }
        Ok(records)
    }

    fn record_url_rule(&self, host: &str, record: &RuleRecord) -> Result<(), CrawlError> {
        self.url_rules.insert(
            joined_key(&[host, &record.rule.key()]),
            serde_json::to_vec(record).unwrap_or_default(),
        )?;
        Ok(())
    }

    fn url_rule_set(&self, host: &str, set: &str) -> Result<Vec<String>, CrawlError> {
        let mut prefix = joined_key(&[host, set]);
        prefix.push(0);
        let mut urls = Vec::new();
        for item in self.url_rule_sets.scan_prefix(&prefix) {
            let (key, _) = item?;
            urls.push(String::from_utf8_lossy(&key[prefix.len()..]).into_owned());
        }
        Ok(urls)
    }

    fn add_to_url_rule_set(&self, host: &str, set: &str, item: &str) -> Result<(), CrawlError> {
        self.url_rule_sets
            .insert(joined_key(&[host, set, item]), &[] as &[u8])?;
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
