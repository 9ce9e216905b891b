//! The PostgreSQL backend of the index ([`PostgresDedupIndex`]): several workers of one crawl
//! share it. Tables (top-level `migrations/`, applied on connect): `index_meta` (format,
//! signature settings, the bound of reserved ids), `index_document` (the records, in the encoding of
//! `record.rs`), `index_bucket` (LSH band buckets), `index_posting_list` (containment postings: a sample's ids),
//! `index_digest` (exact-digest keys → first id), `index_block_count` and `index_host`
//! (template learning). Every row names its crawl, so crawls can share a database.
//!
//! A decision is one transaction that first takes transaction-scoped advisory locks: the
//! crawl's, shared, then one per lock key of the document (its digests and LSH buckets,
//! `DecisionAlgorithm::lock_keys`), exclusive for an insert. Two exact or near duplicates
//! share a key, so their checks run one after the other and no two near duplicates checked
//! at the same moment by two processes both come back new; checks of unrelated documents run
//! at the same time. Ids come from blocks reserved before the transaction and a stored
//! original's block counts are added after its commit, many originals' in one write (see
//! `IdReservations`, `count_blocks` and `PendingBlockCounts`): no row is updated by every
//! decision, so none serialises them.
//! Removals take the crawl's lock exclusive. Locks are released by the commit (or a
//! rollback, or a dead connection). Every check-and-insert is durable when it returns.
//!
//! The calls are synchronous like [`DedupIndex`]: the index runs its queries on a small
//! runtime of its own, so it may be called from plain threads and from async tasks alike.
//! Each storage call is one round trip inside the decision's transaction.
//!
//! A call whose connection is lost (the server restarting) runs again from the start of its
//! transaction once the server is back (up to [`PostgresDedupIndex::reconnecting_for`]): a
//! decision is decided again from scratch, with the same reserved id. When the lost part was
//! the COMMIT of a decision that stored its document, the commit may have been applied; the
//! next try, holding the same key locks (so the lost transaction is over), looks for the
//! document under that id (reserved by this process alone: only this decision can have
//! stored it) and returns the first try's decision if it is there. Without that check the
//! page would find itself as its own exact duplicate. A removal run again after an applied
//! commit finds nothing to remove (its caller ignores the answer); a block of ids reserved
//! twice leaves the first unused (a gap).

use std::cell::RefCell;
use std::future::Future;

use dedupcrawl_reconnect::{Held, HeldConnections, Reconnect, StoreRuntime};
use xxhash_rust::xxh3::xxh3_64;

use crate::block_counts::COUNT_CAP;
use crate::block_postings::record_posting_values;
use crate::decision::{DecisionAlgorithm, payload_digest_key, token_digest_key};
use crate::postgres_schema::connect_and_migrate;
use crate::record::{DocumentId, StoredDocument};
use crate::storage::{
    FORMAT_VERSION, IndexStorage, MAX_BUCKET_MEMBERS, MAX_POSTINGS_PER_SAMPLE, signature_settings,
};
use crate::{DedupDecision, DedupIndex, DocumentFingerprint, IndexConfig, IndexError, IndexStats};

mod pending_block_counts;
mod read_ahead;
mod storage_rows;

use pending_block_counts::PendingBlockCounts;
use read_ahead::{FirstReads, ReadAhead};
use storage_rows::{
    PgStorage, block_counts_in_order, capped_count, document_id, fingerprint_keys,
    read_block_and_host_counts, read_host_pages,
};

/// Connections an index keeps open at most.
const MAX_CONNECTIONS: u32 = 8;

thread_local! {
    /// The page count of a host read with its block counts on this thread (the crawl's lock
    /// key, the host, the count), for the question that follows.
    static HOST_PAGES_READ: RefCell<Option<(i64, String, Option<i32>)>> = const { RefCell::new(None) };
}

/// Document ids a process reserves at a time (see [`IdReservations`]).
const ID_BLOCK: i64 = 64;

/// A decision's transaction: on a kept connection ([`HeldConnections`]), begun with
/// [`Held::begin_transaction`].
type Tx = Held;

/// The dedup index of one crawl in PostgreSQL.
pub struct PostgresDedupIndex {
    /// The index's connections, kept between calls ([`HeldConnections`]).
    connections: HeldConnections,
    crawl: String,
    config: IndexConfig,
    /// The advisory lock key of this crawl's index.
    lock_key: i64,
    ids: IdReservations,
    /// Block counts of originals not written yet (see [`PendingBlockCounts`]).
    pending_counts: std::sync::Mutex<PendingBlockCounts>,
    reconnect: Reconnect,
    runtime: StoreRuntime,
}

/// Document ids this process has reserved and not used yet.
///
/// Why blocks: taking each id from the crawl's `index_meta` row inside the decision's
/// transaction locked that row until the commit, so every insert of every worker waited for
/// the one before it (half of a PostgreSQL worker's database time, and most of it with four
/// workers: benches/workers). A block of [`ID_BLOCK`] ids is reserved in a transaction of its
/// own, before the decision's transaction starts; an id a decision did not use (a duplicate
/// that is not stored, a lookup) goes back to the free list. Ids stay unique per crawl; they
/// are ascending within one process, not across processes, and a killed process leaves the
/// rest of its block unused (gaps, which every reader of ids already allows: removed
/// documents leave them too).
#[derive(Default)]
struct IdReservations {
    /// Free ids, largest first (the smallest is popped).
    free: std::sync::Mutex<Vec<i64>>,
}

impl std::fmt::Debug for PostgresDedupIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresDedupIndex")
            .field("crawl", &self.crawl)
            .field("config", &self.config)
            .finish()
    }
}

fn database(action: &'static str) -> impl FnOnce(sqlx::Error) -> IndexError {
    move |source| IndexError::Postgres { action, source }
}

/// How a storage transaction holds the crawl's advisory lock.
#[derive(Clone)]
enum Lock {
    /// Removals: alone in the crawl.
    Exclusive,
    /// Checks: the crawl's lock shared (no removal meanwhile), then the lock of each of the
    /// document's keys (`DecisionAlgorithm::lock_keys`, sorted: no deadlock between two
    /// checks), exclusive for a check that inserts, shared for a lookup. Checks of documents
    /// that cannot see each other run at the same time. The decision's first reads come
    /// with the locks, in one round trip ([`ReadAhead`]).
    Keys {
        exclusive: bool,
        keys: Vec<i64>,
        reads: FirstReads,
    },
    /// Single reads.
    None,
}

impl PostgresDedupIndex {
    /// Connects (migrating the schema) to the index of `crawl`, creating it on first use.
    /// Reopening with other signature settings is [`IndexError::ParameterMismatch`].
    pub fn connect(url: &str, crawl: &str, config: IndexConfig) -> Result<Self, IndexError> {
        let runtime = StoreRuntime::start("index-postgres")
            .map_err(|e| IndexError::Runtime(format!("cannot start a runtime: {e}")))?;
        let (url_owned, crawl_owned) = (url.to_string(), crawl.to_string());
        let settings = signature_settings(&config);
        let stored = runtime.block_on(async move {
            let pool = connect_and_migrate(&url_owned, MAX_CONNECTIONS).await?;
            sqlx::query(
                "INSERT INTO index_meta (crawl, format, signature, next_id) \
                 VALUES ($1, $2, $3, 0) ON CONFLICT DO NOTHING",
            )
            .bind(&crawl_owned)
            .bind(FORMAT_VERSION)
            .bind(&settings)
            .execute(&pool)
            .await
            .map_err(database("create the crawl's index"))?;
            let stored: (String, String) =
                sqlx::query_as("SELECT format, signature FROM index_meta WHERE crawl = $1")
                    .bind(&crawl_owned)
                    .fetch_one(&pool)
                    .await
                    .map_err(database("read the crawl's index settings"))?;
            Ok::<_, IndexError>((pool, stored))
        })?;
        let (pool, (format, signature)) = stored?;
        let path = format!("crawl {crawl:?} in PostgreSQL");
        if format != FORMAT_VERSION {
            return Err(IndexError::IncompatibleFormat {
                path,
                found: format,
                expected: FORMAT_VERSION.to_string(),
            });
        }
        let requested = signature_settings(&config);
        if signature != requested {
            return Err(IndexError::ParameterMismatch {
                path,
                stored: signature,
                requested,
            });
        }
        Ok(PostgresDedupIndex {
            connections: HeldConnections::new(pool),
            crawl: crawl.to_string(),
            config,
            lock_key: xxh3_64(format!("dedupcrawl-index:{crawl}").as_bytes()) as i64,
            ids: IdReservations::default(),
            pending_counts: std::sync::Mutex::default(),
            reconnect: Reconnect::new("dedup index", dedupcrawl_reconnect::DEFAULT_LIMIT),
            runtime,
        })
    }

    /// Waits up to `limit` for a server that is unreachable or restarting before a call fails
    /// (default [`dedupcrawl_reconnect::DEFAULT_LIMIT`]; zero: fails at once).
    pub fn reconnecting_for(mut self, limit: std::time::Duration) -> Self {
        self.reconnect = Reconnect::new("dedup index", limit);
        self
    }

    pub fn config(&self) -> &IndexConfig {
        &self.config
    }

    /// Runs `body` on this crawl's storage in one transaction holding the advisory lock as
    /// `lock` says; committed if `body` returns `Ok`, rolled back otherwise.
    fn with_storage<T>(
        &self,
        lock: Lock,
        body: impl Fn(&mut PgStorage<'_>) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        self.with_storage_and_id(lock, None, body)
    }

    /// The smallest free reserved id, reserving a new block when none is left.
    fn take_id(&self) -> Result<i64, IndexError> {
        let mut free = self
            .ids
            .free
            .lock()
            .map_err(|_| IndexError::Runtime("the id reservations were poisoned".into()))?;
        if let Some(id) = free.pop() {
            return Ok(id);
        }
        let end: i64 = self.reconnect.retry(|| {
            self.on_connection(|mut connection, crawl| async move {
                sqlx::query_scalar(
                    "UPDATE index_meta SET next_id = next_id + $2 WHERE crawl = $1 \
                     RETURNING next_id",
                )
                .bind(&crawl)
                .bind(ID_BLOCK)
                .fetch_one(&mut *connection)
                .await
            })?
            .map_err(database("reserve document ids"))
        })?;
        if end - ID_BLOCK >= i64::from(DocumentId::MAX) {
            return Err(IndexError::Full);
        }
        free.extend((end - ID_BLOCK..end).rev());
        free.pop()
            .ok_or_else(|| IndexError::Runtime("an id block was empty".into()))
    }

    /// Runs one read statement outside a transaction (one round trip, where a transaction
    /// takes three), again after a lost connection.
    fn single_read<T, F, Fut>(&self, action: &'static str, read: F) -> Result<T, IndexError>
    where
        T: Send + 'static,
        F: Fn(Held, String) -> Fut + Clone + Send + 'static,
        Fut: Future<Output = Result<T, sqlx::Error>> + Send + 'static,
    {
        self.reconnect
            .retry(|| self.on_connection(read.clone())?.map_err(database(action)))
    }

    /// One try of a call on a kept connection ([`HeldConnections`]): `body` gets it and the
    /// crawl. After a lost connection the other kept ones are given up too (the caller tries
    /// again).
    fn on_connection<T, F, Fut>(
        &self,
        body: F,
    ) -> Result<Result<T, sqlx::Error>, dedupcrawl_reconnect::CallPanicked>
    where
        T: Send + 'static,
        F: FnOnce(Held, String) -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, sqlx::Error>> + Send + 'static,
    {
        let (connections, crawl) = (self.connections.clone(), self.crawl.clone());
        self.runtime.block_on(async move {
            let result = match connections.acquire().await {
                Ok(connection) => body(connection, crawl).await,
                Err(error) => Err(error),
            };
            if let Err(error) = &result
                && dedupcrawl_reconnect::is_connection_loss(error)
            {
                connections.forget_idle();
            }
            result
        })
    }

    /// Gives back an id a decision did not use.
    fn give_back_id(&self, id: i64) {
        if let Ok(mut free) = self.ids.free.lock() {
            // Largest first: the smallest free id stays at the end.
            let at = free.partition_point(|&other| other > id);
            free.insert(at, id);
        }
    }

    /// [`with_storage`](Self::with_storage) with an id reserved for the decision's insert;
    /// the whole transaction runs again after a lost connection (see the module's docs).
    fn with_storage_and_id<T>(
        &self,
        lock: Lock,
        reserved_id: Option<i64>,
        body: impl Fn(&mut PgStorage<'_>) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        // The value of a try that stored its document under `reserved_id` and lost its COMMIT.
        let mut unacknowledged: Option<T> = None;
        let mut id_taken = false;
        let result = self.reconnect.retry(|| {
            self.storage_try(
                lock.clone(),
                reserved_id,
                &mut unacknowledged,
                &mut id_taken,
                &body,
            )
        });
        // An id the decision did not take is free again (one it took is used or, on an
        // error, lost: a gap).
        if let (Some(id), false) = (reserved_id, id_taken) {
            self.give_back_id(id);
        }
        result
    }

    /// One try of [`with_storage_and_id`](Self::with_storage_and_id).
    fn storage_try<T>(
        &self,
        lock: Lock,
        reserved_id: Option<i64>,
        unacknowledged: &mut Option<T>,
        id_taken: &mut bool,
        body: &impl Fn(&mut PgStorage<'_>) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        let (key, crawl) = (self.lock_key, self.crawl.clone());
        let (tx, read_ahead) = self
            .on_connection(move |mut tx, _| async move {
                tx.begin_transaction().await?;
                let mut read_ahead = None;
                match lock {
                    Lock::Exclusive => {
                        sqlx::query("SELECT pg_advisory_xact_lock($1)")
                            .bind(key)
                            .execute(&mut *tx)
                            .await?;
                    }
                    Lock::Keys {
                        exclusive,
                        keys,
                        reads,
                    } => {
                        let rows = ReadAhead::lock_and_read(
                            &mut tx, &crawl, key, &keys, exclusive, &reads,
                        )
                        .await?;
                        read_ahead = Some((reads, rows));
                    }
                    Lock::None => {}
                }
                Ok((tx, read_ahead))
            })?
            .map_err(database("begin a decision"))?;
        let mut storage = PgStorage {
            index: self,
            tx: RefCell::new(Some(tx)),
            reserved_id: std::cell::Cell::new(reserved_id),
            pending_counts: RefCell::new(None),
            read_ahead: RefCell::default(),
        };
        if let Some((reads, rows)) = read_ahead {
            *storage.read_ahead.borrow_mut() = ReadAhead::from_rows(&reads, rows)?;
        }
        if let (Some(id), Some(_)) = (reserved_id, unacknowledged.as_ref()) {
            // This transaction holds the lost one's key locks: that one is over. Its
            // document is there if and only if its COMMIT was applied.
            let stored = storage.document(document_id(id)?)?;
            if let (Some(_), Some(value)) = (stored, unacknowledged.take()) {
                *id_taken = true;
                return Ok(value);
            }
        }
        let value = body(&mut storage);
        *id_taken = reserved_id.is_some() && storage.reserved_id.get().is_none();
        let value = value?;
        let tx = storage.take()?;
        let connections = self.connections.clone();
        let committed = self.runtime.block_on(async move {
            let mut tx = tx;
            let result = tx.commit_transaction().await;
            if let Err(error) = &result
                && dedupcrawl_reconnect::is_connection_loss(error)
            {
                connections.forget_idle();
            }
            result
        })?;
        match committed {
            Ok(()) => {
                // Evidence, not the decision: a failure here must not make the retry loop run
                // a committed decision again (it would find the page as its own duplicate).
                if let Some((host, blocks)) = storage.pending_counts.take() {
                    self.count_blocks(&host, &blocks);
                }
                Ok(value)
            }
            Err(error) => {
                if *id_taken {
                    *unacknowledged = Some(value);
                }
                Err(database("commit")(error))
            }
        }
    }

    /// Counts an original's blocks for its host's template after the decision's commit: kept
    /// in [`PendingBlockCounts`] and written with the counts of the originals before it when
    /// due. A write that fails is a warning, and its counts are written with the next one.
    ///
    /// Why not inside the decision: the host's row and the rows of its template blocks are
    /// updated by every original of the host, and a row updated in a transaction stays locked
    /// to its commit, so every decision of the host waited for the one before (with four
    /// workers, most of the database time: benches/workers). The counts are evidence, not the
    /// decision: a crash before they are written loses them, which only makes the template
    /// that many pages later.
    fn count_blocks(&self, host: &str, blocks: &[i64]) {
        let mut pending = self.lock_pending_counts();
        pending.add(host, blocks);
        if pending.due(std::time::Instant::now())
            && let Err(error) = self.write_pending_counts(&mut pending)
        {
            tracing::warn!(%error, "template block counts were not written (tried again with the next)");
        }
    }

    fn lock_pending_counts(&self) -> std::sync::MutexGuard<'_, PendingBlockCounts> {
        // The counts stay consistent through a panic elsewhere: each change is one call.
        self.pending_counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes the counts kept, in one statement; kept again if it fails. The caller holds the
    /// lock through the write, so this handle's reads never miss counts on their way.
    fn write_pending_counts(&self, pending: &mut PendingBlockCounts) -> Result<(), IndexError> {
        let rows = pending.take();
        if rows.is_empty() {
            return Ok(());
        }
        let cap = i32::try_from(COUNT_CAP).unwrap_or(i32::MAX);
        let written = self.on_connection(move |mut connection, crawl| async move {
            let result = sqlx::query(
                "WITH host AS (\
                   INSERT INTO index_host (crawl, host, pages) \
                   SELECT $1, h, p FROM unnest($2::text[], $3::int[]) AS x(h, p) \
                   ON CONFLICT (crawl, host) DO UPDATE \
                   SET pages = least(index_host.pages + EXCLUDED.pages, $7)) \
                 INSERT INTO index_block_count (crawl, host, fingerprint, pages) \
                 SELECT $1, h, f, p FROM unnest($4::text[], $5::bigint[], $6::int[]) AS x(h, f, p) \
                 ON CONFLICT (crawl, host, fingerprint) DO UPDATE \
                 SET pages = least(index_block_count.pages + EXCLUDED.pages, $7)",
            )
            .bind(&crawl)
            .bind(&rows.hosts)
            .bind(&rows.host_pages)
            .bind(&rows.block_hosts)
            .bind(&rows.block_fingerprints)
            .bind(&rows.block_pages)
            .bind(cap)
            .execute(&mut *connection)
            .await;
            Ok((result, rows))
        });
        match written {
            Ok(Ok((Ok(_), _))) => Ok(()),
            Ok(Ok((Err(error), rows))) => {
                pending.restore(rows);
                Err(database("write template block counts")(error))
            }
            Ok(Err(error)) => Err(database("write template block counts")(error)),
            Err(panicked) => Err(panicked.into()),
        }
    }

    /// One decision: the algorithm over this crawl's storage, under the lock.
    fn check(&self, doc: &DocumentFingerprint, insert: bool) -> Result<DedupDecision, IndexError> {
        let algorithm = DecisionAlgorithm {
            config: &self.config,
        };
        // Mixed with the crawl's key: crawls sharing a database do not wait for each other.
        let mut keys: Vec<i64> = algorithm
            .lock_keys(doc)
            .into_iter()
            .map(|k| (k ^ self.lock_key as u64) as i64)
            .collect();
        keys.sort_unstable();
        keys.dedup();
        let lock = Lock::Keys {
            exclusive: insert,
            keys,
            reads: FirstReads::of(&self.config, doc),
        };
        // Reserved before the transaction: no row lock is taken for it inside.
        let reserved_id = if insert { Some(self.take_id()?) } else { None };
        self.with_storage_and_id(lock, reserved_id, |storage| {
            algorithm.check(storage, doc, insert)
        })
    }
}

impl DedupIndex for PostgresDedupIndex {
    fn check_and_insert(
        &self,
        document: &DocumentFingerprint,
    ) -> Result<DedupDecision, IndexError> {
        self.check(document, true)
    }

    fn lookup(&self, document: &DocumentFingerprint) -> Result<DedupDecision, IndexError> {
        self.check(document, false)
    }

    fn remove(&self, id: DocumentId) -> Result<bool, IndexError> {
        self.with_storage(Lock::Exclusive, |storage| {
            let Some(document) = storage.document(id)? else {
                return Ok(false);
            };
            storage.remove(document)?;
            Ok(true)
        })
    }

    fn document(&self, id: DocumentId) -> Result<Option<StoredDocument>, IndexError> {
        self.with_storage(Lock::None, |storage| storage.document(id))
    }

    /// One statement outside a transaction (asked for every page), which also reads the
    /// host's page count for the [`host_document_count`](DedupIndex::host_document_count) that
    /// follows on this thread (the pipeline asks for both, one after the other).
    fn block_page_counts(&self, host: &str, fingerprints: &[u64]) -> Result<Vec<u32>, IndexError> {
        let wanted = fingerprint_keys(fingerprints);
        let (rows, host_pages) =
            self.single_read("read block counts", {
                let (host, wanted) = (host.to_string(), wanted.clone());
                move |mut connection, crawl| {
                    let (host, wanted) = (host.clone(), wanted.clone());
                    async move {
                        read_block_and_host_counts(&mut connection, &crawl, &host, &wanted).await
                    }
                }
            })?;
        HOST_PAGES_READ.with(|read| {
            *read.borrow_mut() = Some((self.lock_key, host.to_string(), host_pages));
        });
        let mut counts = block_counts_in_order(fingerprints, rows);
        let pending = self.lock_pending_counts();
        for (count, &fingerprint) in counts.iter_mut().zip(fingerprints) {
            let kept = pending.block_pages(host, fingerprint as i64);
            *count = count.saturating_add(kept).min(COUNT_CAP);
        }
        Ok(counts)
    }

    /// Read with the block counts just before on this thread, or one statement outside a
    /// transaction.
    fn host_document_count(&self, host: &str) -> Result<u32, IndexError> {
        let read_before = HOST_PAGES_READ.with(|read| {
            read.borrow_mut()
                .take()
                .filter(|(crawl, read_host, _)| *crawl == self.lock_key && read_host == host)
        });
        let pages = match read_before {
            Some((_, _, pages)) => pages,
            None => self.single_read("read a host's page count", {
                let host = host.to_string();
                move |mut connection, crawl| {
                    let host = host.clone();
                    async move { read_host_pages(&mut *connection, &crawl, &host).await }
                }
            })?,
        };
        let kept = self.lock_pending_counts().host_pages(host);
        Ok(pages
            .map_or(0, capped_count)
            .saturating_add(kept)
            .min(COUNT_CAP))
    }

    fn stats(&self) -> Result<IndexStats, IndexError> {
        self.with_storage(Lock::None, |storage| {
            let (originals, next_id, buckets, bytes): (i64, i64, i64, i64) =
                storage.call("read the index's counts", move |mut tx, crawl| async move {
                    let result = sqlx::query_as(
                        "SELECT (SELECT count(*) FROM index_document \
                          WHERE crawl = $1 AND original), \
                         (SELECT next_id FROM index_meta WHERE crawl = $1), \
                         (SELECT count(*) FROM index_bucket WHERE crawl = $1), \
                         (SELECT COALESCE(sum(octet_length(record)), 0)::bigint \
                          FROM index_document WHERE crawl = $1)",
                    )
                    .bind(&crawl)
                    .fetch_one(&mut *tx)
                    .await;
                    (result, tx)
                })?;
            Ok(IndexStats {
                documents: u64::try_from(originals).unwrap_or(0),
                id_bound: DocumentId::try_from(next_id).unwrap_or(0),
                band_buckets: u64::try_from(buckets).unwrap_or(0),
                bytes_on_disk: u64::try_from(bytes).unwrap_or(0),
            })
        })
    }

    /// Every check-and-insert and removal is committed when it returns; the template block
    /// counts kept (`PendingBlockCounts`) are written.
    fn flush(&self) -> Result<(), IndexError> {
        let mut pending = self.lock_pending_counts();
        self.write_pending_counts(&mut pending)
    }
}
