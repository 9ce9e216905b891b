//! The PostgreSQL backend of the index ([`PostgresDedupIndex`]): several workers of one crawl
//! share it. Tables (top-level `migrations/`, applied on connect): `index_meta` (format,
//! signature settings, the bound of reserved ids), `index_document` (the records, in the encoding of
//! `record.rs`), `index_bucket` (LSH band buckets), `index_posting` (containment postings),
//! `index_digest` (exact-digest keys → first id), `index_block_count` and `index_host`
//! (template learning). Every row names its crawl, so crawls can share a database.
//!
//! A decision is one transaction that first takes transaction-scoped advisory locks: the
//! crawl's, shared, then one per lock key of the document (its digests and LSH buckets,
//! `DecisionAlgorithm::lock_keys`), exclusive for an insert. Two exact or near duplicates
//! share a key, so their checks run one after the other and no two near duplicates checked
//! at the same moment by two processes both come back new; checks of unrelated documents run
//! at the same time. Ids come from blocks reserved before the transaction and a stored
//! original's block counts are added after its commit (see `IdReservations` and
//! `count_blocks`): no row is updated by every decision, so none serialises them.
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

use dedupcrawl_reconnect::Reconnect;
use sqlx::postgres::PgPool;
use sqlx::{Postgres, Transaction};
use xxhash_rust::xxh3::xxh3_64;

use crate::block_counts::COUNT_CAP;
use crate::decision::{DecisionAlgorithm, payload_digest_key, posted_samples, token_digest_key};
use crate::postgres_schema::connect_and_migrate;
use crate::record::{DocumentId, StoredDocument};
use crate::storage::{
    FORMAT_VERSION, IndexStorage, MAX_BUCKET_MEMBERS, MAX_POSTINGS_PER_SAMPLE, signature_settings,
};
use crate::{DedupDecision, DedupIndex, DocumentFingerprint, IndexConfig, IndexError, IndexStats};

/// Connections an index keeps open at most.
const MAX_CONNECTIONS: u32 = 8;

/// Document ids a process reserves at a time (see [`IdReservations`]).
const ID_BLOCK: i64 = 64;

type Tx = Transaction<'static, Postgres>;

/// The dedup index of one crawl in PostgreSQL.
pub struct PostgresDedupIndex {
    pool: PgPool,
    crawl: String,
    config: IndexConfig,
    /// The advisory lock key of this crawl's index.
    lock_key: i64,
    ids: IdReservations,
    reconnect: Reconnect,
    runtime: Option<tokio::runtime::Runtime>,
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

impl Drop for PostgresDedupIndex {
    fn drop(&mut self) {
        // Dropping a runtime blocks; inside an async context that panics, so let it go in the
        // background.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

fn database(action: &'static str) -> impl FnOnce(sqlx::Error) -> IndexError {
    move |source| IndexError::Postgres { action, source }
}

/// Runs `future` on `runtime` and waits for it (from any thread, inside a runtime or not).
fn block_on<T: Send + 'static>(
    runtime: &tokio::runtime::Runtime,
    future: impl Future<Output = T> + Send + 'static,
) -> Result<T, IndexError> {
    let (sender, receiver) = std::sync::mpsc::sync_channel(1);
    runtime.spawn(async move {
        let _ = sender.send(future.await);
    });
    receiver
        .recv()
        .map_err(|_| IndexError::Runtime("a PostgreSQL call panicked".into()))
}

/// How a storage transaction holds the crawl's advisory lock.
#[derive(Clone)]
enum Lock {
    /// Removals: alone in the crawl.
    Exclusive,
    /// Checks: the crawl's lock shared (no removal meanwhile), then the lock of each of the
    /// document's keys (`DecisionAlgorithm::lock_keys`, sorted: no deadlock between two
    /// checks), exclusive for a check that inserts, shared for a lookup. Checks of documents
    /// that cannot see each other run at the same time.
    Keys { exclusive: bool, keys: Vec<i64> },
    /// Single reads.
    None,
}

impl PostgresDedupIndex {
    /// Connects (migrating the schema) to the index of `crawl`, creating it on first use.
    /// Reopening with other signature settings is [`IndexError::ParameterMismatch`].
    pub fn connect(url: &str, crawl: &str, config: IndexConfig) -> Result<Self, IndexError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("index-postgres")
            .enable_all()
            .build()
            .map_err(|e| IndexError::Runtime(format!("cannot start a runtime: {e}")))?;
        let (url_owned, crawl_owned) = (url.to_string(), crawl.to_string());
        let settings = signature_settings(&config);
        let stored = block_on(&runtime, async move {
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
            pool,
            crawl: crawl.to_string(),
            config,
            lock_key: xxh3_64(format!("dedupcrawl-index:{crawl}").as_bytes()) as i64,
            ids: IdReservations::default(),
            reconnect: Reconnect::new("dedup index", dedupcrawl_reconnect::DEFAULT_LIMIT),
            runtime: Some(runtime),
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

    fn runtime(&self) -> Result<&tokio::runtime::Runtime, IndexError> {
        self.runtime
            .as_ref()
            .ok_or_else(|| IndexError::Runtime("the index is closed".into()))
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
        let runtime = self.runtime()?;
        let end: i64 = self.reconnect.retry(|| {
            let (pool, crawl) = (self.pool.clone(), self.crawl.clone());
            block_on(runtime, async move {
                sqlx::query_scalar(
                    "UPDATE index_meta SET next_id = next_id + $2 WHERE crawl = $1 \
                     RETURNING next_id",
                )
                .bind(&crawl)
                .bind(ID_BLOCK)
                .fetch_one(&pool)
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
        let runtime = self.runtime()?;
        let (pool, key) = (self.pool.clone(), self.lock_key);
        let tx = block_on(runtime, async move {
            let mut tx = pool.begin().await?;
            match lock {
                Lock::Exclusive => {
                    sqlx::query("SELECT pg_advisory_xact_lock($1)")
                        .bind(key)
                        .execute(&mut *tx)
                        .await?;
                }
                Lock::Keys { exclusive, keys } => {
                    // UNION ALL runs its branches in order: the crawl's lock first, then the
                    // keys in the array's (sorted) order.
                    let per_key = if exclusive {
                        "pg_advisory_xact_lock"
                    } else {
                        "pg_advisory_xact_lock_shared"
                    };
                    sqlx::query(&format!(
                        "SELECT count(*) FROM (SELECT pg_advisory_xact_lock_shared($1) \
                         UNION ALL SELECT {per_key}(k) FROM unnest($2::bigint[]) AS k) AS locks"
                    ))
                    .bind(key)
                    .bind(&keys)
                    .execute(&mut *tx)
                    .await?;
                }
                Lock::None => {}
            }
            Ok::<_, sqlx::Error>(tx)
        })?
        .map_err(database("begin a transaction"))?;
        let mut storage = PgStorage {
            index: self,
            tx: RefCell::new(Some(tx)),
            reserved_id: std::cell::Cell::new(reserved_id),
            pending_counts: RefCell::new(None),
        };
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
        match block_on(runtime, async move { tx.commit().await })? {
            Ok(()) => {
                // Evidence, not the decision: a failure here must not make the retry loop run
                // a committed decision again (it would find the page as its own duplicate).
                if let Some((host, blocks)) = storage.pending_counts.take()
                    && let Err(error) = self.count_blocks(host, blocks)
                {
                    tracing::warn!(%error, "a page's template block counts were not added");
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

    /// Counts an original's blocks for its host's template, in a transaction of its own after
    /// the decision's commit.
    ///
    /// Why not inside the decision: the host's row and the rows of its template blocks are
    /// updated by every original of the host, and a row updated in a transaction stays locked
    /// to its commit, so every decision of the host waited for the one before (with four
    /// workers, most of the database time: benches/workers). The counts are evidence, not the
    /// decision: a crash between the two commits loses one page's counts, which only makes the
    /// template a page later. Blocks are sorted, so two workers lock rows in the same order.
    fn count_blocks(&self, host: String, blocks: Vec<i64>) -> Result<(), IndexError> {
        let cap = i32::try_from(COUNT_CAP).unwrap_or(i32::MAX);
        let (pool, crawl) = (self.pool.clone(), self.crawl.clone());
        block_on(self.runtime()?, async move {
            sqlx::query(
                "WITH host AS (\
                   INSERT INTO index_host (crawl, host, pages) VALUES ($1, $2, 1) \
                   ON CONFLICT (crawl, host) DO UPDATE \
                   SET pages = least(index_host.pages + 1, $4)) \
                 INSERT INTO index_block_count (crawl, host, fingerprint, pages) \
                 SELECT $1, $2, f, 1 FROM unnest($3::bigint[]) AS f \
                 ON CONFLICT (crawl, host, fingerprint) DO UPDATE \
                 SET pages = least(index_block_count.pages + 1, $4)",
            )
            .bind(&crawl)
            .bind(&host)
            .bind(&blocks)
            .bind(cap)
            .execute(&pool)
            .await
        })?
        .map_err(database("count a page's blocks"))?;
        Ok(())
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
        };
        // Reserved before the transaction: no row lock is taken for it inside.
        let reserved_id = if insert { Some(self.take_id()?) } else { None };
        self.with_storage_and_id(lock, reserved_id, |storage| {
            algorithm.check(storage, doc, insert)
        })
    }
}

/// The crawl's rows as the decision algorithm sees them, inside one transaction.
struct PgStorage<'a> {
    index: &'a PostgresDedupIndex,
    tx: RefCell<Option<Tx>>,
    /// The id an insert of this decision uses ([`IndexStorage::next_id`]).
    reserved_id: std::cell::Cell<Option<i64>>,
    /// The host and blocks of an original this decision stored: counted after the commit.
    pending_counts: RefCell<Option<(String, Vec<i64>)>>,
}

impl Drop for PgStorage<'_> {
    fn drop(&mut self) {
        // A transaction left over (an error) is rolled back on the runtime: a pooled connection
        // must be given back inside it.
        if let (Some(tx), Some(runtime)) = (self.tx.get_mut().take(), &self.index.runtime) {
            runtime.spawn(async move {
                let _ = tx.rollback().await;
            });
        }
    }
}

impl PgStorage<'_> {
    fn take(&self) -> Result<Tx, IndexError> {
        self.tx
            .borrow_mut()
            .take()
            .ok_or_else(|| IndexError::Runtime("a transaction was lost".into()))
    }

    /// Runs one statement group: `body` gets the transaction and the crawl and gives the
    /// transaction back with its result.
    fn call<T, F, Fut>(&self, action: &'static str, body: F) -> Result<T, IndexError>
    where
        T: Send + 'static,
        F: FnOnce(Tx, String) -> Fut,
        Fut: Future<Output = (Result<T, sqlx::Error>, Tx)> + Send + 'static,
    {
        let tx = self.take()?;
        let (result, tx) = block_on(self.index.runtime()?, body(tx, self.index.crawl.clone()))?;
        *self.tx.borrow_mut() = Some(tx);
        result.map_err(database(action))
    }

    /// Deletes a document and takes it out of the buckets, postings and digest maps (block
    /// counts stay, like the embedded backend's: they count pages seen).
    fn remove(&self, document: StoredDocument) -> Result<(), IndexError> {
        let config = self.index.config;
        let band_keys = bucket_rows(&config, &document);
        let samples = posting_values(&document);
        let digests = digest_rows(&document);
        let id = i64::from(document.id);
        self.call("remove a document", move |mut tx, crawl| async move {
            let result = async {
                sqlx::query("DELETE FROM index_document WHERE crawl = $1 AND id = $2")
                    .bind(&crawl)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query(
                    "DELETE FROM index_bucket WHERE crawl = $1 AND id = $2 \
                     AND (band, bucket_key) IN (SELECT * FROM unnest($3::smallint[], $4::bigint[]))",
                )
                .bind(&crawl)
                .bind(id)
                .bind(&band_keys.0)
                .bind(&band_keys.1)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "DELETE FROM index_posting WHERE crawl = $1 AND id = $2 AND sample = ANY($3)",
                )
                .bind(&crawl)
                .bind(id)
                .bind(&samples)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "DELETE FROM index_digest WHERE crawl = $1 AND id = $2 \
                     AND (kind, digest_key) IN \
                     (SELECT * FROM unnest($3::\"char\"[], $4::bigint[]))",
                )
                .bind(&crawl)
                .bind(id)
                .bind(&digests.0)
                .bind(&digests.1)
                .execute(&mut *tx)
                .await?;
                Ok(())
            }
            .await;
            (result, tx)
        })
    }
}

/// A document's LSH buckets as (bands, bucket keys) columns.
fn bucket_rows(config: &IndexConfig, document: &StoredDocument) -> (Vec<i16>, Vec<i64>) {
    let Some(signature) = &document.signature else {
        return (Vec::new(), Vec::new());
    };
    config
        .lsh
        .band_keys(signature)
        .into_iter()
        .enumerate()
        .map(|(band, key)| (band as i16, i64::from(key as u32)))
        .unzip()
}

/// The sampled shingles an original is posted under.
fn posting_values(document: &StoredDocument) -> Vec<i64> {
    match (&document.mod_sample, document.link) {
        (Some(sample), None) => posted_samples(sample)
            .into_iter()
            .map(|v| v as i64)
            .collect(),
        _ => Vec::new(),
    }
}

/// A document's exact-digest keys as (kinds, keys) columns.
fn digest_rows(document: &StoredDocument) -> (Vec<i8>, Vec<i64>) {
    let mut rows = vec![(b'p' as i8, payload_digest_key(&document.payload) as i64)];
    if let Some(tokens) = &document.tokens {
        rows.push((b't' as i8, token_digest_key(tokens) as i64));
    }
    rows.into_iter().unzip()
}

fn document_id(id: i64) -> Result<DocumentId, IndexError> {
    DocumentId::try_from(id).map_err(|_| IndexError::CorruptRecord {
        key: format!("id {id}"),
        reason: "not a 32-bit document id".into(),
    })
}

fn capped_count(count: i32) -> u32 {
    u32::try_from(count).unwrap_or(0).min(COUNT_CAP)
}

impl IndexStorage for PgStorage<'_> {
    fn document(&self, id: DocumentId) -> Result<Option<StoredDocument>, IndexError> {
        let record: Option<Vec<u8>> =
            self.call("read a document", move |mut tx, crawl| async move {
                let result = sqlx::query_scalar(
                    "SELECT record FROM index_document WHERE crawl = $1 AND id = $2",
                )
                .bind(&crawl)
                .bind(i64::from(id))
                .fetch_optional(&mut *tx)
                .await;
                (result, tx)
            })?;
        record
            .map(|bytes| StoredDocument::decode(id, &bytes))
            .transpose()
    }

    fn lsh_candidates(
        &self,
        band_keys: &[u64],
        limit: usize,
    ) -> Result<Vec<DocumentId>, IndexError> {
        let (bands, keys): (Vec<i16>, Vec<i64>) = band_keys
            .iter()
            .enumerate()
            .map(|(band, &key)| (band as i16, i64::from(key as u32)))
            .unzip();
        let rows: Vec<(i64,)> = self.call("read LSH buckets", move |mut tx, crawl| async move {
            let result = sqlx::query_as(
                // A lateral probe per band behind `OFFSET 0` (the subquery is not pulled up
                // into a join): with statistics older than the table's growth, the join form
                // was planned as a hash over the whole crawl (see `block_page_counts`).
                "SELECT x.id FROM unnest($2::smallint[], $3::bigint[]) AS b(band, bucket_key) \
                 CROSS JOIN LATERAL (SELECT i.id FROM index_bucket i WHERE i.crawl = $1 \
                 AND i.band = b.band AND i.bucket_key = b.bucket_key OFFSET 0) AS x \
                 ORDER BY b.band, x.id",
            )
            .bind(&crawl)
            .bind(&bands)
            .bind(&keys)
            .fetch_all(&mut *tx)
            .await;
            (result, tx)
        })?;
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for (id,) in rows {
            let id = document_id(id)?;
            if seen.insert(id) {
                out.push(id);
                if out.len() >= limit {
                    break;
                }
            }
        }
        Ok(out)
    }

    fn posting_members(&self, sample_value: u64) -> Result<Vec<DocumentId>, IndexError> {
        let ids: Vec<i64> = self.call("read postings", move |mut tx, crawl| async move {
            let result = sqlx::query_scalar(
                "SELECT id FROM index_posting WHERE crawl = $1 AND sample = $2 ORDER BY id",
            )
            .bind(&crawl)
            .bind(sample_value as i64)
            .fetch_all(&mut *tx)
            .await;
            (result, tx)
        })?;
        ids.into_iter().map(document_id).collect()
    }

    /// One query for all of them.
    fn documents(&self, ids: &[DocumentId]) -> Result<Vec<Option<StoredDocument>>, IndexError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let wanted: Vec<i64> = ids.iter().map(|&id| i64::from(id)).collect();
        let rows: Vec<(i64, Vec<u8>)> =
            self.call("read documents", move |mut tx, crawl| async move {
                let result = sqlx::query_as(
                    "SELECT x.id, x.record FROM unnest($2::bigint[]) AS w(id) \
                     CROSS JOIN LATERAL (SELECT d.id, d.record FROM index_document d \
                     WHERE d.crawl = $1 AND d.id = w.id OFFSET 0) AS x",
                )
                .bind(&crawl)
                .bind(&wanted)
                .fetch_all(&mut *tx)
                .await;
                (result, tx)
            })?;
        let mut found: std::collections::HashMap<i64, Vec<u8>> = rows.into_iter().collect();
        ids.iter()
            .map(|&id| {
                found
                    .remove(&i64::from(id))
                    .map(|bytes| StoredDocument::decode(id, &bytes))
                    .transpose()
            })
            .collect()
    }

    /// One query for all of them.
    fn postings_of(&self, sample_values: &[u64]) -> Result<Vec<Vec<DocumentId>>, IndexError> {
        if sample_values.is_empty() {
            return Ok(Vec::new());
        }
        let wanted: Vec<i64> = sample_values.iter().map(|&v| v as i64).collect();
        let rows: Vec<(i64, i64)> =
            self.call("read postings", move |mut tx, crawl| async move {
                let result = sqlx::query_as(
                    "SELECT x.sample, x.id FROM unnest($2::bigint[]) AS w(sample) \
                     CROSS JOIN LATERAL (SELECT p.sample, p.id FROM index_posting p \
                     WHERE p.crawl = $1 AND p.sample = w.sample OFFSET 0) AS x \
                     ORDER BY x.sample, x.id",
                )
                .bind(&crawl)
                .bind(&wanted)
                .fetch_all(&mut *tx)
                .await;
                (result, tx)
            })?;
        let mut by_value: std::collections::HashMap<i64, Vec<DocumentId>> =
            std::collections::HashMap::new();
        for (sample, id) in rows {
            by_value.entry(sample).or_default().push(document_id(id)?);
        }
        Ok(sample_values
            .iter()
            .map(|&value| by_value.get(&(value as i64)).cloned().unwrap_or_default())
            .collect())
    }

    fn payload_match(&self, key: u64) -> Result<Option<DocumentId>, IndexError> {
        self.digest_match(b'p', key)
    }

    fn token_match(&self, key: u64) -> Result<Option<DocumentId>, IndexError> {
        self.digest_match(b't', key)
    }

    fn digest_matches(
        &self,
        payload_key: u64,
        token_key: Option<u64>,
    ) -> Result<(Option<DocumentId>, Option<DocumentId>), IndexError> {
        let (payload, tokens): (Option<i64>, Option<i64>) =
            self.call("read exact digests", move |mut tx, crawl| async move {
                let result = sqlx::query_as(
                    "SELECT (SELECT id FROM index_digest \
                             WHERE crawl = $1 AND kind = $2 AND digest_key = $3), \
                            (SELECT id FROM index_digest \
                             WHERE crawl = $1 AND kind = $4 AND digest_key = $5)",
                )
                .bind(&crawl)
                .bind(b'p' as i8)
                .bind(payload_key as i64)
                .bind(b't' as i8)
                .bind(token_key.map(|key| key as i64))
                .fetch_one(&mut *tx)
                .await;
                (result, tx)
            })?;
        Ok((
            payload.map(document_id).transpose()?,
            tokens.map(document_id).transpose()?,
        ))
    }

    fn next_id(&self) -> Result<DocumentId, IndexError> {
        let id = self.reserved_id.take().ok_or_else(|| {
            IndexError::Runtime("a decision asked for a second id, or a lookup for one".into())
        })?;
        DocumentId::try_from(id).map_err(|_| IndexError::Full)
    }

    fn append(&mut self, record: StoredDocument) -> Result<(), IndexError> {
        let bucket = bucket_rows(&self.index.config, &record);
        let samples = posting_values(&record);
        let digests = digest_rows(&record);
        let original = record.link.is_none();
        let blocks: Vec<i64> = if original {
            record.blocks.iter().map(|&b| b as i64).collect()
        } else {
            Vec::new()
        };
        let (id, host, bytes) = (i64::from(record.id), record.host.clone(), record.encode());
        if original {
            *self.pending_counts.borrow_mut() = Some((host, blocks));
        }
        self.call("store a document", move |mut tx, crawl| async move {
            // One statement (data-modifying CTEs): each round trip is held under the
            // decision's locks, which other checks of related documents wait for.
            let result = sqlx::query(&format!(
                "WITH document AS (\
                   INSERT INTO index_document (crawl, id, original, record) \
                   VALUES ($1, $2, $3, $4)), \
                 bucket AS (\
                   INSERT INTO index_bucket (crawl, band, bucket_key, id) \
                   SELECT $1, b.band, b.bucket_key, $2 \
                   FROM unnest($5::smallint[], $6::bigint[]) AS b(band, bucket_key) \
                   WHERE (SELECT count(*) FROM index_bucket m WHERE m.crawl = $1 \
                          AND m.band = b.band AND m.bucket_key = b.bucket_key) \
                         < {MAX_BUCKET_MEMBERS}), \
                 posting AS (\
                   INSERT INTO index_posting (crawl, sample, id) \
                   SELECT $1, s.sample, $2 FROM unnest($7::bigint[]) AS s(sample) \
                   WHERE (SELECT count(*) FROM index_posting m WHERE m.crawl = $1 \
                          AND m.sample = s.sample) < {MAX_POSTINGS_PER_SAMPLE} \
                   ON CONFLICT DO NOTHING) \
                 INSERT INTO index_digest (crawl, kind, digest_key, id) \
                 SELECT $1, d.kind, d.digest_key, $2 \
                 FROM unnest($8::\"char\"[], $9::bigint[]) AS d(kind, digest_key) \
                 ON CONFLICT DO NOTHING"
            ))
            .bind(&crawl)
            .bind(id)
            .bind(original)
            .bind(&bytes)
            .bind(&bucket.0)
            .bind(&bucket.1)
            .bind(&samples)
            .bind(&digests.0)
            .bind(&digests.1)
            .execute(&mut *tx)
            .await
            .map(|_| ());
            (result, tx)
        })
    }

    fn block_page_counts(&self, host: &str, fingerprints: &[u64]) -> Result<Vec<u32>, IndexError> {
        let host = host.to_string();
        let wanted: Vec<i64> = fingerprints.iter().map(|&f| f as i64).collect();
        let rows: Vec<(i64, Option<i32>)> =
            self.call("read block counts", move |mut tx, crawl| async move {
                let result = sqlx::query_as(
                    // One primary-key probe per fingerprint, as a correlated subquery: the
                    // planner cannot turn it into a join. A join on the array (or `= ANY`)
                    // was planned as a hash join over every row of the host whenever the
                    // table's statistics were older than its growth (a crawl fills it faster
                    // than autovacuum analyzes it): 12 ms a call at 100k rows, 93 % of a
                    // PostgreSQL worker's database time (benches/workers).
                    "SELECT f.fingerprint, (SELECT b.pages FROM index_block_count b \
                     WHERE b.crawl = $1 AND b.host = $2 AND b.fingerprint = f.fingerprint) \
                     FROM unnest($3::bigint[]) AS f(fingerprint)",
                )
                .bind(&crawl)
                .bind(&host)
                .bind(&wanted)
                .fetch_all(&mut *tx)
                .await;
                (result, tx)
            })?;
        let counts: std::collections::HashMap<u64, u32> = rows
            .into_iter()
            .filter_map(|(f, pages)| Some((f as u64, capped_count(pages?))))
            .collect();
        Ok(fingerprints
            .iter()
            .map(|f| counts.get(f).copied().unwrap_or(0))
            .collect())
    }

    fn host_page_count(&self, host: &str) -> Result<u32, IndexError> {
        let host = host.to_string();
        let pages: Option<i32> = self.call(
            "read a host's page count",
            move |mut tx, crawl| async move {
                let result = sqlx::query_scalar(
                    "SELECT pages FROM index_host WHERE crawl = $1 AND host = $2",
                )
                .bind(&crawl)
                .bind(&host)
                .fetch_optional(&mut *tx)
                .await;
                (result, tx)
            },
        )?;
        Ok(pages.map_or(0, capped_count))
    }
}

impl PgStorage<'_> {
    fn digest_match(&self, kind: u8, key: u64) -> Result<Option<DocumentId>, IndexError> {
        let id: Option<i64> =
            self.call("read an exact digest", move |mut tx, crawl| async move {
                let result = sqlx::query_scalar(
                "SELECT id FROM index_digest WHERE crawl = $1 AND kind = $2 AND digest_key = $3",
            )
            .bind(&crawl)
            .bind(kind as i8)
            .bind(key as i64)
            .fetch_optional(&mut *tx)
            .await;
                (result, tx)
            })?;
        id.map(document_id).transpose()
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

    fn block_page_counts(&self, host: &str, fingerprints: &[u64]) -> Result<Vec<u32>, IndexError> {
        self.with_storage(Lock::None, |storage| {
            storage.block_page_counts(host, fingerprints)
        })
    }

    fn host_document_count(&self, host: &str) -> Result<u32, IndexError> {
        self.with_storage(Lock::None, |storage| storage.host_page_count(host))
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

    /// Every check-and-insert and removal is committed when it returns: nothing to do.
    fn flush(&self) -> Result<(), IndexError> {
        Ok(())
    }
}
