//! Waiting out a PostgreSQL server that is unreachable or restarting, shared by the three
//! PostgreSQL stores (frontier, dedup index, crawl state): [`is_connection_loss`] says which
//! errors mean "the connection is gone" (worth another try) as opposed to "the statement
//! failed" (never retried), and [`Reconnect::retry`] runs a call again with backoff until it
//! gets through or the limit (`[store] reconnect_seconds`) has passed.
//!
//! A crate of its own because the frontier does not depend on the index (nor the index on the
//! frontier), and both need the same rules; no crate for this job was found (sqlx itself only
//! retries inside `connect`/`acquire`, not a statement whose connection broke).
//!
//! What a retry runs again is the caller's choice: a whole transaction from its start (its
//! earlier attempt was rolled back with its connection), never one statement inside it. A
//! COMMIT lost with its connection may or may not have been applied: each store says in its
//! code what a re-run does then.
//!
//! [`StoreRuntime`] is the other half the stores share: their calls are synchronous, so each
//! runs its queries on a runtime of its own and waits for the answer; [`HeldConnections`]
//! keeps each store's connections between its calls, which spares a round trip per call.

mod held_connections;
mod store_runtime;

pub use held_connections::{Held, HeldConnections};
pub use store_runtime::{CallPanicked, StoreRuntime};

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The first pause after a connection loss; each next one doubles, up to [`LONGEST_PAUSE`].
const FIRST_PAUSE: Duration = Duration::from_millis(100);
const LONGEST_PAUSE: Duration = Duration::from_secs(5);
/// How long a store waits for the server by default (`[store] reconnect_seconds`).
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(120);

/// Whether `error` means the connection to the server is lost or cannot be made now (the
/// server is down, restarting, or shutting the session down), as opposed to an error of the
/// statement itself (a constraint violation, bad SQL, bad data), which another try would only
/// repeat.
pub fn is_connection_loss(error: &sqlx::Error) -> bool {
    match error {
        // Refused, reset, broken pipe, closed: the socket is gone.
        sqlx::Error::Io(_) => true,
        // The pool could not open a connection in time: the server does not answer.
        sqlx::Error::PoolTimedOut => true,
        sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(database) => database.code().is_some_and(|code| {
            // Class 08: connection exceptions. 57P01 admin_shutdown (`pg_ctl stop -m fast`),
            // 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or shutting down).
            code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P03")
        }),
        // A closed pool is this process closing its store: nothing to wait for.
        _ => false,
    }
}

/// An error of a store that may be a lost connection.
pub trait ConnectionLoss: Sized + std::fmt::Display {
    /// Whether another try after a pause may succeed ([`is_connection_loss`] of its source).
    fn is_connection_loss(&self) -> bool;
    /// The error once the store has waited `waited` for the server in vain: the same error,
    /// saying so and what to do ([`Unreachable`]).
    fn after_waiting(self, waited: Duration) -> Self;
}

/// Implements [`ConnectionLoss`] for a store's error enum whose variant `$lost { action,
/// source: sqlx::Error }` is a failed PostgreSQL call and `$unreachable(Unreachable)` the error
/// after waiting in vain: `impl_connection_loss!(IndexError, IndexError::Postgres,
/// IndexError::Unreachable);` (one definition for the three stores' errors).
#[macro_export]
macro_rules! impl_connection_loss {
    ($error:ty, $lost:path, $unreachable:path) => {
        impl $crate::ConnectionLoss for $error {
            fn is_connection_loss(&self) -> bool {
                matches!(self, $lost { source, .. } if $crate::is_connection_loss(source))
            }

            fn after_waiting(self, waited: ::std::time::Duration) -> Self {
                match self {
                    $lost { action, source } => {
                        $unreachable($crate::Unreachable::new(action, waited, source))
                    }
                    other => other,
                }
            }
        }
    };
}

/// A PostgreSQL call that failed because the server stayed unreachable for the whole wait.
#[derive(Debug, thiserror::Error)]
#[error(
    "PostgreSQL could not be reached to {action} for {waited_seconds:.0} s ({source}); check \
     that the server of store.url is running and reachable, then run the same command again: \
     the crawl resumes. store.reconnect_seconds sets how long a worker waits for the server"
)]
pub struct Unreachable {
    pub action: &'static str,
    pub waited_seconds: f64,
    #[source]
    pub source: sqlx::Error,
}

impl Unreachable {
    pub fn new(action: &'static str, waited: Duration, source: sqlx::Error) -> Unreachable {
        Unreachable {
            action,
            waited_seconds: waited.as_secs_f64(),
            source,
        }
    }
}

/// How one store waits for its server: the limit, and which of its calls are waiting now (for
/// one warning when the first starts waiting and one note when the server is back).
#[derive(Debug, Clone)]
pub struct Reconnect {
    limit: Duration,
    /// The store's name in the log ("frontier", "dedup index", "crawl state").
    store: &'static str,
    waiting: Arc<AtomicUsize>,
}

impl Reconnect {
    /// Waits up to `limit` for the server (zero: fails at the first connection loss).
    pub fn new(store: &'static str, limit: Duration) -> Reconnect {
        Reconnect {
            limit,
            store,
            waiting: Arc::default(),
        }
    }

    /// Runs `attempt` until it succeeds, fails with an error that is not a connection loss,
    /// or connection losses have gone on for the limit. Pauses block the calling thread, like
    /// the synchronous store calls themselves.
    pub fn retry<T, E: ConnectionLoss>(
        &self,
        mut attempt: impl FnMut() -> Result<T, E>,
    ) -> Result<T, E> {
        let mut outage: Option<(Instant, Duration)> = None;
        loop {
            match attempt() {
                Ok(value) => {
                    if let Some((since, _)) = outage {
                        self.stop_waiting(Some(since.elapsed()));
                    }
                    return Ok(value);
                }
                Err(error) if error.is_connection_loss() => {
                    let (since, pause) = outage.get_or_insert_with(|| {
                        self.start_waiting(&error);
                        (Instant::now(), FIRST_PAUSE)
                    });
                    let waited = since.elapsed();
                    if waited >= self.limit {
                        self.stop_waiting(None);
                        return Err(error.after_waiting(waited));
                    }
                    std::thread::sleep((*pause).min(self.limit - waited));
                    *pause = (*pause * 2).min(LONGEST_PAUSE);
                }
                Err(error) => {
                    if outage.is_some() {
                        self.stop_waiting(None);
                    }
                    return Err(error);
                }
            }
        }
    }

    fn start_waiting(&self, error: &dyn std::fmt::Display) {
        if self.waiting.fetch_add(1, Ordering::SeqCst) == 0 {
            tracing::warn!(
                store = self.store,
                %error,
                wait_seconds = self.limit.as_secs_f64(),
                "PostgreSQL connection lost: waiting for the server (store.reconnect_seconds)"
            );
        }
    }

    /// One call stopped waiting: `recovered_after` when it got through.
    fn stop_waiting(&self, recovered_after: Option<Duration>) {
        if self.waiting.fetch_sub(1, Ordering::SeqCst) == 1
            && let Some(after) = recovered_after
        {
            tracing::info!(
                store = self.store,
                after_seconds = after.as_secs_f64(),
                "PostgreSQL reachable again: going on"
            );
        }
    }
}
