//! Leasing a host's front URL, renewing leases, and ending them (finished, requeued, delayed, host paused).

use std::time::Duration;

use crate::entry::FrontierEntry;
use crate::error::FrontierError;
use crate::postgres_host_slot::{Claim, HostClaim, LEASE_BATCH, claim_front};
use crate::postgres_queue_rows::{
    BACK_POSITION, FRONT_POSITION, requeue_leases_at_front, requeue_left_leases, stored_text,
    to_i64,
};
use crate::queue_storage::{FrontLease, HostSpacing, QueueEnd};
use crate::stored_entry::StoredEntry;

use super::{PostgresQueue, database, lock_ignoring_poison};

/// Deletes the rows of this worker's finished leases `ids` (fenced on the worker and the
/// leased state: a lease that expired and went to another worker is not touched).
pub(super) async fn delete_finished(
    executor: impl sqlx::PgExecutor<'_>,
    crawl: &str,
    worker: &str,
    ids: &[i64],
) -> Result<(), sqlx::Error> {
    if ids.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "DELETE FROM frontier_entry WHERE crawl = $1 AND lease_owner = $2 AND state = 'leased' \
         AND lease_id = ANY ($3)",
    )
    .bind(crawl)
    .bind(worker)
    .bind(ids)
    .execute(executor)
    .await?;
    Ok(())
}

/// What the statement that ends a lease writes besides (see `PostgresQueue::end_lease`).
#[derive(Default)]
pub(super) struct EndedLease {
    pub(super) host: Option<String>,
    pub(super) text: Option<String>,
    pub(super) due_unix_ms: Option<i64>,
}

impl PostgresQueue {
    /// Ends a lease in the database: its URL is done.
    pub(super) fn end_lease_in_database(&self, lease_id: u64) -> Result<(), FrontierError> {
        self.end_lease(
            "finish a lease",
            lease_id,
            "DELETE FROM frontier_entry WHERE crawl = $1 AND lease_id = $3 AND lease_owner = $4"
                .to_string(),
            EndedLease::default(),
        )
    }

    /// Deletes the rows of the finished leases kept ([`super::FinishedLeases`]), if any.
    pub(super) fn delete_finished(&self) -> Result<(), FrontierError> {
        let ids = self.finished.ids();
        if ids.is_empty() {
            return Ok(());
        }
        let sent = ids.clone();
        self.autocommit("finish leases", move |mut conn, crawl, worker| async move {
            delete_finished(&mut *conn, &crawl, &worker, &sent).await
        })?;
        self.finished.deleted(&ids);
        Ok(())
    }

    /// Ends a lease with one statement fenced on it (`$1` crawl, `$2` host, `$3` lease, `$4`
    /// worker, `$5` stored entry, `$6` due time in Unix milliseconds) and takes it out of the
    /// book.
    pub(super) fn end_lease(
        &self,
        action: &'static str,
        lease_id: u64,
        statement: String,
        ended: EndedLease,
    ) -> Result<(), FrontierError> {
        let lease = to_i64(lease_id);
        self.autocommit(action, move |mut conn, crawl, worker| async move {
            sqlx::query(&statement)
                .bind(&crawl)
                .bind(&ended.host)
                .bind(lease)
                .bind(&worker)
                .bind(&ended.text)
                .bind(ended.due_unix_ms)
                .execute(&mut *conn)
                .await?;
            Ok(())
        })?;
        lock_ignoring_poison(&self.book).ended(lease_id);
        Ok(())
    }

    /// Puts the leases taken ahead of their turn of `host` (of every host: `None`) back at
    /// the front of their host queues.
    pub(super) fn give_back_ahead(&self, host: Option<&str>) -> Result<(), FrontierError> {
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

    pub(super) fn lease_front_in_database(
        &self,
        host: &str,
        spacing: HostSpacing,
    ) -> Result<FrontLease, FrontierError> {
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
                finished: Vec::new(),
            };
            let mut tries = 0;
            let claimed = self.reconnect.retry(|| {
                // A try after a lost connection: the leases an applied earlier try took are
                // the worker's leases it does not know of.
                if tries > 0 {
                    claim.known = Some(lock_ignoring_poison(&self.book).out_ids());
                }
                tries += 1;
                // Every finished lease kept: none of them is taken for a lease the worker
                // does not know of.
                claim.finished = self.finished.ids();
                let (crawl, worker) = (self.crawl.clone(), self.worker.clone());
                let claim = claim.clone();
                self.on_connection(move |mut conn| async move {
                    claim_front(&mut *conn, &crawl, &worker, &claim).await
                })?
                .map_err(database("lease URLs"))
            })?;
            self.finished.deleted(&claim.finished);
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

    pub(super) fn pause_host_in_database(
        &self,
        host: &str,
        pause: Duration,
    ) -> Result<(), FrontierError> {
        let host = host.to_string();
        let pause_ms = i64::try_from(pause.as_millis()).unwrap_or(i64::MAX);
        self.autocommit("pause a host", move |mut conn, crawl, worker| async move {
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
            .execute(&mut *conn)
            .await?;
            Ok(())
        })
    }

    pub(super) fn keep_alive_in_database(&self) -> Result<Vec<String>, FrontierError> {
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

    pub(super) fn requeue_in_database(
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

    pub(super) fn delay_in_database(
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
}
