//! The lease of a host's first URL on PostgreSQL, with politeness across workers: the host's
//! `frontier_host_slot` row (locked for the transaction) holds its next allowed start and its
//! Retry-After pause on the database's clock, and its live leases count against `per_host`.

use sqlx::{Postgres, Transaction};

/// What one lease transaction found.
pub(crate) enum Claim {
    Leased(i64, String, bool),
    Empty,
    Wait(i64),
}

/// Milliseconds a worker waits before asking again for a host whose concurrency other workers
/// hold (when its delay is shorter).
pub(crate) const CONCURRENCY_POLL_MS: i64 = 50;

/// What [`claim_front`] works on.
pub(crate) struct HostClaim<'a> {
    pub(crate) crawl: &'a str,
    pub(crate) worker: &'a str,
    pub(crate) host: &'a str,
    pub(crate) lease_ms: i64,
    pub(crate) delay_ms: i64,
    pub(crate) per_host: i64,
}

/// Leases the host queue's first entry if the host's slot allows a request now; the next
/// start then moves `delay_ms` ahead.
pub(crate) async fn claim_front(
    tx: &mut Transaction<'static, Postgres>,
    claim: HostClaim<'_>,
) -> Result<Claim, sqlx::Error> {
    let HostClaim {
        crawl,
        worker,
        host,
        lease_ms,
        delay_ms,
        per_host,
    } = claim;
    let wait_ms: i64 = sqlx::query_scalar(
        "INSERT INTO frontier_host_slot AS slot (crawl, host) VALUES ($1, $2) \
         ON CONFLICT (crawl, host) DO UPDATE SET crawl = slot.crawl \
         RETURNING CAST(GREATEST(0, CEIL(1000 * EXTRACT(EPOCH FROM \
           GREATEST(slot.next_start_at, slot.paused_until) - clock_timestamp()))) \
           AS int8)",
    )
    .bind(crawl)
    .bind(host)
    .fetch_one(&mut **tx)
    .await?;
    if wait_ms > 0 {
        return Ok(Claim::Wait(wait_ms));
    }
    let leased: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM frontier_entry WHERE crawl = $1 AND host = $2 \
         AND state = 'leased' AND lease_expires_at > now()",
    )
    .bind(crawl)
    .bind(host)
    .fetch_one(&mut **tx)
    .await?;
    if leased >= per_host {
        // Its turn comes when a lease ends: ask again after one delay.
        return Ok(Claim::Wait(delay_ms.max(CONCURRENCY_POLL_MS)));
    }
    let claimed: Option<(i64, String)> = sqlx::query_as(
        "WITH claimed AS (SELECT id FROM frontier_entry \
       WHERE crawl = $1 AND host = $2 AND state = 'queued' \
       ORDER BY position, id LIMIT 1 FOR UPDATE SKIP LOCKED) \
     UPDATE frontier_entry AS e SET state = 'leased', \
       lease_id = nextval('frontier_lease_id'), lease_owner = $3, \
       lease_expires_at = now() + $4 * interval '1 millisecond' \
     FROM claimed WHERE e.id = claimed.id RETURNING e.lease_id, e.entry",
    )
    .bind(crawl)
    .bind(host)
    .bind(worker)
    .bind(lease_ms)
    .fetch_optional(&mut **tx)
    .await?;
    let Some((lease_id, text)) = claimed else {
        return Ok(Claim::Empty);
    };
    sqlx::query(
        "UPDATE frontier_host_slot SET \
         next_start_at = clock_timestamp() + $3 * interval '1 millisecond' \
         WHERE crawl = $1 AND host = $2",
    )
    .bind(crawl)
    .bind(host)
    .bind(delay_ms)
    .execute(&mut **tx)
    .await?;
    let more = more_queued(tx, crawl, host).await?;
    Ok(Claim::Leased(lease_id, text, more))
}

/// Whether the host's queue holds more URLs.
async fn more_queued(
    tx: &mut Transaction<'static, Postgres>,
    crawl: &str,
    host: &str,
) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM frontier_entry \
         WHERE crawl = $1 AND host = $2 AND state = 'queued')",
    )
    .bind(crawl)
    .bind(host)
    .fetch_one(&mut **tx)
    .await
}

/// The lease `lease_id` of `host` if an earlier transaction whose COMMIT was lost with its
/// connection did commit it (this worker holds it): the claim it returned. First waits for the
/// host's slot row, which that transaction locked until its end (a server that was not
/// restarted may still be finishing it).
pub(crate) async fn committed_lease(
    tx: &mut Transaction<'static, Postgres>,
    crawl: &str,
    worker: &str,
    host: &str,
    lease_id: i64,
) -> Result<Option<Claim>, sqlx::Error> {
    sqlx::query("SELECT 1 FROM frontier_host_slot WHERE crawl = $1 AND host = $2 FOR UPDATE")
        .bind(crawl)
        .bind(host)
        .execute(&mut **tx)
        .await?;
    let entry: Option<String> = sqlx::query_scalar(
        "SELECT entry FROM frontier_entry WHERE crawl = $1 AND host = $2 AND lease_id = $3 \
         AND lease_owner = $4 AND state = 'leased'",
    )
    .bind(crawl)
    .bind(host)
    .bind(lease_id)
    .bind(worker)
    .fetch_optional(&mut **tx)
    .await?;
    let Some(text) = entry else {
        return Ok(None);
    };
    let more = more_queued(tx, crawl, host).await?;
    Ok(Some(Claim::Leased(lease_id, text, more)))
}
