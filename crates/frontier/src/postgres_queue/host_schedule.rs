//! When hosts are due: delayed retries promoted when due, the shared work left, and each host's stored delay.

use std::time::Duration;

use crate::error::FrontierError;
use crate::postgres_queue_rows::{queue_at_back, to_i64};
use crate::queue_storage::SharedWork;

use super::{PostgresQueue, lock_ignoring_poison};

/// How long a worker goes without looking for due retries when it knows of none: retries
/// other workers delayed are promoted at most this late.
const PROMOTE_POLL_MS: u64 = 1000;

impl PostgresQueue {
    pub(super) fn promote_due_in_database(
        &self,
        now_unix_ms: u64,
        limit: usize,
    ) -> Result<Vec<String>, FrontierError> {
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

    pub(super) fn shared_work_in_database(&self) -> Result<SharedWork, FrontierError> {
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

    pub(super) fn first_due_in_database(&self) -> Result<Option<u64>, FrontierError> {
        let first = self.autocommit("read the next retry", move |mut conn, crawl, _| async move {
            let first: Option<i64> = sqlx::query_scalar(
                "SELECT min(due_unix_ms) FROM frontier_entry WHERE crawl = $1 AND state = 'delayed'",
            )
            .bind(&crawl)
            .fetch_one(&mut *conn)
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

    pub(super) fn release_delayed_of_host_in_database(
        &self,
        host: &str,
    ) -> Result<usize, FrontierError> {
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

    pub(super) fn stored_host_delay_in_database(
        &self,
        host: &str,
    ) -> Result<Option<Duration>, FrontierError> {
        let host = host.to_string();
        self.autocommit("read a host delay", move |mut conn, crawl, _| async move {
            let delay: Option<i64> = sqlx::query_scalar(
                "SELECT delay_ms FROM frontier_host WHERE crawl = $1 AND host = $2",
            )
            .bind(&crawl)
            .bind(&host)
            .fetch_optional(&mut *conn)
            .await?;
            let delay = delay.map(|ms| Duration::from_millis(u64::try_from(ms).unwrap_or(0)));
            Ok(delay)
        })
    }

    pub(super) fn set_stored_host_delay_in_database(
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
        self.autocommit("store a host delay", move |mut conn, crawl, _| async move {
            match millis {
                Some(millis) => {
                    sqlx::query(
                        "INSERT INTO frontier_host (crawl, host, delay_ms) VALUES ($1, $2, $3) \
                         ON CONFLICT (crawl, host) DO UPDATE SET delay_ms = EXCLUDED.delay_ms",
                    )
                    .bind(&crawl)
                    .bind(&host)
                    .bind(millis)
                    .execute(&mut *conn)
                    .await?
                }
                None => {
                    sqlx::query("DELETE FROM frontier_host WHERE crawl = $1 AND host = $2")
                        .bind(&crawl)
                        .bind(&host)
                        .execute(&mut *conn)
                        .await?
                }
            };
            Ok(())
        })
    }
}
