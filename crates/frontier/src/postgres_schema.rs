//! The frontier's PostgreSQL schema: the sqlx migrations of the top-level `migrations/`,
//! embedded in the binary and applied when a store connects. A database whose schema is newer
//! than this binary knows (a migration it does not have) is refused with a clear error.

use sqlx::migrate::Migrator;
use sqlx::postgres::{PgPool, PgPoolOptions};

use crate::error::FrontierError;

/// The migrations of `migrations/`, in version order.
pub static MIGRATOR: Migrator = sqlx::migrate!("../../migrations");

/// Connects to `url` (`postgres://user@host:port/database`) with a pool of at most
/// `max_connections` and brings the schema up to date.
pub async fn connect_and_migrate(url: &str, max_connections: u32) -> Result<PgPool, FrontierError> {
    // No ping before each use of a pooled connection: it is a round trip per call, and a
    // broken connection fails its statement anyway.
    let pool = PgPoolOptions::new()
        .max_connections(max_connections)
        .test_before_acquire(false)
        .connect(url)
        .await
        .map_err(|source| FrontierError::Postgres {
            action: "connect",
            source,
        })?;
    MIGRATOR.run(&pool).await.map_err(|error| match error {
        sqlx::migrate::MigrateError::VersionMissing(version) => {
            FrontierError::SchemaTooNew { version }
        }
        other => FrontierError::Migration(other),
    })?;
    Ok(pool)
}
