use super::*;

/// The test server (`./scripts/with-postgres` exports it); without it the test fails.
fn server_url() -> String {
    std::env::var("DEDUPCRAWL_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "DEDUPCRAWL_TEST_POSTGRES is not set: the PostgreSQL tests need a server. Run \
             them through ./scripts/test or ./scripts/with-postgres"
        )
    })
}

fn fresh_crawl() -> String {
    format!(
        "state-test-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    )
}

#[test]
fn passes_the_crawl_state_behaviour_suite() {
    let (url, crawl) = (server_url(), fresh_crawl());
    crate::crawl_state::behaviour_suite::run(&|| {
        Box::new(PostgresCrawlState::connect(&url, &crawl, "w1").unwrap())
    });
}

/// Two workers of one crawl share URL rules as they learn them.
#[test]
fn workers_share_url_rules_while_they_run() {
    let (url, crawl) = (server_url(), fresh_crawl());
    let one = PostgresCrawlState::connect(&url, &crawl, "w1").unwrap();
    let two = PostgresCrawlState::connect(&url, &crawl, "w2").unwrap();
    crate::url_rules::tests::a_rule_learned_by_one_worker_applies_in_another(&one, &two);
}

/// Two workers of one crawl share archived URLs and sitemaps, not log marks or checkpoints;
/// each sees every worker's output directory.
#[test]
fn workers_share_archived_urls_and_keep_their_own_log_and_checkpoint() {
    let (url, crawl) = (server_url(), fresh_crawl());
    let one = PostgresCrawlState::connect(&url, &crawl, "w1").unwrap();
    let two = PostgresCrawlState::connect(&url, &crawl, "w2").unwrap();
    let record = ArchivedRecord {
        record_type: "response".into(),
        record_id: Some("<urn:uuid:1>".into()),
        date: None,
        payload_digest: None,
        round: 1,
    };
    one.record_archived("http://a.example/", &record).unwrap();
    assert_eq!(
        two.archived_record("http://a.example/").unwrap(),
        Some(record)
    );
    one.mark_sitemaps_read("a.example").unwrap();
    assert!(two.sitemaps_read("a.example").unwrap());
    one.mark_logged("http://a.example/").unwrap();
    assert!(!two.is_logged("http://a.example/").unwrap());
    one.set_checkpoint(&ArchiveCheckpoint {
        file: "w1-00000.warc.gz".into(),
        offset: 9,
    })
    .unwrap();
    assert_eq!(two.checkpoint().unwrap(), None);
    two.record_output_dir("/out/w2").unwrap();
    one.record_output_dir("/out/w1").unwrap();
    assert_eq!(
        two.output_dirs().unwrap(),
        ["/out/w1", "/out/w2"],
        "every worker's output directory, by worker name"
    );
    let other_crawl = PostgresCrawlState::connect(&url, &fresh_crawl(), "w1").unwrap();
    assert_eq!(
        other_crawl.archived_record("http://a.example/").unwrap(),
        None
    );
}
