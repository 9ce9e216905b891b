//! Interrupts (issue 46): SIGINT or SIGTERM stops new requests at once and gives the fetches
//! in flight `crawl.interrupt_grace_seconds`; a second signal stops at once; the exit status
//! says the crawl was interrupted (130 for SIGINT, 143 for SIGTERM). Against a page that
//! answers in 20 s, with the same host's next URL waiting behind it.

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use dedupcrawl_testsite::{TestSite, TestSiteOptions};

use crate::support;

/// How long the slow page takes to answer.
const SLOW: Duration = Duration::from_secs(20);

fn start_site(runtime: &tokio::runtime::Runtime) -> TestSite {
    runtime
        .block_on(TestSite::start_with(TestSiteOptions {
            crawl_delay: Some(0.05),
            slow_delay: SLOW,
            ..TestSiteOptions::default()
        }))
        .expect("test site")
}

/// Starts a crawl of `/slow` then `/article/1` (one request at a time on the host) with a
/// grace of `grace` seconds, and returns it once `/slow` is being fetched.
fn crawl_until_slow_page_in_flight(site: &TestSite, dir: &Path, grace: f64) -> Child {
    let config = format!(
        "[crawl]\nprogress = false\nper_host = 1\ninterrupt_grace_seconds = {grace:?}\n\n\
         [fetch]\nread_timeout = 60.0\ntotal_timeout = 60.0\n"
    );
    let mut child = support::crawl_command(dir, &config, "out")
        .args(["--delay", "0", "--seed"])
        .arg(site.url("/slow"))
        .arg("--seed")
        .arg(site.url("/article/1"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start dedupcrawl crawl");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !site
        .request_log()
        .iter()
        .any(|request| request.path_and_query == "/slow")
    {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("/slow was never requested");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // The request is logged as it arrives: the fetch is in flight.
    std::thread::sleep(Duration::from_millis(200));
    child
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .arg(format!("-{name}"))
        .arg(child.id().to_string())
        .status()
        .expect("run kill");
    assert!(status.success());
}

/// The child's exit status within `limit`, or None (it is then killed).
fn wait_at_most(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().expect("wait") {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Nothing was requested after `signalled`, `/article/1` never, and nothing archived.
fn assert_nothing_new_after(site: &TestSite, signalled: Instant, out: &Path) {
    for request in site.request_log() {
        assert!(
            request.at < signalled,
            "{} was requested after the signal",
            request.path_and_query
        );
        assert_ne!(request.path_and_query, "/article/1");
    }
    let log = std::fs::read_to_string(out.join("crawl.log.jsonl")).unwrap_or_default();
    assert!(!log.contains("/slow"), "{log}");
    assert!(!log.contains("\"archived\""), "{log}");
}

fn interrupt_within_grace(name: &str, exit_status: i32) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = start_site(&runtime);
    let dir = tempfile::tempdir().expect("tempdir");
    let grace = Duration::from_secs(2);
    let mut child = crawl_until_slow_page_in_flight(&site, dir.path(), grace.as_secs_f64());
    let signalled = Instant::now();
    signal(&child, name);
    let status = wait_at_most(&mut child, grace + Duration::from_secs(4)).unwrap_or_else(|| {
        panic!(
            "still running {:?} after {name}",
            grace + Duration::from_secs(4)
        )
    });
    assert!(signalled.elapsed() >= grace, "ended before the grace");
    assert_eq!(status.code(), Some(exit_status), "{name}");
    assert_nothing_new_after(&site, signalled, &dir.path().join("out"));
    let report = std::fs::read_to_string(dir.path().join("out/report.json")).expect("report");
    assert!(
        report.contains(&format!("\"interrupted_by\": \"{name}\"")),
        "{report}"
    );
}

#[test]
fn sigint_ends_the_crawl_within_the_grace_with_exit_status_130() {
    interrupt_within_grace("SIGINT", 130);
}

#[test]
fn sigterm_ends_the_crawl_within_the_grace_with_exit_status_143() {
    interrupt_within_grace("SIGTERM", 143);
}

#[test]
fn a_second_sigint_ends_the_crawl_at_once() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = start_site(&runtime);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut child = crawl_until_slow_page_in_flight(&site, dir.path(), 60.0);
    let signalled = Instant::now();
    signal(&child, "SIGINT");
    std::thread::sleep(Duration::from_secs(1));
    assert!(
        child.try_wait().expect("wait").is_none(),
        "ended before the grace"
    );
    let second = Instant::now();
    signal(&child, "SIGINT");
    let status = wait_at_most(&mut child, Duration::from_secs(3)).expect("ends at once");
    assert!(second.elapsed() < Duration::from_secs(3));
    assert_eq!(status.code(), Some(130));
    assert_nothing_new_after(&site, signalled, &dir.path().join("out"));
}

/// A host whose robots.txt answers after `ROBOTS_DELAY` (everything else at once, robots.txt
/// allowing all), logging each request's path as it arrives.
struct SlowRobotsHost {
    address: std::net::SocketAddr,
    requests: std::sync::Arc<std::sync::Mutex<Vec<(String, Instant)>>>,
}

const ROBOTS_DELAY: Duration = Duration::from_secs(2);

impl SlowRobotsHost {
    fn start() -> SlowRobotsHost {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let address = listener.local_addr().expect("address");
        let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = std::sync::Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let log = std::sync::Arc::clone(&log);
                std::thread::spawn(move || answer(stream, &log));
            }
        });
        SlowRobotsHost { address, requests }
    }

    fn paths(&self) -> Vec<String> {
        let requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        requests.iter().map(|(path, _)| path.clone()).collect()
    }
}

fn answer(stream: std::net::TcpStream, log: &std::sync::Mutex<Vec<(String, Instant)>>) {
    use std::io::{BufRead as _, Write as _};
    let mut reader = std::io::BufReader::new(match stream.try_clone() {
        Ok(stream) => stream,
        Err(_) => return,
    });
    let mut stream = stream;
    loop {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
            return;
        }
        let mut header = String::new();
        while reader.read_line(&mut header).unwrap_or(0) > 2 {
            header.clear();
        }
        let path = request_line.split(' ').nth(1).unwrap_or("").to_string();
        log.lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((path.clone(), Instant::now()));
        let body = if path == "/robots.txt" {
            std::thread::sleep(ROBOTS_DELAY);
            "User-agent: *\nDisallow:\n".to_string()
        } else {
            format!("<html><body><p>page {path}</p><a href=\"/next\">next</a></body></html>")
        };
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        if stream.write_all(head.as_bytes()).is_err() || stream.write_all(body.as_bytes()).is_err()
        {
            return;
        }
    }
}

#[test]
fn after_a_signal_during_robots_txt_no_sitemap_probe_or_page_is_requested() {
    let host = SlowRobotsHost::start();
    let dir = tempfile::tempdir().expect("tempdir");
    let config = "[crawl]\nprogress = false\ninterrupt_grace_seconds = 10.0\n";
    let mut child = support::crawl_command(dir.path(), config, "out")
        .args(["--delay", "0", "--seed"])
        .arg(format!("http://{}/", host.address))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start dedupcrawl crawl");
    let deadline = Instant::now() + Duration::from_secs(30);
    while host.paths().is_empty() {
        assert!(Instant::now() < deadline, "robots.txt was never requested");
        std::thread::sleep(Duration::from_millis(10));
    }
    let signalled = Instant::now();
    signal(&child, "SIGINT");
    let status = wait_at_most(&mut child, Duration::from_secs(8)).expect("ends after robots.txt");
    assert_eq!(status.code(), Some(130));
    // robots.txt ended within the grace: the crawl stopped then, not at the grace's end.
    assert!(signalled.elapsed() < ROBOTS_DELAY + Duration::from_secs(3));
    assert_eq!(host.paths(), ["/robots.txt"], "requested after the signal");
    let log = std::fs::read_to_string(dir.path().join("out/crawl.log.jsonl")).unwrap_or_default();
    assert!(log.trim().is_empty(), "{log}");
}
