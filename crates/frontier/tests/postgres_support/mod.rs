//! A fresh PostgreSQL database per test, on the server `DEDUPCRAWL_TEST_POSTGRES` names
//! (`./scripts/test` and `./scripts/with-postgres` start a throwaway one). Without it the
//! tests fail: they never skip.

use std::sync::atomic::{AtomicU64, Ordering};

use sqlx::Connection;

/// The environment variable with the server's URL.
pub const SERVER_VARIABLE: &str = "DEDUPCRAWL_TEST_POSTGRES";

/// The URL of the test server.
pub fn server_url() -> String {
    std::env::var(SERVER_VARIABLE).unwrap_or_else(|_| {
        panic!(
            "{SERVER_VARIABLE} is not set: the PostgreSQL tests need a server. Run them through \
             ./scripts/test or ./scripts/with-postgres (which start a throwaway cluster)"
        )
    })
}

/// Creates an empty database of its own and returns its URL.
pub async fn fresh_database() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let server = server_url();
    let name = format!(
        "dedupcrawl_test_{}_{}_{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos())
    );
    let mut admin = sqlx::PgConnection::connect(&server)
        .await
        .unwrap_or_else(|error| panic!("cannot connect to {server} ({SERVER_VARIABLE}): {error}"));
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut admin)
        .await
        .expect("create a test database");
    admin.close().await.ok();
    match server.rfind('/') {
        Some(slash) => format!("{}/{name}", &server[..slash]),
        None => panic!("{SERVER_VARIABLE} must end in /DATABASE: {server}"),
    }
}
