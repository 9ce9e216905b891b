//! `dedupcrawl schedule`: seconds-level intervals on the mutating fixture site. Rounds start on
//! time, a `kill -9` of the scheduler keeps the due times (the restarted one continues with
//! the next round at the persisted time, as a recrawl), a second scheduler on the same
//! directory is refused, a dead site does not delay the live one, `--once` runs only what is
//! due, and config errors name the key.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use dedupcrawl_testsite::{MutatingSite, Validation, text};

fn dedupcrawl() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dedupcrawl"))
}

/// A site of a home page and three pages.
fn live_site(runtime: &tokio::runtime::Runtime) -> MutatingSite {
    let site = runtime.block_on(MutatingSite::start()).expect("site");
    let paths = ["/a", "/b", "/c"];
    for (n, path) in paths.iter().enumerate() {
        site.put(
            path,
            path,
            &text(n as u64, 120),
            &["/"],
            Validation::StrongEtag,
        );
    }
    site.put("/", "Home", &text(50, 80), &paths, Validation::StrongEtag);
    site
}

/// A URL on a port nothing listens on.
fn dead_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/")
}

/// A site list with `sites` (`name`, seed, `every`); revisits always due, dead hosts given up
/// after one refused connection.
fn write_config(dir: &Path, sites: &[(&str, &str, &str)]) -> PathBuf {
    let mut text = format!(
        "[crawl]\nout = {:?}\ndelay = 0.0\n\n[fetch]\nmax_attempts = 1\nhost_max_failures = 1\n\
         retry_backoff = 0.1\nconnect_timeout = 2.0\n\n[recrawl]\ninitial_interval = 0.0\n\
         min_interval = 0.0\nmax_interval = 0.0\n",
        dir.join("out")
    );
    for (name, seed, every) in sites {
        text.push_str(&format!(
            "\n[[site]]\nname = {name:?}\nseeds = [{seed:?}]\nevery = {every:?}\n"
        ));
    }
    let path = dir.join("sites.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

fn state(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("schedule.json")).expect("schedule.json");
    serde_json::from_str(&text).expect("schedule.json is JSON")
}

fn time(value: &serde_json::Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(value.as_str().expect("a time"))
        .expect("RFC 3339")
        .with_timezone(&Utc)
}

/// Waits (at most `limit`) until the live site's state says `rounds` rounds finished.
fn wait_for_rounds(out: &Path, site: &str, rounds: u64, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        let finished = std::fs::read_to_string(out.join("schedule.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|s| s["sites"][site]["rounds_finished"].as_u64())
            .unwrap_or(0);
        if finished >= rounds {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "site {site}: {finished} of {rounds} rounds after {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The first crawl-log time of each round of a site's crawl.
fn round_starts(site_dir: &Path) -> BTreeMap<u64, DateTime<Utc>> {
    let log = std::fs::read_to_string(site_dir.join("crawl.log.jsonl")).expect("crawl log");
    let mut starts: BTreeMap<u64, DateTime<Utc>> = BTreeMap::new();
    for line in log.lines() {
        let value: serde_json::Value = serde_json::from_str(line).expect("JSON line");
        let round = value["round"].as_u64().expect("round");
        let ts = time(&value["ts"]);
        starts
            .entry(round)
            .and_modify(|t| *t = (*t).min(ts))
            .or_insert(ts);
    }
    starts
}

fn start_schedule(config: &Path, stderr: &Path) -> Child {
    dedupcrawl()
        .arg("schedule")
        .arg("--config")
        .arg(config)
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(stderr).expect("stderr file"))
        .spawn()
        .expect("start schedule")
}

#[test]
fn rounds_run_on_time_across_a_restart_and_a_dead_site_does_not_delay_them() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = live_site(&runtime);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let dead = dead_url();
    let config = write_config(
        dir.path(),
        &[("dead", &dead, "2s"), ("live", &site.url("/"), "2s")],
    );
    let first_log = dir.path().join("schedule-1.log");
    let mut schedule = start_schedule(&config, &first_log);
    wait_for_rounds(&out, "live", 3, Duration::from_secs(60));

    let second = dedupcrawl()
        .args(["schedule", "--once", "--config"])
        .arg(&config)
        .output()
        .expect("run a second schedule");
    assert!(!second.status.success(), "{second:?}");
    assert!(
        String::from_utf8_lossy(&second.stderr).contains("another `dedupcrawl schedule` runs"),
        "{second:?}"
    );

    schedule.kill().expect("kill -9 the schedule");
    schedule.wait().expect("reap");
    let before = state(&out);
    let rounds_before = before["sites"]["live"]["rounds_finished"]
        .as_u64()
        .expect("rounds");
    let due_before = time(&before["sites"]["live"]["next_due"]);
    assert!(
        before["sites"]["dead"]["last_started"].is_string(),
        "the dead site's rounds ran too: {before}"
    );
    assert_eq!(before["sites"]["dead"]["rounds_finished"], 0, "{before}");
    assert_eq!(
        before["sites"]["dead"]["last_exit"], 4,
        "a crawl whose every seed host is given up exits 4: {before}"
    );

    let second_log = dir.path().join("schedule-2.log");
    let mut restarted = start_schedule(&config, &second_log);
    wait_for_rounds(&out, "live", rounds_before + 1, Duration::from_secs(30));
    restarted.kill().expect("kill the schedule");
    restarted.wait().expect("reap");
    let after = state(&out);
    let started_after_restart = time(&after["sites"]["live"]["last_started"]);
    // A round killed with the scheduler resumes at once; otherwise the persisted due time holds.
    assert!(
        started_after_restart >= due_before - chrono::Duration::milliseconds(1),
        "restarted round at {started_after_restart}, due {due_before}"
    );

    let starts = round_starts(&out.join("live"));
    let rounds: Vec<u64> = starts.keys().copied().collect();
    let expected: Vec<u64> = (1..=rounds.len() as u64).collect();
    assert_eq!(
        rounds, expected,
        "rounds continue across the restart, none starts afresh"
    );
    assert!(rounds.len() as u64 > rounds_before, "{starts:?}");
    let times: Vec<DateTime<Utc>> = starts.values().copied().collect();
    for pair in times.windows(2) {
        let gap = (pair[1] - pair[0]).num_milliseconds();
        assert!(
            (1_900..=8_000).contains(&gap),
            "rounds of an every = \"2s\" site start 2 s apart, not {gap} ms: {starts:?}"
        );
    }
    let log = std::fs::read_to_string(&first_log).expect("schedule log");
    assert!(log.contains("next: site"), "{log}");
    assert!(
        log.contains("site live: round 2 (recrawl) started"),
        "{log}"
    );
}

#[test]
fn once_runs_what_is_due_and_exits() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = live_site(&runtime);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let config = write_config(dir.path(), &[("live", &site.url("/"), "1h")]);
    let started = Utc::now();
    let once = dedupcrawl()
        .args(["schedule", "--once", "--config"])
        .arg(&config)
        .output()
        .expect("run schedule --once");
    assert!(once.status.success(), "{once:?}");
    let first = state(&out);
    assert_eq!(first["sites"]["live"]["rounds_finished"], 1, "{first}");
    let due = time(&first["sites"]["live"]["next_due"]);
    assert!(due >= started + chrono::Duration::minutes(59), "{first}");
    assert_eq!(site.requests().iter().filter(|(p, _)| p == "/a").count(), 1);

    let again = dedupcrawl()
        .args(["schedule", "--once", "--config"])
        .arg(&config)
        .output()
        .expect("run schedule --once again");
    assert!(again.status.success(), "{again:?}");
    assert_eq!(state(&out)["sites"]["live"]["rounds_finished"], 1);
    assert_eq!(
        site.requests().iter().filter(|(p, _)| p == "/a").count(),
        1,
        "nothing was due"
    );
}

#[test]
fn config_errors_name_the_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (site, key) in [
        (
            "name = \"x\"\nseeds = [\"http://127.0.0.1:9/\"]\nevery = \"2 parsecs\"",
            "site[0].every",
        ),
        (
            "name = \"x\"\nseeds = [\"http://127.0.0.1:9/\"]\nschedule = \"0 25 * * *\"",
            "site[0].schedule",
        ),
        (
            "seeds = [\"http://127.0.0.1:9/\"]\nevery = \"1h\"",
            "site[0].name",
        ),
        (
            "name = \"x\"\nseeds = [\"http://127.0.0.1:9/\"]",
            "site[0] sets neither `schedule` nor `every`",
        ),
    ] {
        let path = dir.path().join("bad.toml");
        std::fs::write(
            &path,
            format!(
                "[crawl]\nout = {:?}\n\n[[site]]\n{site}\n",
                dir.path().join("out")
            ),
        )
        .expect("write config");
        let run = dedupcrawl()
            .args(["schedule", "--once", "--config"])
            .arg(&path)
            .output()
            .expect("run schedule");
        assert!(!run.status.success(), "{run:?}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains(key), "{key}: {stderr}");
    }
}
