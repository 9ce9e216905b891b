//! A real crawl of the fixture site with every store in PostgreSQL (`[store] url`, the server
//! `DEDUPCRAWL_TEST_POSTGRES` names; fails without one): it archives every distinct page once
//! and each duplicate group once, like the embedded crawl in `crawl.rs`.

mod common;

use dedupcrawl_crawler::run_crawl;
use dedupcrawl_testsite::TestSite;

use common::*;

/// The test server's URL (`./scripts/test` and `./scripts/with-postgres` start one).
fn server_url() -> String {
    std::env::var("DEDUPCRAWL_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "DEDUPCRAWL_TEST_POSTGRES is not set: the PostgreSQL tests need a server. Run them \
             through ./scripts/test or ./scripts/with-postgres"
        )
    })
}

/// A crawl name no other test or earlier run uses.
fn fresh_crawl() -> String {
    format!(
        "crawl-test-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crawl_of_the_fixture_site_on_postgres_archives_each_distinct_page_once() {
    let site = TestSite::start_with(site_options())
        .await
        .expect("site starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let (server, crawl) = (server_url(), fresh_crawl());
    let mut config = test_config(&site, &out);
    config.store.url = Some(server.clone());
    config.store.crawl = Some(crawl.clone());
    let report = run_crawl(config).await.expect("crawl runs");
    eprintln!("{}", report.summary());
    assert!(report.finished);
    let failures = archive_problems(&site.expected(), &out);
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(
        !out.join("state").join("db").exists(),
        "no embedded store is opened with a PostgreSQL store.url"
    );
    // The state is in PostgreSQL, under this crawl's name.
    let pool = sqlx::PgPool::connect(&server).await.expect("connect");
    for table in ["frontier_seen", "index_document", "crawl_archived"] {
        let rows: i64 =
            sqlx::query_scalar(&format!("SELECT count(*) FROM {table} WHERE crawl = $1"))
                .bind(&crawl)
                .fetch_one(&pool)
                .await
                .expect("count rows");
        assert!(rows > 0, "no {table} rows for the crawl");
    }
}
