//! Leases on PostgreSQL, with politeness across workers: the server-side function
//! `frontier_lease` (migrations/20261126100000_frontier_lease_function.sql) locks the host's
//! `frontier_host_slot` row, which holds its next allowed start and its Retry-After pause on the
//! database's clock, counts the host's live leases against `per_host`, and leases URLs from the
//! front of the host queue: one round trip for what took five statements.
//!
//! [`LeaseBook`] is what this worker holds: every lease it took and has not ended (so that
//! "is this lease out?" needs no round trip), and the leases taken ahead of their turn. On a host
//! without a delay one call leases up to [`LEASE_BATCH`] URLs; they are handed out one by one
//! by later `lease_front` calls. They are leases in the database like any other (they count
//! against the host's concurrency across workers, are renewed, and come back after a crash).

use std::collections::{HashMap, HashSet, VecDeque};

use crate::entry::Lease;

/// URLs leased per round trip from a host without a delay between requests. A host with a
/// delay gets one per round trip: each lease moves its next start (across workers) one delay
/// ahead.
pub(crate) const LEASE_BATCH: u32 = 8;

/// What one `frontier_lease` call found.
pub(crate) enum Claim {
    /// Leases in queue order (lease id, stored entry), and whether more URLs stay queued.
    Leased(Vec<(i64, String)>, bool),
    Empty,
    /// Ask again after this many milliseconds.
    Wait(i64),
}

/// What [`claim_front`] works on.
#[derive(Clone)]
pub(crate) struct HostClaim {
    pub(crate) host: String,
    pub(crate) lease_ms: i64,
    pub(crate) delay_ms: i64,
    pub(crate) per_host: i64,
    pub(crate) want: i64,
    /// After a call whose answer was lost: every lease this worker knows it holds (see the
    /// function's comment).
    pub(crate) known: Option<Vec<i64>>,
    /// This worker's finished leases, whose rows the call deletes first.
    pub(crate) finished: Vec<i64>,
}

/// Leases up to `claim.want` URLs of the host queue's front if the host's slot allows a
/// request now. One statement, so no BEGIN/COMMIT around it: the function call is its own
/// transaction (the slot row stays locked to its end), two round trips a lease fewer.
pub(crate) async fn claim_front(
    executor: impl sqlx::PgExecutor<'_>,
    crawl: &str,
    worker: &str,
    claim: &HostClaim,
) -> Result<Claim, sqlx::Error> {
    let rows: Vec<(Option<i64>, Option<String>, i64, bool)> =
        sqlx::query_as("SELECT * FROM frontier_lease($1, $2, $3, $4, $5, $6, $7, $8, $9)")
            .bind(crawl)
            .bind(worker)
            .bind(&claim.host)
            .bind(claim.lease_ms)
            .bind(claim.delay_ms)
            .bind(claim.per_host)
            .bind(claim.want)
            .bind(&claim.known)
            .bind(&claim.finished)
            .fetch_all(executor)
            .await?;
    let mut leases = Vec::new();
    // The closing row's; leases found again after a lost answer come without one.
    let mut more = None;
    for (lease_id, entry, wait_ms, row_more) in rows {
        match (lease_id, entry) {
            (Some(id), Some(text)) => leases.push((id, text)),
            _ if wait_ms > 0 => return Ok(Claim::Wait(wait_ms)),
            _ => more = Some(row_more),
        }
    }
    if leases.is_empty() {
        return Ok(Claim::Empty);
    }
    Ok(Claim::Leased(leases, more.unwrap_or(true)))
}

/// The leases one worker holds: out (handed to the engine, or taken ahead of their turn) and,
/// per host, those taken ahead.
#[derive(Default)]
pub(crate) struct LeaseBook {
    out: HashSet<u64>,
    ahead: HashMap<String, Ahead>,
}

/// Leases of one host taken ahead of their turn, and whether the host's queue held more when
/// they were taken.
struct Ahead {
    leases: VecDeque<Lease>,
    more: bool,
}

impl LeaseBook {
    /// Every lease this worker holds (for a call run again after a lost answer).
    pub(crate) fn out_ids(&self) -> Vec<i64> {
        self.out
            .iter()
            .map(|&id| i64::try_from(id).unwrap_or(i64::MAX))
            .collect()
    }

    pub(crate) fn is_out(&self, lease_id: u64) -> bool {
        self.out.contains(&lease_id)
    }

    /// The lease ended (finished, requeued, delayed).
    pub(crate) fn ended(&mut self, lease_id: u64) {
        self.out.remove(&lease_id);
    }

    /// Keeps `leases` (in queue order) of `host` to be handed out.
    pub(crate) fn take_ahead(&mut self, host: &str, leases: Vec<Lease>, more: bool) {
        self.out.extend(leases.iter().map(Lease::id));
        let ahead = self.ahead.entry(host.to_string()).or_insert(Ahead {
            leases: VecDeque::new(),
            more,
        });
        ahead.leases.extend(leases);
        ahead.more = more;
    }

    /// The next lease of `host` taken ahead, and whether the host has more (ahead, or queued
    /// when they were taken).
    pub(crate) fn hand_out(&mut self, host: &str) -> Option<(Lease, bool)> {
        let ahead = self.ahead.get_mut(host)?;
        let lease = ahead.leases.pop_front();
        let more = !ahead.leases.is_empty() || ahead.more;
        if ahead.leases.is_empty() {
            self.ahead.remove(host);
        }
        lease.map(|lease| (lease, more))
    }

    /// Takes the leases of `host` (every host: `None`) taken ahead out of the book, in queue
    /// order per host: they go back to their queues.
    pub(crate) fn give_back(&mut self, host: Option<&str>) -> Vec<Lease> {
        let hosts: Vec<String> = match host {
            Some(host) => vec![host.to_string()],
            None => self.ahead.keys().cloned().collect(),
        };
        let mut leases = Vec::new();
        for host in hosts {
            if let Some(ahead) = self.ahead.remove(&host) {
                leases.extend(ahead.leases);
            }
        }
        for lease in &leases {
            self.out.remove(&lease.id());
        }
        leases
    }
}
