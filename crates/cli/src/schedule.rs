//! `dedupcrawl schedule --config F [--once]`: runs each `[[site]]` of a site list on its own
//! schedule (`schedule = "0 3 * * *"` or `every = "6h"`). A site's first round is a `crawl`
//! into `OUT/<site name>/`, later rounds are `recrawl`s of that directory. Each round runs as
//! a child `dedupcrawl` process (its output appended to `OUT/<site name>/rounds.log`), so a
//! slow or dead site never delays the others and at most one round per site runs at a time.
//! Due times survive restarts: they are recorded through the crawl-state storage seam, in
//! `OUT/schedule-state/` or under the schedule's `store.crawl` in PostgreSQL, and its lock
//! keeps a second `schedule` off the same state (see [`ScheduleBook`]). `--once` starts what
//! is due now, waits for it and exits (for system cron or CI).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use dedupcrawl_crawler::{CrawlConfig, ScheduleBook, ScheduledSiteState, SiteSchedule};

/// The configuration file `schedule` writes for each site's rounds, in the site's directory.
const SITE_CONFIG: &str = "site.toml";
/// The file each site's round processes append their output to.
const ROUNDS_LOG: &str = "rounds.log";
/// Where an older dedupcrawl kept the schedule's state (no longer read).
const OLD_STATE_FILE: &str = "schedule.json";
/// How often running rounds are checked for their end.
const POLL: Duration = Duration::from_millis(200);

#[derive(clap::Args)]
pub struct ScheduleArgs {
    /// The site list: `[[site]]` entries, each with a `name` and `schedule` or `every`.
    #[arg(long, value_name = "PATH")]
    pub config: PathBuf,
    /// Start the rounds that are due now, wait for them, exit (status 1 if one failed).
    #[arg(long)]
    pub once: bool,
}

/// One scheduled site.
struct ScheduledSite {
    name: String,
    schedule: SiteSchedule,
    /// `OUT/<name>/`: the site's crawl directory.
    dir: PathBuf,
}

/// A round in progress.
struct RunningRound {
    child: Child,
    started: DateTime<Utc>,
    round: u32,
}

/// Whether `name` can name a directory: letters, digits, `.`, `_`, `-`, not starting with `.`.
fn usable_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The scheduled sites of `config`; the error names the key to fix.
fn scheduled_sites(config: &CrawlConfig) -> anyhow::Result<Vec<ScheduledSite>> {
    if !config.crawl.seeds.is_empty() {
        anyhow::bail!(
            "crawl.seeds is set, but `schedule` runs [[site]] entries only: move the seeds into \
             a [[site]] with a name and `every` or `schedule`"
        );
    }
    if config.site.is_empty() {
        anyhow::bail!("no [[site]] in the config: `schedule` has nothing to run");
    }
    let mut sites: Vec<ScheduledSite> = Vec::new();
    for (i, site) in config.site.iter().enumerate() {
        let key = format!("site[{i}]");
        let schedule = SiteSchedule::parse(&key, site.schedule.as_deref(), site.every.as_deref())?
            .with_context(|| {
                format!(
                    "{key} sets neither `schedule` nor `every`: `dedupcrawl schedule` needs one \
                     (e.g. every = \"6h\" or schedule = \"0 3 * * *\")"
                )
            })?;
        let name = site.name.clone().with_context(|| {
            format!(
                "{key}.name is required by `dedupcrawl schedule`: it names the site's directory"
            )
        })?;
        if !usable_name(&name) {
            anyhow::bail!(
                "{key}.name = {name:?} cannot name a directory: use letters, digits, '.', '_', '-'"
            );
        }
        if sites.iter().any(|s| s.name == name) {
            anyhow::bail!(
                "{key}.name = {name:?} is used by an earlier [[site]]: names must differ"
            );
        }
        let dir = config.crawl.out.join(&name);
        sites.push(ScheduledSite {
            name,
            schedule,
            dir,
        });
    }
    Ok(sites)
}

/// Writes the configuration of `site`'s rounds (the whole config with only this site, its
/// directory as `crawl.out`, and on PostgreSQL its own crawl name) into its directory.
fn write_site_config(
    config: &CrawlConfig,
    index: usize,
    site: &ScheduledSite,
) -> anyhow::Result<()> {
    let mut own = config.clone();
    own.site = vec![config.site[index].clone()];
    own.crawl.out = site.dir.clone();
    if let Some(crawl) = &config.store.crawl {
        own.store.crawl = Some(format!("{crawl}.{}", site.name));
    }
    std::fs::create_dir_all(&site.dir)
        .with_context(|| format!("cannot create {}", site.dir.display()))?;
    let path = site.dir.join(SITE_CONFIG);
    let text = toml::to_string(&own).context("cannot write the site's config as TOML")?;
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))
}

/// Starts `site`'s next round: `crawl` the first time, `recrawl` afterwards.
fn start_round(site: &ScheduledSite, state: &ScheduledSiteState) -> anyhow::Result<Child> {
    let program = std::env::current_exe().context("cannot find the dedupcrawl executable")?;
    let mut command = Command::new(program);
    if state.rounds_finished == 0 {
        command.arg("crawl");
    } else {
        command.arg("recrawl").arg(&site.dir);
    }
    command
        .arg("--config")
        .arg(site.dir.join(SITE_CONFIG))
        .arg("--quiet");
    let log_path = site.dir.join(ROUNDS_LOG);
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .with_context(|| format!("cannot open {}", log_path.display()))?;
    command
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log);
    end_with_parent(&mut command);
    command
        .spawn()
        .with_context(|| format!("cannot start a round of site {}", site.name))
}

/// A round must not outlive a killed `schedule` (the restarted one would start the same
/// site's round again, and find its OUT locked): the kernel sends it SIGKILL when its parent
/// dies. Not SIGTERM: a crawl gives its fetches in flight a grace after SIGTERM, and would
/// hold its OUT through the restart. The round resumes on the next start, as any killed
/// crawl does.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn end_with_parent(command: &mut Command) {
    use std::os::unix::process::CommandExt as _;
    // SAFETY: prctl is async-signal-safe and touches only the child's own attributes.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn end_with_parent(_command: &mut Command) {}

/// Records the end of `site`'s round in `state` and says when the next one is due.
fn finish_round(
    site: &ScheduledSite,
    state: &mut ScheduledSiteState,
    round: &RunningRound,
    exit: std::process::ExitStatus,
) -> anyhow::Result<()> {
    let finished = Utc::now();
    state.last_finished = Some(finished);
    state.last_exit = exit.code();
    if exit.success() {
        state.rounds_finished += 1;
    }
    state.next_due = site.schedule.next_due(round.started, finished)?;
    let seconds = (finished - round.started).num_milliseconds() as f64 / 1000.0;
    if exit.success() {
        tracing::info!(
            "site {}: round {} finished in {seconds:.1} s; next round at {}",
            site.name,
            round.round,
            state.next_due.to_rfc3339()
        );
    } else {
        tracing::warn!(
            "site {}: round {} failed ({exit}) after {seconds:.1} s, see {}; next try at {}",
            site.name,
            round.round,
            site.dir.join(ROUNDS_LOG).display(),
            state.next_due.to_rfc3339()
        );
    }
    Ok(())
}

pub fn run(args: ScheduleArgs) -> anyhow::Result<()> {
    let config = CrawlConfig::load(&args.config)?;
    config
        .validate()
        .with_context(|| format!("in {}", args.config.display()))?;
    let sites =
        scheduled_sites(&config).with_context(|| format!("in {}", args.config.display()))?;
    let dir = config.crawl.out.clone();
    let book =
        ScheduleBook::open(&config).with_context(|| format!("in {}", args.config.display()))?;
    let old_state = dir.join(OLD_STATE_FILE);
    if old_state.exists() {
        tracing::warn!(
            "{} was written by an older dedupcrawl and is not read: the due times start afresh \
             in the schedule's store; delete the file",
            old_state.display()
        );
    }
    let mut state = book.sites()?;
    let now = Utc::now();
    for (index, site) in sites.iter().enumerate() {
        write_site_config(&config, index, site)?;
        if !state.contains_key(&site.name) {
            let fresh = ScheduledSiteState::new(now);
            book.record(&site.name, &fresh)?;
            state.insert(site.name.clone(), fresh);
        }
    }
    let mut running: BTreeMap<usize, RunningRound> = BTreeMap::new();
    let mut failed: Vec<String> = Vec::new();
    let mut first_pass = true;
    let mut announced: Option<(String, DateTime<Utc>)> = None;
    loop {
        for (index, site) in sites.iter().enumerate() {
            let Some(round) = running.get_mut(&index) else {
                continue;
            };
            let Some(exit) = round.child.try_wait().context("cannot wait for a round")? else {
                continue;
            };
            let round = running.remove(&index).context("running round")?;
            let site_state = state.get_mut(&site.name).context("site state")?;
            finish_round(site, site_state, &round, exit)?;
            book.record(&site.name, site_state)?;
            if !exit.success() {
                failed.push(format!("{} ({exit})", site.name));
            }
        }
        if !args.once || first_pass {
            let now = Utc::now();
            for (index, site) in sites.iter().enumerate() {
                let site_state = state.get_mut(&site.name).context("site state")?;
                if running.contains_key(&index) || site_state.next_due > now {
                    continue;
                }
                let round = site_state.rounds_finished + 1;
                // Recorded before the round starts: on PostgreSQL this also checks that the
                // schedule still holds its lock.
                site_state.last_started = Some(now);
                book.record(&site.name, site_state)?;
                let child = start_round(site, site_state)?;
                tracing::info!(
                    "site {}: round {round} ({}) started into {}",
                    site.name,
                    if round == 1 { "crawl" } else { "recrawl" },
                    site.dir.display()
                );
                running.insert(
                    index,
                    RunningRound {
                        child,
                        started: now,
                        round,
                    },
                );
            }
        }
        first_pass = false;
        if args.once && running.is_empty() {
            break;
        }
        if !args.once {
            announce_next(&sites, &state, &running, &mut announced);
        }
        std::thread::sleep(POLL);
    }
    if !failed.is_empty() {
        anyhow::bail!(
            "rounds failed: {} (their output is in OUT/<site>/{ROUNDS_LOG} under {})",
            failed.join(", "),
            dir.display()
        );
    }
    Ok(())
}

/// Logs which idle site's round comes next and when, each time that changes.
fn announce_next(
    sites: &[ScheduledSite],
    state: &BTreeMap<String, ScheduledSiteState>,
    running: &BTreeMap<usize, RunningRound>,
    announced: &mut Option<(String, DateTime<Utc>)>,
) {
    let next = sites
        .iter()
        .enumerate()
        .filter(|(index, _)| !running.contains_key(index))
        .filter_map(|(_, site)| Some((site.name.clone(), state.get(&site.name)?.next_due)))
        .min_by_key(|(_, due)| *due);
    if next == *announced {
        return;
    }
    if let Some((name, due)) = &next {
        let wait = (*due - Utc::now()).num_seconds().max(0);
        tracing::info!(
            "next: site {name} round at {} (in {wait} s)",
            due.to_rfc3339()
        );
        *announced = next;
    }
}
