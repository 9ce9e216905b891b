//! pywb replays a page from our WARC files and our CDXJ (issue 4, "Tests with real clients").
//!
//! Crawl the fixture site, build a pywb collection by hand from the crawl's output (the layout
//! `wb-manager init` makes: `collections/coll/archive/` holds the WARC files, named as in the
//! CDXJ `filename` field, and `collections/coll/indexes/index.cdxj` is **our** `OUT/index.cdxj`,
//! not one pywb wrote), start the real `wayback` server on 127.0.0.1, fetch the replay URL
//! `/coll/{timestamp}mp_/{url}` of an archived article, and check that the replayed page holds
//! the article's title and every paragraph of its text. pywb comes from pip
//! (`scripts/install-test-tools`).

use crate::common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dedupcrawl_crawler::{run_crawl, warc_files};
use dedupcrawl_testsite::TestSite;

const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// The `wayback` server; killed when dropped, also when the test panics.
struct Wayback {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Wayback {
    fn start(root: &Path) -> Wayback {
        let port = free_port();
        let log = root.join("wayback.log");
        let log_file = std::fs::File::create(&log).unwrap();
        let child = Command::new("wayback")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .current_dir(root)
            .stdin(Stdio::null())
            .stdout(log_file.try_clone().unwrap())
            .stderr(log_file)
            .spawn()
            .unwrap_or_else(|e| {
                panic!("cannot start pywb's `wayback` ({e}): run scripts/install-test-tools")
            });
        let mut server = Wayback { child, port, log };
        server.wait_ready();
        server
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    fn wait_ready(&mut self) {
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("wayback exited at startup ({status}):\n{}", self.log());
            }
            if let Ok((200, _)) = http_get(self.port, "/") {
                return;
            }
            if Instant::now() > deadline {
                panic!(
                    "wayback not answering on 127.0.0.1:{} after {STARTUP_TIMEOUT:?}:\n{}",
                    self.port,
                    self.log()
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Wayback {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A bounded HTTP/1.0 GET on 127.0.0.1: (status, body).
fn http_get(port: u16, path: &str) -> std::io::Result<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    stream.set_write_timeout(Some(Duration::from_secs(5)))?;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\nUser-Agent: dedupcrawl-test\r\n\
         Accept: text/html\r\nConnection: close\r\n\r\n"
    )?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| std::io::Error::other("no end of HTTP headers"))?;
    let head = String::from_utf8_lossy(&response[..split]);
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("bad status line: {head}")))?;
    Ok((status, response[split + 4..].to_vec()))
}

/// The text of an HTML page with all whitespace removed: tags dropped, entities decoded. Made
/// for containment checks that ignore how the markup splits lines and words.
fn squeezed_text(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => text.push(c),
            _ => {}
        }
    }
    squeeze(&decode_entities(&text))
}

fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('&') {
        out.push_str(&rest[..start]);
        rest = &rest[start..];
        let decoded = rest.find(';').filter(|&end| end <= 10).and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{a0}'),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|hex| u32::from_str_radix(hex, 16).ok())
                    .or_else(|| name.strip_prefix('#').and_then(|dec| dec.parse().ok()))
                    .and_then(char::from_u32),
            }?;
            Some((c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pywb_replays_an_archived_article_from_our_warc_and_cdxj() {
    let site = TestSite::start_with(common::site_options()).await.unwrap();
    let expected = site.expected();
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("crawl");
    run_crawl(common::test_config(&site, &out))
        .await
        .expect("crawl finishes");

    // The collection, in pywb's layout, from our files.
    let root = work.path().join("pywb");
    std::fs::create_dir_all(&root).unwrap();
    let init = Command::new("wb-manager")
        .args(["init", "coll"])
        .current_dir(&root)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run pywb's `wb-manager` ({e}): run scripts/install-test-tools")
        });
    assert!(
        init.status.success(),
        "wb-manager init: {}",
        String::from_utf8_lossy(&init.stderr)
    );
    let coll = root.join("collections").join("coll");
    for file in warc_files(&out.join("warc")).unwrap() {
        std::fs::copy(&file, coll.join("archive").join(file.file_name().unwrap())).unwrap();
    }
    let cdxj = std::fs::read_to_string(out.join("index.cdxj")).unwrap();
    std::fs::write(coll.join("indexes").join("index.cdxj"), &cdxj).unwrap();

    // An article the crawl archived, and its capture time from our CDXJ.
    let (article, timestamp) = expected
        .articles
        .iter()
        .find_map(|article| {
            cdxj.lines().find_map(|line| {
                let mut parts = line.splitn(3, ' ');
                let (_key, ts, json) = (parts.next()?, parts.next()?, parts.next()?);
                let fields: serde_json::Value = serde_json::from_str(json).ok()?;
                (fields["url"] == article.url.as_str() && fields["status"] == "200")
                    .then(|| (article, ts.to_string()))
            })
        })
        .expect("an article with a 200 capture in OUT/index.cdxj");

    let server = tokio::task::block_in_place(|| Wayback::start(&root));
    let path = format!("/coll/{timestamp}mp_/{}", article.url);
    let (status, body) = tokio::task::block_in_place(|| http_get(server.port, &path))
        .unwrap_or_else(|e| panic!("GET {path}: {e}\n{}", server.log()));
    let page = String::from_utf8_lossy(&body);
    assert_eq!(
        status,
        200,
        "GET {path} -> {status}:\n{page}\nwayback log:\n{}",
        server.log()
    );

    let replayed = squeezed_text(&page);
    assert!(
        replayed.contains(&squeeze(&article.title)),
        "title {:?} not in the replay of {}",
        article.title,
        article.url
    );
    let paragraphs: Vec<&str> = article
        .text
        .split("\n\n")
        .filter(|p| !p.trim().is_empty())
        .collect();
    assert!(!paragraphs.is_empty());
    for paragraph in paragraphs {
        assert!(
            replayed.contains(&squeeze(paragraph)),
            "paragraph {paragraph:?} of {} not in its pywb replay",
            article.url
        );
    }
    // Replay, not a pass-through: pywb rewrote the page (its banner/wombat inserts).
    assert!(
        page.contains("wombat") || page.contains("wb_"),
        "the page does not look like a pywb replay"
    );
    drop(server);
}
