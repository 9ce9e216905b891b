//! [`PostgresScheduleLock`]: the lock that keeps a second `dedupcrawl schedule` of the same
//! crawl name from running rounds, on any machine: a session-level PostgreSQL advisory lock
//! held on one dedicated connection for the schedule's life. The server releases it when the
//! session ends, so a killed schedule leaves nothing to clean up.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use sqlx::Connection as _;
use sqlx::postgres::PgConnection;

use dedupcrawl_reconnect::StoreRuntime;

use crate::error::CrawlError;
use crate::postgres_crawl_state::small_runtime;

/// How long a taken lock is tried again before giving up: a schedule restarted right after a
/// kill may find its predecessor's session still ending.
const WAIT_FOR_RELEASE: Duration = Duration::from_secs(5);
const RETRY_EVERY: Duration = Duration::from_millis(100);

/// The advisory lock of one schedule's crawl name, held while this value lives.
pub(crate) struct PostgresScheduleLock {
    /// The session holding the lock (taken out for each query, which needs it by value).
    connection: Mutex<Option<PgConnection>>,
    runtime: StoreRuntime,
}

fn database(action: &'static str) -> impl FnOnce(sqlx::Error) -> CrawlError {
    move |source| CrawlError::StatePostgres { action, source }
}

impl PostgresScheduleLock {
    /// Connects to `url` and takes the lock of `crawl`; `Ok(None)` when another session still
    /// holds it after [`WAIT_FOR_RELEASE`].
    pub(crate) fn try_acquire(
        url: &str,
        crawl: &str,
    ) -> Result<Option<PostgresScheduleLock>, CrawlError> {
        let runtime = small_runtime("schedule-lock")?;
        let url = url.to_string();
        let mut connection = runtime
            .block_on(async move { PgConnection::connect(&url).await })?
            .map_err(database("connect for the schedule lock"))?;
        // A 64-bit key from the name, computed by the server; the prefix keeps it apart from
        // other advisory locks of the same crawl (the index's).
        let key = format!("dedupcrawl-schedule:{crawl}");
        let deadline = Instant::now() + WAIT_FOR_RELEASE;
        loop {
            let key = key.clone();
            let (returned, taken) = runtime.block_on(async move {
                let taken: Result<bool, sqlx::Error> =
                    sqlx::query_scalar("SELECT pg_try_advisory_lock(hashtextextended($1, 0))")
                        .bind(&key)
                        .fetch_one(&mut connection)
                        .await;
                (connection, taken)
            })?;
            connection = returned;
            if taken.map_err(database("take the schedule lock"))? {
                return Ok(Some(PostgresScheduleLock {
                    connection: Mutex::new(Some(connection)),
                    runtime,
                }));
            }
            if Instant::now() >= deadline {
                return Ok(None);
            }
            std::thread::sleep(RETRY_EVERY);
        }
    }

    /// Fails when the session holding the lock is gone (server restart, network loss): from
    /// then on another schedule may take the lock, so this one must stop starting rounds.
    pub(crate) fn confirm(&self) -> Result<(), CrawlError> {
        let mut slot = self
            .connection
            .lock()
            .map_err(|_| CrawlError::Worker("the schedule lock is poisoned".into()))?;
        let mut connection = slot
            .take()
            .ok_or_else(|| CrawlError::Worker("the schedule lock's session is lost".into()))?;
        let (returned, alive) = self.runtime.block_on(async move {
            let alive = connection.ping().await;
            (connection, alive)
        })?;
        alive.map_err(database(
            "keep the schedule lock (its session ended; stopping so that two schedules never \
             run rounds at once)",
        ))?;
        *slot = Some(returned);
        Ok(())
    }
}

impl Drop for PostgresScheduleLock {
    fn drop(&mut self) {
        // Ending the session releases the lock at once (a dropped socket would too, once the
        // server notices).
        if let Some(connection) = self.connection.get_mut().ok().and_then(Option::take) {
            let _ = self
                .runtime
                .block_on(async move { connection.close().await });
        }
    }
}
