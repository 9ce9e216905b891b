//! [`HeldConnections`]: a store's connections kept checked out of its pool between calls.
//!
//! Why: sqlx's pool tests every connection given back to it with a round trip to the server
//! (a `Sync` message and its answer, `PoolConnection`'s drop, whatever `test_before_acquire`
//! says). A store call of one statement was two round trips: with ~8 calls a page, a
//! PostgreSQL worker sent ~8 round trips a page that did nothing, each costing the worker and
//! the server CPU and a wake-up on both sides (a loop of one-row statements through a store's
//! runtime: ~12 µs of worker and ~7 µs of server CPU a call fewer). A store takes a connection from [`HeldConnections`] for a call and it
//! comes back to the store's own list, untested, when dropped: the next call uses it at once.
//!
//! A connection whose session broke is found by the next statement sent on it (an I/O error,
//! a connection loss): the store then calls [`HeldConnections::forget_idle`], so that its
//! retry ([`crate::Reconnect::retry`]) gets a new connection from the pool rather than the
//! other kept ones of the dead server, one per try. A statement's own error leaves the
//! connection usable (sqlx reads up to the server's `ReadyForQuery` before the next
//! statement), and so does a sqlx transaction dropped without commit (its `ROLLBACK` is sent
//! before the next statement). A transaction begun with [`Held::begin_transaction`] and not
//! ended is not kept: its connection is closed, which ends the transaction on the server.
//!
//! ```no_run
//! # async fn example(pool: sqlx::PgPool) -> Result<(), sqlx::Error> {
//! use dedupcrawl_reconnect::HeldConnections;
//! let connections = HeldConnections::new(pool);
//! let mut connection = connections.acquire().await?;
//! let one: i32 = sqlx::query_scalar("SELECT 1").fetch_one(&mut *connection).await?;
//! assert_eq!(one, 1);
//! drop(connection); // kept for the next call
//! # Ok(()) }
//! ```

use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex};

use sqlx::Executor as _;
use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnection, PgPool, Postgres};

type Idle = Arc<IdleList>;

/// The kept connections, and a signal for callers waiting for one of them.
#[derive(Debug, Default)]
struct IdleList {
    connections: Mutex<Vec<PoolConnection<Postgres>>>,
    /// One permit per connection put back: wakes a caller waiting in
    /// [`HeldConnections::acquire`] (the pool does not know of kept connections, so a caller
    /// waiting in its `acquire` alone would wait for its timeout).
    returned: tokio::sync::Notify,
}

/// The connections a store keeps between its calls, over its pool (see the module's docs).
#[derive(Clone, Debug)]
pub struct HeldConnections {
    pool: PgPool,
    idle: Idle,
}

impl HeldConnections {
    pub fn new(pool: PgPool) -> HeldConnections {
        HeldConnections {
            pool,
            idle: Arc::default(),
        }
    }

    /// The pool the connections come from.
    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// A connection kept from an earlier call, or one from the pool (a new one, while the pool
    /// has room), whichever comes first.
    pub async fn acquire(&self) -> Result<Held, sqlx::Error> {
        loop {
            let returned = self.idle.returned.notified();
            tokio::pin!(returned);
            // Registered before the list is looked at: a connection put back after that wakes
            // this caller.
            returned.as_mut().enable();
            let kept = lock(&self.idle).pop();
            if let Some(connection) = kept {
                return Ok(self.held(connection));
            }
            tokio::select! {
                connection = self.pool.acquire() => return Ok(self.held(connection?)),
                () = &mut returned => {}
            }
        }
    }

    fn held(&self, connection: PoolConnection<Postgres>) -> Held {
        Held {
            connection: Some(connection),
            idle: Arc::clone(&self.idle),
            in_transaction: false,
        }
    }

    /// Closes the kept connections (the pool opens new ones when needed): after a connection
    /// loss, the others are likely lost too. Callable from any thread.
    pub fn forget_idle(&self) {
        let kept = std::mem::take(&mut *lock(&self.idle));
        for connection in kept {
            drop(connection.detach());
        }
    }
}

impl Drop for IdleList {
    /// The store is gone: its kept connections are closed here, without a task (the pool's
    /// own drop of a connection spawns one, and a store may be dropped outside its runtime).
    fn drop(&mut self) {
        let kept = std::mem::take(
            self.connections
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for connection in kept {
            drop(connection.detach());
        }
    }
}

fn lock(idle: &IdleList) -> std::sync::MutexGuard<'_, Vec<PoolConnection<Postgres>>> {
    // A list of connections stays valid through a panic elsewhere: each change is one call.
    idle.connections
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A connection of [`HeldConnections`], back in its list when dropped.
#[derive(Debug)]
pub struct Held {
    connection: Option<PoolConnection<Postgres>>,
    idle: Idle,
    /// A transaction of [`begin_transaction`](Self::begin_transaction) is open.
    in_transaction: bool,
}

impl Held {
    /// Begins a transaction that this connection carries from call to call (a sqlx
    /// `Transaction` borrows its connection for one future only): end it with
    /// [`commit_transaction`](Self::commit_transaction) or
    /// [`rollback_transaction`](Self::rollback_transaction); dropped before, the connection is
    /// closed.
    pub async fn begin_transaction(&mut self) -> Result<(), sqlx::Error> {
        self.in_transaction = true;
        self.execute("BEGIN").await?;
        Ok(())
    }

    pub async fn commit_transaction(&mut self) -> Result<(), sqlx::Error> {
        self.execute("COMMIT").await?;
        self.in_transaction = false;
        Ok(())
    }

    pub async fn rollback_transaction(&mut self) -> Result<(), sqlx::Error> {
        self.execute("ROLLBACK").await?;
        self.in_transaction = false;
        Ok(())
    }
}

impl Deref for Held {
    type Target = PgConnection;

    fn deref(&self) -> &PgConnection {
        match &self.connection {
            Some(connection) => connection,
            None => unreachable!("a held connection is only taken by its drop"),
        }
    }
}

impl DerefMut for Held {
    fn deref_mut(&mut self) -> &mut PgConnection {
        match &mut self.connection {
            Some(connection) => connection,
            None => unreachable!("a held connection is only taken by its drop"),
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        let Some(connection) = self.connection.take() else {
            return;
        };
        if self.in_transaction {
            // Closing the session ends its transaction; the pool opens another when needed.
            // (Detached, so that no task is spawned: a drop may happen outside the runtime.)
            drop(connection.detach());
        } else {
            lock(&self.idle).push(connection);
            self.idle.returned.notify_one();
        }
    }
}
