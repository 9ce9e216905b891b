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
//! The seen set only grows, so a URL key the database once answered for is kept in the
//! worker's memory ([`KnownSeen`]) and answered there: an offer sends the other keys only, and
//! none at all when a page's links were all offered before.
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
//! other workers (killed ones) go back to their host queues at the same time. A finished
//! lease's row is deleted by the worker's next lease call, not by a statement of its own
//! ([`FinishedLeases`]).
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

mod finished_leases;
mod host_schedule;
mod known_seen;
mod leasing;

use std::future::Future;
use std::sync::Mutex;
use std::time::Duration;

use dedupcrawl_reconnect::{CallPanicked, Held, HeldConnections, Reconnect, StoreRuntime};
use sqlx::{Postgres, Transaction};

use crate::canonical::CanonicalUrl;
use crate::entry::{FrontierEntry, OfferOutcome};
use crate::error::FrontierError;
use crate::polite_frontier::PoliteFrontier;
use crate::politeness::PolitenessConfig;
use crate::postgres_host_slot::LeaseBook;
use crate::postgres_queue_rows::{
    enqueue_at_back, entry_rows, requeue_leases_at_front, requeue_left_leases, to_i64, url_key,
};
use crate::postgres_schema::connect_and_migrate;
use crate::queue_storage::{
    FrontLease, HostSpacing, QueueEnd, QueueStorage, SharedWork, StoredCounts,
};
use finished_leases::FinishedLeases;
use known_seen::KnownSeen;
use leasing::delete_finished;

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
    /// The store's connections, kept between calls ([`HeldConnections`]); its transactions
    /// (none a page) take theirs from the pool.
    connections: HeldConnections,
    crawl: String,
    worker: String,
    lease_ms: i64,
    /// When this worker last renewed its leases ([`QueueStorage::keep_alive`]).
    last_keep_alive: std::sync::Mutex<std::time::Instant>,
    /// The leases this worker holds, and those taken ahead of their turn.
    book: Mutex<LeaseBook>,
    /// Leases finished whose rows are deleted with the next lease call ([`FinishedLeases`]).
    finished: FinishedLeases,
    /// Unix milliseconds before which [`QueueStorage::promote_due`] has nothing to look for
    /// (see there).
    next_promote_check: Mutex<u64>,
    /// URL keys known to be in the seen set: answered without a round trip.
    known_seen: KnownSeen,
    reconnect: Reconnect,
    runtime: StoreRuntime,
}

impl Drop for PostgresQueue {
    fn drop(&mut self) {
        // Leases taken ahead of their turn would keep their URLs from the other workers until
        // they expire: back to their queues (one try; `flush` already did it at a clean end).
        let leases = lock_ignoring_poison(&self.book).give_back(None);
        let finished = self.finished.ids();
        if !leases.is_empty() || !finished.is_empty() {
            let (pool, crawl, worker) = (
                self.connections.pool().clone(),
                self.crawl.clone(),
                self.worker.clone(),
            );
            let _ = self.runtime.block_on(async move {
                let mut tx = pool.begin().await?;
                delete_finished(&mut *tx, &crawl, &worker, &finished).await?;
                requeue_leases_at_front(&mut tx, &crawl, &worker, &leases).await?;
                tx.commit().await
            });
        }
    }
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
        let pool =
            runtime.block_on(async move { connect_and_migrate(&url, MAX_CONNECTIONS).await })??;
        let storage = PostgresQueue {
            connections: HeldConnections::new(pool),
            crawl: config.crawl.clone(),
            worker: config.worker.clone(),
            lease_ms: i64::try_from(config.lease.as_millis()).unwrap_or(i64::MAX),
            last_keep_alive: std::sync::Mutex::new(std::time::Instant::now()),
            book: Mutex::default(),
            finished: FinishedLeases::default(),
            next_promote_check: Mutex::new(0),
            known_seen: KnownSeen::default(),
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
            let (pool, body) = (self.connections.pool().clone(), body.clone());
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
    /// transaction takes three): `body` gets a connection ([`HeldConnections`]), the crawl and
    /// the worker (again, from a copy of it, after a lost connection).
    fn autocommit<T, F, Fut>(&self, action: &'static str, body: F) -> Result<T, FrontierError>
    where
        T: Send + 'static,
        F: FnOnce(Held, String, String) -> Fut + Clone + Send + 'static,
        Fut: Future<Output = Result<T, sqlx::Error>> + Send + 'static,
    {
        self.reconnect.retry(|| {
            let body = body.clone();
            let (crawl, worker) = (self.crawl.clone(), self.worker.clone());
            self.on_connection(move |connection| body(connection, crawl, worker))?
                .map_err(database(action))
        })
    }

    /// One try of a call on a kept connection ([`HeldConnections`]); after a lost connection,
    /// the other kept ones are given up too (the caller tries again).
    fn on_connection<T, F, Fut>(&self, body: F) -> Result<Result<T, sqlx::Error>, CallPanicked>
    where
        T: Send + 'static,
        F: FnOnce(Held) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, sqlx::Error>> + Send + 'static,
    {
        let connections = self.connections.clone();
        self.runtime.block_on(async move {
            let result = match connections.acquire().await {
                Ok(connection) => body(connection).await,
                Err(error) => Err(error),
            };
            if let Err(error) = &result
                && dedupcrawl_reconnect::is_connection_loss(error)
            {
                connections.forget_idle();
            }
            result
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

    /// One statement for both, for the keys not known to be seen ([`KnownSeen`]); none when
    /// every key is.
    fn offer_and_mark_seen(
        &self,
        entries: Vec<FrontierEntry>,
        seen_only: &[CanonicalUrl],
    ) -> Result<(Vec<OfferOutcome>, Vec<bool>), FrontierError> {
        let keys: Vec<Vec<u8>> = entries.iter().map(|e| url_key(&e.url)).collect();
        let seen_keys: Vec<Vec<u8>> = seen_only.iter().map(url_key).collect();
        let (mut asked, mut rows) = (Vec::new(), Vec::new());
        let known = self.known_seen.known(&keys);
        for ((key, entry), known) in keys.iter().zip(entries).zip(known) {
            if !known {
                asked.push(key.clone());
                rows.push(entry);
            }
        }
        let asked_seen = self.known_seen.unknown(&seen_keys);
        let mut new: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
        if !asked.is_empty() || !asked_seen.is_empty() {
            let (hosts, texts): (Vec<String>, Vec<String>) = entry_rows(rows).into_iter().unzip();
            let (sent, sent_seen) = (asked.clone(), asked_seen.clone());
            let inserted: Vec<Vec<u8>> =
                self.autocommit("offer URLs", move |mut conn, crawl, _| async move {
                    sqlx::query_scalar(OFFER_STATEMENT)
                        .bind(&crawl)
                        .bind(&sent)
                        .bind(&hosts)
                        .bind(&texts)
                        .bind(&sent_seen)
                        .fetch_all(&mut *conn)
                        .await
                })?;
            self.known_seen.learn(&asked);
            self.known_seen.learn(&asked_seen);
            new.extend(inserted);
        }
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
        let learnt = keys.clone();
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
        })?;
        self.known_seen.learn(&learnt);
        Ok(())
    }

    fn contains(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
        let key = url_key(url);
        if self.known_seen.contains(&key) {
            return Ok(true);
        }
        let asked = key.clone();
        let seen = self.autocommit("look a URL up", move |mut conn, crawl, _| async move {
            let seen: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM frontier_seen WHERE crawl = $1 AND url_key = $2)",
            )
            .bind(&crawl)
            .bind(&asked)
            .fetch_one(&mut *conn)
            .await?;
            Ok(seen)
        })?;
        if seen {
            self.known_seen.learn(&[key]);
        }
        Ok(seen)
    }

    fn mark_seen(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
        let key = url_key(url);
        if self.known_seen.contains(&key) {
            return Ok(false);
        }
        let asked = key.clone();
        let new = self.autocommit("mark a URL seen", move |mut conn, crawl, _| async move {
            let inserted = sqlx::query(
                "INSERT INTO frontier_seen (crawl, url_key) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            )
            .bind(&crawl)
            .bind(&asked)
            .execute(&mut *conn)
            .await?
            .rows_affected();
            Ok(inserted == 1)
        })?;
        self.known_seen.learn(&[key]);
        Ok(new)
    }

    fn mark_all_seen(&self, urls: &[CanonicalUrl]) -> Result<Vec<bool>, FrontierError> {
        if urls.is_empty() {
            return Ok(Vec::new());
        }
        let keys: Vec<Vec<u8>> = urls.iter().map(url_key).collect();
        let asked = self.known_seen.unknown(&keys);
        if asked.is_empty() {
            return Ok(vec![false; keys.len()]);
        }
        let sent = asked.clone();
        let inserted: Vec<Vec<u8>> =
            self.autocommit("mark URLs seen", move |mut conn, crawl, _| async move {
                sqlx::query_scalar(
                    "INSERT INTO frontier_seen (crawl, url_key) \
                     SELECT $1, key FROM unnest($2::bytea[]) AS keys(key) \
                     ON CONFLICT DO NOTHING RETURNING url_key",
                )
                .bind(&crawl)
                .bind(&sent)
                .fetch_all(&mut *conn)
                .await
            })?;
        self.known_seen.learn(&asked);
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
        self.lease_front_in_database(host, spacing)
    }

    fn pause_host(&self, host: &str, pause: Duration) -> Result<(), FrontierError> {
        self.pause_host_in_database(host, pause)
    }

    /// Every quarter of a lease: this worker's leases are renewed (a long fetch is not handed
    /// to another worker), and expired leases of other workers (killed, or cut off from the
    /// database) go back to the front of their host queues.
    fn keep_alive(&self) -> Result<Vec<String>, FrontierError> {
        if self.finished.overdue() {
            self.delete_finished()?;
        }
        self.keep_alive_in_database()
    }

    /// From this worker's book: every lease it holds was taken by it (a lease it lost to
    /// expiry is still fenced out by the write that ends it).
    fn is_leased(&self, lease_id: u64) -> Result<bool, FrontierError> {
        Ok(lock_ignoring_poison(&self.book).is_out(lease_id))
    }

    /// Kept in memory, deleted with the next lease call or soon after ([`FinishedLeases`]).
    fn finish(&self, lease_id: u64) -> Result<(), FrontierError> {
        lock_ignoring_poison(&self.book).ended(lease_id);
        if self.finished.keep(to_i64(lease_id)) {
            self.delete_finished()?;
        }
        Ok(())
    }

    fn requeue(
        &self,
        lease_id: u64,
        entry: FrontierEntry,
        attempts: u8,
        end: QueueEnd,
    ) -> Result<(), FrontierError> {
        self.requeue_in_database(lease_id, entry, attempts, end)
    }

    fn delay(
        &self,
        lease_id: u64,
        entry: FrontierEntry,
        attempts: u8,
        due_unix_ms: u64,
    ) -> Result<(), FrontierError> {
        self.delay_in_database(lease_id, entry, attempts, due_unix_ms)
    }

    fn promote_due(&self, now_unix_ms: u64, limit: usize) -> Result<Vec<String>, FrontierError> {
        self.promote_due_in_database(now_unix_ms, limit)
    }

    /// After this worker's finished leases are deleted: other workers must not see them as
    /// work in flight (each would wait for the other's).
    fn shared_work(&self) -> Result<SharedWork, FrontierError> {
        self.delete_finished()?;
        self.shared_work_in_database()
    }

    fn first_due(&self) -> Result<Option<u64>, FrontierError> {
        self.first_due_in_database()
    }

    fn release_delayed_of_host(&self, host: &str) -> Result<usize, FrontierError> {
        self.release_delayed_of_host_in_database(host)
    }

    fn stored_host_delay(&self, host: &str) -> Result<Option<Duration>, FrontierError> {
        self.stored_host_delay_in_database(host)
    }

    fn set_stored_host_delay(
        &self,
        host: &str,
        delay: Option<Duration>,
    ) -> Result<(), FrontierError> {
        self.set_stored_host_delay_in_database(host, delay)
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

    /// Every call commits its transaction; finished leases kept are deleted. Leases taken ahead of their turn go back to the
    /// front of their host queues: the engine flushes when it stops, and other workers must
    /// not wait for those leases to expire.
    fn flush(&self) -> Result<(), FrontierError> {
        self.delete_finished()?;
        self.give_back_ahead(None)
    }
}

fn lock_ignoring_poison<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
