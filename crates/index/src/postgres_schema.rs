//! The index's PostgreSQL schema: the sqlx migrations of the top-level `migrations/` (all of
//! them: the frontier's tables too, so whichever store connects first sets the whole schema
//! up), embedded in the binary and applied on connect. A database whose schema is newer than
//! this binary knows is refused with [`IndexError::SchemaTooNew`].

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgPool, PgPoolOptions};

use crate::IndexError;

/// The migrations of `migrations/`, in version order.
static MIGRATOR: Migrator = sqlx::migrate!("../../migrations");

/// Connects to `url` (`postgres://user@host:port/database`) with a pool of at most
/// `max_connections` and brings the schema up to date.
pub async fn connect_and_migrate(url: &str, max_connections: u32) -> Result<PgPool, IndexError> {
    // No ping before each use of a pooled connection: it is a round trip per call, and a
    // broken connection fails its statement anyway.
    let pool = PgPoolOptions::new()
        .max_connections(max_connections)
        .test_before_acquire(false)
        .connect(url)
        .await
        .map_err(|source| IndexError::Postgres {
            action: "connect",
            source,
        })?;
    MIGRATOR.run(&pool).await.map_err(|error| match error {
        sqlx::migrate::MigrateError::VersionMissing(version) => {
            IndexError::SchemaTooNew { version }
        }
        other => IndexError::Migration(other),
    })?;
    Ok(pool)
}
