//! A host whose robots.txt cannot be fetched: nothing is fetched from it, robots.txt is tried
//! again after a backoff, and after `fetch.host_max_failures` failures in a row the host is
//! given up for the run; its seed is logged once as an error saying why.

use crate::common;

use dedupcrawl_crawler::{Decision, HOST_GIVEN_UP_NOTE, run_crawl};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreachable_host_is_retried_then_logged_once() {
    // A port nobody listens on.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut config = common::config_for(vec![format!("http://127.0.0.1:{port}/")], &out);
    config.fetch.robots_retry = 0.2;
    let report = run_crawl(config).await.expect("crawl ends");
    assert!(report.finished);
    let lines = common::crawl_log(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0].decision, Decision::Error);
    assert!(
        lines[0]
            .error
            .as_deref()
            .is_some_and(|e| e.starts_with("host unreachable: connection refused (3 tries over "))
    );
    assert_eq!(lines[0].note.as_deref(), Some(HOST_GIVEN_UP_NOTE));
    assert_eq!(report.given_up_hosts.len(), 1);
    assert!(report.every_seed_host_given_up);
    assert_eq!(report.total.errors, 1);
}
