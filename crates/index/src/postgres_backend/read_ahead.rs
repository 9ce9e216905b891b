//! The first reads of a decision in the round trip that takes its locks (the server-side
//! function `index_decision_reads`, migrations/20261126100100_index_decision_reads.sql and
//! 20261129070000_index_decision_reads_posting_lists.sql): exact digests, LSH candidates with
//! their records, and the posting lists of the containment probes, from which the containment
//! candidates are ranked here ([`rank_posted`]; their records come with the algorithm's next
//! read). [`PgStorage`](super::PgStorage) answers the algorithm's calls from them when it asks
//! for exactly what was read ahead, and asks the database otherwise: what was read ahead is a
//! cache of one decision's reads, never a second source of truth (the algorithm may change
//! what it reads; it then only costs round trips).
//!
//! Why: each read was a round trip under the decision's locks, which the decisions of related
//! documents wait for, and each costs the worker and the server a statement
//! (benches/workers: four to six reads a decision).

use std::collections::HashMap;

use crate::block_postings::containment_probes;
use crate::decision::{MAX_CANDIDATES, payload_digest_key, token_digest_key};
use crate::record::{DocumentId, SAMPLE_BITS, SIGNATURE_BITS, StoredDocument};
use crate::sample_postings::containment_candidates;
use crate::storage::{MAX_BUCKET_MEMBERS, MAX_POSTINGS_PER_SAMPLE};
use crate::{DocumentFingerprint, IndexConfig, IndexError};

use super::storage_rows::document_id;

/// What a check of a document reads first.
#[derive(Clone, Debug)]
pub(super) struct FirstReads {
    payload_key: u64,
    token_key: Option<u64>,
    band_keys: Vec<u64>,
    /// The containment probes: posted samples and own blocks (empty without a sample).
    samples: Vec<u64>,
    /// Whether the algorithm may look for containment (the page has a sample).
    rank: bool,
    /// Documents it checks for containment ([`containment_candidates`]).
    candidates: usize,
}

impl FirstReads {
    /// The keys the algorithm looks up first for `doc`, as it computes them.
    pub(super) fn of(config: &IndexConfig, doc: &DocumentFingerprint) -> FirstReads {
        let band_keys = doc
            .signature
            .as_ref()
            .map(|s| config.lsh.band_keys(&s.low_bits(SIGNATURE_BITS)))
            .unwrap_or_default();
        let sample = doc.mod_sample.as_ref().map(|s| s.low_bits(SAMPLE_BITS));
        let probes = sample
            .as_ref()
            .map(|sample| containment_probes(doc, sample));
        FirstReads {
            payload_key: payload_digest_key(&doc.payload),
            token_key: doc.tokens.as_ref().map(token_digest_key),
            band_keys,
            candidates: probes
                .as_ref()
                .map_or(containment_candidates(0), |p| p.candidates),
            samples: probes.map(|p| p.values).unwrap_or_default(),
            rank: sample.is_some(),
        }
    }
}

/// One decision's reads done ahead, and every record it read.
#[derive(Default)]
pub(super) struct ReadAhead {
    digests: Option<DigestsRead>,
    candidates: Option<(Vec<u64>, Vec<DocumentId>)>,
    most_posted: Option<(Vec<u64>, usize, Vec<DocumentId>)>,
    /// Per band of these band keys: whether its bucket is full.
    full_buckets: Option<(Vec<u64>, Vec<bool>)>,
    /// Per value of these samples: whether its postings are full.
    full_postings: Option<(Vec<u64>, Vec<bool>)>,
    /// Records read so far (`None`: no such document).
    records: HashMap<DocumentId, Option<StoredDocument>>,
}

struct DigestsRead {
    keys: (u64, Option<u64>),
    found: (Option<DocumentId>, Option<DocumentId>),
}

/// One row of `index_decision_reads`: kind, key, id, record, a posting list's ids.
type Row = (i8, i64, i64, Option<Vec<u8>>, Option<Vec<i64>>);

impl ReadAhead {
    /// Takes the locks of the decision and reads `reads` ahead, in the transaction.
    pub(super) async fn lock_and_read(
        tx: &mut super::Tx,
        crawl: &str,
        crawl_key: i64,
        keys: &[i64],
        exclusive: bool,
        reads: &FirstReads,
    ) -> Result<Vec<Row>, sqlx::Error> {
        let (bands, bucket_keys): (Vec<i16>, Vec<i64>) = reads
            .band_keys
            .iter()
            .enumerate()
            .map(|(band, &key)| (band as i16, i64::from(key as u32)))
            .unzip();
        let samples: Vec<i64> = reads.samples.iter().map(|&v| v as i64).collect();
        sqlx::query_as(
            "SELECT * FROM index_decision_reads($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, \
             $12, $13)",
        )
        .bind(crawl)
        .bind(crawl_key)
        .bind(keys)
        .bind(exclusive)
        .bind(reads.payload_key as i64)
        .bind(reads.token_key.map(|key| key as i64))
        .bind(&bands)
        .bind(&bucket_keys)
        .bind(MAX_CANDIDATES as i32)
        .bind(MAX_BUCKET_MEMBERS as i32)
        .bind(&samples)
        .bind(if reads.rank {
            reads.candidates as i32
        } else {
            0
        })
        .bind(MAX_POSTINGS_PER_SAMPLE as i32)
        .fetch_all(&mut **tx)
        .await
    }

    /// What the rows of [`lock_and_read`](Self::lock_and_read) for `reads` say.
    pub(super) fn from_rows(reads: &FirstReads, rows: Vec<Row>) -> Result<ReadAhead, IndexError> {
        let mut ahead = ReadAhead::default();
        let (mut payload, mut tokens) = (None, None);
        let mut candidates: Vec<(i64, DocumentId)> = Vec::new();
        let mut posting_lists: Vec<Vec<i64>> = Vec::new();
        let mut full_bands = vec![false; reads.band_keys.len()];
        let mut full_samples: Vec<u64> = Vec::new();
        for (kind, key, id, record, ids) in rows {
            let id = document_id(id)?;
            match kind as u8 {
                b'p' => payload = Some(id),
                b't' => tokens = Some(id),
                b'b' => candidates.push((key, id)),
                b'l' => {
                    let ids = ids.unwrap_or_default();
                    if ids.len() >= MAX_POSTINGS_PER_SAMPLE {
                        full_samples.push(key as u64);
                    }
                    posting_lists.push(ids);
                    continue;
                }
                b'B' => {
                    if let Some(full) = usize::try_from(key)
                        .ok()
                        .and_then(|b| full_bands.get_mut(b))
                    {
                        *full = true;
                    }
                    continue;
                }
                b'S' => {
                    full_samples.push(key as u64);
                    continue;
                }
                _ => continue,
            }
            ahead.remember(id, record.as_deref())?;
        }
        ahead.full_buckets = Some((reads.band_keys.clone(), full_bands));
        ahead.full_postings = Some((
            reads.samples.clone(),
            reads
                .samples
                .iter()
                .map(|value| full_samples.contains(value))
                .collect(),
        ));
        ahead.digests = Some(DigestsRead {
            keys: (reads.payload_key, reads.token_key),
            found: (payload, tokens),
        });
        candidates.sort_unstable();
        ahead.candidates = Some((
            reads.band_keys.clone(),
            candidates.into_iter().map(|(_, id)| id).collect(),
        ));
        if reads.rank {
            let most_posted = rank_posted(&posting_lists, reads.candidates)
                .into_iter()
                .map(document_id)
                .collect::<Result<Vec<_>, _>>()?;
            ahead.most_posted = Some((reads.samples.clone(), reads.candidates, most_posted));
        }
        Ok(ahead)
    }

    fn remember(&mut self, id: DocumentId, record: Option<&[u8]>) -> Result<(), IndexError> {
        if let std::collections::hash_map::Entry::Vacant(entry) = self.records.entry(id) {
            let document = record
                .map(|bytes| StoredDocument::decode(id, bytes))
                .transpose()?;
            entry.insert(document);
        }
        Ok(())
    }

    /// Keeps a record read by a later query.
    pub(super) fn keep(&mut self, id: DocumentId, document: Option<StoredDocument>) {
        self.records.insert(id, document);
    }

    pub(super) fn record(&self, id: DocumentId) -> Option<Option<StoredDocument>> {
        self.records.get(&id).cloned()
    }

    pub(super) fn digests(
        &self,
        payload_key: u64,
        token_key: Option<u64>,
    ) -> Option<(Option<DocumentId>, Option<DocumentId>)> {
        self.digests
            .as_ref()
            .filter(|read| read.keys == (payload_key, token_key))
            .map(|read| read.found)
    }

    pub(super) fn candidates(&self, band_keys: &[u64], limit: usize) -> Option<Vec<DocumentId>> {
        let (keys, ids) = self.candidates.as_ref()?;
        (keys == band_keys && limit == MAX_CANDIDATES).then(|| ids.clone())
    }

    /// Per band key: whether its bucket was full when read (exact under the decision's
    /// exclusive locks, which cover its buckets).
    pub(super) fn full_buckets(&self, band_keys: &[u64]) -> Option<Vec<bool>> {
        let (keys, full) = self.full_buckets.as_ref()?;
        (keys == band_keys).then(|| full.clone())
    }

    /// Per sample value: whether its postings were full when read (samples are no lock keys:
    /// a decision at the same moment may add one, as it could between a count and an insert
    /// in one statement).
    pub(super) fn full_postings(&self, samples: &[u64]) -> Option<Vec<bool>> {
        if samples.is_empty() {
            return Some(Vec::new());
        }
        let (keys, full) = self.full_postings.as_ref()?;
        (keys == samples).then(|| full.clone())
    }

    pub(super) fn most_posted(&self, samples: &[u64], limit: usize) -> Option<Vec<DocumentId>> {
        let (keys, read_limit, ids) = self.most_posted.as_ref()?;
        (keys == samples && limit == *read_limit).then(|| ids.clone())
    }
}

/// The `limit` ids in the most of `lists` (ties: the smaller id first): the containment
/// candidates, ranked as `PgStorage::most_posted`'s query ranks them in the server
/// (`GROUP BY id ORDER BY count(*) DESC, id LIMIT n`).
pub(super) fn rank_posted(lists: &[Vec<i64>], limit: usize) -> Vec<i64> {
    let mut counts: HashMap<i64, u32> = HashMap::new();
    for &id in lists.iter().flatten() {
        *counts.entry(id).or_default() += 1;
    }
    let mut ranked: Vec<(u32, i64)> = counts.into_iter().map(|(id, n)| (n, id)).collect();
    let by_rank = |a: &(u32, i64), b: &(u32, i64)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
    if ranked.len() > limit && limit > 0 {
        ranked.select_nth_unstable_by(limit - 1, by_rank);
    }
    ranked.truncate(limit);
    ranked.sort_unstable_by(by_rank);
    ranked.into_iter().map(|(_, id)| id).collect()
}

#[cfg(test)]
mod tests {
    use super::rank_posted;

    #[test]
    fn candidates_are_ranked_by_lists_then_by_the_smaller_id() {
        let lists = vec![vec![1, 2, 3, 9], vec![2, 3, 9], vec![3, 5], vec![9, 7]];
        // 3 and 9 are in three lists (3 first: smaller), 2 in two, then 1, 5, 7 in one.
        assert_eq!(rank_posted(&lists, 4), vec![3, 9, 2, 1]);
        assert_eq!(rank_posted(&lists, 10), vec![3, 9, 2, 1, 5, 7]);
        assert_eq!(rank_posted(&lists, 0), Vec::<i64>::new());
        // A list given twice (its sample probed twice) counts twice, as the server's join did.
        let twice = vec![vec![4, 8], vec![4, 8], vec![1, 8]];
        assert_eq!(rank_posted(&twice, 2), vec![8, 4]);
    }
}
