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
//! Politeness holds across workers: a host's row in `frontier_host_slot` (locked while a URL
//! of the host is leased) keeps its next allowed start and its Retry-After pause on the
//! database's clock (a pause ends early only when the worker that set it starts again), and
//! its live leases are counted against the per-host concurrency.
//! Leases are renewed every quarter of their length while the worker runs; expired leases of
//! other workers (killed ones) go back to their host queues at the same time.
//!
//! A call whose connection is lost (the server restarting) runs again from the start of its
//! transaction once the server is back, for up to `reconnect_for`. A COMMIT lost with its
//! connection may have been applied; what running the call again does then:
//! - `lease_front`: the lease it took would be held by nobody (renewed by this worker's
//!   `keep_alive` for ever, keeping the other workers from calling the crawl finished). So the
//!   next try first looks for that lease (after the host's slot lock, which the lost
//!   transaction held to its end) and returns it if it is there.
//! - `finish`, `requeue`, `delay`: fenced on the lease, so a second run changes nothing.
//!   `pause_host`, `set_stored_host_delay`, `recover`: write the same values again.
//! - `offer`: the URLs are queued once (the seen rows fence them); the second run reports
//!   them as already seen. `mark_seen` reports "already seen" too (the caller leaves out one
//!   crawl-log line of an out-of-scope URL).
//! - `promote_due`, `release_delayed_of_host`, `keep_alive`: the rows moved are queued; the
//!   hosts the second run returns leave them out, and they are found again as queued hosts
//!   (`shared_work`) when this worker runs out of hosts of its own.
//! - `offer_again` (a recrawl round's seeding) queues its batch a second time: those URLs
//!   are fetched twice in that round (the revisit decision sees the second fetch unchanged).

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dedupcrawl_reconnect::{Reconnect, StoreRuntime};
use sqlx::postgres::PgPool;
use sqlx::{Postgres, Transaction};

use crate::canonical::CanonicalUrl;
use crate::entry::{FrontierEntry, OfferOutcome};
use crate::error::FrontierError;
use crate::polite_frontier::PoliteFrontier;
use crate::politeness::PolitenessConfig;
use crate::postgres_host_slot::{Claim, HostClaim, claim_front, committed_lease};
use crate::postgres_queue_rows::{
    BACK_POSITION, FRONT_POSITION, enqueue_at_back, entry_rows, queue_at_back, requeue_left_leases,
    stored_text, to_i64, url_key,
};
use crate::postgres_schema::connect_and_migrate;
use crate::queue_storage::{
    FrontLease, HostSpacing, QueueEnd, QueueStorage, SharedWork, StoredCounts,
};
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
    /// How long a call waits for a server that is unreachable or restarting before it fails.
    pub reconnect_for: Duration,
}

/// The frontier's rows of one crawl, as one worker sees them.
pub struct PostgresQueue {
    pool: PgPool,
    crawl: String,
    worker: String,
    lease_ms: i64,
    /// When this worker last renewed its leases ([`QueueStorage::keep_alive`]).
    last_keep_alive: std::sync::Mutex<std::time::Instant>,
    reconnect: Reconnect,
    runtime: StoreRuntime,
}

fn database(action: &'static str) -> impl FnOnce(sqlx::Error) -> FrontierError {
    move |source| FrontierError::Postgres { action, source }
}

impl PostgresFrontierStore {
    /// Connects (migrating the schema), puts this worker's leftover leases and every expired
    /// lease back in front of their host queues, and schedules over the crawl's frontier.
    pub fn connect(
        config: &PostgresFrontierConfig,
        politeness: PolitenessConfig,
    ) -> Result<PostgresFrontierStore, FrontierError> {
        let runtime = StoreRuntime::start("frontier-postgres")
            .map_err(|e| FrontierError::Corrupt(format!("cannot start a runtime: {e}")))?;
        let url = config.url.clone();
        let pool = runtime.block_on(async move { connect_and_migrate(&url, MAX_CONNECTIONS).await })??;
        let storage = PostgresQueue {
            pool,
            crawl: config.crawl.clone(),
            worker: config.worker.clone(),
            lease_ms: i64::try_from(config.lease.as_millis()).unwrap_or(i64::MAX),
            last_keep_alive: std::sync::Mutex::new(std::time::Instant::now()),
            reconnect: Reconnect::new("frontier", config.reconnect_for),
            runtime,
        };
        PoliteFrontier::over(storage, politeness)
    }
}

impl PostgresQueue {
    /// Runs one call: `body` gets a transaction, the crawl and the worker; committed if it
    /// returns `Ok`. After a lost connection the whole transaction runs again (from a copy of
    /// `body`).
    fn transaction<T, F, Fut>(&self, action: &'static str, body: F) -> Result<T, FrontierError>
    where
        T: Send + 'static,
        F: FnOnce(Transaction<'static, Postgres>, String, String) -> Fut + Clone + Send + 'static,
        Fut: Future<Output = Result<(T, Transaction<'static, Postgres>), sqlx::Error>>
            + Send
            + 'static,
    {
        self.reconnect.retry(|| {
            let (pool, body) = (self.pool.clone(), body.clone());
            let (crawl, worker) = (self.crawl.clone(), self.worker.clone());
            self.runtime.block_on(async move {
                let tx = pool.begin().await?;
                let (value, tx) = body(tx, crawl, worker).await?;
                tx.commit().await?;
                Ok(value)
            })?
            .map_err(database(action))
        })
    }

    /// Runs one call of a single statement outside a transaction (one round trip, where a
    /// transaction takes three): `body` gets the pool, the crawl and the worker (again, from a
    /// copy of it, after a lost connection).
    fn autocommit<T, F, Fut>(&self, action: &'static str, body: F) -> Result<T, FrontierError>
    where
        T: Send + 'static,
        F: FnOnce(PgPool, String, String) -> Fut + Clone,
        Fut: Future<Output = Result<T, sqlx::Error>> + Send + 'static,
    {
        self.reconnect.retry(|| {
            let future = body.clone()(self.pool.clone(), self.crawl.clone(), self.worker.clone());
            self.runtime.block_on(future)?.map_err(database(action))
        })
    }
}

impl QueueStorage for PostgresQueue {
    fn recover(&self) -> Result<Vec<String>, FrontierError> {
        self.transaction("recover leases", move |mut tx, crawl, worker| async move {
            requeue_left_leases(&mut tx, &crawl, Some(&worker)).await?;
            // Pauses of this worker's earlier run end with it (as in one process's memory).
            sqlx::query(
                "UPDATE frontier_host_slot SET paused_until = 'epoch', paused_by = NULL \
                 WHERE crawl = $1 AND paused_by = $2",
            )
            .bind(&crawl)
            .bind(&worker)
            .execute(&mut *tx)
            .await?;
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
        let rows = entry_rows(entries);
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
            let mut enqueued = Vec::new();
            for (key, row) in keys.iter().zip(rows) {
                // The first of the batch with a new key is the one enqueued.
                if new.remove(key) {
                    enqueued.push(row);
                    outcomes.push(OfferOutcome::Enqueued);
                } else {
                    outcomes.push(OfferOutcome::AlreadySeen);
                }
            }
            enqueue_at_back(&mut tx, &crawl, enqueued).await?;
            Ok((outcomes, tx))
        })
    }

    fn offer_again(&self, entries: Vec<FrontierEntry>) -> Result<(), FrontierError> {
        let keys: Vec<Vec<u8>> = entries.iter().map(|e| url_key(&e.url)).collect();
        let rows = entry_rows(entries);
        self.transaction("offer URLs again", move |mut tx, crawl, _| async move {
            sqlx::query(
                "INSERT INTO frontier_seen (crawl, url_key) \
                 SELECT $1, key FROM unnest($2::bytea[]) AS keys(key) ON CONFLICT DO NOTHING",
            )
            .bind(&crawl)
            .bind(&keys)
            .execute(&mut *tx)
            .await?;
            enqueue_at_back(&mut tx, &crawl, rows).await?;
            Ok(((), tx))
        })
    }

    fn contains(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
        let key = url_key(url);
        self.autocommit("look a URL up", move |pool, crawl, _| async move {
            let seen: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM frontier_seen WHERE crawl = $1 AND url_key = $2)",
            )
            .bind(&crawl)
            .bind(&key)
            .fetch_one(&pool)
            .await?;
            Ok(seen)
        })
    }

    fn mark_seen(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
        let key = url_key(url);
        self.autocommit("mark a URL seen", move |pool, crawl, _| async move {
            let inserted = sqlx::query(
                "INSERT INTO frontier_seen (crawl, url_key) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            )
            .bind(&crawl)
            .bind(&key)
            .execute(&pool)
            .await?
            .rows_affected();
            Ok(inserted == 1)
        })
    }

    fn mark_all_seen(&self, urls: &[CanonicalUrl]) -> Result<Vec<bool>, FrontierError> {
        if urls.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<Vec<u8>> = urls.iter().map(url_key).collect();
        let asked = keys.clone();
        let inserted: Vec<Vec<u8>> =
            self.autocommit("mark URLs seen", move |pool, crawl, _| async move {
                sqlx::query_scalar(
                    "INSERT INTO frontier_seen (crawl, url_key) \
                     SELECT $1, key FROM unnest($2::bytea[]) AS keys(key) \
                     ON CONFLICT DO NOTHING RETURNING url_key",
                )
                .bind(&crawl)
                .bind(&asked)
                .fetch_all(&pool)
                .await
            })?;
        let mut new: std::collections::HashSet<Vec<u8>> = inserted.into_iter().collect();
        // The first of the batch with a new key is the new one.
        Ok(keys.iter().map(|key| new.remove(key)).collect())
    }

    /// Locks the host's slot row for the transaction: the wait for its next start (delay or
    /// pause, on the database's clock) and its leases across workers decide; a lease moves
    /// the next start `spacing.delay` ahead.
    fn lease_front(&self, host: &str, spacing: HostSpacing) -> Result<FrontLease, FrontierError> {
        let host = host.to_string();
        let lease_ms = self.lease_ms;
        let delay_ms = i64::try_from(spacing.delay.as_millis()).unwrap_or(i64::MAX);
        let per_host = i64::from(spacing.per_host);
        loop {
            let queue_host = host.clone();
            // The lease a try took, for the next try if its COMMIT is lost with the connection.
            let taken: Arc<Mutex<Option<i64>>> = Arc::default();
            let claimed =
                self.transaction("lease a URL", move |mut tx, crawl, worker| async move {
                    let earlier = *lock_ignoring_poison(&taken);
                    if let Some(lease_id) = earlier
                        && let Some(claim) =
                            committed_lease(&mut tx, &crawl, &worker, &queue_host, lease_id).await?
                    {
                        return Ok((claim, tx));
                    }
                    let claim = claim_front(
                        &mut tx,
                        HostClaim {
                            crawl: &crawl,
                            worker: &worker,
                            host: &queue_host,
                            lease_ms,
                            delay_ms,
                            per_host,
                        },
                    )
                    .await?;
                    if let Claim::Leased(lease_id, ..) = claim {
                        *lock_ignoring_poison(&taken) = Some(lease_id);
                    }
                    Ok((claim, tx))
                })?;
            let (lease_id, text, more) = match claimed {
                Claim::Leased(lease_id, text, more) => (lease_id, text, more),
                Claim::Empty => return Ok(FrontLease::Empty),
                Claim::Wait(ms) => {
                    return Ok(FrontLease::NotBefore(Duration::from_millis(
                        u64::try_from(ms).unwrap_or(0),
                    )));
                }
            };
            let lease_id = u64::try_from(lease_id).unwrap_or_default();
            match StoredEntry::decode(text.as_bytes()) {
                Ok(entry) => {
                    return Ok(FrontLease::Leased {
                        lease: entry.into_lease(lease_id),
                        more,
                    });
                }
                Err(error) => {
                    tracing::warn!(%error, host, "dropping undecodable queue entry");
                    self.finish(lease_id)?;
                }
            }
        }
    }

    fn pause_host(&self, host: &str, pause: Duration) -> Result<(), FrontierError> {
        let host = host.to_string();
        let pause_ms = i64::try_from(pause.as_millis()).unwrap_or(i64::MAX);
        self.autocommit("pause a host", move |pool, crawl, worker| async move {
            sqlx::query(
                "INSERT INTO frontier_host_slot AS slot (crawl, host, paused_until, paused_by) \
                 VALUES ($1, $2, clock_timestamp() + $3 * interval '1 millisecond', $4) \
                 ON CONFLICT (crawl, host) DO UPDATE \
                 SET paused_until = GREATEST(slot.paused_until, EXCLUDED.paused_until), \
                 paused_by = CASE WHEN EXCLUDED.paused_until > slot.paused_until \
                   THEN EXCLUDED.paused_by ELSE slot.paused_by END",
            )
            .bind(&crawl)
            .bind(&host)
            .bind(pause_ms)
            .bind(&worker)
            .execute(&pool)
            .await?;
            Ok(())
        })
    }

    /// Every quarter of a lease: this worker's leases are renewed (a long fetch is not handed
    /// to another worker), and expired leases of other workers (killed, or cut off from the
    /// database) go back to the front of their host queues.
    fn keep_alive(&self) -> Result<Vec<String>, FrontierError> {
        let every = Duration::from_millis(u64::try_from(self.lease_ms / 4).unwrap_or(0));
        {
            let mut last = self
                .last_keep_alive
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if last.elapsed() < every {
                return Ok(Vec::new());
            }
            *last = std::time::Instant::now();
        }
        let lease_ms = self.lease_ms;
        self.transaction("renew leases", move |mut tx, crawl, worker| async move {
            sqlx::query(
                "UPDATE frontier_entry SET lease_expires_at = now() + $3 * interval '1 millisecond' \
                 WHERE crawl = $1 AND lease_owner = $2 AND state = 'leased'",
            )
            .bind(&crawl)
            .bind(&worker)
            .bind(lease_ms)
            .execute(&mut *tx)
            .await?;
            let hosts = requeue_left_leases(&mut tx, &crawl, None).await?;
            Ok((hosts, tx))
        })
    }

    fn is_leased(&self, lease_id: u64) -> Result<bool, FrontierError> {
        let lease = to_i64(lease_id);
        self.autocommit("look a lease up", move |pool, crawl, worker| async move {
            let leased: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM frontier_entry WHERE crawl = $1 \
                 AND lease_id = $2 AND lease_owner = $3 AND state = 'leased')",
            )
            .bind(&crawl)
            .bind(lease)
            .bind(&worker)
            .fetch_one(&pool)
            .await?;
            Ok(leased)
        })
    }

    fn finish(&self, lease_id: u64) -> Result<(), FrontierError> {
        let lease = to_i64(lease_id);
        self.autocommit("finish a lease", move |pool, crawl, worker| async move {
            sqlx::query(
                "DELETE FROM frontier_entry WHERE crawl = $1 AND lease_id = $2 \
                 AND lease_owner = $3",
            )
            .bind(&crawl)
            .bind(lease)
            .bind(&worker)
            .execute(&pool)
            .await?;
            Ok(())
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
        self.autocommit("requeue a lease", move |pool, crawl, worker| async move {
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
            .execute(&pool)
            .await?;
            Ok(())
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
        self.autocommit("delay a lease", move |pool, crawl, worker| async move {
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
            .execute(&pool)
            .await?;
            Ok(())
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
        self.autocommit("read the next retry", move |pool, crawl, _| async move {
            let first: Option<i64> = sqlx::query_scalar(
                "SELECT min(due_unix_ms) FROM frontier_entry WHERE crawl = $1 AND state = 'delayed'",
            )
            .bind(&crawl)
            .fetch_one(&pool)
            .await?;
            Ok(first.map(|ms| u64::try_from(ms).unwrap_or_default()))
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
        self.autocommit("read a host delay", move |pool, crawl, _| async move {
            let delay: Option<i64> = sqlx::query_scalar(
                "SELECT delay_ms FROM frontier_host WHERE crawl = $1 AND host = $2",
            )
            .bind(&crawl)
            .bind(&host)
            .fetch_optional(&pool)
            .await?;
            let delay = delay.map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0)));
            Ok(delay)
        })
    }

    fn set_stored_host_delay(
        &self,
        host: &str,
        delay: Option<Duration>,
    ) -> Result<(), FrontierError> {
        let host = host.to_string();
        let millis = delay.map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        self.autocommit("store a host delay", move |pool, crawl, _| async move {
            match millis {
                Some(millis) => {
                    sqlx::query(
                        "INSERT INTO frontier_host (crawl, host, delay_ms) VALUES ($1, $2, $3) \
                         ON CONFLICT (crawl, host) DO UPDATE SET delay_ms = EXCLUDED.delay_ms",
                    )
                    .bind(&crawl)
                    .bind(&host)
                    .bind(millis)
                    .execute(&pool)
                    .await?
                }
                None => {
                    sqlx::query("DELETE FROM frontier_host WHERE crawl = $1 AND host = $2")
                        .bind(&crawl)
                        .bind(&host)
                        .execute(&pool)
                        .await?
                }
            };
            Ok(())
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

fn lock_ignoring_poison<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
