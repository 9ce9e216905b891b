//! A host whose robots.txt cannot be fetched: nothing is fetched from it, it is retried after
//! `fetch.robots_retry`, and after `fetch.max_attempts` the URL is logged once as an error.

mod common;

use dedupcrawl_crawler::{Decision, run_crawl};

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
            .is_some_and(|e| e.contains("robots.txt"))
    );
    assert_eq!(report.total.errors, 1);
}
