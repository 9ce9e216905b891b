//! The PostgreSQL frontier storage ([`PostgresQueue`]) and [`PostgresFrontierStore`], the
//! [`crate::FrontierStore`] of several workers sharing one crawl (schema: the top-level
//! `migrations/`, applied on connect).
//!
//! Every row names its crawl. A URL is claimed from the front of its host queue with
//! `FOR UPDATE SKIP LOCKED` and becomes a lease (`lease_id` from a sequence, the worker's name,
//! an expiry): a URL is never handed to two live workers, and every later write about it is
//! fenced on both lease and worker (`WHERE lease_id = … AND lease_owner = …`; a lost fence is
//! [`crate::FrontierError::UnknownLease`]). When a store opens, the leases its worker left (a
//! crashed process) and every expired lease go back to the front of their host queues.
//! Each call is one transaction, durable when it returns.
//!
//! The calls are synchronous like the rest of the frontier: the store runs its queries on a
//! small runtime of its own, so it may be called from plain threads and from async tasks alike.
//!
//! A worker with nothing of its own left takes up the hosts other workers queued, and does not
//! call the crawl finished while they hold leases (`shared_work`).
//!
//! Not yet: lease renewal (a fetch longer than the lease may be handed to another worker once
//! the lease expires) and politeness across workers (each worker keeps its own schedule).

use std::future::Future;
use std::time::Duration;

use sqlx::postgres::PgPool;
use sqlx::{Postgres, Transaction};

use crate::canonical::CanonicalUrl;
use crate::entry::{FrontierEntry, Lease, OfferOutcome};
use crate::error::FrontierError;
use crate::polite_frontier::PoliteFrontier;
use crate::politeness::PolitenessConfig;
use crate::postgres_schema::connect_and_migrate;
use crate::queue_storage::{QueueEnd, QueueStorage, SharedWork, StoredCounts};
use crate::seen::seen_key;
use crate::stored_entry::StoredEntry;

/// The [`crate::FrontierStore`] on PostgreSQL: polite scheduling over [`PostgresQueue`].
pub type PostgresFrontierStore = PoliteFrontier<PostgresQueue>;

/// Connections a store keeps open at most.
const MAX_CONNECTIONS: u32 = 4;
/// How long a lease holds before another worker may take the URL over.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(600);

/// Where a worker's frontier lives in PostgreSQL.
#[derive(Debug, Clone)]
pub struct PostgresFrontierConfig {
    /// `postgres://user@host:port/database`.
    pub url: String,
    /// The crawl's name: workers of one crawl share its frontier.
    pub crawl: String,
    /// This worker's name, stable across its restarts (its leftover leases come back to it at
    /// once; other workers' only when their leases expire).
    pub worker: String,
    /// How long a lease holds.
    pub lease: Duration,
}

/// The frontier's rows of one crawl, as one worker sees them.
pub struct PostgresQueue {
    pool: PgPool,
    crawl: String,
    worker: String,
    lease_ms: i64,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Drop for PostgresQueue {
    fn drop(&mut self) {
        // Dropping a runtime blocks; inside an async context that panics, so let it go in the
        // background.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

fn database(action: &'static str) -> impl FnOnce(sqlx::Error) -> FrontierError {
    move |source| FrontierError::Postgres { action, source }
}

fn url_key(url: &CanonicalUrl) -> Vec<u8> {
    seen_key(url).to_vec()
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn stored_text(entry: FrontierEntry, attempts: u8) -> String {
    String::from_utf8_lossy(&StoredEntry::new(entry, attempts).encode()).into_owned()
}

/// The position in front of the host's queue (or 0 in an empty one).
const FRONT_POSITION: &str = "COALESCE((SELECT min(position) - 1 FROM frontier_entry \
     WHERE crawl = $1 AND host = $2 AND state = 'queued'), 0)";
/// The position at the back of the host's queue (or 0 in an empty one).
const BACK_POSITION: &str = "COALESCE((SELECT max(position) + 1 FROM frontier_entry \
     WHERE crawl = $1 AND host = $2 AND state = 'queued'), 0)";

/// Moves the row `$3` (of host `$2`) to the back of its host queue as queued.
async fn queue_at_back(
    tx: &mut Transaction<'static, Postgres>,
    crawl: &str,
    host: &str,
    id: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query(&format!(
        "UPDATE frontier_entry SET state = 'queued', due_unix_ms = NULL, \
         position = {BACK_POSITION} WHERE id = $3"
    ))
    .bind(crawl)
    .bind(host)
    .bind(id)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

impl PostgresFrontierStore {
    /// Connects (migrating the schema), puts this worker's leftover leases and every expired
    /// lease back in front of their host queues, and schedules over the crawl's frontier.
    pub fn connect(
        config: &PostgresFrontierConfig,
        politeness: PolitenessConfig,
    ) -> Result<PostgresFrontierStore, FrontierError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("frontier-postgres")
            .enable_all()
            .build()
            .map_err(|e| FrontierError::Corrupt(format!("cannot start a runtime: {e}")))?;
        let url = config.url.clone();
        let pool = block_on(&runtime, async move {
            connect_and_migrate(&url, MAX_CONNECTIONS).await
        })??;
        let storage = PostgresQueue {
            pool,
            crawl: config.crawl.clone(),
            worker: config.worker.clone(),
            lease_ms: i64::try_from(config.lease.as_millis()).unwrap_or(i64::MAX),
            runtime: Some(runtime),
        };
        PoliteFrontier::over(storage, politeness)
    }
}

/// Runs `future` on `runtime` and waits for it (from any thread, inside a runtime or not).
fn block_on<T: Send + 'static>(
    runtime: &tokio::runtime::Runtime,
    future: impl Future<Output = T> + Send + 'static,
) -> Result<T, FrontierError> {
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    runtime.spawn(async move {
        let _ = sender.send(future.await);
    });
    receiver
        .recv()
        .map_err(|_| FrontierError::Corrupt("a PostgreSQL call panicked".into()))
}

impl PostgresQueue {
    /// Runs one call: `body` gets a transaction, the crawl and the worker; committed if it
    /// returns `Ok`.
    fn transaction<T, F, Fut>(&self, action: &'static str, body: F) -> Result<T, FrontierError>
    where
        T: Send + 'static,
        F: FnOnce(Transaction<'static, Postgres>, String, String) -> Fut + Send + 'static,
        Fut: Future<Output = Result<(T, Transaction<'static, Postgres>), sqlx::Error>>
            + Send
            + 'static,
    {
        let pool = self.pool.clone();
        let (crawl, worker) = (self.crawl.clone(), self.worker.clone());
        let runtime = self
            .runtime
            .as_ref()
            .ok_or_else(|| FrontierError::Corrupt("the store is closed".into()))?;
        block_on(runtime, async move {
            let tx = pool.begin().await?;
            let (value, tx) = body(tx, crawl, worker).await?;
            tx.commit().await?;
            Ok(value)
        })?
        .map_err(database(action))
    }
}

impl QueueStorage for PostgresQueue {
    fn recover(&self) -> Result<Vec<String>, FrontierError> {
        self.transaction("recover leases", move |mut tx, crawl, worker| async move {
            let leftovers: Vec<(i64, String)> = sqlx::query_as(
                "SELECT id, host FROM frontier_entry WHERE crawl = $1 AND state = 'leased' \
                 AND (lease_owner = $2 OR lease_expires_at < now()) \
                 ORDER BY lease_id DESC FOR UPDATE SKIP LOCKED",
            )
            .bind(&crawl)
            .bind(&worker)
            .fetch_all(&mut *tx)
            .await?;
            if !leftovers.is_empty() {
                tracing::info!(count = leftovers.len(), "requeueing URLs left leased");
            }
            for (id, host) in leftovers {
                sqlx::query(&format!(
                    "UPDATE frontier_entry SET state = 'queued', lease_id = NULL, \
                     lease_owner = NULL, lease_expires_at = NULL, position = {FRONT_POSITION} \
                     WHERE id = $3"
                ))
                .bind(&crawl)
                .bind(&host)
                .bind(id)
                .execute(&mut *tx)
                .await?;
            }
            let hosts: Vec<String> = sqlx::query_scalar(
                "SELECT host FROM (SELECT DISTINCT host FROM frontier_entry \
                 WHERE crawl = $1 AND state = 'queued') AS queued ORDER BY host COLLATE \"C\"",
            )
            .bind(&crawl)
            .fetch_all(&mut *tx)
            .await?;
            Ok((hosts, tx))
        })
    }

    fn offer(&self, entries: Vec<FrontierEntry>) -> Result<Vec<OfferOutcome>, FrontierError> {
        let keys: Vec<Vec<u8>> = entries.iter().map(|e| url_key(&e.url)).collect();
        let rows: Vec<(String, String)> = entries
            .into_iter()
            .map(|entry| (entry.url.host().to_string(), stored_text(entry, 0)))
            .collect();
        self.transaction("offer URLs", move |mut tx, crawl, _| async move {
            let inserted: Vec<Vec<u8>> = sqlx::query_scalar(
                "INSERT INTO frontier_seen (crawl, url_key) \
                 SELECT $1, key FROM unnest($2::bytea[]) AS keys(key) \
                 ON CONFLICT DO NOTHING RETURNING url_key",
            )
            .bind(&crawl)
            .bind(&keys)
            .fetch_all(&mut *tx)
            .await?;
            let mut new: std::collections::HashSet<Vec<u8>> = inserted.into_iter().collect();
            let mut outcomes = Vec::with_capacity(keys.len());
            let mut next_positions: std::collections::HashMap<String, i64> =
                std::collections::HashMap::new();
            let (mut hosts, mut positions, mut texts) = (Vec::new(), Vec::new(), Vec::new());
            for (key, (host, text)) in keys.iter().zip(rows) {
                // The first of the batch with a new key is the one enqueued.
                if !new.remove(key) {
                    outcomes.push(OfferOutcome::AlreadySeen);
                    continue;
                }
                let position = match next_positions.get_mut(&host) {
                    Some(position) => position,
                    None => {
                        let back: i64 = sqlx::query_scalar(&format!("SELECT {BACK_POSITION}"))
                            .bind(&crawl)
                            .bind(&host)
                            .fetch_one(&mut *tx)
                            .await?;
                        next_positions.entry(host.clone()).or_insert(back)
                    }
                };
                positions.push(*position);
                *position += 1;
                hosts.push(host);
                texts.push(text);
                outcomes.push(OfferOutcome::Enqueued);
            }
            if !hosts.is_empty() {
                sqlx::query(
                    "INSERT INTO frontier_entry (crawl, host, position, entry, state) \
                     SELECT $1, host, position, entry, 'queued' \
                     FROM unnest($2::text[], $3::int8[], $4::text[]) AS rows(host, position, entry)",
                )
                .bind(&crawl)
                .bind(&hosts)
                .bind(&positions)
                .bind(&texts)
                .execute(&mut *tx)
                .await?;
            }
            Ok((outcomes, tx))
        })
    }

    fn offer_again(&self, entries: Vec<FrontierEntry>) -> Result<(), FrontierError> {
        let keys: Vec<Vec<u8>> = entries.iter().map(|e| url_key(&e.url)).collect();
        let rows: Vec<(String, String)> = entries
            .into_iter()
            .map(|entry| (entry.url.host().to_string(), stored_text(entry, 0)))
            .collect();
        self.transaction("offer URLs again", move |mut tx, crawl, _| async move {
            sqlx::query(
                "INSERT INTO frontier_seen (crawl, url_key) \
                 SELECT $1, key FROM unnest($2::bytea[]) AS keys(key) ON CONFLICT DO NOTHING",
            )
            .bind(&crawl)
            .bind(&keys)
            .execute(&mut *tx)
            .await?;
            let mut next_positions: std::collections::HashMap<String, i64> =
                std::collections::HashMap::new();
            let (mut hosts, mut positions, mut texts) = (Vec::new(), Vec::new(), Vec::new());
            for (host, text) in rows {
                let position = match next_positions.get_mut(&host) {
                    Some(position) => position,
                    None => {
                        let back: i64 = sqlx::query_scalar(&format!("SELECT {BACK_POSITION}"))
                            .bind(&crawl)
                            .bind(&host)
                            .fetch_one(&mut *tx)
                            .await?;
                        next_positions.entry(host.clone()).or_insert(back)
                    }
                };
                positions.push(*position);
                *position += 1;
                hosts.push(host);
                texts.push(text);
            }
            if !hosts.is_empty() {
                sqlx::query(
                    "INSERT INTO frontier_entry (crawl, host, position, entry, state) \
                     SELECT $1, host, position, entry, 'queued' \
                     FROM unnest($2::text[], $3::int8[], $4::text[]) AS rows(host, position, entry)",
                )
                .bind(&crawl)
                .bind(&hosts)
                .bind(&positions)
                .bind(&texts)
                .execute(&mut *tx)
                .await?;
            }
            Ok(((), tx))
        })
    }

    fn contains(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
        let key = url_key(url);
        self.transaction("look a URL up", move |mut tx, crawl, _| async move {
            let seen: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM frontier_seen WHERE crawl = $1 AND url_key = $2)",
            )
            .bind(&crawl)
            .bind(&key)
            .fetch_one(&mut *tx)
            .await?;
            Ok((seen, tx))
        })
    }

    fn mark_seen(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
        let key = url_key(url);
        self.transaction("mark a URL seen", move |mut tx, crawl, _| async move {
            let inserted = sqlx::query(
                "INSERT INTO frontier_seen (crawl, url_key) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            )
            .bind(&crawl)
            .bind(&key)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            Ok((inserted == 1, tx))
        })
    }

    fn lease_front(&self, host: &str) -> Result<Option<(Lease, bool)>, FrontierError> {
        let host = host.to_string();
        let lease_ms = self.lease_ms;
        loop {
            let queue_host = host.clone();
            let claimed =
                self.transaction("lease a URL", move |mut tx, crawl, worker| async move {
                    let host = queue_host;
                    let claimed: Option<(i64, String)> = sqlx::query_as(
                        "WITH claimed AS (SELECT id FROM frontier_entry \
                       WHERE crawl = $1 AND host = $2 AND state = 'queued' \
                       ORDER BY position, id LIMIT 1 FOR UPDATE SKIP LOCKED) \
                     UPDATE frontier_entry AS e SET state = 'leased', \
                       lease_id = nextval('frontier_lease_id'), lease_owner = $3, \
                       lease_expires_at = now() + $4 * interval '1 millisecond' \
                     FROM claimed WHERE e.id = claimed.id RETURNING e.lease_id, e.entry",
                    )
                    .bind(&crawl)
                    .bind(&host)
                    .bind(&worker)
                    .bind(lease_ms)
                    .fetch_optional(&mut *tx)
                    .await?;
                    let more: bool = sqlx::query_scalar(
                        "SELECT EXISTS (SELECT 1 FROM frontier_entry \
                     WHERE crawl = $1 AND host = $2 AND state = 'queued')",
                    )
                    .bind(&crawl)
                    .bind(&host)
                    .fetch_one(&mut *tx)
                    .await?;
                    Ok((claimed.map(|(id, text)| (id, text, more)), tx))
                })?;
            let Some((lease_id, text, more)) = claimed else {
                return Ok(None);
            };
            let lease_id = u64::try_from(lease_id).unwrap_or_default();
            match StoredEntry::decode(text.as_bytes()) {
                Ok(entry) => return Ok(Some((entry.into_lease(lease_id), more))),
                Err(error) => {
                    tracing::warn!(%error, host, "dropping undecodable queue entry");
                    self.finish(lease_id)?;
                }
            }
        }
    }

    fn is_leased(&self, lease_id: u64) -> Result<bool, FrontierError> {
        let lease = to_i64(lease_id);
        self.transaction("look a lease up", move |mut tx, crawl, worker| async move {
            let leased: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM frontier_entry WHERE crawl = $1 \
                 AND lease_id = $2 AND lease_owner = $3 AND state = 'leased')",
            )
            .bind(&crawl)
            .bind(lease)
            .bind(&worker)
            .fetch_one(&mut *tx)
            .await?;
            Ok((leased, tx))
        })
    }

    fn finish(&self, lease_id: u64) -> Result<(), FrontierError> {
        let lease = to_i64(lease_id);
        self.transaction("finish a lease", move |mut tx, crawl, worker| async move {
            sqlx::query(
                "DELETE FROM frontier_entry WHERE crawl = $1 AND lease_id = $2 \
                 AND lease_owner = $3",
            )
            .bind(&crawl)
            .bind(lease)
            .bind(&worker)
            .execute(&mut *tx)
            .await?;
            Ok(((), tx))
        })
    }

    fn requeue(
        &self,
        lease_id: u64,
        entry: FrontierEntry,
        attempts: u8,
        end: QueueEnd,
    ) -> Result<(), FrontierError> {
        let lease = to_i64(lease_id);
        let host = entry.url.host().to_string();
        let text = stored_text(entry, attempts);
        let position = match end {
            QueueEnd::Front => FRONT_POSITION,
            QueueEnd::Back => BACK_POSITION,
        };
        self.transaction("requeue a lease", move |mut tx, crawl, worker| async move {
            sqlx::query(&format!(
                "UPDATE frontier_entry SET state = 'queued', entry = $5, lease_id = NULL, \
                 lease_owner = NULL, lease_expires_at = NULL, position = {position} \
                 WHERE crawl = $1 AND lease_id = $3 AND lease_owner = $4"
            ))
            .bind(&crawl)
            .bind(&host)
            .bind(lease)
            .bind(&worker)
            .bind(&text)
            .execute(&mut *tx)
            .await?;
            Ok(((), tx))
        })
    }

    fn delay(
        &self,
        lease_id: u64,
        entry: FrontierEntry,
        attempts: u8,
        due_unix_ms: u64,
    ) -> Result<(), FrontierError> {
        let (lease, due) = (to_i64(lease_id), to_i64(due_unix_ms));
        let text = stored_text(entry, attempts);
        self.transaction("delay a lease", move |mut tx, crawl, worker| async move {
            sqlx::query(
                "UPDATE frontier_entry SET state = 'delayed', entry = $4, due_unix_ms = $5, \
                 lease_id = NULL, lease_owner = NULL, lease_expires_at = NULL \
                 WHERE crawl = $1 AND lease_id = $2 AND lease_owner = $3",
            )
            .bind(&crawl)
            .bind(lease)
            .bind(&worker)
            .bind(&text)
            .bind(due)
            .execute(&mut *tx)
            .await?;
            Ok(((), tx))
        })
    }

    fn promote_due(&self, now_unix_ms: u64, limit: usize) -> Result<Vec<String>, FrontierError> {
        let (now, limit) = (
            to_i64(now_unix_ms),
            i64::try_from(limit).unwrap_or(i64::MAX),
        );
        self.transaction("promote due retries", move |mut tx, crawl, _| async move {
            let due: Vec<(i64, String)> = sqlx::query_as(
                "SELECT id, host FROM frontier_entry WHERE crawl = $1 AND state = 'delayed' \
                 AND due_unix_ms <= $2 ORDER BY due_unix_ms, id LIMIT $3 FOR UPDATE SKIP LOCKED",
            )
            .bind(&crawl)
            .bind(now)
            .bind(limit)
            .fetch_all(&mut *tx)
            .await?;
            let mut hosts = Vec::with_capacity(due.len());
            for (id, host) in due {
                queue_at_back(&mut tx, &crawl, &host, id).await?;
                hosts.push(host);
            }
            Ok((hosts, tx))
        })
    }

    fn shared_work(&self) -> Result<SharedWork, FrontierError> {
        self.transaction(
            "read other workers' work",
            move |mut tx, crawl, worker| async move {
                let queued_hosts: Vec<String> = sqlx::query_scalar(
                    "SELECT host FROM (SELECT DISTINCT host FROM frontier_entry \
                 WHERE crawl = $1 AND state = 'queued') AS queued \
                 ORDER BY host COLLATE \"C\" LIMIT 10000",
                )
                .bind(&crawl)
                .fetch_all(&mut *tx)
                .await?;
                let leased_elsewhere: bool = sqlx::query_scalar(
                    "SELECT EXISTS (SELECT 1 FROM frontier_entry WHERE crawl = $1 \
                 AND state = 'leased' AND lease_owner <> $2 AND lease_expires_at > now())",
                )
                .bind(&crawl)
                .bind(&worker)
                .fetch_one(&mut *tx)
                .await?;
                Ok((
                    SharedWork {
                        queued_hosts,
                        leased_elsewhere,
                    },
                    tx,
                ))
            },
        )
    }

    fn first_due(&self) -> Result<Option<u64>, FrontierError> {
        self.transaction("read the next retry", move |mut tx, crawl, _| async move {
            let first: Option<i64> = sqlx::query_scalar(
                "SELECT min(due_unix_ms) FROM frontier_entry WHERE crawl = $1 AND state = 'delayed'",
            )
            .bind(&crawl)
            .fetch_one(&mut *tx)
            .await?;
            Ok((first.map(|ms| u64::try_from(ms).unwrap_or_default()), tx))
        })
    }

    fn release_delayed_of_host(&self, host: &str) -> Result<usize, FrontierError> {
        let host = host.to_string();
        self.transaction(
            "release a host's retries",
            move |mut tx, crawl, _| async move {
                let waiting: Vec<i64> = sqlx::query_scalar(
                    "SELECT id FROM frontier_entry WHERE crawl = $1 AND host = $2 \
                 AND state = 'delayed' ORDER BY due_unix_ms, id FOR UPDATE SKIP LOCKED",
                )
                .bind(&crawl)
                .bind(&host)
                .fetch_all(&mut *tx)
                .await?;
                for &id in &waiting {
                    queue_at_back(&mut tx, &crawl, &host, id).await?;
                }
                Ok((waiting.len(), tx))
            },
        )
    }

    fn stored_host_delay(&self, host: &str) -> Result<Option<Duration>, FrontierError> {
        let host = host.to_string();
        self.transaction("read a host delay", move |mut tx, crawl, _| async move {
            let delay: Option<i64> = sqlx::query_scalar(
                "SELECT delay_ms FROM frontier_host WHERE crawl = $1 AND host = $2",
            )
            .bind(&crawl)
            .bind(&host)
            .fetch_optional(&mut *tx)
            .await?;
            let delay = delay.map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0)));
            Ok((delay, tx))
        })
    }

    fn set_stored_host_delay(
        &self,
        host: &str,
        delay: Option<Duration>,
    ) -> Result<(), FrontierError> {
        let host = host.to_string();
        let millis = delay.map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        self.transaction("store a host delay", move |mut tx, crawl, _| async move {
            match millis {
                Some(millis) => {
                    sqlx::query(
                        "INSERT INTO frontier_host (crawl, host, delay_ms) VALUES ($1, $2, $3) \
                         ON CONFLICT (crawl, host) DO UPDATE SET delay_ms = EXCLUDED.delay_ms",
                    )
                    .bind(&crawl)
                    .bind(&host)
                    .bind(millis)
                    .execute(&mut *tx)
                    .await?
                }
                None => {
                    sqlx::query("DELETE FROM frontier_host WHERE crawl = $1 AND host = $2")
                        .bind(&crawl)
                        .bind(&host)
                        .execute(&mut *tx)
                        .await?
                }
            };
            Ok(((), tx))
        })
    }

    fn counts(&self) -> Result<StoredCounts, FrontierError> {
        self.transaction("count", move |mut tx, crawl, _| async move {
            let (queued, delayed): (i64, i64) = sqlx::query_as(
                "SELECT count(*) FILTER (WHERE state = 'queued'), \
                 count(*) FILTER (WHERE state = 'delayed') FROM frontier_entry WHERE crawl = $1",
            )
            .bind(&crawl)
            .fetch_one(&mut *tx)
            .await?;
            let seen: i64 =
                sqlx::query_scalar("SELECT count(*) FROM frontier_seen WHERE crawl = $1")
                    .bind(&crawl)
                    .fetch_one(&mut *tx)
                    .await?;
            let count = |n: i64| u64::try_from(n).unwrap_or(0);
            Ok((
                StoredCounts {
                    queued: count(queued),
                    delayed: count(delayed),
                    seen: count(seen),
                },
                tx,
            ))
        })
    }

    /// Every call commits its transaction: nothing is left to flush.
    fn flush(&self) -> Result<(), FrontierError> {
        Ok(())
    }
}
