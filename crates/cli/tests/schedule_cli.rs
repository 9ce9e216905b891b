//! `dedupcrawl schedule`: seconds-level intervals on the mutating fixture site, with the
//! schedule's state embedded (sled in `OUT/schedule-state/`) and in PostgreSQL. Rounds start
//! on time, a `kill -9` of the scheduler keeps the due times (the restarted one continues with
//! the next round at the persisted time, as a recrawl), a second scheduler on the same state
//! is refused (embedded: the same directory; PostgreSQL: the same `store.crawl` from another
//! directory), a dead site does not delay the live one, `--once` runs only what is due, and
//! config errors name the key. The state is read back with [`ScheduleBook`] once the
//! scheduler is gone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use dedupcrawl_crawler::{CrawlConfig, ScheduleBook, ScheduledSiteState};
use dedupcrawl_testsite::{MutatingSite, Validation, text};

/// Where the schedule keeps its state.
enum Backend {
    Embedded,
    /// The test server and a crawl name of this test's own.
    Postgres {
        url: String,
        crawl: String,
    },
}

impl Backend {
    fn postgres() -> Backend {
        let url = std::env::var("DEDUPCRAWL_TEST_POSTGRES").unwrap_or_else(|_| {
            panic!(
                "DEDUPCRAWL_TEST_POSTGRES is not set: run through ./scripts/test or \
                 ./scripts/with-postgres"
            )
        });
        let unique = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_nanos();
        Backend::Postgres {
            url,
            crawl: format!("schedule-{}-{unique}", std::process::id()),
        }
    }

    /// The config's `[store]` table.
    fn store_table(&self) -> String {
        match self {
            Backend::Embedded => String::new(),
            Backend::Postgres { url, crawl } => {
                format!("\n[store]\nurl = {url:?}\ncrawl = {crawl:?}\n")
            }
        }
    }
}

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

/// A site list with `sites` (`name`, seed, `every`) and its output in `DIR/out`; revisits
/// always due, dead hosts given up after one refused connection.
fn write_config(dir: &Path, backend: &Backend, sites: &[(&str, &str, &str)]) -> PathBuf {
    std::fs::create_dir_all(dir).expect("config directory");
    let mut text = format!(
        "[crawl]\nout = {:?}\ndelay = 0.0\n\n[fetch]\nmax_attempts = 1\nhost_max_failures = 1\n\
         retry_backoff = 0.1\nconnect_timeout = 2.0\n\n[recrawl]\ninitial_interval = 0.0\n\
         min_interval = 0.0\nmax_interval = 0.0\n",
        dir.join("out")
    );
    text.push_str(&backend.store_table());
    for (name, seed, every) in sites {
        text.push_str(&format!(
            "\n[[site]]\nname = {name:?}\nseeds = [{seed:?}]\nevery = {every:?}\n"
        ));
    }
    let path = dir.join("sites.toml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// The schedule's state of each site, read with the schedule stopped.
fn state(config: &Path) -> BTreeMap<String, ScheduledSiteState> {
    let config = CrawlConfig::load(config).expect("config");
    let book = ScheduleBook::open(&config).expect("open the schedule's state");
    book.sites().expect("read the schedule's state")
}

fn time(value: &serde_json::Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(value.as_str().expect("a time"))
        .expect("RFC 3339")
        .with_timezone(&Utc)
}

/// Waits (at most `limit`) until the schedule's log says `rounds` rounds of `site` finished.
fn wait_for_rounds(log: &Path, site: &str, rounds: usize, limit: Duration) {
    let deadline = Instant::now() + limit;
    let needle = format!("site {site}: round ");
    loop {
        let finished = std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .filter(|line| line.contains(&needle) && line.contains(" finished in "))
            .count();
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
fn embedded_rounds_run_on_time_across_a_restart_and_a_dead_site_does_not_delay_them() {
    rounds_run_on_time_across_a_restart(Backend::Embedded);
}

#[test]
fn postgres_rounds_run_on_time_across_a_restart_and_a_dead_site_does_not_delay_them() {
    rounds_run_on_time_across_a_restart(Backend::postgres());
}

fn rounds_run_on_time_across_a_restart(backend: Backend) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = live_site(&runtime);
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let dead = dead_url();
    let sites = [
        ("dead", dead.as_str(), "2s"),
        ("live", &site.url("/"), "2s"),
    ];
    let config = write_config(dir.path(), &backend, &sites);
    let first_log = dir.path().join("schedule-1.log");
    let mut schedule = start_schedule(&config, &first_log);
    wait_for_rounds(&first_log, "live", 3, Duration::from_secs(60));

    // Embedded: the same directory. PostgreSQL: the same store.crawl from another directory
    // (as from another machine).
    let second_config = match backend {
        Backend::Embedded => config.clone(),
        Backend::Postgres { .. } => write_config(&dir.path().join("elsewhere"), &backend, &sites),
    };
    let second = dedupcrawl()
        .args(["schedule", "--once", "--config"])
        .arg(&second_config)
        .output()
        .expect("run a second schedule");
    assert!(!second.status.success(), "{second:?}");
    let refusal = String::from_utf8_lossy(&second.stderr);
    assert!(
        refusal.contains("another `dedupcrawl schedule` runs"),
        "{second:?}"
    );
    if let Backend::Embedded = &backend {
        assert!(
            refusal.contains("schedule-state"),
            "names the state: {refusal}"
        );
    }
    if let Backend::Postgres { crawl, .. } = &backend {
        assert!(
            refusal.contains(crawl.as_str()),
            "names the crawl: {refusal}"
        );
        assert!(
            !dir.path().join("elsewhere/out/live").exists(),
            "the refused schedule started nothing"
        );
    }

    schedule.kill().expect("kill -9 the schedule");
    schedule.wait().expect("reap");
    let before = state(&config);
    let rounds_before = before["live"].rounds_finished;
    let due_before = before["live"].next_due;
    assert!(rounds_before >= 3, "{before:?}");
    assert!(
        before["dead"].last_started.is_some(),
        "the dead site's rounds ran too: {before:?}"
    );
    assert_eq!(before["dead"].rounds_finished, 0, "{before:?}");
    assert_eq!(
        before["dead"].last_exit,
        Some(4),
        "a crawl whose every seed host is given up exits 4: {before:?}"
    );

    let second_log = dir.path().join("schedule-2.log");
    let mut restarted = start_schedule(&config, &second_log);
    wait_for_rounds(&second_log, "live", 1, Duration::from_secs(30));
    restarted.kill().expect("kill the schedule");
    restarted.wait().expect("reap");
    let after = state(&config);
    assert!(after["live"].rounds_finished > rounds_before, "{after:?}");
    let started_after_restart = after["live"].last_started.expect("started");
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
    assert!(rounds.len() as u64 > u64::from(rounds_before), "{starts:?}");
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
    assert!(
        !out.join("schedule.json").exists(),
        "no state file beside the store"
    );
}

/// A schedule whose lock session ends (server restart, network loss, here an administrator's
/// `pg_terminate_backend`) stops at its next record instead of running rounds beside a
/// schedule that took the lock meanwhile.
#[test]
fn postgres_schedule_stops_when_its_lock_session_is_lost() {
    let backend = Backend::postgres();
    let Backend::Postgres { url, crawl } = &backend else {
        unreachable!("a PostgreSQL backend")
    };
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = live_site(&runtime);
    let dir = tempfile::tempdir().expect("tempdir");
    let config = write_config(dir.path(), &backend, &[("live", &site.url("/"), "2s")]);
    let log = dir.path().join("schedule.log");
    let mut schedule = start_schedule(&config, &log);
    wait_for_rounds(&log, "live", 1, Duration::from_secs(60));

    // The session holding the crawl's advisory lock (a bigint key: high half in classid, low
    // half in objid).
    let terminate = format!(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_locks WHERE locktype = 'advisory' \
         AND granted AND ((classid::bigint << 32) | objid::bigint) = \
         hashtextextended('dedupcrawl-schedule:{crawl}', 0)"
    );
    let terminated = Command::new("psql")
        .args(["--no-psqlrc", "--tuples-only", "--no-align", "--command"])
        .arg(&terminate)
        .arg(url)
        .output()
        .expect("psql runs (installed with PostgreSQL by scripts/install-test-tools)");
    assert!(terminated.status.success(), "{terminated:?}");
    assert_eq!(
        String::from_utf8_lossy(&terminated.stdout).trim(),
        "1",
        "one session held the schedule's lock"
    );

    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = schedule.try_wait().expect("wait for the schedule") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the schedule ran on without its lock"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(!status.success(), "{status:?}");
    let text = std::fs::read_to_string(&log).expect("schedule log");
    assert!(text.contains("keep the schedule lock"), "{text}");
}

#[test]
fn embedded_once_runs_what_is_due_and_exits() {
    once_runs_what_is_due_and_exits(Backend::Embedded);
}

#[test]
fn postgres_once_runs_what_is_due_and_exits() {
    once_runs_what_is_due_and_exits(Backend::postgres());
}

fn once_runs_what_is_due_and_exits(backend: Backend) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let site = live_site(&runtime);
    let dir = tempfile::tempdir().expect("tempdir");
    let config = write_config(dir.path(), &backend, &[("live", &site.url("/"), "1h")]);
    let started = Utc::now();
    let once = dedupcrawl()
        .args(["schedule", "--once", "--config"])
        .arg(&config)
        .output()
        .expect("run schedule --once");
    assert!(once.status.success(), "{once:?}");
    let first = state(&config);
    assert_eq!(first["live"].rounds_finished, 1, "{first:?}");
    assert_eq!(first["live"].last_exit, Some(0), "{first:?}");
    assert!(
        first["live"].next_due >= started + chrono::Duration::minutes(59),
        "{first:?}"
    );
    assert_eq!(site.requests().iter().filter(|(p, _)| p == "/a").count(), 1);

    let again = dedupcrawl()
        .args(["schedule", "--once", "--config"])
        .arg(&config)
        .output()
        .expect("run schedule --once again");
    assert!(again.status.success(), "{again:?}");
    assert_eq!(state(&config)["live"].rounds_finished, 1);
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
        (
            "name = \"Schedule-State\"\nseeds = [\"http://127.0.0.1:9/\"]\nevery = \"1h\"",
            "site[0].name = \"Schedule-State\" is reserved",
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
