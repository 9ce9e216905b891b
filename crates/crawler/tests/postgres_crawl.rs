//! A real crawl of the fixture site with every store in PostgreSQL (`[store] url`, the server
//! `DEDUPCRAWL_TEST_POSTGRES` names; fails without one): it archives every distinct page once
//! and each duplicate group once, like the embedded crawl in `crawl.rs`.

use crate::common;

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

/// Two workers (two engines with their own `out`, one crawl name) crawl the fixture site at
/// once: every distinct page is archived exactly once across both outputs, and each duplicate
/// group once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_workers_on_one_crawl_archive_each_distinct_page_once_between_them() {
    let site = TestSite::start_with(site_options())
        .await
        .expect("site starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let (server, crawl) = (server_url(), fresh_crawl());
    let outs = [dir.path().join("w1"), dir.path().join("w2")];
    let workers = spawn_postgres_workers(&site, &outs, &server, &crawl);
    for worker in workers {
        let report = worker.await.expect("worker task").expect("crawl runs");
        eprintln!("{}", report.summary());
    }
    for out in &outs {
        // Each worker's WARC files carry its name (the last component of its `out`).
        let tag = out.file_name().and_then(|n| n.to_str()).expect("out name");
        for file in std::fs::read_dir(out.join("warc")).expect("warc dir") {
            let name = file
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned();
            assert!(
                name.starts_with(&format!("dedupcrawl-{tag}-")),
                "{name} does not name its worker {tag}"
            );
        }
        // Both take part: the second takes up the hosts the first queued.
        assert!(
            !responses_per_url(&read_warcs(out)).is_empty(),
            "{} archived nothing",
            out.display()
        );
    }
    let failures = shared_crawl_problems(&site.expected(), &outs);
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Soft 404s on PostgreSQL: the shop's probe is kept in the crawl's state (`crawl_soft_404`),
/// so a resumed worker does not probe again and still finds every soft 404.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_crawl_on_postgres_keeps_the_soft_404_probe() {
    let (server, crawl) = (server_url(), fresh_crawl());
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    common::soft_404_checks::resumed_crawl_keeps_the_probe(&out, &|config| {
        config.store.url = Some(server.clone());
        config.store.crawl = Some(crawl.clone());
    })
    .await;
}
