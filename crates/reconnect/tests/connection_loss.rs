//! Which errors of a real PostgreSQL server (`DEDUPCRAWL_TEST_POSTGRES`, started by
//! `./scripts/with-postgres`; fails without one) are connection losses, and what
//! [`Reconnect::retry`] does with them: a statement's own error is returned at once, a session
//! the server ended is tried again on a new connection, a server that stays unreachable ends
//! in [`Unreachable`] after the limit.

use std::time::Duration;

use dedupcrawl_reconnect::{ConnectionLoss, Reconnect, Unreachable, is_connection_loss};
use sqlx::Connection as _;
use sqlx::postgres::PgConnection;

fn server_url() -> String {
    std::env::var("DEDUPCRAWL_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "DEDUPCRAWL_TEST_POSTGRES is not set: these tests need a server. Run them through \
             ./scripts/with-postgres"
        )
    })
}

/// A store's error, as the stores have it.
#[derive(Debug, thiserror::Error)]
enum StoreError {
    #[error("cannot {action}: {source}")]
    Postgres {
        action: &'static str,
        source: sqlx::Error,
    },
    #[error(transparent)]
    Unreachable(Unreachable),
}

impl ConnectionLoss for StoreError {
    fn is_connection_loss(&self) -> bool {
        matches!(self, StoreError::Postgres { source, .. } if is_connection_loss(source))
    }

    fn after_waiting(self, waited: Duration) -> Self {
        match self {
            StoreError::Postgres { action, source } => {
                StoreError::Unreachable(Unreachable::new(action, waited, source))
            }
            other => other,
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

fn query(action: &'static str) -> impl FnOnce(sqlx::Error) -> StoreError {
    move |source| StoreError::Postgres { action, source }
}

#[test]
fn a_constraint_violation_is_not_retried() {
    let runtime = runtime();
    let mut connection = runtime
        .block_on(PgConnection::connect(&server_url()))
        .expect("connect");
    runtime
        .block_on(
            sqlx::query("CREATE TEMPORARY TABLE once (key int PRIMARY KEY)")
                .execute(&mut connection),
        )
        .expect("create");
    let mut tries = 0;
    let result = Reconnect::new("test", Duration::from_secs(60)).retry(|| {
        tries += 1;
        runtime
            .block_on(sqlx::query("INSERT INTO once VALUES (1)").execute(&mut connection))
            .map_err(query("insert"))
    });
    assert!(result.is_ok(), "{result:?}");
    let result = Reconnect::new("test", Duration::from_secs(60)).retry(|| {
        tries += 1;
        runtime
            .block_on(sqlx::query("INSERT INTO once VALUES (1)").execute(&mut connection))
            .map_err(query("insert"))
    });
    let Err(StoreError::Postgres { source, .. }) = result else {
        panic!("a unique violation should come back as it is: {result:?}");
    };
    assert!(!is_connection_loss(&source));
    assert_eq!(tries, 2, "each insert tried once");
}

#[test]
fn a_session_the_server_ended_is_tried_again_on_a_new_connection() {
    let runtime = runtime();
    let url = server_url();
    let mut connection = runtime
        .block_on(PgConnection::connect(&url))
        .expect("connect");
    let pid: i32 = runtime
        .block_on(sqlx::query_scalar("SELECT pg_backend_pid()").fetch_one(&mut connection))
        .expect("pid");
    let mut administrator = runtime
        .block_on(PgConnection::connect(&url))
        .expect("connect");
    let ended: bool = runtime
        .block_on(
            sqlx::query_scalar("SELECT pg_terminate_backend($1)")
                .bind(pid)
                .fetch_one(&mut administrator),
        )
        .expect("terminate");
    assert!(ended);
    let mut connection = Some(connection);
    let mut losses = Vec::new();
    let answer = Reconnect::new("test", Duration::from_secs(60)).retry(|| {
        // The first try uses the ended session; later ones connect anew, as a pool does.
        let result = runtime.block_on(async {
            let mut session = match connection.take() {
                Some(session) => session,
                None => PgConnection::connect(&url).await?,
            };
            sqlx::query_scalar::<_, i32>("SELECT 7")
                .fetch_one(&mut session)
                .await
        });
        result.map_err(|source| {
            losses.push(source.to_string());
            query("select")(source)
        })
    });
    assert_eq!(answer.expect("answer after a new connection"), 7);
    assert_eq!(losses.len(), 1, "one loss, then through: {losses:?}");
}

#[test]
fn a_server_that_stays_unreachable_ends_in_a_clear_error_after_the_limit() {
    let runtime = runtime();
    // A port nothing listens on: connections are refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("free port")
        .port();
    let url = format!("postgres://dedupcrawl@127.0.0.1:{port}/postgres");
    let mut tries = 0;
    let result = Reconnect::new("test", Duration::from_millis(300)).retry(|| {
        tries += 1;
        runtime
            .block_on(PgConnection::connect(&url))
            .map(drop)
            .map_err(query("connect"))
    });
    let Err(StoreError::Unreachable(unreachable)) = result else {
        panic!("expected Unreachable, got {result:?}");
    };
    assert!(matches!(unreachable.source, sqlx::Error::Io(_)));
    assert!(unreachable.waited_seconds >= 0.3);
    assert!(tries > 1, "tried again before giving up");
    let message = unreachable.to_string();
    for part in [
        "could not be reached to connect",
        "store.url",
        "store.reconnect_seconds",
    ] {
        assert!(message.contains(part), "{message}");
    }
}
