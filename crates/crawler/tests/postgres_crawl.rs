//! A real crawl of the fixture site with every store in PostgreSQL (`[store] url`, the server
//! `DEDUPCRAWL_TEST_POSTGRES` names; fails without one): it archives every distinct page once
//! and each duplicate group once, like the embedded crawl in `crawl.rs`; URL rules learned by one
//! run apply in the next.

use crate::common;

use dedupcrawl_crawler::{CrawlConfig, run_crawl};
use dedupcrawl_testsite::{TestSite, UrlVariantsSite, VARIANT_ITEMS};

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

/// URL rules on PostgreSQL: a rule learned by a run stopped by its page budget is read from the
/// crawl's tables by the next run, which applies it from its first variant on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn url_rules_learned_on_postgres_apply_in_the_next_run() {
    let site = UrlVariantsSite::start().await.expect("host starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let (server, crawl) = (server_url(), fresh_crawl());
    let config = |max_pages: Option<u64>| {
        let mut config = CrawlConfig::default();
        config.crawl.seeds = vec![format!("{}idx/tracking", site.truth().seed)];
        config.crawl.out = dir.path().join("out");
        (
            config.crawl.delay,
            config.crawl.concurrency,
            config.crawl.per_host,
        ) = (0.0, 1, 1);
        (config.crawl.sitemaps, config.crawl.soft_404_probes) = (false, 0);
        (config.crawl.progress, config.crawl.max_pages) = (false, max_pages);
        config.store.url = Some(server.clone());
        config.store.crawl = Some(crawl.clone());
        config
    };
    let variant_fetches = || {
        let requests = site.requests();
        site.truth()
            .variants
            .iter()
            .map(|v| requests.get(&v.url).copied().unwrap_or(0))
            .sum::<usize>()
    };
    // The index, the originals and five variants: the rule is learned, then the run stops.
    let budget = 1 + VARIANT_ITEMS as u64 + 5;
    let first = run_crawl(config(Some(budget))).await.expect("first run");
    assert_eq!(
        first.url_rules.map(|r| r.active),
        Some(1),
        "learned in the first run"
    );
    let fetched_first = variant_fetches();
    let second = run_crawl(config(None)).await.expect("second run");
    let fetched_second = variant_fetches() - fetched_first;
    assert!(
        fetched_second <= 2,
        "applied from the start (one in 20 verified): {fetched_second}"
    );
    assert_eq!(
        second.total.url_duplicates as usize + fetched_second,
        VARIANT_ITEMS - fetched_first
    );
    let pool = sqlx::PgPool::connect(&server).await.expect("connect");
    for table in ["crawl_url_rules", "crawl_url_rule_sets"] {
        let rows: i64 =
            sqlx::query_scalar(&format!("SELECT count(*) FROM {table} WHERE crawl = $1"))
                .bind(&crawl)
                .fetch_one(&pool)
                .await
                .expect("count rows");
        assert!(rows > 0, "no {table} rows for the crawl");
    }
}
