//! The state of `dedupcrawl schedule` in its directory (`crawl.out` of the config):
//! `schedule.json` (per site: when its next round is due, how many rounds finished, how the
//! last one ended), written atomically, and `schedule.lock`, held while a `schedule` runs.
//!
//! Why a file and not the storage traits: this is not crawl state. Each site's rounds keep
//! their own crawl state (sled or PostgreSQL, as configured) in the site's directory; the due
//! times belong to the schedule directory, are read and written by one process at a time (the
//! lock), a few hundred bytes, and must survive the loss of any one site's store.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The state file's name in the schedule directory.
pub const STATE_FILE: &str = "schedule.json";
/// The lock file's name in the schedule directory.
pub const LOCK_FILE: &str = "schedule.lock";

/// One site's schedule state.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SiteState {
    /// When the next round may start.
    pub next_due: DateTime<Utc>,
    /// Rounds that ran to their end (exit status 0): 0 means the next round is the first crawl.
    pub rounds_finished: u32,
    pub last_started: Option<DateTime<Utc>>,
    pub last_finished: Option<DateTime<Utc>>,
    /// Exit status of the last round's process (`None`: killed by a signal, or none yet).
    pub last_exit: Option<i32>,
}

impl SiteState {
    /// A site never run: due at once.
    pub fn new(now: DateTime<Utc>) -> SiteState {
        SiteState {
            next_due: now,
            rounds_finished: 0,
            last_started: None,
            last_finished: None,
            last_exit: None,
        }
    }
}

/// `schedule.json`: the state of every site by name.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ScheduleState {
    pub sites: BTreeMap<String, SiteState>,
}

impl ScheduleState {
    /// Reads `dir/schedule.json` (empty when there is none yet).
    pub fn load(dir: &Path) -> anyhow::Result<ScheduleState> {
        let path = dir.join(STATE_FILE);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).with_context(|| {
                format!(
                    "{} is not a schedule state file; move it away to start the schedule afresh",
                    path.display()
                )
            }),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                Ok(ScheduleState::default())
            }
            Err(error) => Err(error).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    /// Writes `dir/schedule.json` atomically (a synced temporary file renamed over it), so a
    /// kill at any moment leaves the old or the new state, never half of one.
    pub fn save(&self, dir: &Path) -> anyhow::Result<()> {
        let path = dir.join(STATE_FILE);
        let temporary = dir.join(format!("{STATE_FILE}.tmp"));
        let write = || -> std::io::Result<()> {
            let mut file = File::create(&temporary)?;
            file.write_all(&serde_json::to_vec_pretty(self)?)?;
            file.sync_all()?;
            std::fs::rename(&temporary, &path)?;
            File::open(dir)?.sync_all()
        };
        write().with_context(|| format!("cannot write {}", path.display()))
    }
}

/// The exclusive lock on a schedule directory, released when dropped (or when the process
/// dies, however it dies).
pub struct ScheduleLock {
    _file: File,
}

impl ScheduleLock {
    /// Takes the lock, or says which directory another `schedule` already runs on.
    pub fn acquire(dir: &Path) -> anyhow::Result<ScheduleLock> {
        let path: PathBuf = dir.join(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => Ok(ScheduleLock { _file: file }),
            Err(TryLockError::WouldBlock) => anyhow::bail!(
                "another `dedupcrawl schedule` runs on {} (it holds {}): stop it first, or give \
                 this schedule another crawl.out",
                dir.display(),
                path.display()
            ),
            Err(TryLockError::Error(error)) => {
                Err(error).with_context(|| format!("cannot lock {}", path.display()))
            }
        }
    }
}
