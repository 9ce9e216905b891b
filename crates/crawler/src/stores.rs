//! Where a crawl keeps its state: the three storage seams the engine sees (frontier, dedup
//! index, crawl state), opened either all embedded in `OUT/state/` or all in PostgreSQL
//! (`[store] url`, `--store`), keyed by the crawl's name.

use std::path::PathBuf;
use std::sync::Arc;

use dedupcrawl_frontier::{
    Frontier, FrontierStore, PolitenessConfig, PostgresFrontierConfig, PostgresFrontierStore,
};
use dedupcrawl_index::{DedupIndex, IndexConfig, PostgresDedupIndex, SledDedupIndex};

use crate::crawl_state::CrawlStateStore;
use crate::error::CrawlError;
use crate::postgres_crawl_state::PostgresCrawlState;
use crate::sled_crawl_state::SledCrawlState;

/// The dedup index's document log, inside `state/` next to the sled files it commits with.
const INDEX_DOCUMENT_LOG: &str = "dedup-documents.log";
/// sled page cache of the crawl state (`OUT/state/`).
const STATE_CACHE_BYTES: u64 = 64 * 1024 * 1024;

/// A crawl's stores, as traits.
pub(crate) struct CrawlStores {
    pub(crate) frontier: Box<dyn FrontierStore>,
    pub(crate) index: Arc<dyn DedupIndex>,
    pub(crate) crawl_state: Arc<dyn CrawlStateStore>,
}

impl CrawlStores {
    /// The embedded backend: one sled database in `state_dir` holds the frontier's, the
    /// index's and the crawl state's trees; the seen-URL set and the index's document log are
    /// files next to it.
    pub(crate) fn open_embedded(
        state_dir: &std::path::Path,
        politeness: PolitenessConfig,
        index_config: IndexConfig,
    ) -> Result<CrawlStores, CrawlError> {
        // sled's default page cache is 1 GB; the state's hot part (frontier heads, the seen
        // set's recent keys, index records of candidates) fits in far less, and RSS matters.
        let db = dedupcrawl_index::open_sled_config_waiting_for_lock(
            &sled::Config::new()
                .path(state_dir)
                .cache_capacity(STATE_CACHE_BYTES)
                .flush_every_ms(Some(100)),
            state_dir,
        )?;
        let frontier = Frontier::open(&db, state_dir.join("seen"), politeness)?;
        let index = SledDedupIndex::open_in(
            db.clone(),
            &state_dir.join(INDEX_DOCUMENT_LOG),
            index_config,
        )?;
        let crawl_state = SledCrawlState::open(&db)?;
        Ok(CrawlStores {
            frontier: Box::new(frontier),
            index: Arc::new(index),
            crawl_state: Arc::new(crawl_state),
        })
    }

    /// The PostgreSQL backend: the frontier, index and crawl state of `crawl` in the database
    /// at `url` (each connects and applies the migrations; a newer schema is an error), as
    /// `worker` (its leases and its own checkpoint). Each waits up to `reconnect_for` for a
    /// server that is unreachable or restarting before a call fails.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn open_postgres(
        url: &str,
        crawl: &str,
        worker: &str,
        lease: std::time::Duration,
        reconnect_for: std::time::Duration,
        politeness: PolitenessConfig,
        index_config: IndexConfig,
    ) -> Result<CrawlStores, CrawlError> {
        // A worker started while the server is down or starting waits for it too, as a
        // running one does (a scheduled start right after a database restart must not fail).
        dedupcrawl_reconnect::Reconnect::new("crawl stores", reconnect_for)
            .retry(|| {
                Self::connect_postgres(
                    url,
                    crawl,
                    worker,
                    lease,
                    reconnect_for,
                    politeness.clone(),
                    index_config,
                )
                .map_err(StartError)
            })
            .map_err(|StartError(error)| error)
    }

    /// One try of [`open_postgres`](Self::open_postgres).
    #[allow(clippy::too_many_arguments)]
    fn connect_postgres(
        url: &str,
        crawl: &str,
        worker: &str,
        lease: std::time::Duration,
        reconnect_for: std::time::Duration,
        politeness: PolitenessConfig,
        index_config: IndexConfig,
    ) -> Result<CrawlStores, CrawlError> {
        let frontier = PostgresFrontierStore::connect(
            &PostgresFrontierConfig {
                url: url.to_string(),
                crawl: crawl.to_string(),
                worker: worker.to_string(),
                lease,
                reconnect_for,
            },
            politeness,
        )?;
        let index =
            PostgresDedupIndex::connect(url, crawl, index_config)?.reconnecting_for(reconnect_for);
        let crawl_state =
            PostgresCrawlState::connect(url, crawl, worker)?.reconnecting_for(reconnect_for);
        Ok(CrawlStores {
            frontier: Box::new(frontier),
            index: Arc::new(index),
            crawl_state: Arc::new(crawl_state),
        })
    }
}

/// A failed start of the PostgreSQL stores: a connection loss of any of the three is waited
/// out like one of a running store's calls.
struct StartError(CrawlError);

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl dedupcrawl_reconnect::ConnectionLoss for StartError {
    fn is_connection_loss(&self) -> bool {
        match &self.0 {
            CrawlError::Frontier(error) => error.is_connection_loss(),
            CrawlError::Index(error) => error.is_connection_loss(),
            other => other.is_connection_loss(),
        }
    }

    fn after_waiting(self, waited: std::time::Duration) -> Self {
        StartError(match self.0 {
            CrawlError::Frontier(error) => CrawlError::Frontier(error.after_waiting(waited)),
            CrawlError::Index(error) => CrawlError::Index(error.after_waiting(waited)),
            other => other.after_waiting(waited),
        })
    }
}

/// The dedup index of a crawl that is not running (for `dedupcrawl overlap`): in
/// `OUT/state/` (`config.crawl.out`), or the crawl `store.crawl` in PostgreSQL, with the
/// settings the crawl ran with. An embedded state is opened as a copy (nothing in `OUT/` is
/// written); one still open by a running crawl is an error.
pub fn open_crawl_index(config: &crate::CrawlConfig) -> Result<Arc<dyn DedupIndex>, CrawlError> {
    let sites = config.sites()?;
    let index_config = config.index_dedup_settings(&sites).index_config();
    match config.store.location()? {
        crate::config::StoreLocation::Embedded => {
            let (db, copy) = copied_state(config)?;
            let index =
                SledDedupIndex::open_in(db, &copy.path().join(INDEX_DOCUMENT_LOG), index_config)?;
            Ok(Arc::new(crate::read_only_state::CopiedIndex {
                index,
                _copy: copy,
            }))
        }
        crate::config::StoreLocation::Postgres { url, crawl, .. } => Ok(Arc::new(
            PostgresDedupIndex::connect(&url, &crawl, index_config)?,
        )),
    }
}

/// The output directories of every worker of a crawl (for `dedupcrawl export --store`): as
/// each worker recorded it when it started, in worker-name order; for an embedded store, the
/// crawl's `out` itself. A crawl whose workers ran before directories were recorded has none.
pub fn crawl_output_dirs(config: &crate::CrawlConfig) -> Result<Vec<PathBuf>, CrawlError> {
    match config.store.location()? {
        crate::config::StoreLocation::Embedded => Ok(vec![config.crawl.out.clone()]),
        crate::config::StoreLocation::Postgres { url, crawl, .. } => {
            // A reader of the crawl, not a worker: it writes nothing under this name.
            let state = PostgresCrawlState::connect(&url, &crawl, "dedupcrawl-reader")?;
            Ok(state
                .output_dirs()?
                .into_iter()
                .map(PathBuf::from)
                .collect())
        }
    }
}

/// The URL rules of `host` (`host[:port]`) in the crawl state of a crawl that is not
/// running (for `dedupcrawl why`): each rule's status, the pairs it was learned from, its
/// counterexample and its counts. An embedded state is read from a copy, as
/// [`open_crawl_index`] reads it.
pub fn read_url_rules(
    config: &crate::CrawlConfig,
    host: &str,
) -> Result<Vec<dedupcrawl_urlrules::RuleRecord>, CrawlError> {
    match config.store.location()? {
        crate::config::StoreLocation::Embedded => {
            let (db, _copy) = copied_state(config)?;
            SledCrawlState::open(&db)?.url_rules(host)
        }
        crate::config::StoreLocation::Postgres { url, crawl, .. } => {
            PostgresCrawlState::connect(&url, &crawl, "why")?.url_rules(host)
        }
    }
}

/// The embedded state of `config.crawl.out`, opened on a copy (the crawl being read is left as
/// it is; see `crate::read_only_state`), which lives as long as the copy handle.
fn copied_state(
    config: &crate::CrawlConfig,
) -> Result<(sled::Db, crate::read_only_state::StateCopy), CrawlError> {
    let state_dir = crate::OutputPaths::new(&config.crawl.out).state;
    if !state_dir.join("db").exists() && !state_dir.join("conf").exists() {
        return Err(CrawlError::ConfigValue(format!(
            "{} holds no crawl state: give the OUT directory of a crawl",
            config.crawl.out.display()
        )));
    }
    let copy = crate::read_only_state::StateCopy::of(&state_dir)?;
    let db = sled::Config::new()
        .path(copy.path())
        .cache_capacity(STATE_CACHE_BYTES)
        .open()?;
    Ok((db, copy))
}
