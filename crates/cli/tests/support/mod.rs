//! Helpers of the cli tests: running a command that must succeed, wget as the peer crawler
//! (installed by `scripts/install-test-tools`), and headless Chromium ([`browser`]).

// Each test binary that includes this module uses only part of it.
#![allow(dead_code)]

pub mod browser;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Runs `command`, which must succeed (its stderr is shown when it does not).
pub fn run(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The JSON lines a command printed on stdout.
pub fn json_lines<T: serde::de::DeserializeOwned>(output: &Output) -> Vec<T> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{line}: {e}")))
        .collect()
}

/// Crawls `urls` with `wget --recursive --warc-file` (mirror in `WORK/mirror`) and returns the
/// WARC it wrote, `WORK/wget.warc.gz`.
pub fn wget_warc(work: &Path, urls: &[String]) -> PathBuf {
    let status = Command::new("wget")
        .args([
            "--recursive",
            "--level=3",
            "--quiet",
            "--timeout=3",
            "--tries=1",
            // wget has no dedup of its own: keep it out of the traps and slow pages.
            "--reject-regex=calendar|huge|slow|truncated|rate-limited|unavailable|flaky",
        ])
        .arg(format!("--warc-file={}", work.join("wget").display()))
        .arg("--directory-prefix")
        .arg(work.join("mirror"))
        .args(urls)
        .status()
        .expect("wget runs (scripts/install-test-tools installs it)");
    // wget exits 8 when some links were 404: that is part of the fixture.
    assert!(matches!(status.code(), Some(0 | 8)), "wget: {status:?}");
    let warc = work.join("wget.warc.gz");
    assert!(warc.exists(), "wget wrote no WARC");
    warc
}

/// What `dedupcrawl why --json OUT URL` prints, parsed.
pub fn why(out: &Path, url: &str) -> serde_json::Value {
    let output = run(Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
        .args(["why", "--json"])
        .arg(out)
        .arg(url));
    serde_json::from_slice(&output.stdout).expect("why --json prints JSON")
}

/// The body of a GET that must answer 200 (HTTP/1.0: the server closes after the answer),
/// retried until the server listens.
pub fn http_get(address: SocketAddr, path: &str) -> String {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut stream = loop {
        match TcpStream::connect(address) {
            Ok(stream) => break stream,
            Err(error) => {
                assert!(Instant::now() < deadline, "{address}: {error}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    };
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {address}\r\n\r\n").expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("read");
    let (head, body) = answer.split_once("\r\n\r\n").expect("an HTTP answer");
    assert!(head.starts_with("HTTP/1.0 200"), "{path}: {head}\n{body}");
    body.to_string()
}

/// `dedupcrawl crawl --config DIR/crawl.toml --out DIR/NAME`, with `config` written to that
/// file first; the caller adds seeds and flags.
pub fn crawl_command(dir: &Path, config: &str, name: &str) -> Command {
    let config_path = dir.join("crawl.toml");
    std::fs::write(&config_path, config).expect("write config");
    let mut command = Command::new(env!("CARGO_BIN_EXE_dedupcrawl"));
    command
        .arg("crawl")
        .arg("--config")
        .arg(&config_path)
        .arg("--out")
        .arg(dir.join(name));
    command
}
