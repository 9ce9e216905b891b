//! A refused start changes nothing in OUT (issue 46): OUT in use (its lock held), the
//! dashboard's port busy, a bad config, a bad seed, other seeds or another config than the
//! crawl's own: each refused at once, with a message naming the cause, and OUT byte for byte
//! as it was. `--add-seeds` extends the crawl on purpose; the same command resumes it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use dedupcrawl_testsite::hostile::HostileHost;

use crate::support;

const CONFIG: &str = "[crawl]\nprogress = false\n\n[fetch]\nconnect_timeout = 1.0\n\
                      read_timeout = 2.0\ntotal_timeout = 5.0\n";

/// Every file of `dir` (recursively) with its bytes.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).expect("list OUT") {
            let path = entry.expect("list OUT").path();
            if path.is_dir() {
                files.insert(path.clone(), Vec::new());
                pending.push(path);
            } else {
                let bytes = std::fs::read(&path).expect("read a file of OUT");
                files.insert(path, bytes);
            }
        }
    }
    files
}

fn crawl(dir: &Path, config: &str, seeds: &[&str], flags: &[&str]) -> Command {
    let mut command = support::crawl_command(dir, config, "out");
    command.args(["--delay", "0"]).args(flags);
    for seed in seeds {
        command.arg("--seed").arg(seed);
    }
    command
}

/// Runs `command`, which must be refused within a few seconds with `expected` in its stderr
/// and leave `out` as `before`.
fn assert_refused(
    cause: &str,
    command: &mut Command,
    expected: &str,
    out: &Path,
    before: &BTreeMap<PathBuf, Vec<u8>>,
) {
    let started = Instant::now();
    let output = command.output().expect("run dedupcrawl crawl");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{cause}: not refused\n{stderr}");
    assert!(stderr.contains(expected), "{cause}: {stderr}");
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "{cause}: refused only after {:?}",
        started.elapsed()
    );
    let after = snapshot(out);
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>(),
        "{cause}: files of OUT added or removed"
    );
    for (path, bytes) in before {
        assert!(after[path] == *bytes, "{cause}: {} changed", path.display());
    }
}

#[test]
fn every_refused_start_leaves_out_byte_for_byte_unchanged() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let host = runtime.block_on(HostileHost::pages(4)).expect("host");
    let other = runtime.block_on(HostileHost::pages(2)).expect("other host");
    let (seed, other_seed) = (host.url(), other.url());
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    support::run(&mut crawl(dir.path(), CONFIG, &[&seed], &[]));
    let before = snapshot(&out);
    assert!(before.contains_key(&out.join("crawl.toml")));

    {
        let _held = dedupcrawl_crawler::OutputLock::acquire(&out).expect("hold OUT's lock");
        let mut command = crawl(dir.path(), CONFIG, &[&seed], &[]);
        assert_refused("lock held", &mut command, "is held", &out, &before);
    }
    let busy = std::net::TcpListener::bind("127.0.0.1:0").expect("a busy port");
    let serve = busy.local_addr().expect("address").to_string();
    let mut command = crawl(dir.path(), CONFIG, &[&seed], &["--serve", &serve]);
    assert_refused("port busy", &mut command, "cannot listen", &out, &before);
    let unknown_key = CONFIG.replace("[crawl]\n", "[crawl]\nno_such_key = 1\n");
    let mut command = crawl(dir.path(), &unknown_key, &[&seed], &[]);
    assert_refused("unknown key", &mut command, "no_such_key", &out, &before);
    let bad_grace = CONFIG.replace("[crawl]\n", "[crawl]\ninterrupt_grace_seconds = -1.0\n");
    let mut command = crawl(dir.path(), &bad_grace, &[&seed], &[]);
    let expected = "crawl.interrupt_grace_seconds";
    assert_refused("bad value", &mut command, expected, &out, &before);
    let mut command = crawl(dir.path(), CONFIG, &["ftp://127.0.0.1/"], &[]);
    assert_refused("bad seed", &mut command, "ftp", &out, &before);
    let mut command = crawl(dir.path(), CONFIG, &[&other_seed], &[]);
    assert_refused("other seeds", &mut command, "--add-seeds", &out, &before);
    let mut command = crawl(dir.path(), CONFIG, &[&other_seed], &[]);
    let expected = format!("crawl.seeds: OUT has [\"{seed}\"], this run has [\"{other_seed}\"]");
    assert_refused("other seeds, shown", &mut command, &expected, &out, &before);
    let mut command = crawl(dir.path(), CONFIG, &[&seed], &["--threshold", "0.5"]);
    assert_refused(
        "other config",
        &mut command,
        "dedup.threshold",
        &out,
        &before,
    );

    // The same crawl resumes; --add-seeds extends it on purpose.
    support::run(&mut crawl(
        dir.path(),
        CONFIG,
        &[&seed],
        &["--max-pages", "100"],
    ));
    support::run(&mut crawl(
        dir.path(),
        CONFIG,
        &[&other_seed],
        &["--add-seeds"],
    ));
    let saved = std::fs::read_to_string(out.join("crawl.toml")).expect("crawl.toml");
    assert!(
        saved.contains(&seed) && saved.contains(&other_seed),
        "{saved}"
    );
    let log = std::fs::read_to_string(out.join("crawl.log.jsonl")).expect("crawl log");
    assert!(log.contains(&format!("\"url\":\"{other_seed}\"")), "{log}");
}

#[test]
fn a_start_refused_on_a_new_out_creates_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad_grace = CONFIG.replace("[crawl]\n", "[crawl]\ninterrupt_grace_seconds = 900\n");
    let output = crawl(dir.path(), &bad_grace, &["http://127.0.0.1:9/"], &[])
        .output()
        .expect("run dedupcrawl crawl");
    assert!(!output.status.success());
    assert!(!dir.path().join("out").exists(), "OUT was created");
}

#[test]
fn a_second_crawl_on_an_out_in_use_by_a_running_crawl_fails_at_once() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let slow = runtime
        .block_on(HostileHost::start(|path| match path {
            "/" => dedupcrawl_testsite::hostile::Behaviour::Drip {
                length: 400,
                interval: Duration::from_millis(100),
            },
            _ => dedupcrawl_testsite::hostile::Behaviour::NotFound,
        }))
        .expect("slow host");
    let config = "[crawl]\nprogress = false\n\n[fetch]\nread_timeout = 5.0\ntotal_timeout = 60.0\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let mut running = crawl(dir.path(), config, &[&slow.url()], &[])
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the first crawl");
    // crawl.toml is saved once the lock is taken.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !out.join("crawl.toml").exists() {
        assert!(Instant::now() < deadline, "the first crawl did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let saved = std::fs::read(out.join("crawl.toml")).expect("crawl.toml");
    let started = Instant::now();
    let output = crawl(dir.path(), config, &[&slow.url()], &[])
        .output()
        .expect("run the second crawl");
    let took = started.elapsed();
    let _ = running.kill();
    let _ = running.wait();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("in use by another crawl"), "{stderr}");
    assert!(stderr.contains("is held"), "{stderr}");
    assert!(took < Duration::from_secs(2), "refused after {took:?}");
    assert_eq!(
        std::fs::read(out.join("crawl.toml")).expect("crawl.toml"),
        saved
    );
}
