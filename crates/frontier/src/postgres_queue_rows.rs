//! SQL on the rows of the PostgreSQL frontier ([`crate::postgres_queue`]): where an entry goes
//! in its host queue, queueing rows at the back, and putting leases left by dead workers back.

use sqlx::{Postgres, Transaction};

use crate::canonical::CanonicalUrl;
use crate::entry::{FrontierEntry, Lease};
use crate::seen::seen_key;
use crate::stored_entry::StoredEntry;

pub(crate) fn url_key(url: &CanonicalUrl) -> Vec<u8> {
    seen_key(url).to_vec()
}

pub(crate) fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// The stored text of an entry queued again after a lease of it (requeued, delayed).
pub(crate) fn stored_text(entry: FrontierEntry, attempts: u8) -> String {
    String::from_utf8_lossy(&StoredEntry::after_lease(entry, attempts).encode()).into_owned()
}

/// The position in front of the host's queue (or 0 in an empty one).
pub(crate) const FRONT_POSITION: &str = "COALESCE((SELECT min(position) - 1 FROM frontier_entry \
     WHERE crawl = $1 AND host = $2 AND state = 'queued'), 0)";
/// The position at the back of the host's queue (or 0 in an empty one).
pub(crate) const BACK_POSITION: &str = "COALESCE((SELECT max(position) + 1 FROM frontier_entry \
     WHERE crawl = $1 AND host = $2 AND state = 'queued'), 0)";

/// (host, stored entry) rows of fresh entries (no failed tries).
pub(crate) fn entry_rows(entries: Vec<FrontierEntry>) -> Vec<(String, String)> {
    entries
        .into_iter()
        .map(|entry| {
            let host = entry.url.host().to_string();
            let text = StoredEntry::new(entry, 0).encode();
            (host, String::from_utf8_lossy(&text).into_owned())
        })
        .collect()
}

/// Queues `rows` (host, stored entry) at the back of their host queues, in order.
pub(crate) async fn enqueue_at_back(
    tx: &mut Transaction<'static, Postgres>,
    crawl: &str,
    rows: Vec<(String, String)>,
) -> Result<(), sqlx::Error> {
    if rows.is_empty() {
        return Ok(());
    }
    let mut next_positions: std::collections::HashMap<String, i64> =
        std::collections::HashMap::new();
    let (mut hosts, mut positions, mut texts) = (Vec::new(), Vec::new(), Vec::new());
    for (host, text) in rows {
        let position = match next_positions.get_mut(&host) {
            Some(position) => position,
            None => {
                let back: i64 = sqlx::query_scalar(&format!("SELECT {BACK_POSITION}"))
                    .bind(crawl)
                    .bind(&host)
                    .fetch_one(&mut **tx)
                    .await?;
                next_positions.entry(host.clone()).or_insert(back)
            }
        };
        positions.push(*position);
        *position += 1;
        hosts.push(host);
        texts.push(text);
    }
    sqlx::query(
        "INSERT INTO frontier_entry (crawl, host, position, entry, state) \
         SELECT $1, host, position, entry, 'queued' \
         FROM unnest($2::text[], $3::int8[], $4::text[]) AS rows(host, position, entry)",
    )
    .bind(crawl)
    .bind(&hosts)
    .bind(&positions)
    .bind(&texts)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Moves the row `$3` (of host `$2`) to the back of its host queue as queued.
pub(crate) async fn queue_at_back(
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

/// Puts expired leases (and, with `owner`, every lease of that worker: a process that
/// crashed) back at the front of their host queues, the oldest lease first in the queue;
/// their hosts.
pub(crate) async fn requeue_left_leases(
    tx: &mut Transaction<'static, Postgres>,
    crawl: &str,
    owner: Option<&str>,
) -> Result<Vec<String>, sqlx::Error> {
    let leftovers: Vec<(i64, String)> = sqlx::query_as(
        "SELECT id, host FROM frontier_entry WHERE crawl = $1 AND state = 'leased' \
         AND (lease_owner = $2 OR lease_expires_at < now()) \
         ORDER BY lease_id DESC FOR UPDATE SKIP LOCKED",
    )
    .bind(crawl)
    .bind(owner)
    .fetch_all(&mut **tx)
    .await?;
    if !leftovers.is_empty() {
        tracing::info!(count = leftovers.len(), "requeueing URLs left leased");
    }
    let mut hosts = Vec::with_capacity(leftovers.len());
    for (id, host) in leftovers {
        // Its fetch may have happened: the stored entry says so (`Lease::leased_before`).
        sqlx::query(&format!(
            "UPDATE frontier_entry SET state = 'queued', lease_id = NULL, \
             lease_owner = NULL, lease_expires_at = NULL, position = {FRONT_POSITION}, \
             entry = (entry::jsonb || '{{\"l\": true}}'::jsonb)::text \
             WHERE id = $3"
        ))
        .bind(crawl)
        .bind(&host)
        .bind(id)
        .execute(&mut **tx)
        .await?;
        hosts.push(host);
    }
    hosts.dedup();
    Ok(hosts)
}

/// Puts `leases` of `worker` (in queue order) back at the front of their host queues, the first
/// one first, unchanged (no try counted).
pub(crate) async fn requeue_leases_at_front(
    tx: &mut Transaction<'static, Postgres>,
    crawl: &str,
    worker: &str,
    leases: &[Lease],
) -> Result<(), sqlx::Error> {
    for lease in leases.iter().rev() {
        sqlx::query(&format!(
            "UPDATE frontier_entry SET state = 'queued', lease_id = NULL, \
             lease_owner = NULL, lease_expires_at = NULL, position = {FRONT_POSITION} \
             WHERE crawl = $1 AND lease_id = $3 AND lease_owner = $4 AND state = 'leased'"
        ))
        .bind(crawl)
        .bind(lease.host())
        .bind(to_i64(lease.id()))
        .bind(worker)
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}
