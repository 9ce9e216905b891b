//! [`ScheduleBook`]: the state of `dedupcrawl schedule` (each site's
//! [`ScheduledSiteState`]: next due time, rounds finished, how the last round ended), kept
//! through the crawl-state storage seam in the backend the schedule's config names, and the
//! lock that keeps a second schedule off it.
//!
//! * Embedded store: a sled database in `OUT/schedule-state/` (`OUT` = the schedule's
//!   `crawl.out`; a `[[site]]` may not be named `schedule-state`). sled locks its database
//!   for one process, which is the schedule's lock: a second `schedule` on the same `OUT`
//!   gets [`CrawlError::ScheduleRunning`].
//! * PostgreSQL: the schedule's own `store.crawl` (its sites' rounds run as
//!   `{crawl}.{site}`). A session-level advisory lock on that name
//!   ([`PostgresScheduleLock`]) keeps a second schedule of the same crawl off it from any
//!   machine. The file lock `OUT/schedule.lock` stays for this backend only: the advisory
//!   lock guards the name, not the directory, and two schedules of different names on one
//!   `OUT` would run rounds into the same site directories. (Embedded, sled's lock on
//!   `OUT/schedule-state/` already guards the directory.)
//!
//! Every [`record`](ScheduleBook::record) is durable when it returns: a killed schedule
//! restarts with the due times it last recorded. A `schedule.json` of an older dedupcrawl is
//! not read (pre-1.0: no migration).

use std::collections::BTreeMap;

use crate::CrawlConfig;
use crate::config::StoreLocation;
use crate::crawl_state::{CrawlStateStore, ScheduledSiteState};
use crate::directory_lock::DirectoryLock;
use crate::error::CrawlError;
use crate::postgres_crawl_state::PostgresCrawlState;
use crate::postgres_schedule_lock::PostgresScheduleLock;
use crate::sled_crawl_state::SledCrawlState;

/// sled page cache of the schedule state: a few hundred bytes per site.
const CACHE_BYTES: u64 = 4 * 1024 * 1024;

/// What keeps other schedules off this one's state while it lives.
enum Exclusivity {
    /// sled's own lock on the database, held by the store.
    Embedded,
    Postgres {
        session: PostgresScheduleLock,
        _directory: DirectoryLock,
    },
}

/// The schedule state of one `dedupcrawl schedule`, held exclusively while this value lives.
pub struct ScheduleBook {
    store: Box<dyn CrawlStateStore>,
    exclusivity: Exclusivity,
}

impl ScheduleBook {
    /// The directory of `crawl.out` that holds the embedded schedule state; no site may be
    /// named so.
    pub const STATE_DIR: &'static str = "schedule-state";
    /// The lock file in `crawl.out` of a schedule whose state is in PostgreSQL.
    pub const LOCK_FILE: &'static str = "schedule.lock";

    /// Opens the schedule state of `config` (its `crawl.out` or its `store.crawl`) and takes
    /// its lock: [`CrawlError::ScheduleRunning`] when another schedule holds it. Checks that no
    /// `[[site]] name` takes the state directory's name.
    pub fn open(config: &CrawlConfig) -> Result<ScheduleBook, CrawlError> {
        for (index, site) in config.site.iter().enumerate() {
            if let Some(name) = &site.name
                && name.eq_ignore_ascii_case(Self::STATE_DIR)
            {
                return Err(CrawlError::ConfigValue(format!(
                    "site[{index}].name = {name:?} is reserved: `dedupcrawl schedule` keeps its \
                     state in OUT/{}/; give the site another name",
                    Self::STATE_DIR
                )));
            }
        }
        let out = &config.crawl.out;
        std::fs::create_dir_all(out).map_err(|e| CrawlError::io("cannot create", out, e))?;
        match config.store.location()? {
            StoreLocation::Embedded => {
                let dir = out.join(Self::STATE_DIR);
                let db = dedupcrawl_index::open_sled_config_waiting_for_lock(
                    &sled::Config::new().path(&dir).cache_capacity(CACHE_BYTES),
                    &dir,
                )
                .map_err(|error| match error {
                    dedupcrawl_index::IndexError::Locked { .. } => CrawlError::ScheduleRunning {
                        place: format!("{} (it holds {})", out.display(), dir.display()),
                        remedy: "another crawl.out",
                    },
                    other => other.into(),
                })?;
                Ok(ScheduleBook {
                    store: Box::new(SledCrawlState::open(&db)?),
                    exclusivity: Exclusivity::Embedded,
                })
            }
            StoreLocation::Postgres { url, crawl, .. } => {
                let lock_path = out.join(Self::LOCK_FILE);
                let directory = DirectoryLock::try_acquire(&lock_path)?.ok_or_else(|| {
                    CrawlError::ScheduleRunning {
                        place: format!("{} (it holds {})", out.display(), lock_path.display()),
                        remedy: "another crawl.out",
                    }
                })?;
                let session =
                    PostgresScheduleLock::try_acquire(&url, &crawl)?.ok_or_else(|| {
                        CrawlError::ScheduleRunning {
                            place: format!(
                                "crawl {crawl:?} in PostgreSQL (it holds the crawl's lock)"
                            ),
                            remedy: "another store.crawl",
                        }
                    })?;
                Ok(ScheduleBook {
                    // The worker only keys crawl-log marks and checkpoints, which a schedule
                    // has none of.
                    store: Box::new(PostgresCrawlState::connect(&url, &crawl, "schedule")?),
                    exclusivity: Exclusivity::Postgres {
                        session,
                        _directory: directory,
                    },
                })
            }
        }
    }

    /// Every site with a recorded state, by name (sites no longer in the config included).
    pub fn sites(&self) -> Result<BTreeMap<String, ScheduledSiteState>, CrawlError> {
        Ok(self.store.scheduled_sites()?.into_iter().collect())
    }

    /// Records `site`'s state, durably. On PostgreSQL it first checks that this schedule
    /// still holds the lock (an error when its session was lost).
    pub fn record(&self, site: &str, state: &ScheduledSiteState) -> Result<(), CrawlError> {
        if let Exclusivity::Postgres { session, .. } = &self.exclusivity {
            session.confirm()?;
        }
        self.store.record_scheduled_site(site, state)?;
        self.store.flush()
    }
}
