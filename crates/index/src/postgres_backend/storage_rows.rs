//! The crawl's rows as the decision algorithm sees them ([`PgStorage`], the PostgreSQL
//! [`IndexStorage`]): every read and write of one decision, inside its transaction, and how
//! stored documents map to rows (buckets, postings, digests).

use super::*;

/// The crawl's rows as the decision algorithm sees them, inside one transaction.
pub(super) struct PgStorage<'a> {
    pub(super) index: &'a PostgresDedupIndex,
    pub(super) tx: RefCell<Option<Tx>>,
    /// The id an insert of this decision uses ([`IndexStorage::next_id`]).
    pub(super) reserved_id: std::cell::Cell<Option<i64>>,
    /// The host and blocks of an original this decision stored: counted after the commit.
    pub(super) pending_counts: RefCell<Option<(String, Vec<i64>)>>,
    /// The decision's reads done with its locks, and the records it read.
    pub(super) read_ahead: RefCell<ReadAhead>,
}

impl Drop for PgStorage<'_> {
    fn drop(&mut self) {
        // A transaction left over (an error) is rolled back on the runtime (its connection is
        // kept for the next call if that works, closed otherwise: see `Held`).
        if let Some(tx) = self.tx.get_mut().take() {
            self.index.runtime.spawn(async move {
                let mut tx = tx;
                let _ = tx.rollback_transaction().await;
            });
        }
    }
}

impl PgStorage<'_> {
    pub(super) fn take(&self) -> Result<Tx, IndexError> {
        self.tx
            .borrow_mut()
            .take()
            .ok_or_else(|| IndexError::Runtime("a transaction was lost".into()))
    }

    /// Runs one statement group: `body` gets the transaction and the crawl and gives the
    /// transaction back with its result.
    pub(super) fn call<T, F, Fut>(&self, action: &'static str, body: F) -> Result<T, IndexError>
    where
        T: Send + 'static,
        F: FnOnce(Tx, String) -> Fut,
        Fut: Future<Output = (Result<T, sqlx::Error>, Tx)> + Send + 'static,
    {
        let tx = self.take()?;
        let (result, tx) = self
            .index
            .runtime
            .block_on(body(tx, self.index.crawl.clone()))?;
        *self.tx.borrow_mut() = Some(tx);
        if let Err(error) = &result
            && dedupcrawl_reconnect::is_connection_loss(error)
        {
            // The other kept connections are likely lost too: the retry takes a new one.
            self.index.connections.forget_idle();
        }
        result.map_err(database(action))
    }

    /// Deletes a document and takes it out of the buckets, postings and digest maps (block
    /// counts stay, like the embedded backend's: they count pages seen).
    pub(super) fn remove(&self, document: StoredDocument) -> Result<(), IndexError> {
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
                    "UPDATE index_posting_list SET ids = array_remove(ids, $2) \
                     WHERE crawl = $1 AND sample = ANY($3)",
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

/// Stores a document in one statement (data-modifying CTEs: each round trip is held under the
/// decision's locks, which other checks of related documents wait for): its record ($2 id, $3
/// original, $4 record), bucket rows ($5 bands, $6 bucket keys), postings ($7) and digests ($8
/// kinds, $9 keys). [`STORE_DOCUMENT_COUNTED`] when the buckets given have room (the decision's
/// first reads counted them, the usual case); [`STORE_DOCUMENT_UNCOUNTED`] otherwise, where each
/// is added only while it has fewer members than $11 ([`MAX_BUCKET_MEMBERS`]). A posting is
/// appended to its sample's id list while the list has fewer than $10 ids
/// ([`MAX_POSTINGS_PER_SAMPLE`]; the samples the first reads found full are not given; the
/// others come distinct and sorted, see [`sorted`]).
///
/// Why two statements, not one with a flag (`$flag OR (SELECT count(*) …) < $cap`): PostgreSQL
/// planned that one afresh at every call (0.11 ms a page of server CPU, benches/workers), since
/// a custom plan with the flag known drops the count and so always looked cheaper than the
/// generic plan. Each of these two has one plan, which the server keeps.
macro_rules! store_document {
    ($bucket_filter:literal) => {
        concat!(
            "WITH document AS (\
               INSERT INTO index_document (crawl, id, original, record) VALUES ($1, $2, $3, $4)), \
             bucket AS (\
               INSERT INTO index_bucket (crawl, band, bucket_key, id) \
               SELECT $1, b.band, b.bucket_key, $2 \
               FROM unnest($5::smallint[], $6::bigint[]) AS b(band, bucket_key)",
            $bucket_filter,
            "), \
             posting AS (\
               INSERT INTO index_posting_list AS l (crawl, sample, ids) \
               SELECT $1, s.sample, ARRAY[$2::bigint] FROM unnest($7::bigint[]) AS s(sample) \
               ORDER BY s.sample \
               ON CONFLICT (crawl, sample) DO UPDATE SET ids = l.ids || EXCLUDED.ids \
               WHERE cardinality(l.ids) < $10 AND NOT ($2 = ANY (l.ids))) \
             INSERT INTO index_digest (crawl, kind, digest_key, id) \
             SELECT $1, d.kind, d.digest_key, $2 \
             FROM unnest($8::\"char\"[], $9::bigint[]) AS d(kind, digest_key) ON CONFLICT DO NOTHING"
        )
    };
}

/// [`store_document!`] for buckets known to have room.
const STORE_DOCUMENT_COUNTED: &str = store_document!("");
/// [`store_document!`] counting each bucket's members first.
const STORE_DOCUMENT_UNCOUNTED: &str = store_document!(
    " WHERE (SELECT count(*) FROM index_bucket m WHERE m.crawl = $1 \
     AND m.band = b.band AND m.bucket_key = b.bucket_key) < $11"
);

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

/// The values an original is posted under (its sampled shingles and own blocks).
fn posting_values(document: &StoredDocument) -> Vec<i64> {
    record_posting_values(document)
        .into_iter()
        .map(|v| v as i64)
        .collect()
}

/// Sample values in ascending order, each once: a document's postings are appended to their
/// lists in this order (a removal's `sample = ANY` scan locks them in index order, the same),
/// so two decisions of other workers posting under the same samples wait for each other
/// instead of deadlocking.
fn sorted(mut samples: Vec<i64>) -> Vec<i64> {
    samples.sort_unstable();
    samples.dedup();
    samples
}

/// A document's exact-digest keys as (kinds, keys) columns.
fn digest_rows(document: &StoredDocument) -> (Vec<i8>, Vec<i64>) {
    let mut rows = vec![(b'p' as i8, payload_digest_key(&document.payload) as i64)];
    if let Some(tokens) = &document.tokens {
        rows.push((b't' as i8, token_digest_key(tokens) as i64));
    }
    rows.into_iter().unzip()
}

pub(super) fn document_id(id: i64) -> Result<DocumentId, IndexError> {
    DocumentId::try_from(id).map_err(|_| IndexError::CorruptRecord {
        key: format!("id {id}"),
        reason: "not a 32-bit document id".into(),
    })
}

pub(super) fn capped_count(count: i32) -> u32 {
    u32::try_from(count).unwrap_or(0).min(COUNT_CAP)
}

impl IndexStorage for PgStorage<'_> {
    fn document(&self, id: DocumentId) -> Result<Option<StoredDocument>, IndexError> {
        if let Some(known) = self.read_ahead.borrow().record(id) {
            return Ok(known);
        }
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
        let document = record
            .map(|bytes| StoredDocument::decode(id, &bytes))
            .transpose()?;
        self.read_ahead.borrow_mut().keep(id, document.clone());
        Ok(document)
    }

    /// From the decision's first reads when they hold the buckets, else read.
    fn lsh_candidates(
        &self,
        band_keys: &[u64],
        limit: usize,
    ) -> Result<Vec<DocumentId>, IndexError> {
        if let Some(known) = self.read_ahead.borrow().candidates(band_keys, limit) {
            return Ok(known);
        }
        Ok(crate::storage::distinct_members(
            self.bucket_members(band_keys)?,
            limit,
        ))
    }

    fn bucket_members(&self, band_keys: &[u64]) -> Result<Vec<Vec<DocumentId>>, IndexError> {
        let (bands, keys): (Vec<i16>, Vec<i64>) = band_keys
            .iter()
            .enumerate()
            .map(|(band, &key)| (band as i16, i64::from(key as u32)))
            .unzip();
        let rows: Vec<(i16, i64)> = self.call("read LSH buckets", move |mut tx, crawl| async move {
            let result = sqlx::query_as(
                // A lateral probe per band behind `OFFSET 0` (the subquery is not pulled up
                // into a join): with statistics older than the table's growth, the join form
                // was planned as a hash over the whole crawl (see `block_page_counts`).
                "SELECT b.band, x.id FROM unnest($2::smallint[], $3::bigint[]) AS b(band, bucket_key) \
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
        let mut members = vec![Vec::new(); band_keys.len()];
        for (band, id) in rows {
            if let Some(bucket) = members.get_mut(band as usize) {
                bucket.push(document_id(id)?);
            }
        }
        Ok(members)
    }

    fn posting_members(&self, sample_value: u64) -> Result<Vec<DocumentId>, IndexError> {
        let ids: Vec<i64> = self.call("read postings", move |mut tx, crawl| async move {
            let result = sqlx::query_scalar(
                "SELECT x.id FROM index_posting_list l CROSS JOIN LATERAL unnest(l.ids) AS x(id) \
                 WHERE l.crawl = $1 AND l.sample = $2 ORDER BY x.id",
            )
            .bind(&crawl)
            .bind(sample_value as i64)
            .fetch_all(&mut *tx)
            .await;
            (result, tx)
        })?;
        ids.into_iter().map(document_id).collect()
    }

    /// From the records read so far, and one query for the others.
    fn documents(&self, ids: &[DocumentId]) -> Result<Vec<Option<StoredDocument>>, IndexError> {
        let wanted: Vec<i64> = {
            let read_ahead = self.read_ahead.borrow();
            ids.iter()
                .filter(|&&id| read_ahead.record(id).is_none())
                .map(|&id| i64::from(id))
                .collect()
        };
        if !wanted.is_empty() {
            let asked = wanted.clone();
            let rows: Vec<(i64, Vec<u8>)> =
                self.call("read documents", move |mut tx, crawl| async move {
                    let result = sqlx::query_as(
                        "SELECT x.id, x.record FROM unnest($2::bigint[]) AS w(id) \
                         CROSS JOIN LATERAL (SELECT d.id, d.record FROM index_document d \
                         WHERE d.crawl = $1 AND d.id = w.id OFFSET 0) AS x",
                    )
                    .bind(&crawl)
                    .bind(&asked)
                    .fetch_all(&mut *tx)
                    .await;
                    (result, tx)
                })?;
            let mut found: std::collections::HashMap<i64, Vec<u8>> = rows.into_iter().collect();
            let mut read_ahead = self.read_ahead.borrow_mut();
            for id in wanted {
                let id = document_id(id)?;
                let document = found
                    .remove(&i64::from(id))
                    .map(|bytes| StoredDocument::decode(id, &bytes))
                    .transpose()?;
                read_ahead.keep(id, document);
            }
        }
        let read_ahead = self.read_ahead.borrow();
        Ok(ids
            .iter()
            .map(|&id| read_ahead.record(id).flatten())
            .collect())
    }

    /// Ranked where the postings are (one row a candidate, not hundreds of postings) when the
    /// read-ahead did not rank them (`read_ahead::rank_posted`).
    fn most_posted(
        &self,
        sample_values: &[u64],
        limit: usize,
    ) -> Result<Vec<DocumentId>, IndexError> {
        if sample_values.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(known) = self.read_ahead.borrow().most_posted(sample_values, limit) {
            return Ok(known);
        }
        let wanted: Vec<i64> = sample_values.iter().map(|&v| v as i64).collect();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let ids: Vec<i64> = self.call("rank postings", move |mut tx, crawl| async move {
            let result = sqlx::query_scalar(
                "SELECT x.id FROM unnest($2::bigint[]) AS w(sample) \
                 CROSS JOIN LATERAL (SELECT l.ids FROM index_posting_list l \
                 WHERE l.crawl = $1 AND l.sample = w.sample OFFSET 0) AS l \
                 CROSS JOIN LATERAL unnest(l.ids) AS x(id) \
                 GROUP BY x.id ORDER BY count(*) DESC, x.id LIMIT $3",
            )
            .bind(&crawl)
            .bind(&wanted)
            .bind(limit)
            .fetch_all(&mut *tx)
            .await;
            (result, tx)
        })?;
        ids.into_iter().map(document_id).collect()
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
        if let Some(known) = self.read_ahead.borrow().digests(payload_key, token_key) {
            return Ok(known);
        }
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
        let mut bucket = bucket_rows(&self.index.config, &record);
        let mut samples = posting_values(&record);
        let digests = digest_rows(&record);
        let original = record.link.is_none();
        let blocks: Vec<i64> = if original {
            record.blocks.iter().map(|&b| b as i64).collect()
        } else {
            Vec::new()
        };
        // Full buckets and postings as the decision's first reads found them: then they are
        // not counted again, under the locks.
        let band_keys: Vec<u64> = record
            .signature
            .as_ref()
            .map(|s| self.index.config.lsh.band_keys(s))
            .unwrap_or_default();
        let posted: Vec<u64> = samples.iter().map(|&v| v as u64).collect();
        let full = {
            let read_ahead = self.read_ahead.borrow();
            read_ahead
                .full_buckets(&band_keys)
                .zip(read_ahead.full_postings(&posted))
        };
        let counted = match full {
            Some((full_buckets, full_postings)) => {
                let mut band = full_buckets.iter();
                bucket.0.retain(|_| band.next() == Some(&false));
                let mut band = full_buckets.iter();
                bucket.1.retain(|_| band.next() == Some(&false));
                let mut value = full_postings.iter();
                samples.retain(|_| value.next() == Some(&false));
                true
            }
            None => false,
        };
        let samples = sorted(samples);
        let (id, host, bytes) = (i64::from(record.id), record.host.clone(), record.encode());
        if original {
            *self.pending_counts.borrow_mut() = Some((host, blocks));
        }
        self.call("store a document", move |mut tx, crawl| async move {
            let statement = if counted {
                STORE_DOCUMENT_COUNTED
            } else {
                STORE_DOCUMENT_UNCOUNTED
            };
            let query = sqlx::query(statement)
                .bind(&crawl)
                .bind(id)
                .bind(original)
                .bind(&bytes)
                .bind(&bucket.0)
                .bind(&bucket.1)
                .bind(&samples)
                .bind(&digests.0)
                .bind(&digests.1)
                .bind(MAX_POSTINGS_PER_SAMPLE as i64);
            let query = if counted {
                query
            } else {
                query.bind(MAX_BUCKET_MEMBERS as i64)
            };
            let result = query.execute(&mut *tx).await.map(|_| ());
            (result, tx)
        })
    }

    /// The rows' counts plus the ones this handle keeps to write behind (as
    /// [`DedupIndex::block_page_counts`] reads them): a decision sees every original of the
    /// host that this worker stored before it.
    fn block_page_counts(&self, host: &str, fingerprints: &[u64]) -> Result<Vec<u32>, IndexError> {
        let (owned_host, wanted) = (host.to_string(), fingerprint_keys(fingerprints));
        let rows = self.call("read block counts", move |mut tx, crawl| async move {
            let result = read_block_counts(&mut *tx, &crawl, &owned_host, &wanted).await;
            (result, tx)
        })?;
        let mut counts = block_counts_in_order(fingerprints, rows);
        let pending = self.index.lock_pending_counts();
        for (count, &fingerprint) in counts.iter_mut().zip(fingerprints) {
            let kept = pending.block_pages(host, fingerprint as i64);
            *count = count.saturating_add(kept).min(COUNT_CAP);
        }
        Ok(counts)
    }

    /// The row's count plus the originals this handle keeps to write behind.
    fn host_page_count(&self, host: &str) -> Result<u32, IndexError> {
        let owned_host = host.to_string();
        let pages = self.call(
            "read a host's page count",
            move |mut tx, crawl| async move {
                let result = read_host_pages(&mut *tx, &crawl, &owned_host).await;
                (result, tx)
            },
        )?;
        let kept = self.index.lock_pending_counts().host_pages(host);
        Ok(pages
            .map_or(0, capped_count)
            .saturating_add(kept)
            .min(COUNT_CAP))
    }
}

pub(super) fn fingerprint_keys(fingerprints: &[u64]) -> Vec<i64> {
    fingerprints.iter().map(|&f| f as i64).collect()
}

/// (fingerprint, count) rows of `host`'s block counts for `wanted`.
pub(super) async fn read_block_counts<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    crawl: &str,
    host: &str,
    wanted: &[i64],
) -> Result<Vec<(i64, Option<i32>)>, sqlx::Error> {
    sqlx::query_as(
        // One primary-key probe per fingerprint, as a correlated subquery: the planner cannot
        // turn it into a join. A join on the array (or `= ANY`) was planned as a hash join over
        // every row of the host whenever the table's statistics were older than its growth (a
        // crawl fills it faster than autovacuum analyzes it): 12 ms a call at 100k rows, 93 %
        // of a PostgreSQL worker's database time (benches/workers).
        "SELECT f.fingerprint, (SELECT b.pages FROM index_block_count b \
         WHERE b.crawl = $1 AND b.host = $2 AND b.fingerprint = f.fingerprint) \
         FROM unnest($3::bigint[]) AS f(fingerprint)",
    )
    .bind(crawl)
    .bind(host)
    .bind(wanted)
    .fetch_all(executor)
    .await
}

/// [`read_block_counts`] and [`read_host_pages`] in one statement.
pub(super) async fn read_block_and_host_counts(
    connection: &mut sqlx::PgConnection,
    crawl: &str,
    host: &str,
    wanted: &[i64],
) -> Result<(Vec<(i64, Option<i32>)>, Option<i32>), sqlx::Error> {
    let rows: Vec<(Option<i64>, Option<i32>)> = sqlx::query_as(
        // As in `read_block_counts`, plus a last row without a fingerprint: the host's count.
        "SELECT f.fingerprint, (SELECT b.pages FROM index_block_count b \
         WHERE b.crawl = $1 AND b.host = $2 AND b.fingerprint = f.fingerprint) \
         FROM unnest($3::bigint[]) AS f(fingerprint) \
         UNION ALL SELECT NULL, (SELECT h.pages FROM index_host h \
         WHERE h.crawl = $1 AND h.host = $2)",
    )
    .bind(crawl)
    .bind(host)
    .bind(wanted)
    .fetch_all(connection)
    .await?;
    let mut host_pages = None;
    let mut counts = Vec::with_capacity(rows.len());
    for (fingerprint, pages) in rows {
        match fingerprint {
            Some(fingerprint) => counts.push((fingerprint, pages)),
            None => host_pages = pages,
        }
    }
    Ok((counts, host_pages))
}

/// The counts of [`read_block_counts`] in the order of `fingerprints` (0 for none).
pub(super) fn block_counts_in_order(
    fingerprints: &[u64],
    rows: Vec<(i64, Option<i32>)>,
) -> Vec<u32> {
    let counts: std::collections::HashMap<u64, u32> = rows
        .into_iter()
        .filter_map(|(f, pages)| Some((f as u64, capped_count(pages?))))
        .collect();
    fingerprints
        .iter()
        .map(|f| counts.get(f).copied().unwrap_or(0))
        .collect()
}

/// How many originals of `host` are counted.
pub(super) async fn read_host_pages<'c>(
    executor: impl sqlx::PgExecutor<'c>,
    crawl: &str,
    host: &str,
) -> Result<Option<i32>, sqlx::Error> {
    sqlx::query_scalar("SELECT pages FROM index_host WHERE crawl = $1 AND host = $2")
        .bind(crawl)
        .bind(host)
        .fetch_optional(executor)
        .await
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
