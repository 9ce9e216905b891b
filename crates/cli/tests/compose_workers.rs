//! `docker-compose.yml` without Docker: the file is parsed (PyYAML), its services checked,
//! and the very command of its `worker` service (with the environment it sets) is run three
//! times at once against a real PostgreSQL (`DEDUPCRAWL_TEST_POSTGRES`) and the fixture site.
//! One worker is killed (SIGKILL) in the middle and started again, as the compose restart
//! policy does; every distinct page must be archived exactly once across the three outputs.
//! Five trials, the kill at a different moment each.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use dedupcrawl_testsite::TestSite;

/// The repository root.
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `docker-compose.yml` as JSON.
fn compose_file() -> serde_json::Value {
    let output = Command::new("python3")
        .args([
            "-c",
            "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
        ])
        .arg(repo_root().join("docker-compose.yml"))
        .output()
        .expect("python3 runs (scripts/install-test-tools installs PyYAML)");
    assert!(
        output.status.success(),
        "docker-compose.yml does not parse: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON from python")
}

/// The worker service's shell script (compose's `$$` is a literal `$`) and environment.
struct WorkerCommand {
    script: String,
    environment: BTreeMap<String, String>,
}

fn worker_command(compose: &serde_json::Value) -> WorkerCommand {
    let services = &compose["services"];
    let postgres = &services["postgres"];
    assert!(
        postgres["image"]
            .as_str()
            .is_some_and(|image| image.starts_with("postgres:")),
        "the postgres service runs the official image"
    );
    assert!(postgres["healthcheck"]["test"].is_array(), "a healthcheck");
    assert!(postgres["volumes"].is_array(), "a volume for the data");
    let worker = &services["worker"];
    assert_eq!(
        worker["build"], ".",
        "the worker is built from the Dockerfile"
    );
    assert!(repo_root().join("Dockerfile").is_file());
    assert_eq!(
        worker["depends_on"]["postgres"]["condition"], "service_healthy",
        "workers start when PostgreSQL is healthy"
    );
    assert!(
        worker["deploy"]["replicas"]
            .as_u64()
            .is_some_and(|n| n >= 2),
        "several replicas"
    );
    let command: Vec<&str> = worker["command"]
        .as_array()
        .expect("command is a list")
        .iter()
        .map(|part| part.as_str().expect("a string"))
        .collect();
    assert_eq!(command[..2], ["sh", "-c"], "{command:?}");
    let environment = worker["environment"]
        .as_object()
        .expect("environment is a map")
        .iter()
        .map(|(name, value)| {
            let value = value.as_str().expect("a string value").to_string();
            (name.clone(), value)
        })
        .collect();
    WorkerCommand {
        script: command[2].replace("$$", "$"),
        environment,
    }
}

/// Starts one replica: the compose command with its environment, where the test's server,
/// crawl, config and output root replace the compose values, and `HOSTNAME` names it.
fn start_worker(command: &WorkerCommand, overrides: &BTreeMap<&str, String>, name: &str) -> Child {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_dedupcrawl"));
    let bin_dir = binary.parent().expect("binary dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let log_dir = PathBuf::from(&overrides["DEDUPCRAWL_OUT_ROOT"]);
    let log = std::fs::File::create(log_dir.join(format!("{name}.stderr"))).expect("log file");
    let mut process = Command::new("sh");
    process
        .arg("-c")
        .arg(&command.script)
        .env("PATH", path)
        .env("HOSTNAME", name)
        .stdout(Stdio::null())
        .stderr(log);
    for (key, value) in &command.environment {
        process.env(key, overrides.get(key.as_str()).unwrap_or(value));
    }
    process.spawn().expect("start a worker")
}

fn log_lines(out: &Path) -> usize {
    std::fs::read_to_string(out.join("crawl.log.jsonl")).map_or(0, |text| text.lines().count())
}

/// Waits for the worker; whether it exited 0.
fn finished(child: &mut Child, name: &str, root: &Path) -> bool {
    let status = child.wait().expect("wait");
    if !status.success() {
        let log = std::fs::read_to_string(root.join(format!("{name}.stderr"))).unwrap_or_default();
        eprintln!("{name} exited {status}: {log}");
    }
    status.success()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_compose_workers_share_one_crawl_and_survive_a_kill() {
    let command = worker_command(&compose_file());
    for name in [
        "DEDUPCRAWL_STORE",
        "DEDUPCRAWL_CRAWL",
        "DEDUPCRAWL_CONFIG",
        "DEDUPCRAWL_OUT_ROOT",
    ] {
        assert!(
            command.environment.contains_key(name) && command.script.contains(name),
            "the worker command uses {name}"
        );
    }
    let server = std::env::var("DEDUPCRAWL_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!("DEDUPCRAWL_TEST_POSTGRES is not set: run through ./scripts/test or ./scripts/with-postgres")
    });
    let mut killed_mid_crawl = 0;
    for (trial, kill_after) in [3usize, 10, 25, 45, 70].into_iter().enumerate() {
        let site = TestSite::start_with(common::site_options())
            .await
            .expect("site starts");
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().to_path_buf();
        let mut config = common::test_config(&site, &root.join("unused"));
        config.store.lease_seconds = 30.0;
        let config_path = root.join("sites.toml");
        std::fs::write(&config_path, toml::to_string(&config).expect("TOML")).expect("write");
        let crawl = format!("compose-{}-{trial}-{}", std::process::id(), kill_after);
        let overrides: BTreeMap<&str, String> = BTreeMap::from([
            ("DEDUPCRAWL_STORE", server.clone()),
            ("DEDUPCRAWL_CRAWL", crawl),
            ("DEDUPCRAWL_CONFIG", config_path.display().to_string()),
            ("DEDUPCRAWL_OUT_ROOT", root.display().to_string()),
        ]);
        let names = ["worker-1", "worker-2", "worker-3"];
        let mut workers: Vec<Child> = names
            .iter()
            .map(|name| start_worker(&command, &overrides, name))
            .collect();
        // Kill worker-2 once the workers logged `kill_after` lines between them (counted over
        // all three: on a loaded machine one worker may do most of the crawl), then start it
        // again.
        let outs: Vec<PathBuf> = names.iter().map(|name| root.join(name)).collect();
        let deadline = Instant::now() + Duration::from_secs(120);
        while outs.iter().map(|out| log_lines(out)).sum::<usize>() < kill_after
            && workers[1].try_wait().expect("poll").is_none()
            && Instant::now() < deadline
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        if workers[1].try_wait().expect("poll").is_none() {
            workers[1].kill().expect("SIGKILL");
            let _ = workers[1].wait();
            killed_mid_crawl += 1;
            workers[1] = start_worker(&command, &overrides, names[1]);
        }
        for (child, name) in workers.iter_mut().zip(names) {
            assert!(finished(child, name, &root), "trial {trial}: {name} failed");
        }
        let failures = common::shared_crawl_problems(&site.expected(), &outs);
        assert!(
            failures.is_empty(),
            "trial {trial} (kill after {kill_after} lines): {failures:#?}"
        );
    }
    assert!(
        killed_mid_crawl >= 3,
        "only {killed_mid_crawl} of 5 kills landed before the worker finished"
    );
}
