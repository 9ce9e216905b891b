//! The PostgreSQL [`CrawlStateStore`] ([`PostgresCrawlState`]): the engine's progress in the
//! tables of `migrations/20261125000003_crawl_state.sql`, `20261125000004_revisit.sql`,
//! `20261125160000_schedule_sites.sql`, `20261125181400_soft_404.sql` and
//! `20261126110000_crawl_log_checkpoint.sql` and `20261202090000_url_rules.sql`, keyed by crawl. Archived URLs and
//! sitemaps read are shared by every worker of the crawl (a page archived by one worker is
//! archived for all); the crawl-log marks, the crawl-log checkpoint and the WARC checkpoint are
//! the worker's own, since they describe the crawl log and WARC files of its `--out` directory. Revisit states and the
//! current round are the crawl's, like archived URLs, and so are the hosts' soft-404 probes; so are the scheduled sites' states (kept
//! under the schedule's own crawl name), and the URL rules with their sets of URLs.
//!
//! Every write is one autocommitted statement, durable when it returns, so
//! [`flush`](CrawlStateStore::flush) has nothing to do. A call whose connection is lost (the
//! server restarting) runs again once the server is back (`[store] reconnect_seconds`): every
//! write is an upsert of the whole value or an insert that ignores a conflict, so running one
//! again after a COMMIT that was applied but not acknowledged writes the same row again. The calls are synchronous like the
//! trait: the store runs its queries on a small runtime of its own, so it may be called from
//! plain threads and from async tasks alike.

use std::future::Future;

use dedupcrawl_reconnect::{Held, HeldConnections, Reconnect, StoreRuntime};

use crate::crawl_state::{
    ArchiveCheckpoint, ArchivedRecord, CrawlLogCheckpoint, CrawlStateStore, RevisitState,
    RoundState, ScheduledSiteState, Soft404Probe, UrlProgress,
};
use crate::error::CrawlError;
use dedupcrawl_urlrules::RuleRecord;

/// Connections the store keeps open at most.
const MAX_CONNECTIONS: u32 = 2;

/// One worker's view of a crawl's state in PostgreSQL.
pub(crate) struct PostgresCrawlState {
    /// The store's connections, kept between calls ([`HeldConnections`]).
    connections: HeldConnections,
    crawl: String,
    worker: String,
    /// This worker's crawl-log marks (128-bit hashes of the URLs), read once at the first
    /// question: only this worker writes them, so the engine's question for every line it
    /// logs needs no round trip.
    logged: std::sync::Mutex<Option<std::collections::HashSet<u128>>>,
    reconnect: Reconnect,
    runtime: StoreRuntime,
}

fn database(action: &'static str) -> impl FnOnce(sqlx::Error) -> CrawlError {
    move |source| CrawlError::StatePostgres { action, source }
}

/// A runtime of a store's own ([`StoreRuntime`]), so that its synchronous calls work from
/// plain threads and async tasks alike.
pub(crate) fn small_runtime(thread_name: &'static str) -> Result<StoreRuntime, CrawlError> {
    StoreRuntime::start(thread_name)
        .map_err(|e| CrawlError::Worker(format!("cannot start a runtime: {e}")))
}

impl PostgresCrawlState {
    /// Connects to `url` (migrating the schema) as `worker` of `crawl`.
    pub(crate) fn connect(url: &str, crawl: &str, worker: &str) -> Result<Self, CrawlError> {
        let runtime = small_runtime("state-postgres")?;
        let url = url.to_string();
        let pool = runtime.block_on(async move {
            dedupcrawl_index::connect_and_migrate(&url, MAX_CONNECTIONS).await
        })??;
        Ok(PostgresCrawlState {
            connections: HeldConnections::new(pool),
            crawl: crawl.to_string(),
            worker: worker.to_string(),
            logged: std::sync::Mutex::default(),
            reconnect: Reconnect::new("crawl state", dedupcrawl_reconnect::DEFAULT_LIMIT),
            runtime,
        })
    }

    /// Waits up to `limit` for a server that is unreachable or restarting before a call fails.
    pub(crate) fn reconnecting_for(mut self, limit: std::time::Duration) -> Self {
        self.reconnect = Reconnect::new("crawl state", limit);
        self
    }

    /// Runs one call: `body` gets a connection, the crawl and the worker (again, from a copy
    /// of it, after a lost connection).
    fn call<T, F, Fut>(&self, action: &'static str, body: F) -> Result<T, CrawlError>
    where
        T: Send + 'static,
        F: FnOnce(Held, String, String) -> Fut + Clone + Send + 'static,
        Fut: Future<Output = Result<T, sqlx::Error>> + Send + 'static,
    {
        self.reconnect.retry(|| {
            let (connections, body) = (self.connections.clone(), body.clone());
            let (crawl, worker) = (self.crawl.clone(), self.worker.clone());
            self.runtime
                .block_on(async move {
                    let result = match connections.acquire().await {
                        Ok(connection) => body(connection, crawl, worker).await,
                        Err(error) => Err(error),
                    };
                    if let Err(error) = &result
                        && dedupcrawl_reconnect::is_connection_loss(error)
                    {
                        connections.forget_idle();
                    }
                    result
                })?
                .map_err(database(action))
        })
    }
}

impl PostgresCrawlState {
    fn logged_marks(&self) -> std::sync::MutexGuard<'_, Option<std::collections::HashSet<u128>>> {
        self.logged
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The key of a crawl-log mark in memory.
fn logged_key(url: &str) -> u128 {
    xxhash_rust::xxh3::xxh3_128(url.as_bytes())
}

mod json_rows;
mod log_checkpoint_rows;
mod url_rule_rows;

#[cfg(test)]
mod tests;

use json_rows::{ARCHIVED, REVISIT, SCHEDULED_SITE, SOFT_404};

impl CrawlStateStore for PostgresCrawlState {
    fn archived_record(&self, url: &str) -> Result<Option<ArchivedRecord>, CrawlError> {
        self.read_json(&ARCHIVED, url)
    }

    fn record_archived(&self, url: &str, record: &ArchivedRecord) -> Result<(), CrawlError> {
        self.write_json(&ARCHIVED, url, record)
    }

    fn archived_count(&self) -> usize {
        let count = self.call(
            "count archived URLs",
            move |mut conn, crawl, _| async move {
                sqlx::query_scalar::<_, i64>("SELECT count(*) FROM crawl_archived WHERE crawl = $1")
                    .bind(&crawl)
                    .fetch_one(&mut *conn)
                    .await
            },
        );
        match count {
            Ok(count) => usize::try_from(count).unwrap_or(0),
            Err(error) => {
                // Only reported in a log line: say so rather than fail the crawl.
                tracing::warn!(%error, "cannot count archived URLs");
                0
            }
        }
    }

    fn forget_page(&self, url: &str, logged: &str) -> Result<(), CrawlError> {
        let (url, logged) = (url.to_string(), logged.to_string());
        let key = logged_key(&logged);
        self.call(
            "forget a lost page",
            move |mut conn, crawl, worker| async move {
                sqlx::query(
                    "WITH archived AS (DELETE FROM crawl_archived WHERE crawl = $1 AND url = $3), \
                     revisit AS (DELETE FROM crawl_revisit WHERE crawl = $1 AND url = $3) \
                     DELETE FROM crawl_logged WHERE crawl = $1 AND worker = $2 AND url = $4",
                )
                .bind(&crawl)
                .bind(&worker)
                .bind(&url)
                .bind(&logged)
                .execute(&mut *conn)
                .await
                .map(drop)
            },
        )?;
        if let Some(marks) = self.logged_marks().as_mut() {
            marks.remove(&key);
        }
        Ok(())
    }

    fn own_archived_urls(&self) -> Result<Option<Vec<String>>, CrawlError> {
        Ok(None)
    }

    fn mark_logged(&self, url: &str) -> Result<(), CrawlError> {
        let key = logged_key(url);
        let url = url.to_string();
        self.call(
            "mark a URL logged",
            move |mut conn, crawl, worker| async move {
                sqlx::query(
                    "INSERT INTO crawl_logged (crawl, worker, url) VALUES ($1, $2, $3) \
                 ON CONFLICT DO NOTHING",
                )
                .bind(&crawl)
                .bind(&worker)
                .bind(&url)
                .execute(&mut *conn)
                .await
                .map(drop)
            },
        )?;
        if let Some(marks) = self.logged_marks().as_mut() {
            marks.insert(key);
        }
        Ok(())
    }

    fn is_logged(&self, url: &str) -> Result<bool, CrawlError> {
        let mut marks = self.logged_marks();
        if marks.is_none() {
            let urls: Vec<String> = self.call(
                "read logged URLs",
                move |mut conn, crawl, worker| async move {
                    sqlx::query_scalar(
                        "SELECT url FROM crawl_logged WHERE crawl = $1 AND worker = $2",
                    )
                    .bind(&crawl)
                    .bind(&worker)
                    .fetch_all(&mut *conn)
                    .await
                },
            )?;
            *marks = Some(urls.iter().map(|url| logged_key(url)).collect());
        }
        Ok(marks
            .as_ref()
            .is_some_and(|marks| marks.contains(&logged_key(url))))
    }

    fn mark_sitemaps_read(&self, host: &str) -> Result<(), CrawlError> {
        let host = host.to_string();
        self.call("mark sitemaps read", move |mut conn, crawl, _| async move {
            sqlx::query(
                "INSERT INTO crawl_sitemaps_read (crawl, host) VALUES ($1, $2) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(&crawl)
            .bind(&host)
            .execute(&mut *conn)
            .await
            .map(drop)
        })
    }

    fn sitemaps_read(&self, host: &str) -> Result<bool, CrawlError> {
        let host = host.to_string();
        self.call("read sitemaps read", move |mut conn, crawl, _| async move {
            sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM crawl_sitemaps_read WHERE crawl = $1 AND host = $2)",
            )
            .bind(&crawl)
            .bind(&host)
            .fetch_one(&mut *conn)
            .await
        })
    }

    fn checkpoint(&self) -> Result<Option<ArchiveCheckpoint>, CrawlError> {
        let row: Option<(String, i64)> = self.call(
            "read the checkpoint",
            move |mut conn, crawl, worker| async move {
                sqlx::query_as(
                    "SELECT file, file_offset FROM crawl_checkpoint \
                     WHERE crawl = $1 AND worker = $2",
                )
                .bind(&crawl)
                .bind(&worker)
                .fetch_optional(&mut *conn)
                .await
            },
        )?;
        Ok(row.map(|(file, offset)| ArchiveCheckpoint {
            file,
            offset: u64::try_from(offset).unwrap_or(0),
        }))
    }

    fn set_checkpoint(&self, checkpoint: &ArchiveCheckpoint) -> Result<(), CrawlError> {
        let file = checkpoint.file.clone();
        let offset = i64::try_from(checkpoint.offset).unwrap_or(i64::MAX);
        self.call(
            "record the checkpoint",
            move |mut conn, crawl, worker| async move {
                sqlx::query(
                    "INSERT INTO crawl_checkpoint (crawl, worker, file, file_offset) \
                 VALUES ($1, $2, $3, $4) ON CONFLICT (crawl, worker) \
                 DO UPDATE SET file = EXCLUDED.file, file_offset = EXCLUDED.file_offset",
                )
                .bind(&crawl)
                .bind(&worker)
                .bind(&file)
                .bind(offset)
                .execute(&mut *conn)
                .await
                .map(drop)
            },
        )
    }

    fn record_output_dir(&self, dir: &str) -> Result<(), CrawlError> {
        let dir = dir.to_string();
        self.call(
            "record the output directory",
            move |mut conn, crawl, worker| async move {
                sqlx::query(
                    "INSERT INTO crawl_output_dir (crawl, worker, out_dir) VALUES ($1, $2, $3) \
                     ON CONFLICT (crawl, worker) DO UPDATE SET out_dir = EXCLUDED.out_dir",
                )
                .bind(&crawl)
                .bind(&worker)
                .bind(&dir)
                .execute(&mut *conn)
                .await
                .map(drop)
            },
        )
    }

    fn output_dirs(&self) -> Result<Vec<String>, CrawlError> {
        let rows: Vec<(String,)> = self.call(
            "read the output directories",
            move |mut conn, crawl, _| async move {
                sqlx::query_as(
                    "SELECT out_dir FROM crawl_output_dir WHERE crawl = $1 ORDER BY worker",
                )
                .bind(&crawl)
                .fetch_all(&mut *conn)
                .await
            },
        )?;
        Ok(rows.into_iter().map(|(dir,)| dir).collect())
    }

    fn crawl_log_checkpoint(&self) -> Result<Option<CrawlLogCheckpoint>, CrawlError> {
        self.read_log_checkpoint()
    }

    fn record_crawl_log_checkpoint(
        &self,
        checkpoint: &CrawlLogCheckpoint,
        logged: &[String],
    ) -> Result<(), CrawlError> {
        self.write_log_checkpoint(checkpoint, logged)
    }

    fn revisit_state(&self, url: &str) -> Result<Option<RevisitState>, CrawlError> {
        self.read_json(&REVISIT, url)
    }

    /// One statement for both (asked before every fetch).
    fn url_progress(&self, url: &str) -> Result<UrlProgress, CrawlError> {
        let url = url.to_string();
        let (revisit, archived): (Option<String>, Option<String>) = self.call(
            "read a URL's progress",
            move |mut conn, crawl, _| async move {
                sqlx::query_as(
                    "SELECT (SELECT state FROM crawl_revisit WHERE crawl = $1 AND url = $2), \
                     (SELECT record FROM crawl_archived WHERE crawl = $1 AND url = $2)",
                )
                .bind(&crawl)
                .bind(&url)
                .fetch_one(&mut *conn)
                .await
            },
        )?;
        // Like the single reads: a value that does not parse is none.
        Ok(UrlProgress {
            revisit: revisit.and_then(|text| serde_json::from_str(&text).ok()),
            archived: archived.and_then(|text| serde_json::from_str(&text).ok()),
        })
    }

    fn record_revisit_state(&self, url: &str, state: &RevisitState) -> Result<(), CrawlError> {
        self.write_json(&REVISIT, url, state)
    }

    fn revisit_states(&self) -> Result<Vec<(String, RevisitState)>, CrawlError> {
        self.read_all_json(
            "read the revisit states",
            "SELECT url, state FROM crawl_revisit WHERE crawl = $1",
        )
    }

    fn round(&self) -> Result<Option<RoundState>, CrawlError> {
        let text: Option<String> =
            self.call("read the round", move |mut conn, crawl, _| async move {
                sqlx::query_scalar("SELECT state FROM crawl_round WHERE crawl = $1")
                    .bind(&crawl)
                    .fetch_optional(&mut *conn)
                    .await
            })?;
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }

    fn set_round(&self, round: &RoundState) -> Result<(), CrawlError> {
        let text = serde_json::to_string(round).unwrap_or_default();
        self.call("record the round", move |mut conn, crawl, _| async move {
            sqlx::query(
                "INSERT INTO crawl_round (crawl, state) VALUES ($1, $2) \
                 ON CONFLICT (crawl) DO UPDATE SET state = EXCLUDED.state",
            )
            .bind(&crawl)
            .bind(&text)
            .execute(&mut *conn)
            .await
            .map(drop)
        })
    }

    fn scheduled_sites(&self) -> Result<Vec<(String, ScheduledSiteState)>, CrawlError> {
        self.read_all_json(
            "read the scheduled sites",
            "SELECT site, state FROM schedule_sites WHERE crawl = $1",
        )
    }

    fn record_scheduled_site(
        &self,
        site: &str,
        state: &ScheduledSiteState,
    ) -> Result<(), CrawlError> {
        self.write_json(&SCHEDULED_SITE, site, state)
    }

    fn soft_404_probe(&self, host: &str) -> Result<Option<Soft404Probe>, CrawlError> {
        self.read_json(&SOFT_404, host)
    }

    fn record_soft_404_probe(&self, host: &str, probe: &Soft404Probe) -> Result<(), CrawlError> {
        self.write_json(&SOFT_404, host, probe)
    }

    fn url_rules(&self, host: &str) -> Result<Vec<RuleRecord>, CrawlError> {
        self.read_url_rules(host)
    }

    fn record_url_rule(&self, host: &str, record: &RuleRecord) -> Result<(), CrawlError> {
        self.write_url_rule(host, record)
    }

    fn url_rule_set(&self, host: &str, set: &str) -> Result<Vec<String>, CrawlError> {
        self.read_url_rule_set(host, set)
    }

    fn add_to_url_rule_set(&self, host: &str, set: &str, item: &str) -> Result<(), CrawlError> {
        self.insert_into_url_rule_set(host, set, item)
    }

    /// Every write is committed when it returns: nothing to do.
    fn flush(&self) -> Result<(), CrawlError> {
        Ok(())
    }
}
