//! The frontier's error type, shared by every module and backend.

/// Storage or consistency errors of the frontier.
#[derive(Debug, thiserror::Error)]
pub enum FrontierError {
    #[error("frontier storage: {0}")]
    Storage(#[from] sled::Error),
    #[error("frontier storage (PostgreSQL): cannot {action}: {source}")]
    Postgres {
        action: &'static str,
        #[source]
        source: sqlx::Error,
    },
    #[error("frontier storage: {0}")]
    Unreachable(#[source] dedupcrawl_reconnect::Unreachable),
    #[error("the frontier's PostgreSQL schema cannot be brought up to date: {0}")]
    Migration(#[source] sqlx::migrate::MigrateError),
    #[error(
        "the PostgreSQL database has schema migration {version}, which this dedupcrawl does not \
         know: it was set up by a newer dedupcrawl; run that version (or a new database)"
    )]
    SchemaTooNew { version: i64 },
    #[error("frontier storage (PostgreSQL): {0}")]
    Panicked(#[from] dedupcrawl_reconnect::CallPanicked),
    #[error("corrupt frontier record: {0}")]
    Corrupt(String),
    #[error("unknown or already completed lease {0}")]
    UnknownLease(u64),
}

dedupcrawl_reconnect::impl_connection_loss!(
    FrontierError,
    FrontierError::Postgres,
    FrontierError::Unreachable
);
