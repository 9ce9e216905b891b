//! The PostgreSQL server of the index tests: `DEDUPCRAWL_TEST_POSTGRES` (`./scripts/test` and
//! `./scripts/with-postgres` start a throwaway one). Without it the tests fail: they never
//! skip. Each test works on a crawl of its own in that database, so tests never meet.

use std::sync::atomic::{AtomicU64, Ordering};

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

/// A crawl name no other test (or earlier run) uses.
pub fn fresh_crawl() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    format!(
        "index-test-{}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    )
}

pub mod commit_cutter;
