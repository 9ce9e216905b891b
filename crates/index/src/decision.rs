//! The dedup decision, written once over [`IndexStorage`]: exact → near → containment. A
//! backend supplies storage only (and makes one call of [`DecisionAlgorithm::check`] atomic: a
//! mutex, a transaction); every backend then decides alike, bit for bit.
//!
//! Each mechanism finds its candidates with a sketch and decides on the exact figure of the
//! compared shingle sets, which every record keeps ([`crate::compared_shingle_set`]):
//!
//! 1. [`Mechanism::ExactPayload`], [`Mechanism::ExactText`]: digest lookups.
//! 2. [`Mechanism::NearLsh`]: the originals sharing an LSH bucket with the page; the most
//!    resembling one at or above the threshold.
//! 3. [`Mechanism::Containment`]: the originals posted under the most of the page's MOD_m
//!    sample values and own blocks; the one holding the largest share of the page, at or
//!    above the containment threshold. Originals the page holds that much of are listed in
//!    its `contains`.
//!
//! A duplicate always names an original (a page the crawl archived), never another
//! duplicate. Every decision carries its [`Reason`], built here from the figures it was
//! decided on.

use dedupcrawl_sketch::{MinHashSignature, ModSample};

use crate::across_hosts::{BlockShares, REPRINT_DRIFT, block_shares, has_blocks_of_its_own};
use crate::block_postings::{containment_probes, own_blocks_of};
use crate::candidates::near_candidates;
use crate::explanation::MAX_VETOED_SHOWN;
use crate::own_content::{OWN_CONTENT_RUN, longest_missing_run};
use crate::record::{
    DocumentId, DocumentLink, MAX_RECORD_BLOCKS, SAMPLE_BITS, SIGNATURE_BITS, StoredDocument,
};
use crate::storage::IndexStorage;
use crate::{
    Closest, DedupDecision, DocumentFingerprint, DocumentRef, ExactBasis, IndexConfig, IndexError,
    Mechanism, Reason, ShingleCounts, Vetoed, shingle_counts,
};

/// Candidates verified per document at most (a bucket this crowded is one big cluster).
pub(crate) const MAX_CANDIDATES: usize = 256;

/// How a decision names a stored document.
fn document_ref(document: &StoredDocument) -> DocumentRef {
    DocumentRef {
        id: document.id,
        cluster: document.link.map_or(document.id, |link| link.to),
        name: document.name.clone(),
    }
}

/// The exact-digest map keys: 64 bits of each digest.
pub(crate) fn payload_digest_key(payload: &dedupcrawl_sketch::PayloadDigest) -> u64 {
    let mut first = [0u8; 8];
    first.copy_from_slice(&payload.0[..8]);
    u64::from_le_bytes(first)
}

pub(crate) fn token_digest_key(tokens: &dedupcrawl_sketch::TokenDigest) -> u64 {
    tokens.0 as u64
}

/// A lock key from a kind of lookup and its value (see [`DecisionAlgorithm::lock_keys`]):
/// splitmix64 of both, so the kinds do not collide on purpose.
fn lock_key(kind: u64, value: u64) -> u64 {
    let mut z = value ^ kind.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The exact counts of a page's verification set against a record's, `None` when one of
/// them kept none (no shingles, or too many to keep).
fn verified_counts(doc: &DocumentFingerprint, theirs: &[u32]) -> Option<ShingleCounts> {
    (!doc.shingles.is_empty() && !theirs.is_empty()).then(|| shingle_counts(&doc.shingles, theirs))
}

/// A record whose uncut figures with a page are all under this (resemblance, containment
/// either way) is not compared without its host's template: leaving template out of it could
/// not bring it near the thresholds, and each such comparison reads the host's block counts.
const RECUT_FROM: f64 = 0.5;

/// A record cut down to fewer shingles than this many times w (about that many tokens) is
/// compared whole: the pipeline compares all of a page's main content when its template
/// leaves fewer than four shingles' worth (`MIN_MAIN_CONTENT_SHINGLES`), and a record is
/// held to the same rule.
const MIN_RECUT_SHINGLES: usize = 4;

/// A record's verification set as a decision uses it, and how many of its compared blocks
/// were left out as its host's template.
struct RecordSet {
    shingles: Vec<u32>,
    blocks_left_out: u32,
    /// The page's verification set against `shingles` ([`verified_counts`]).
    counts: Option<ShingleCounts>,
}

/// A candidate whose sketch estimates (MinHash; MOD_m both ways where both samples have
/// [`ESTIMATE_MIN_VALUES`] values at their common modulus) are all under this is not
/// verified: leaving the host's template out of the record could not bring it to
/// [`RECUT_FROM`], let alone to a threshold. 0.15 under it is four standard errors of a
/// 128-value MinHash estimate at 0.5 and three of a 16-value sample's.
const VERIFY_FROM: f64 = RECUT_FROM - 0.15;

/// Tokens of prose (compared blocks that are not link lists) a page needs to be
/// `contained` in another: fewer say that it lists what a larger listing lists (a letter of
/// an index, a section's table of contents under a heading its host's navigation repeats) or
/// shares a heading with it, not that it is a part of it. A part of a story or a manual
/// holds sentences: the 12 tokens (about 25 words) from which a page has content of its own.
pub const MIN_PART_TOKENS: u32 = crate::own_content::OWN_CONTENT_TOKENS;

/// Sample values both pages need at their common modulus for the MOD_m estimate to rule a
/// candidate out (fewer say too little: a short part beside a long page).
const ESTIMATE_MIN_VALUES: usize = 16;

/// The own-content veto ([`crate::own_content`]) of `doc` against a candidate whose figure
/// reached its threshold: `Err(run)` when the page has a run of its own the candidate lacks,
/// else the run measured (`None` for a page of another host, or sets too large to keep).
fn own_content(
    doc: &DocumentFingerprint,
    stored: &StoredDocument,
    theirs: &[u32],
) -> Result<Option<u32>, u32> {
    if doc.host != stored.host || doc.own_shingles.is_empty() || theirs.is_empty() {
        return Ok(None);
    }
    let run = doc
        .own_shingles
        .iter()
        .map(|run| longest_missing_run(run, theirs))
        .max()
        .unwrap_or(0);
    if run >= OWN_CONTENT_RUN {
        Err(run)
    } else {
        Ok(Some(run))
    }
}

/// A record that holds `doc` at the containment threshold (`figure`, and the sketch's
/// `estimate` of it): the page's original in `found` when it is a part (its prose, the
/// own-content veto) and the record holds more of it than any before.
fn held_inside(
    doc: &DocumentFingerprint,
    stored: &StoredDocument,
    set: &RecordSet,
    (figure, estimate): (f64, Option<f64>),
    found: &mut ContainmentFound,
    compared: &mut Compared,
) {
    if doc.prose_tokens < MIN_PART_TOKENS {
        compared.no_part = Some(doc.prose_tokens);
        return;
    }
    if found
        .inside
        .as_ref()
        .is_some_and(|best| figure <= best.figure)
    {
        return;
    }
    match own_content(doc, stored, &set.shingles) {
        Err(run) => compared.veto(&stored.name, figure, run),
        Ok(own_content_run) => {
            found.inside = Some(Match {
                document: document_ref(stored),
                own_content_run,
                blocks_left_out: set.blocks_left_out,
                estimate,
                counts: set.counts,
                figure,
            });
        }
    }
}

/// One candidate a mechanism compared, with what it found.
#[derive(Debug, Clone)]
struct Match {
    document: DocumentRef,
    /// The own-content veto's run, when it was checked and passed.
    own_content_run: Option<u32>,
    /// Blocks of the original's record left out as its host's template now.
    blocks_left_out: u32,
    /// The sketch's estimate of the figure.
    estimate: Option<f64>,
    /// The exact counts, when both sets were kept.
    counts: Option<ShingleCounts>,
    /// The figure decided on: the exact one, else the estimate.
    figure: f64,
}

/// What the mechanisms compared on the way, for the reason of any decision.
#[derive(Default)]
struct Compared {
    candidates: u32,
    /// The closest page by resemblance: name, resemblance, containment of the page in it.
    closest: Option<Closest>,
    /// Candidates the own-content veto turned down.
    vetoed: Vec<Vetoed>,
    /// The page's prose tokens, when a candidate held it at the containment threshold but
    /// it has too little prose to be a part ([`MIN_PART_TOKENS`]).
    no_part: Option<u32>,
}

impl Compared {
    fn veto(&mut self, name: &str, figure: f64, own_content_run: u32) {
        if self.vetoed.len() < MAX_VETOED_SHOWN {
            self.vetoed.push(Vetoed {
                name: name.to_string(),
                figure,
                own_content_run,
            });
        }
    }

    fn saw(&mut self, name: &str, resemblance: f64, containment: f64) {
        self.candidates += 1;
        if self
            .closest
            .as_ref()
            .is_none_or(|c| (resemblance, containment) > (c.resemblance, c.containment))
        {
            self.closest = Some(Closest {
                name: name.to_string(),
                resemblance,
                containment,
            });
        }
    }
}

/// What the containment mechanism found.
#[derive(Default)]
struct ContainmentFound {
    /// The page this one is inside, most of it.
    inside: Option<Match>,
    /// Pages inside this one, most contained first.
    around: Vec<(DocumentRef, f64)>,
    /// An original of another host that this page reprints: wholly inside it, and resembling
    /// it within [`REPRINT_DRIFT`] of the threshold (the one resembling it most).
    reprint: Option<Match>,
    /// An original of another host whose substantial blocks and this page's are each other's
    /// at the threshold or more ([`block_shares`]), the one with the largest smaller share.
    by_blocks: Option<(Match, BlockShares)>,
}

/// The decision algorithm under one index's settings.
pub(crate) struct DecisionAlgorithm<'a> {
    pub(crate) config: &'a IndexConfig,
}

impl DecisionAlgorithm<'_> {
    /// The same payload, or the same normalized text, as an indexed document.
    fn find_exact<S: IndexStorage + ?Sized>(
        &self,
        state: &S,
        doc: &DocumentFingerprint,
    ) -> Result<Option<DedupDecision>, IndexError> {
        let (payload_match, token_match) = state.digest_matches(
            payload_digest_key(&doc.payload),
            doc.tokens.as_ref().map(token_digest_key),
        )?;
        let mut found = None;
        if let Some(id) = payload_match
            && let Some(stored) = state.document(id)?
            && stored.payload == doc.payload
        {
            found = Some((stored, ExactBasis::Payload));
        }
        if found.is_none()
            && let Some(id) = token_match
            && let Some(stored) = state.document(id)?
            && stored.tokens == doc.tokens
        {
            found = Some((stored, ExactBasis::NormalizedText));
        }
        let Some((stored, basis)) = found else {
            return Ok(None);
        };
        // The same document again (a resumed crawl, a second run) gets the answer it got the
        // first time; an original's own record stays "exact duplicate of itself", `recorded`
        // (the crawler reads that as "indexed before its decision was logged").
        let same_document = stored.name == doc.name;
        if same_document && let Some(link) = stored.link {
            let mut decision = self.recorded(state, link)?;
            decision.reason_mut().page_record = Some(stored.id);
            return Ok(Some(decision));
        }
        let mechanism = match basis {
            ExactBasis::Payload => Mechanism::ExactPayload,
            ExactBasis::NormalizedText => Mechanism::ExactText,
        };
        Ok(Some(DedupDecision::ExactDuplicate {
            of: document_ref(&stored),
            basis,
            reason: Reason {
                verified: Some(1.0),
                original_record: Some(stored.id),
                recorded: same_document,
                ..Reason::of(mechanism)
            },
        }))
    }

    /// The decision a cluster member got when it was first checked.
    fn recorded<S: IndexStorage + ?Sized>(
        &self,
        state: &S,
        link: DocumentLink,
    ) -> Result<DedupDecision, IndexError> {
        let to = match state.document(link.to)? {
            Some(original) => document_ref(&original),
            None => DocumentRef {
                id: link.to,
                name: format!("#{}", link.to),
                cluster: link.to,
            },
        };
        let reason = Reason {
            verified: Some(link.similarity),
            recorded: true,
            original_record: Some(link.to),
            ..Reason::of(link.mechanism)
        };
        Ok(if link.contained {
            DedupDecision::Contained {
                within: to,
                containment: link.similarity,
                reason,
            }
        } else {
            DedupDecision::NearDuplicate {
                of: to,
                similarity: link.similarity,
                reason,
            }
        })
    }

    /// The set `stored` is verified on against `doc`: its compared shingles, without those
    /// that start in a block that is its host's template now (on enough of the host's other
    /// originals, by the index's [`crate::TemplateRule`]): a block that was not template when
    /// the record was made (a host's first pages, a box the host shows on more and more of its
    /// pages) is out of the comparison, as it is out of every later page's compared text. All
    /// of them when that would leave too little ([`MIN_RECUT_SHINGLES`]), and when the two
    /// are too far apart for it to matter (under [`RECUT_FROM`] either way).
    fn verification_set<S: IndexStorage + ?Sized>(
        &self,
        state: &S,
        doc: &DocumentFingerprint,
        stored: &StoredDocument,
    ) -> Result<RecordSet, IndexError> {
        let shingles = stored.shingle_set();
        let counts = verified_counts(doc, &shingles);
        let whole = RecordSet {
            shingles,
            blocks_left_out: 0,
            counts,
        };
        let close = counts.is_some_and(|c| {
            c.resemblance() >= RECUT_FROM
                || c.containment() >= RECUT_FROM
                || c.shared as f64 >= RECUT_FROM * c.other as f64
        });
        if stored.block_spans.is_empty() || !close {
            return Ok(whole);
        }
        let keys: Vec<u64> = stored.block_spans.iter().map(|span| span.key).collect();
        let counts = state.block_page_counts(&stored.host, &keys)?;
        let host_pages = state.host_page_count(&stored.host)?;
        // The record's own page is among the counts: a block on `min` other pages is template.
        let min = self
            .config
            .template
            .min_pages_for(host_pages.saturating_sub(1));
        let template = |count: u32| count.saturating_sub(1) >= min;
        let mut kept = Vec::with_capacity(stored.sequence.len());
        let (mut at, mut left_out) = (0usize, 0u32);
        for (span, &count) in stored.block_spans.iter().zip(&counts) {
            let end = (at + span.shingles as usize).min(stored.sequence.len());
            if template(count) {
                left_out += 1;
            } else {
                kept.extend_from_slice(&stored.sequence[at..end]);
            }
            at = end;
        }
        if left_out == 0 || kept.len() < MIN_RECUT_SHINGLES * self.config.shingle_size {
            return Ok(whole);
        }
        kept.sort_unstable();
        kept.dedup();
        Ok(RecordSet {
            counts: verified_counts(doc, &kept),
            shingles: kept,
            blocks_left_out: left_out,
        })
    }

    /// The original most resembling the page among its LSH candidates, when at or above the
    /// threshold.
    fn find_near<S: IndexStorage + ?Sized>(
        &self,
        state: &S,
        doc: &DocumentFingerprint,
        signature: &MinHashSignature,
        compared: &mut Compared,
    ) -> Result<Option<Match>, IndexError> {
        let band_keys = self.config.lsh.band_keys(signature);
        let candidates = near_candidates(self.config, state, &band_keys, MAX_CANDIDATES)?;
        let mut best: Option<Match> = None;
        for stored in state.documents(&candidates)?.into_iter().flatten() {
            let Some(theirs) = stored.signature.as_ref().filter(|_| stored.link.is_none()) else {
                continue;
            };
            let estimate = signature.similarity(theirs);
            if estimate < VERIFY_FROM {
                // Compared by its sketch only: no exact figure to name it the closest by.
                compared.candidates += 1;
                continue;
            }
            let set = self.verification_set(state, doc, &stored)?;
            let counts = set.counts;
            let figure = counts.map_or(estimate, |c| c.resemblance());
            compared.saw(
                &stored.name,
                figure,
                counts.map_or(0.0, |c| c.containment()),
            );
            if figure < self.config.threshold || best.as_ref().is_some_and(|b| figure <= b.figure) {
                continue;
            }
            match own_content(doc, &stored, &set.shingles) {
                Err(run) => compared.veto(&stored.name, figure, run),
                Ok(own_content_run) => {
                    best = Some(Match {
                        document: document_ref(&stored),
                        own_content_run,
                        blocks_left_out: set.blocks_left_out,
                        estimate: Some(estimate),
                        counts,
                        figure,
                    });
                }
            }
        }
        Ok(best)
    }

    /// Containment both ways against the originals posted under the most of the page's
    /// sample values and own blocks. A page lists an original of its own host in `contains`
    /// only once the host's template is told apart: a host's first pages share their template
    /// (a sidebar of teasers that is all of the home page's text), which says nothing of which
    /// page holds which.
    fn find_containment<S: IndexStorage + ?Sized>(
        &self,
        state: &S,
        doc: &DocumentFingerprint,
        sample: &ModSample,
        compared: &mut Compared,
    ) -> Result<ContainmentFound, IndexError> {
        let probes = containment_probes(doc, sample);
        let ids = state.most_posted(&probes.values, probes.candidates)?;
        let doc_blocks: rustc_hash::FxHashSet<u64> =
            doc.block_fingerprints.iter().copied().collect();
        let threshold = self.config.containment_threshold;
        let mut found = ContainmentFound::default();
        for stored in state.documents(&ids)?.into_iter().flatten() {
            if stored.link.is_some() {
                continue;
            }
            let estimates = stored
                .mod_sample
                .as_ref()
                .and_then(|other| sample_containment(sample, other));
            let by_blocks = (stored.host != doc.host)
                .then(|| block_shares(doc, &doc_blocks, &stored))
                .flatten();
            let ruled_out = estimates.is_some_and(|(i, a)| i < VERIFY_FROM && a < VERIFY_FROM)
                && by_blocks
                    .is_none_or(|b| b.page_in_original.min(b.original_in_page) < VERIFY_FROM);
            if ruled_out {
                continue;
            }
            let set = self.verification_set(state, doc, &stored)?;
            let counts = set.counts;
            let (inside, around) = match (counts, estimates) {
                (Some(c), _) => (c.containment(), c.shared as f64 / c.other.max(1) as f64),
                (None, Some((inside, around))) => (inside, around),
                (None, None) => continue,
            };
            compared.saw(
                &stored.name,
                counts.map_or(0.0, |c| c.resemblance()),
                inside,
            );
            if inside >= threshold {
                let estimate = estimates.map(|(inside, _)| inside);
                held_inside(doc, &stored, &set, (inside, estimate), &mut found, compared);
            }
            let lists_it = stored.prose_tokens >= MIN_PART_TOKENS
                && (stored.host != doc.host
                    || (doc.template_known && !has_blocks_of_its_own(&stored, &doc_blocks)));
            if around >= threshold && lists_it {
                found.around.push((document_ref(&stored), around));
            }
            if stored.host != doc.host {
                let candidate = Match {
                    document: document_ref(&stored),
                    own_content_run: None,
                    blocks_left_out: set.blocks_left_out,
                    estimate: None,
                    counts,
                    figure: 0.0,
                };
                self.compare_across_hosts(&mut found, candidate, by_blocks, around);
            }
        }
        found
            .around
            .sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.id.cmp(&b.0.id)));
        Ok(found)
    }

    /// The copies on other hosts of [`find_containment`](Self::find_containment): `candidate`
    /// (its figure unset) as a copy by blocks (its block shares, `shares`) and as a reprint
    /// (`around`: its share of shingles inside the page), when better than those found.
    fn compare_across_hosts(
        &self,
        found: &mut ContainmentFound,
        candidate: Match,
        shares: Option<BlockShares>,
        around: f64,
    ) {
        let (near_at, contained_at) = (self.config.threshold, self.config.containment_threshold);
        if let Some(shares) = shares {
            let smaller = shares.page_in_original.min(shares.original_in_page);
            let better = found
                .by_blocks
                .as_ref()
                .is_none_or(|(_, b)| smaller > b.page_in_original.min(b.original_in_page));
            // A copy that holds all of the original's blocks may add blocks of its own (an
            // editor's note) down to the reprint drift.
            let holds_all = shares.original_in_page >= contained_at
                && shares.page_in_original >= near_at - REPRINT_DRIFT;
            if (smaller >= near_at || holds_all) && better {
                let figure = candidate.counts.map_or(smaller, |c| c.resemblance());
                found.by_blocks = Some((
                    Match {
                        figure,
                        ..candidate.clone()
                    },
                    shares,
                ));
            }
        }
        if let Some(counts) = candidate.counts
            && around >= contained_at
        {
            let resemblance = counts.resemblance();
            if resemblance >= near_at - REPRINT_DRIFT
                && found
                    .reprint
                    .as_ref()
                    .is_none_or(|b| resemblance > b.figure)
            {
                found.reprint = Some(Match {
                    figure: resemblance,
                    ..candidate
                });
            }
        }
    }

    /// Appends `doc` under the next id: to the log, to the in-memory structures, to the group
    /// commit. A near duplicate or contained page (`link`) is kept as a member of the cluster
    /// of `link.to`: its record, its exact digests (an exact copy of it is an exact duplicate
    /// of it) and its LSH buckets; no containment postings and no block counts, which
    /// describe originals (the backends count only records without a link).
    fn append<S: IndexStorage + ?Sized>(
        &self,
        state: &mut S,
        doc: &DocumentFingerprint,
        signature: Option<MinHashSignature>,
        mod_sample: Option<ModSample>,
        link: Option<DocumentLink>,
    ) -> Result<DocumentId, IndexError> {
        let id = state.next_id()?;
        if id == DocumentId::MAX {
            return Err(IndexError::Full);
        }
        let mut blocks = doc.block_fingerprints.clone();
        blocks.sort_unstable();
        blocks.dedup();
        blocks.truncate(MAX_RECORD_BLOCKS);
        let mut own_blocks = own_blocks_of(&doc.own_content);
        own_blocks.truncate(MAX_RECORD_BLOCKS);
        state.append(StoredDocument {
            id,
            name: doc.name.clone(),
            host: doc.host.clone(),
            payload: doc.payload,
            tokens: doc.tokens,
            signature,
            mod_sample,
            compared_text: doc.compared_text.clone(),
            link_targets: doc.link_targets.clone(),
            link,
            blocks,
            own_blocks,
            prose_tokens: doc.prose_tokens,
            sequence: doc.sequence.clone(),
            block_spans: doc.block_spans.clone(),
        })?;
        Ok(id)
    }

    /// The lock keys of a check of `doc`, sorted and distinct: its payload and token digest
    /// keys and its LSH buckets (band and 32-bit bucket key, as stored). Two exact or near
    /// duplicates share a key, so a backend that serves several processes may run checks
    /// whose key sets are disjoint at the same time and serialise only the others: two near
    /// duplicates checked at the same moment never both come back new.
    ///
    /// Posted containment samples are left out on purpose: a site's template shingles are
    /// posted by most of its pages, so with them nearly every pair of checks of a host
    /// shared a key and the checks ran one at a time. The cost: a part and the page
    /// containing it, checked at the same moment by two processes, may both come back new
    /// (neither stored yet when the other looked); checked one after the other, they are
    /// linked as before.
    pub(crate) fn lock_keys(&self, doc: &DocumentFingerprint) -> Vec<u64> {
        let mut keys = vec![lock_key(1, payload_digest_key(&doc.payload))];
        if let Some(tokens) = &doc.tokens {
            keys.push(lock_key(2, token_digest_key(tokens)));
        }
        if let Some(signature) = doc.signature.as_ref().map(|s| s.low_bits(SIGNATURE_BITS)) {
            for (band, key) in self.config.lsh.band_keys(&signature).iter().enumerate() {
                keys.push(lock_key(16 + band as u64, u64::from(*key as u32)));
            }
        }
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    pub(crate) fn check<S: IndexStorage + ?Sized>(
        &self,
        state: &mut S,
        doc: &DocumentFingerprint,
        insert: bool,
    ) -> Result<DedupDecision, IndexError> {
        if let Some(decision) = self.find_exact(state, doc)? {
            return Ok(decision);
        }
        // Stored signatures keep 16 bits a value and samples 32 (see `record`): compare, band
        // and post like them.
        let signature = doc.signature.as_ref().map(|s| s.low_bits(SIGNATURE_BITS));
        let sample = doc.mod_sample.as_ref().map(|s| s.low_bits(SAMPLE_BITS));
        let mut compared = Compared::default();
        let near = match &signature {
            Some(signature) => self.find_near(state, doc, signature, &mut compared)?,
            None => None,
        };
        let containment = match (&near, &sample) {
            (None, Some(sample)) => self.find_containment(state, doc, sample, &mut compared)?,
            _ => ContainmentFound::default(),
        };
        let (mut decision, link) = self.decided(doc, near, containment, compared);
        if !insert {
            return Ok(decision);
        }
        let id = match (&mut decision, link) {
            (DedupDecision::New { id, .. }, _) => {
                let stored = self.append(state, doc, signature, sample, None)?;
                *id = Some(stored);
                Some(stored)
            }
            (_, Some(link)) if signature.is_some() => {
                Some(self.append(state, doc, signature, None, Some(link))?)
            }
            _ => None,
        };
        decision.reason_mut().page_record = id;
        Ok(decision)
    }

    /// The decision from what the mechanisms found, and the link a duplicate is recorded
    /// with, in the mechanisms' order: a near duplicate when an original resembles the page
    /// enough (new when under the page's site threshold), else contained when one holds enough
    /// of it, else a copy of another host by blocks or as a reprint, else new. The one place a
    /// decision and its reason are built.
    fn decided(
        &self,
        doc: &DocumentFingerprint,
        near: Option<Match>,
        containment: ContainmentFound,
        compared: Compared,
    ) -> (DedupDecision, Option<DocumentLink>) {
        let near_at = self.config.threshold;
        let site_threshold = doc.threshold.filter(|&t| t > near_at);
        let (found, mechanism, threshold, blocks) = match (near, site_threshold) {
            (Some(found), Some(site)) if found.figure < site => {
                let reason = Reason {
                    vetoed: compared.vetoed.clone(),
                    ..found.reason(Mechanism::SiteThreshold, site, &compared)
                };
                return (new_page(containment.around, reason), None);
            }
            (Some(found), _) => (found, Mechanism::NearLsh, near_at, None),
            (None, _) => match containment {
                ContainmentFound {
                    inside: Some(found),
                    ..
                } => {
                    let at = self.config.containment_threshold;
                    (found, Mechanism::Containment, at, None)
                }
                ContainmentFound {
                    by_blocks: Some((found, shares)),
                    ..
                } => (found, Mechanism::BlocksAcrossHosts, near_at, Some(shares)),
                ContainmentFound {
                    reprint: Some(found),
                    ..
                } => (found, Mechanism::Reprint, near_at - REPRINT_DRIFT, None),
                ContainmentFound { around, .. } => {
                    let reason = Reason {
                        threshold: Some(near_at),
                        candidates: compared.candidates,
                        closest: compared.closest,
                        vetoed: compared.vetoed,
                        prose_tokens: compared.no_part,
                        ..Reason::of(Mechanism::New)
                    };
                    return (new_page(around, reason), None);
                }
            },
        };
        let reason = Reason {
            blocks,
            vetoed: compared.vetoed.clone(),
            ..found.reason(mechanism, threshold, &compared)
        };
        let contained = mechanism == Mechanism::Containment;
        let link = DocumentLink {
            contained,
            to: found.document.id,
            similarity: found.figure,
            mechanism,
        };
        let decision = if contained {
            DedupDecision::Contained {
                within: found.document,
                containment: found.figure,
                reason,
            }
        } else {
            DedupDecision::NearDuplicate {
                of: found.document,
                similarity: found.figure,
                reason,
            }
        };
        (decision, Some(link))
    }
}

/// A new page (not yet recorded: `id` is set once it is) with what it contains.
fn new_page(contains: Vec<(DocumentRef, f64)>, reason: Reason) -> DedupDecision {
    DedupDecision::New {
        id: None,
        contains,
        reason,
    }
}

impl Match {
    /// The reason `mechanism` gives for deciding on this match against `threshold`.
    fn reason(&self, mechanism: Mechanism, threshold: f64, compared: &Compared) -> Reason {
        Reason {
            estimate: self.estimate,
            verified: self.counts.map(|_| self.figure),
            threshold: Some(threshold),
            shingles: self.counts,
            candidates: compared.candidates,
            own_content_run: self.own_content_run,
            original_blocks_left_out: (self.blocks_left_out > 0).then_some(self.blocks_left_out),
            original_record: Some(self.document.id),
            ..Reason::of(mechanism)
        }
    }
}

/// The MOD_m estimates of containment both ways, `(page in other, other in page)`, at the two
/// samples' common modulus (Broder: if A ⊂ B then V(A) ⊂ V(B)); `None` when either sample has
/// fewer than [`ESTIMATE_MIN_VALUES`] values there.
fn sample_containment(page: &ModSample, other: &ModSample) -> Option<(f64, f64)> {
    let modulus = page.modulus.max(other.modulus);
    let (mine, theirs) = (page.at_modulus(modulus), other.at_modulus(modulus));
    (mine.values.len() >= ESTIMATE_MIN_VALUES && theirs.values.len() >= ESTIMATE_MIN_VALUES)
        .then(|| (mine.containment_in(&theirs), theirs.containment_in(&mine)))
}
