//! PostgreSQL restarted under two running workers of one crawl: the server is stopped (`-m
//! fast`, which ends every session) in the middle of the crawl, stays down two seconds and
//! comes back. The workers wait for it (`[store] reconnect_for`) and go on: both finish
//! without an error, and every distinct page is archived exactly once across their WARCs.
//! Then a worker is started while the server is down (35 s, past sqlx's own 30 s of
//! connection attempts): it waits for it and crawls.
//!
//! Needs `./scripts/with-postgres` (or `./scripts/test`): the server of
//! `DEDUPCRAWL_TEST_POSTGRES` and its `DEDUPCRAWL_TEST_POSTGRES_CTL`; fails without them.

mod common;

use std::time::Duration;

use dedupcrawl_testsite::{TestSite, TestSiteOptions};

use common::*;

fn required_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: this test stops and starts a PostgreSQL server of its own. Run \
             it through ./scripts/with-postgres"
        )
    })
}

/// Runs the cluster's pg_ctl (`stop -m fast`, `start`) and fails the test if it fails.
fn pg_ctl(arguments: &[&str]) {
    let status = std::process::Command::new(required_env("DEDUPCRAWL_TEST_POSTGRES_CTL"))
        .args(arguments)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("pg_ctl runs");
    assert!(status.success(), "pg_ctl {arguments:?}: {status}");
}

/// Documents of the crawl's index (the server's view of the crawl's progress); an error before
/// the workers created the tables.
async fn indexed_documents(pool: &sqlx::PgPool, crawl: &str) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("SELECT count(*) FROM index_document WHERE crawl = $1")
        .bind(crawl)
        .fetch_one(pool)
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_wait_for_a_restarted_postgres_and_archive_each_distinct_page_once() {
    // A Crawl-delay long enough that the crawl is still running when the server goes down.
    let site = TestSite::start_with(TestSiteOptions {
        crawl_delay: Some(0.2),
        ..site_options()
    })
    .await
    .expect("site starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let server = required_env("DEDUPCRAWL_TEST_POSTGRES");
    let crawl = format!("restart-test-{}", std::process::id());
    let outs = [dir.path().join("w1"), dir.path().join("w2")];
    let workers = spawn_postgres_workers(&site, &outs, &server, &crawl);

    // Down once both workers have stored some pages.
    let pool = sqlx::PgPool::connect(&server).await.expect("connect");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut stored_before = 0;
    while stored_before < 10 {
        assert!(
            std::time::Instant::now() < deadline,
            "the crawl stored fewer than 10 documents in 60 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
        stored_before = indexed_documents(&pool, &crawl).await.unwrap_or(0);
    }
    pool.close().await;
    for worker in &workers {
        assert!(
            !worker.is_finished(),
            "a worker ended before the server went down: make the site slower"
        );
    }
    tokio::task::spawn_blocking(|| {
        pg_ctl(&["stop", "-m", "fast"]);
        std::thread::sleep(Duration::from_secs(2));
        pg_ctl(&["start"]);
    })
    .await
    .expect("restart");

    for worker in workers {
        let report = worker
            .await
            .expect("worker task")
            .expect("the worker goes on after the restart");
        eprintln!("{}", report.summary());
        assert!(report.finished, "a worker stopped before the crawl's end");
    }
    let failures = shared_crawl_problems(&site.expected(), &outs);
    assert!(failures.is_empty(), "{failures:#?}");
    // No URL fetched twice: one crawl-log line with a response per URL across the workers.
    let mut fetches: std::collections::HashMap<String, usize> = Default::default();
    for out in &outs {
        for line in crawl_log(out) {
            if line.status.is_some() {
                *fetches.entry(line.url).or_default() += 1;
            }
        }
    }
    let twice: Vec<_> = fetches.iter().filter(|(_, count)| **count > 1).collect();
    assert!(twice.is_empty(), "fetched more than once: {twice:?}");
    // The crawl went on after the restart: pages were stored then too.
    let pool = sqlx::PgPool::connect(&server).await.expect("reconnect");
    let stored_after = indexed_documents(&pool, &crawl).await.expect("count");
    assert!(
        stored_after > stored_before,
        "{stored_before} documents before the restart, {stored_after} after"
    );
    pool.close().await;

    // A worker started while the server is down waits for it as well, and crawls.
    tokio::task::spawn_blocking(|| pg_ctl(&["stop", "-m", "fast"]))
        .await
        .expect("stop");
    let late_crawl = format!("{crawl}-started-while-down");
    let late_out = [dir.path().join("late")];
    let late = spawn_postgres_workers(&site, &late_out, &server, &late_crawl);
    // Longer than sqlx's own 30 s of connection attempts: the wait is `reconnect_for`'s.
    tokio::time::sleep(Duration::from_secs(35)).await;
    assert!(
        !late[0].is_finished(),
        "a worker started while the server was down gave up before it came back"
    );
    tokio::task::spawn_blocking(|| pg_ctl(&["start"]))
        .await
        .expect("start");
    for worker in late {
        let report = worker
            .await
            .expect("worker task")
            .expect("a worker started while the server was down crawls once it is up");
        assert!(
            report.finished,
            "the late worker stopped before the crawl's end"
        );
        assert!(
            report.total.archived > 0,
            "the late worker archived nothing"
        );
    }
}
