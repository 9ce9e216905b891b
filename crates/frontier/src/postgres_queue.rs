//! The PostgreSQL frontier storage ([`PostgresQueue`]) and [`PostgresFrontierStore`], the
//! [`crate::FrontierStore`] of several workers sharing one crawl (schema: the top-level
//! `migrations/`, applied on connect).
//!
//! Every row names its crawl. A URL is claimed from the front of its host queue with
//! `FOR UPDATE SKIP LOCKED` and becomes a lease (`lease_id` from a sequence, the worker's name,
//! an expiry): a URL is never handed to two live workers, and every later write about it is
//! fenced on both lease and worker (`WHERE lease_id = … AND lease_owner = …`: ending a lease
//! that expired and went to another worker changes nothing). Completing a lease the worker
//! does not hold (never took, or already ended: its book says) is
//! [`crate::FrontierError::UnknownLease`]. When a store opens, the leases its worker left (a
//! crashed process) and every expired lease go back to the front of their host queues.
//! Each call is one transaction (most of them one statement), durable when it returns.
//!
//! The calls are synchronous like the rest of the frontier: the store runs its queries on a
//! small runtime of its own ([`StoreRuntime`]), so it may be called from plain threads and from
//! async tasks alike.
//!
//! A worker with nothing of its own left takes up the hosts other workers queued, and does not
//! call the crawl finished while they hold leases (`shared_work`).
//!
//! Politeness holds across workers: a host's row in `frontier_host_slot` (locked while URLs
//! of the host are leased, by the server-side function `frontier_lease`) keeps its next allowed
//! start and its Retry-After pause on the database's clock (a pause ends early only when the
//! worker that set it starts again), and its live leases are counted against the per-host
//! concurrency. A host without a delay has several URLs leased per round trip
//! ([`crate::postgres_host_slot`]); the worker hands them out one by one, and gives back those
//! it did not hand out when it flushes (at its end) or the host gets a delay.
//! Leases are renewed every quarter of their length while the worker runs; expired leases of
//! other workers (killed ones) go back to their host queues at the same time.
//!
//! A call whose connection is lost (the server restarting) runs again from the start of its
//! transaction once the server is back, for up to `reconnect_for`. A COMMIT lost with its
//! connection may have been applied; what running the call again does then:
//! - `lease_front`: the leases it took would be held by nobody (renewed by this worker's
//!   `keep_alive` for ever, keeping the other workers from calling the crawl finished). So the
//!   next try passes every lease this worker knows it holds, and `frontier_lease` (after the
//!   host's slot lock, which the lost transaction held to its end) returns the worker's other
//!   leases of the host, if there are any, instead of taking new ones.
//! - `finish`, `requeue`, `delay`: fenced on the lease, so a second run changes nothing.
//!   `pause_host`, `set_stored_host_delay`, `recover`: write the same values again.
//! - `offer` (one statement): the URLs are queued once (the seen rows fence them); the second
//!   run reports them as already seen. `mark_seen` reports "already seen" too (the caller leaves out one
//!   crawl-log line of an out-of-scope URL).
//! - `promote_due`, `release_delayed_of_host`, `keep_alive`: the rows moved are queued; the
//!   hosts the second run returns leave them out, and they are found again as queued hosts
//!   (`shared_work`) when this worker runs out of hosts of its own.
//! - `offer_again` (a recrawl round's seeding) queues its batch a second time: those URLs
//!   are fetched twice in that round (the revisit decision sees the second fetch unchanged).

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use dedupcrawl_reconnect::{Reconnect, StoreRuntime};
use sqlx::postgres::PgPool;
use sqlx::{Postgres, Transaction};

use crate::canonical::CanonicalUrl;
use crate::entry::{FrontierEntry, OfferOutcome};
use crate::error::FrontierError;
use crate::polite_frontier::PoliteFrontier;
use crate::politeness::PolitenessConfig;
use crate::postgres_host_slot::{Claim, HostClaim, LEASE_BATCH, LeaseBook, claim_front};
use crate::postgres_queue_rows::{
    BACK_POSITION, FRONT_POSITION, enqueue_at_back, entry_rows, queue_at_back,
    requeue_leases_at_front, requeue_left_leases, stored_text, to_i64, url_key,
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
    /// The leases this worker holds, and those taken ahead of their turn.
    book: Mutex<LeaseBook>,
    /// Unix milliseconds before which [`QueueStorage::promote_due`] has nothing to look for
    /// (see there).
    next_promote_check: Mutex<u64>,
    reconnect: Reconnect,
    runtime: StoreRuntime,
}

impl Drop for PostgresQueue {
    fn drop(&mut self) {
        // Leases taken ahead of their turn would keep their URLs from the other workers until
        // they expire: back to their queues (one try; `flush` already did it at a clean end).
        let leases = lock_ignoring_poison(&self.book).give_back(None);
        if !leases.is_empty() {
            let (pool, crawl, worker) =
                (self.pool.clone(), self.crawl.clone(), self.worker.clone());
            let _ = self.runtime.block_on(async move {
                let mut tx = pool.begin().await?;
                requeue_leases_at_front(&mut tx, &crawl, &worker, &leases).await?;
                tx.commit().await
            });
        }
    }
}

/// What the statement that ends a lease writes besides (see `PostgresQueue::end_lease`).
#[derive(Default)]
struct EndedLease {
    host: Option<String>,
    text: Option<String>,
    due_unix_ms: Option<i64>,
}

/// How long a worker goes without looking for due retries when it knows of none: retries
/// other workers delayed are promoted at most this late.
const PROMOTE_POLL_MS: u64 = 1000;

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
        let pool =
            runtime.block_on(async move { connect_and_migrate(&url, MAX_CONNECTIONS).await })??;
        let storage = PostgresQueue {
            pool,
            crawl: config.crawl.clone(),
            worker: config.worker.clone(),
            lease_ms: i64::try_from(config.lease.as_millis()).unwrap_or(i64::MAX),
            last_keep_alive: std::sync::Mutex::new(std::time::Instant::now()),
            book: Mutex::default(),
            next_promote_check: Mutex::new(0),
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
            self.runtime
                .block_on(async move {
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

impl PostgresQueue {
    /// Ends a lease in the database: its URL is done.
    fn end_lease_in_database(&self, lease_id: u64) -> Result<(), FrontierError> {
        self.end_lease(
            "finish a lease",
            lease_id,
            "DELETE FROM frontier_entry WHERE crawl = $1 AND lease_id = $3 AND lease_owner = $4"
                .to_string(),
            EndedLease::default(),
        )
    }

    /// Ends a lease with one statement fenced on it (`$1` crawl, `$2` host, `$3` lease, `$4`
    /// worker, `$5` stored entry, `$6` due time in Unix milliseconds) and takes it out of the
    /// book.
    fn end_lease(
        &self,
        action: &'static str,
        lease_id: u64,
        statement: String,
        ended: EndedLease,
    ) -> Result<(), FrontierError> {
        let lease = to_i64(lease_id);
        self.autocommit(action, move |pool, crawl, worker| async move {
            sqlx::query(&statement)
                .bind(&crawl)
                .bind(&ended.host)
                .bind(lease)
                .bind(&worker)
                .bind(&ended.text)
                .bind(ended.due_unix_ms)
                .execute(&pool)
                .await?;
            Ok(())
        })?;
        lock_ignoring_poison(&self.book).ended(lease_id);
        Ok(())
    }

    /// Puts the leases taken ahead of their turn of `host` (of every host: `None`) back at
    /// the front of their host queues.
    fn give_back_ahead(&self, host: Option<&str>) -> Result<(), FrontierError> {
        let leases = lock_ignoring_poison(&self.book).give_back(host);
        if leases.is_empty() {
            return Ok(());
        }
        self.transaction("give leases back", move |mut tx, crawl, worker| {
            let leases = leases.clone();
            async move {
                requeue_leases_at_front(&mut tx, &crawl, &worker, &leases).await?;
                Ok(((), tx))
            }
        })
    }
}

/// The offer of a batch in one statement: $2 the URL keys, $3 their hosts, $4 their stored
/// entries, in batch order, and $5 the keys of URLs only marked seen. Answers the keys that
/// were new (joined the seen set); the first entry of each goes to the back of its host queue,
/// in batch order per host.
const OFFER_STATEMENT: &str = "\
    WITH input AS (\
      SELECT i.key, i.host, i.entry, i.ord \
      FROM unnest($2::bytea[], $3::text[], $4::text[]) WITH ORDINALITY AS i(key, host, entry, ord)), \
    new AS (\
      INSERT INTO frontier_seen (crawl, url_key) \
      SELECT $1, k.key FROM (SELECT key FROM input UNION ALL SELECT unnest($5::bytea[])) AS k(key) \
      ON CONFLICT DO NOTHING RETURNING url_key), \
    firsts AS (\
      SELECT DISTINCT ON (i.key) i.host, i.entry, i.ord FROM input i \
      JOIN new n ON n.url_key = i.key ORDER BY i.key, i.ord), \
    ranked AS (\
      SELECT f.host, f.entry, f.ord, \
        row_number() OVER (PARTITION BY f.host ORDER BY f.ord) - 1 AS rank FROM firsts f), \
    backs AS (\
      SELECT h.host, COALESCE((SELECT max(q.position) + 1 FROM frontier_entry q \
        WHERE q.crawl = $1 AND q.host = h.host AND q.state = 'queued'), 0) AS start \
      FROM (SELECT DISTINCT host FROM ranked) AS h), \
    queued AS (\
      INSERT INTO frontier_entry (crawl, host, position, entry, state) \
      SELECT $1, r.host, b.start + r.rank, r.entry, 'queued' \
      FROM ranked r JOIN backs b ON b.host = r.host ORDER BY r.ord) \
    SELECT url_key FROM new";

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

    /// One statement: the seen rows, and the entries whose URL was new, each at the back of
    /// its host queue in batch order ([`OFFER_STATEMENT`]).
    fn offer(&self, entries: Vec<FrontierEntry>) -> Result<Vec<OfferOutcome>, FrontierError> {
        Ok(self.offer_and_mark_seen(entries, &[])?.0)
    }

    /// One statement for both.
    fn offer_and_mark_seen(
        &self,
        entries: Vec<FrontierEntry>,
        seen_only: &[CanonicalUrl],
    ) -> Result<(Vec<OfferOutcome>, Vec<bool>), FrontierError> {
        let keys: Vec<Vec<u8>> = entries.iter().map(|e| url_key(&e.url)).collect();
        let seen_keys: Vec<Vec<u8>> = seen_only.iter().map(url_key).collect();
        let (hosts, texts): (Vec<String>, Vec<String>) = entry_rows(entries).into_iter().unzip();
        let (asked, asked_seen) = (keys.clone(), seen_keys.clone());
        let inserted: Vec<Vec<u8>> =
            self.autocommit("offer URLs", move |pool, crawl, _| async move {
                sqlx::query_scalar(OFFER_STATEMENT)
                    .bind(&crawl)
                    .bind(&asked)
                    .bind(&hosts)
                    .bind(&texts)
                    .bind(&asked_seen)
                    .fetch_all(&pool)
                    .await
            })?;
        let mut new: std::collections::HashSet<Vec<u8>> = inserted.into_iter().collect();
        // The first of the batch with a new key is the one enqueued (or new).
        let outcomes = keys
            .iter()
            .map(|key| {
                if new.remove(key) {
                    OfferOutcome::Enqueued
                } else {
                    OfferOutcome::AlreadySeen
                }
            })
            .collect();
        Ok((
            outcomes,
            seen_keys.iter().map(|key| new.remove(key)).collect(),
        ))
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

    /// Hands out the next lease of the host taken ahead, or leases in one round trip
    /// (`frontier_lease`, [`crate::postgres_host_slot`]): the host's slot row, locked for the
    /// transaction, decides with the wait for its next start (delay or pause, on the
    /// database's clock) and its leases across workers; each lease moves the next start
    /// `spacing.delay` ahead. A host without a delay gets up to [`LEASE_BATCH`] leases at once.
    fn lease_front(&self, host: &str, spacing: HostSpacing) -> Result<FrontLease, FrontierError> {
        let want = if spacing.delay.is_zero() {
            LEASE_BATCH.min(spacing.per_host).max(1)
        } else {
            1
        };
        loop {
            if let Some((lease, more)) = lock_ignoring_poison(&self.book).hand_out(host) {
                return Ok(FrontLease::Leased { lease, more });
            }
            let mut claim = HostClaim {
                host: host.to_string(),
                lease_ms: self.lease_ms,
                delay_ms: i64::try_from(spacing.delay.as_millis()).unwrap_or(i64::MAX),
                per_host: i64::from(spacing.per_host),
                want: i64::from(want),
                known: None,
            };
            let mut tries = 0;
            let claimed = self.reconnect.retry(|| {
                // A try after a lost connection: the leases an applied earlier try took are
                // the worker's leases it does not know of.
                if tries > 0 {
                    claim.known = Some(lock_ignoring_poison(&self.book).out_ids());
                }
                tries += 1;
                let (pool, crawl, worker) =
                    (self.pool.clone(), self.crawl.clone(), self.worker.clone());
                let claim = claim.clone();
                self.runtime
                    .block_on(async move {
                        let mut tx = pool.begin().await?;
                        let claimed = claim_front(&mut tx, &crawl, &worker, &claim).await?;
                        tx.commit().await?;
                        Ok(claimed)
                    })?
                    .map_err(database("lease URLs"))
            })?;
            let (rows, more) = match claimed {
                Claim::Leased(rows, more) => (rows, more),
                Claim::Empty => return Ok(FrontLease::Empty),
                Claim::Wait(ms) => {
                    return Ok(FrontLease::NotBefore(Duration::from_millis(
                        u64::try_from(ms).unwrap_or(0),
                    )));
                }
            };
            let mut leases = Vec::with_capacity(rows.len());
            for (lease_id, text) in rows {
                let lease_id = u64::try_from(lease_id).unwrap_or_default();
                match StoredEntry::decode(text.as_bytes()) {
                    Ok(entry) => leases.push(entry.into_lease(lease_id)),
                    Err(error) => {
                        tracing::warn!(%error, host, "dropping undecodable queue entry");
                        self.end_lease_in_database(lease_id)?;
                    }
                }
            }
            lock_ignoring_poison(&self.book).take_ahead(host, leases, more);
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

    /// From this worker's book: every lease it holds was taken by it (a lease it lost to
    /// expiry is still fenced out by the write that ends it).
    fn is_leased(&self, lease_id: u64) -> Result<bool, FrontierError> {
        Ok(lock_ignoring_poison(&self.book).is_out(lease_id))
    }

    fn finish(&self, lease_id: u64) -> Result<(), FrontierError> {
        self.end_lease_in_database(lease_id)
    }

    fn requeue(
        &self,
        lease_id: u64,
        entry: FrontierEntry,
        attempts: u8,
        end: QueueEnd,
    ) -> Result<(), FrontierError> {
        let host = entry.url.host().to_string();
        let text = stored_text(entry, attempts);
        let position = match end {
            QueueEnd::Front => FRONT_POSITION,
            QueueEnd::Back => BACK_POSITION,
        };
        self.end_lease(
            "requeue a lease",
            lease_id,
            format!(
                "UPDATE frontier_entry SET state = 'queued', entry = $5, lease_id = NULL, \
                 lease_owner = NULL, lease_expires_at = NULL, position = {position} \
                 WHERE crawl = $1 AND lease_id = $3 AND lease_owner = $4"
            ),
            EndedLease {
                host: Some(host),
                text: Some(text),
                due_unix_ms: None,
            },
        )
    }

    fn delay(
        &self,
        lease_id: u64,
        entry: FrontierEntry,
        attempts: u8,
        due_unix_ms: u64,
    ) -> Result<(), FrontierError> {
        {
            // This worker's own retry: looked for when due.
            let mut next = lock_ignoring_poison(&self.next_promote_check);
            *next = (*next).min(due_unix_ms);
        }
        self.end_lease(
            "delay a lease",
            lease_id,
            "UPDATE frontier_entry SET state = 'delayed', entry = $5, due_unix_ms = $6, \
             lease_id = NULL, lease_owner = NULL, lease_expires_at = NULL \
             WHERE crawl = $1 AND lease_id = $3 AND lease_owner = $4"
                .to_string(),
            EndedLease {
                host: None,
                text: Some(stored_text(entry, attempts)),
                due_unix_ms: Some(to_i64(due_unix_ms)),
            },
        )
    }

    fn promote_due(&self, now_unix_ms: u64, limit: usize) -> Result<Vec<String>, FrontierError> {
        {
            let next = lock_ignoring_poison(&self.next_promote_check);
            if now_unix_ms < *next {
                return Ok(Vec::new());
            }
        }
        let (now, limit_rows) = (
            to_i64(now_unix_ms),
            i64::try_from(limit).unwrap_or(i64::MAX),
        );
        let hosts =
            self.transaction("promote due retries", move |mut tx, crawl, _| async move {
                let due: Vec<(i64, String)> = sqlx::query_as(
                    "SELECT id, host FROM frontier_entry WHERE crawl = $1 AND state = 'delayed' \
                 AND due_unix_ms <= $2 ORDER BY due_unix_ms, id LIMIT $3 FOR UPDATE SKIP LOCKED",
                )
                .bind(&crawl)
                .bind(now)
                .bind(limit_rows)
                .fetch_all(&mut *tx)
                .await?;
                let mut hosts = Vec::with_capacity(due.len());
                for (id, host) in due {
                    queue_at_back(&mut tx, &crawl, &host, id).await?;
                    hosts.push(host);
                }
                Ok((hosts, tx))
            })?;
        // A full batch may leave more due: look again at the next step.
        let mut next = lock_ignoring_poison(&self.next_promote_check);
        *next = if hosts.len() >= limit {
            now_unix_ms
        } else {
            now_unix_ms.saturating_add(PROMOTE_POLL_MS)
        };
        Ok(hosts)
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
        let first = self.autocommit("read the next retry", move |pool, crawl, _| async move {
            let first: Option<i64> = sqlx::query_scalar(
                "SELECT min(due_unix_ms) FROM frontier_entry WHERE crawl = $1 AND state = 'delayed'",
            )
            .bind(&crawl)
            .fetch_one(&pool)
            .await?;
            Ok(first.map(|ms| u64::try_from(ms).unwrap_or_default()))
        })?;
        if let Some(due) = first {
            // The scheduler wakes up then: promote it then, whoever delayed it.
            let mut next = lock_ignoring_poison(&self.next_promote_check);
            *next = (*next).min(due);
        }
        Ok(first)
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
        if delay.is_some() {
            // Taken ahead with no delay: their starts were not spaced across workers.
            self.give_back_ahead(Some(host))?;
        }
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

    /// Every call commits its transaction. Leases taken ahead of their turn go back to the
    /// front of their host queues: the engine flushes when it stops, and other workers must
    /// not wait for those leases to expire.
    fn flush(&self) -> Result<(), FrontierError> {
        self.give_back_ahead(None)
    }
}

fn lock_ignoring_poison<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
