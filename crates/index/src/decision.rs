//! The dedup decision, written once over [`IndexStorage`]: exact → near → containment, the
//! block-sketch veto and the cluster links. A backend supplies storage only (and makes one
//! call of [`DecisionAlgorithm::check`] atomic: a mutex, a transaction); every backend then
//! decides alike, bit for bit.

use dedupcrawl_sketch::{BlockSketch, MinHashSignature, ModSample};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::block_postings::{containment_probes, own_blocks_of};
use crate::candidates::near_candidates;
use crate::cold_record::resemblance_past_template;
use crate::own_content::{
    PAIR_SKIPS, SUBSTANTIAL_BLOCK_TOKENS, adjacent_pairs, block_overlap, part_tokens_in,
    stored_part_tokens_in,
};
use crate::page_name::lacks_the_title;
use crate::record::{
    DocumentId, DocumentLink, MAX_RECORD_BLOCKS, OwnBlock, SAMPLE_BITS, SIGNATURE_BITS,
    StoredDocument,
};
use crate::storage::IndexStorage;
use crate::{DedupDecision, DocumentFingerprint, DocumentRef, ExactBasis, IndexConfig, IndexError};

/// Candidates verified per document at most (a bucket this crowded is one big cluster).
pub(crate) const MAX_CANDIDATES: usize = 256;
/// Originals of close cluster members checked per document, at most.
const MAX_ORIGINALS_CHECKED: usize = 16;
/// How far below the threshold a page may be from the original of a cluster member it is
/// within the threshold of, and still join that cluster (see `find_near`).
const MEMBER_DRIFT: f64 = 0.1;
/// On one host, the blocks vouch for a page inside another only when at most this share of
/// the larger page's substantial blocks is in the smaller one (see `find_containment`).
const PART_OF_LARGER: f64 = 2.0 / 3.0;
/// A short part's tokens vouch for it inside a page of its host with at least this many
/// times its blocks (see `find_containment`).
const PARTS_LARGER_BY: usize = 2;
/// How far below the threshold the resemblance of a copy that holds all of a page of another
/// host may be (see `find_containment`).
pub const ADDED_TO_COPY_DRIFT: f64 = 0.05;
/// Normalized tokens of the short ones of `own_blocks` (a stored page's own blocks, those
/// without a sketch) whose key is not in `within` (the keys of a page's blocks): what the
/// stored page has of its own, beyond its sketched blocks, that the page lacks. A part's own heading ("Part 2 of 4") and a man
/// page's section titles are a few tokens; rustdoc's `char::DecodeUtf16`, all of whose
/// substantial blocks its sibling `EscapeDefault` has (the same trait docs), still has its
/// own heading, summary and declaration, [`crate::DISTINCT_CONTENT_TOKENS`] or more.
fn short_tokens_missing(own_blocks: &[OwnBlock], within: &FxHashSet<u64>) -> u32 {
    own_blocks
        .iter()
        .filter(|block| block.tokens < SUBSTANTIAL_BLOCK_TOKENS && !within.contains(&block.key))
        .map(|block| u32::from(block.tokens))
        .sum()
}

/// The keys of a page's blocks, for lookups.
fn block_key_set(doc: &DocumentFingerprint) -> FxHashSet<u64> {
    doc.block_fingerprints.iter().copied().collect()
}

/// The pairs of `doc`'s own blocks side by side or with up to [`PAIR_SKIPS`] − 1 between
/// ([`adjacent_pairs`]).
fn own_pair_set(doc: &DocumentFingerprint) -> FxHashSet<u64> {
    (0..PAIR_SKIPS)
        .flat_map(|skip| adjacent_pairs(&doc.own_sequence, skip))
        .collect()
}

fn own_key_set(doc: &DocumentFingerprint) -> FxHashSet<u64> {
    doc.own_content.iter().map(|unit| unit.key).collect()
}

/// Whether `doc` has content of its own that `stored`, a page of the same host, lacks (see
/// [`crate::own_content`]): then it is another page, however alike the rest (a product on a
/// shop whose policy and review prose is 95 % of every page, before the host's template is
/// learnt). Pages of other hosts are not held to it: a mirror may add a paragraph and still be
/// a copy.
///
/// A page's name counts as such content whatever its length, where the stored page is of
/// about its size (not a larger page that may hold it as a part under another heading): its
/// title (the first heading among its own blocks) when the stored page has no block of its
/// key, at a URL that names another thing (see [`crate::page_name`]). Why: a page
/// on a heavy template may differ from a sibling in little more than its name. Crystal's API
/// pages of two exception classes share some 200 tokens of inherited-method lists and differ
/// in their names, source files and constructors (about 10 tokens); until that sub-template
/// is counted (it never is, once its pages are merged) 41 of Crystal's 643 pages, most of
/// them exception classes, were near duplicates or `contained`, and not archived
/// (2026-11-28). A copy keeps its title (a timestamp or a counter in it is no token) or the
/// name its path gives it: Rust by Example's Spanish edition serves untranslated chapters
/// under a translated heading at `es/` and the same file name, and they are copies (by the
/// title alone, 27 of them were archived twice and recall at J ≥ 0.9 on the 13 unseen books
/// fell from 193 to 114 of 197 pairs).
fn has_own_content(doc: &DocumentFingerprint, stored: &StoredDocument) -> bool {
    doc.host == stored.host
        && (lacks_the_title(doc, stored)
            || crate::own_content::missing_tokens(&doc.own_content, stored)
                >= crate::own_content::DISTINCT_CONTENT_TOKENS)
}

/// A page's substantial own blocks, for asking whether another page's blocks all have a
/// counterpart in it: all of them, not the first [`DocumentFingerprint::block_sketches`] a
/// record keeps (a book's one-page version has thousands, and its later chapters' blocks are
/// past the first 512), with the identical ones found by hash.
struct CounterpartBlocks {
    sketches: Vec<BlockSketch>,
    identical: FxHashSet<BlockSketch>,
}

impl CounterpartBlocks {
    fn of(doc: &DocumentFingerprint) -> CounterpartBlocks {
        let sketches: Vec<BlockSketch> = doc.own_content.iter().filter_map(|u| u.sketch).collect();
        let identical = sketches.iter().copied().collect();
        CounterpartBlocks {
            sketches,
            identical,
        }
    }

    /// Whether one of `mine` has no counterpart here (never, when this page has no
    /// substantial block).
    fn lack_one_of(&self, mine: &[BlockSketch]) -> bool {
        !self.sketches.is_empty()
            && mine.iter().any(|block| {
                !self.identical.contains(block)
                    && !self
                        .sketches
                        .iter()
                        .any(|other| block.is_counterpart(other))
            })
    }
}

/// How a decision names a stored document.
fn document_ref(document: StoredDocument) -> DocumentRef {
    DocumentRef {
        id: document.id,
        cluster: document.link.map_or(document.id, |link| link.cluster),
        name: document.name,
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

/// A part's share of substantial blocks found in a larger page of its host (the block
/// overlap), held to its share by all its own tokens ([`part_tokens_in`]) when some of its
/// neighbours sit apart there: blocks found one by one in a page that lists everything (a
/// Javadoc package summary's descriptions, each on `class-use/Object.html`, true containment
/// 0.63) are not a part of it, while a chapter whose blocks sit together in its edition keeps
/// the block share (its heading and pager, missing there, cost it nothing).
fn held_to_tokens(by_blocks: f64, by_tokens: Option<crate::own_content::PartTokens>) -> f64 {
    match by_tokens {
        Some(tokens) if tokens.apart > 0 => by_blocks.min(tokens.share()),
        _ => by_blocks,
    }
}

/// The larger of a share known so far (if any) and another estimate of it.
fn larger_share(known: Option<f64>, other: f64) -> Option<f64> {
    Some(known.map_or(other, |share| share.max(other)))
}

/// What [`DecisionAlgorithm::find_containment`] found.
#[derive(Default)]
struct ContainmentFound {
    /// The page this one is inside, and how much of it is.
    inside: Option<(DocumentRef, f64)>,
    /// Pages inside this one, most contained first.
    around: Vec<(DocumentRef, f64)>,
    /// A page this one is a copy of by their blocks, and the resemblance: a page of another
    /// host, or one of its host recorded before the host's template was told apart.
    copy_by_blocks: Option<(DocumentId, f64)>,
}

/// The decision algorithm under one index's settings.
pub(crate) struct DecisionAlgorithm<'a> {
    pub(crate) config: &'a IndexConfig,
}

impl DecisionAlgorithm<'_> {
    fn reference<S: IndexStorage + ?Sized>(
        &self,
        state: &S,
        id: DocumentId,
    ) -> Result<DocumentRef, IndexError> {
        Ok(match state.document(id)? {
            Some(document) => document_ref(document),
            None => DocumentRef {
                id,
                name: format!("#{id}"),
                cluster: id,
            },
        })
    }

    fn find_exact<S: IndexStorage + ?Sized>(
        &self,
        state: &S,
        doc: &DocumentFingerprint,
    ) -> Result<Option<DedupDecision>, IndexError> {
        let mut found: Option<(StoredDocument, ExactBasis)> = None;
        let (payload_match, token_match) = state.digest_matches(
            payload_digest_key(&doc.payload),
            doc.tokens.as_ref().map(token_digest_key),
        )?;
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
        // first time; an original's own record stays "exact duplicate of itself" (the crawler
        // reads that as "indexed before its decision was logged").
        if stored.name == doc.name
            && let Some(link) = stored.link
        {
            let to = self.reference(state, link.to)?;
            return Ok(Some(if link.contained {
                DedupDecision::Contained {
                    within: to,
                    containment: link.similarity,
                }
            } else {
                DedupDecision::NearDuplicate {
                    of: to,
                    similarity: link.similarity,
                }
            }));
        }
        Ok(Some(DedupDecision::ExactDuplicate {
            of: document_ref(stored),
            basis,
        }))
    }

    /// The most similar indexed document at or above the threshold, and whether the page is
    /// close enough to an original to be a duplicate.
    ///
    /// Near duplicates and contained pages are indexed too (as cluster members), so a page is
    /// linked to the closest earlier page, not only to the first page of its cluster: a
    /// cluster is a tree, and two very similar pages do not end up in two clusters only because
    /// each was first compared with a different, less similar original. But a chain of
    /// 0.8-alike pages can drift far from its first page, and the page at the end of it must be
    /// archived, not dropped as "like a page that was itself dropped". So a page is a duplicate
    /// when an *original* (what a crawl archives) is within the threshold, or when a member is
    /// and that member's original is within [`MEMBER_DRIFT`] of the threshold: a re-exported
    /// copy of a near duplicate joins its cluster, a chain drifts at most one step. (Being
    /// contained in an original covers it too: see `check`.)
    fn find_near<S: IndexStorage + ?Sized>(
        &self,
        state: &S,
        doc: &DocumentFingerprint,
        signature: &MinHashSignature,
        band_keys: &[u64],
    ) -> Result<Option<(DocumentId, f64, bool)>, IndexError> {
        let similarity_to = |stored: &StoredDocument| -> Option<f64> {
            let theirs = stored.signature.as_ref()?;
            Some(match (&doc.small_shingles, &stored.small_shingles) {
                (Some(mine), Some(theirs)) => crate::small_set_resemblance(mine, theirs),
                _ => signature.similarity(theirs),
            })
        };
        let threshold = self.config.threshold;
        let mut best: Option<(DocumentId, f64)> = None;
        let mut near_an_original = false;
        let mut originals_to_check: Vec<DocumentId> = Vec::new();
        // Originals already compared as candidates, and whether each is close enough to be the
        // original of a close member's cluster.
        let mut compared_originals: FxHashMap<DocumentId, bool> = FxHashMap::default();
        let mut compared: FxHashSet<DocumentId> = FxHashSet::default();
        let candidates = near_candidates(self.config, state, band_keys, MAX_CANDIDATES)?;
        let records = state.documents(&candidates)?;
        for (candidate, stored) in candidates.into_iter().zip(records) {
            compared.insert(candidate);
            let Some(stored) = stored else {
                continue;
            };
            let Some(similarity) = similarity_to(&stored) else {
                continue;
            };
            let own_content = || has_own_content(doc, &stored);
            if stored.link.is_none() {
                compared_originals.insert(
                    candidate,
                    similarity >= threshold - MEMBER_DRIFT && !own_content(),
                );
            }
            if similarity >= threshold && !own_content() {
                match stored.link {
                    None => near_an_original = true,
                    Some(link) => originals_to_check.push(link.cluster),
                }
                if best.is_none_or(|(_, s)| similarity > s) {
                    best = Some((candidate, similarity));
                }
            }
        }
        let Some((id, similarity)) = best else {
            return Ok(None);
        };
        // Only members came close: is the page close enough to one of their originals too?
        if !near_an_original
            && originals_to_check
                .iter()
                .any(|original| compared_originals.get(original) == Some(&true))
        {
            near_an_original = true;
        }
        originals_to_check.retain(|&original| compared.insert(original));
        originals_to_check.truncate(MAX_ORIGINALS_CHECKED);
        if !near_an_original && !originals_to_check.is_empty() {
            near_an_original =
                state
                    .documents(&originals_to_check)?
                    .iter()
                    .flatten()
                    .any(|stored| {
                        similarity_to(stored).is_some_and(|s| s >= threshold - MEMBER_DRIFT)
                            && !has_own_content(doc, stored)
                    });
        }
        Ok(Some((id, similarity, near_an_original)))
    }

    /// Containment both ways against documents sharing posted samples, by the samples (and,
    /// for documents of other hosts, block by block: [`block_overlap`]), and near duplicates
    /// of other hosts block by block.
    fn find_containment<S: IndexStorage + ?Sized>(
        &self,
        state: &S,
        doc: &DocumentFingerprint,
        sample: &ModSample,
    ) -> Result<ContainmentFound, IndexError> {
        let mut found = ContainmentFound::default();
        if sample.values.len() < self.config.containment_min_samples {
            return Ok(found);
        }
        let probes = containment_probes(doc, sample);
        let ids = state.most_posted(&probes.values, probes.candidates)?;
        // Built once a candidate of the host needs them (most pages have none).
        let own_blocks = std::cell::OnceCell::new();
        let doc_blocks = std::cell::OnceCell::new();
        let doc_pairs: std::cell::OnceCell<FxHashSet<u64>> = std::cell::OnceCell::new();
        let doc_own = std::cell::OnceCell::new();
        // Shingles that cross from a block into its neighbours.
        let crossing = self.config.shingle_size.saturating_sub(1) as u32;
        let mut inside: Option<(DocumentId, f64)> = None;
        let mut around: Vec<(DocumentId, f64)> = Vec::new();
        let mut copy_by_blocks: Option<(DocumentId, f64)> = None;
        let min = self.config.containment_min_samples;
        let contained_at = self.config.containment_threshold;
        let records = state.documents(&ids)?;
        for (id, stored) in ids.into_iter().zip(records) {
            let Some(stored) = stored else {
                continue;
            };
            // A page with content of its own is not inside another page of its host, nor is a
            // page of the host with a substantial block this one lacks around it.
            // Nor does a page hold an earlier page of its host before the host's template is
            // told apart: a host's first pages share their template (a sidebar of teasers that
            // is all of the home page's text), which says nothing of which page holds which.
            let same_host = doc.host == stored.host;
            let inside_allowed = || !has_own_content(doc, &stored);
            let around_allowed = || {
                !(same_host
                    && (!doc.template_known
                        || short_tokens_missing(
                            &stored.own_blocks,
                            doc_blocks.get_or_init(|| block_key_set(doc)),
                        ) >= crate::own_content::DISTINCT_CONTENT_TOKENS
                        || own_blocks
                            .get_or_init(|| CounterpartBlocks::of(doc))
                            .lack_one_of(&stored.block_sketches)))
            };
            let (mut inside_share, mut around_share) = (None, None);
            if let Some(other) = &stored.mod_sample {
                let modulus = sample.modulus.max(other.modulus);
                let (mine, theirs) = (sample.at_modulus(modulus), other.at_modulus(modulus));
                if mine.values.len() >= min {
                    inside_share = Some(mine.containment_in(&theirs));
                }
                if theirs.values.len() >= min {
                    around_share = Some(theirs.containment_in(&mine));
                }
            }
            // Across hosts, whose links never match and whose templates split a copy's text
            // at other places, the blocks vouch for containment and resemblance on their own.
            // On one host they vouch only for a part of a clearly larger page (a chapter of a
            // story's one-page version, whose headings and pager split the text at other
            // places), and only once the host's template is told apart (a host's first pages
            // share template blocks: its home page is not inside each of them). Pages of
            // about one size on a host are the shingles' to tell apart: there the links are
            // part of what a page is, and rustdoc's poison and nonpoison lock guards share
            // every own block and differ in their link lists.
            // The stored page as a part of this one, by its own tokens (see
            // `stored_part_tokens_in`).
            let stored_part_tokens = || {
                stored_part_tokens_in(
                    &stored.own_blocks,
                    &stored.own_pairs[0],
                    doc_blocks.get_or_init(|| block_key_set(doc)),
                    doc_own.get_or_init(|| own_key_set(doc)),
                    doc_pairs.get_or_init(|| own_pair_set(doc)),
                    crossing,
                )
            };
            let overlap = block_overlap(&doc.own_content, &stored);
            if let Some(overlap) = overlap {
                if !same_host {
                    inside_share = larger_share(inside_share, overlap.page_in_stored);
                    around_share = larger_share(around_share, overlap.stored_in_page);
                    // A reprint that adds a note of its own (an editor's note, a correction)
                    // holds all of the original, and its resemblance is the original's share
                    // of it: a note of a quarter of the article puts it at 0.8. Holding all of
                    // the page, it is a copy a little further below the threshold (at 0.75 it
                    // adds a third of the original); a page that adds more is a page of its
                    // own that quotes the other, archived and listing it in `contains`.
                    let resemblance = overlap.resemblance();
                    let holds_all = overlap.stored_in_page >= contained_at;
                    let copy_at =
                        self.config.threshold - if holds_all { ADDED_TO_COPY_DRIFT } else { 0.0 };
                    if resemblance >= copy_at
                        && copy_by_blocks.is_none_or(|(_, best)| resemblance > best)
                    {
                        copy_by_blocks = Some((id, resemblance));
                    }
                } else if doc.template_known {
                    // On one host the part's blocks must also sit side by side in the larger
                    // page (see `held_to_tokens`).
                    if overlap.stored_in_page <= PART_OF_LARGER {
                        let by_tokens =
                            part_tokens_in(&doc.own_content, &doc.own_sequence, &stored, crossing);
                        inside_share = larger_share(
                            inside_share,
                            held_to_tokens(overlap.page_in_stored, by_tokens),
                        );
                    }
                    if overlap.page_in_stored <= PART_OF_LARGER {
                        let by_tokens = stored_part_tokens();
                        around_share = larger_share(
                            around_share,
                            held_to_tokens(overlap.stored_in_page, by_tokens),
                        );
                    }
                }
            }
            // A record of the host made before its template was told apart holds chrome the
            // page now knows as template, so the shingles put a copy of it well under the
            // threshold: compared by own blocks, that chrome left out, it is the copy it is.
            // Its compared text, links included, must be inside the record too, so two hubs
            // with one heading and other links stay two, and it must have no content of its
            // own that the record lacks: rustdoc's early records hold method docs that many
            // types share, and a string iterator is not `iter::Once` for sharing them.
            if same_host
                && doc.template_known
                && inside_share.is_some_and(|share| share >= self.config.threshold)
                && inside_allowed()
                && let Some(resemblance) = self.resemblance_to_cold_record(
                    state,
                    doc,
                    &stored,
                    doc_blocks.get_or_init(|| block_key_set(doc)),
                    doc_own.get_or_init(|| own_key_set(doc)),
                )?
                && resemblance >= self.config.threshold
                && copy_by_blocks.is_none_or(|(_, best)| resemblance > best)
            {
                copy_by_blocks = Some((id, resemblance));
            }
            // A part too short for a sample or for the block overlap, on its host, beside a
            // page with at least twice its blocks: its tokens' share, block by block.
            if same_host && doc.template_known {
                let (mine, theirs) = (doc.block_fingerprints.len(), stored.blocks.len());
                if inside_share.is_none() && theirs >= PARTS_LARGER_BY * mine {
                    inside_share =
                        part_tokens_in(&doc.own_content, &doc.own_sequence, &stored, crossing)
                            .map(|tokens| tokens.share());
                }
                if around_share.is_none() && mine >= PARTS_LARGER_BY * theirs {
                    around_share = stored_part_tokens().map(|tokens| tokens.share());
                }
            }
            if let Some(c) = inside_share
                && c >= contained_at
                && inside.is_none_or(|(_, b)| c > b)
                && inside_allowed()
            {
                inside = Some((id, c));
            }
            if let Some(c) = around_share
                && c >= contained_at
                && around_allowed()
            {
                around.push((id, c));
            }
        }
        around.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        found.inside = inside
            .map(|(id, c)| Ok::<_, IndexError>((self.reference(state, id)?, c)))
            .transpose()?;
        found.around = around
            .into_iter()
            .map(|(id, c)| Ok((self.reference(state, id)?, c)))
            .collect::<Result<_, IndexError>>()?;
        found.copy_by_blocks = copy_by_blocks;
        Ok(found)
    }

    /// [`resemblance_past_template`] of `doc` with a record of its host, the record's own
    /// blocks that are template now left out: those on the page that are not its own content
    /// (template or a link list there), and those on enough of the host's pages by the block
    /// counts (a copy may lack the chrome: an AMP version is its article alone).
    fn resemblance_to_cold_record<S: IndexStorage + ?Sized>(
        &self,
        state: &S,
        doc: &DocumentFingerprint,
        stored: &StoredDocument,
        page_blocks: &FxHashSet<u64>,
        own: &FxHashSet<u64>,
    ) -> Result<Option<f64>, IndexError> {
        let elsewhere: Vec<u64> = stored
            .own_blocks
            .iter()
            .map(|block| block.key)
            .filter(|key| !own.contains(key) && !page_blocks.contains(key))
            .collect();
        let host_template: FxHashSet<u64> = if elsewhere.is_empty() || doc.template_min_pages == 0 {
            FxHashSet::default()
        } else {
            let counts = state.block_page_counts(&doc.host, &elsewhere)?;
            elsewhere
                .iter()
                .zip(counts)
                .filter(|&(_, count)| count >= doc.template_min_pages)
                .map(|(&key, _)| key)
                .collect()
        };
        Ok(resemblance_past_template(
            &doc.own_content,
            &stored.own_blocks,
            |key| page_blocks.contains(&key) || host_template.contains(&key),
        ))
    }

    /// Appends `doc` under the next id: to the log, to the in-memory structures, to the group
    /// commit. A near duplicate or contained page (`link`) is kept as a member of the cluster
    /// of `link.to`: its record (signature, small shingle set, the decision it got, its block
    /// keys for the own-content check), its exact digests (an exact copy of it is an exact
    /// duplicate of it) and its LSH buckets; no containment postings and no block counts,
    /// which describe originals (the backends count only records without a link).
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
        let own_pairs: [Vec<u64>; PAIR_SKIPS] = std::array::from_fn(|skip| {
            let mut pairs = adjacent_pairs(&doc.own_sequence, skip);
            pairs.truncate(MAX_RECORD_BLOCKS);
            pairs
        });
        let record = StoredDocument {
            id,
            name: doc.name.clone(),
            host: doc.host.clone(),
            payload: doc.payload,
            tokens: doc.tokens,
            signature,
            mod_sample,
            small_shingles: doc.small_shingles.clone(),
            link,
            blocks,
            block_sketches: doc.block_sketches.clone(),
            own_blocks,
            own_pairs,
            name_tokens: doc.name_tokens.clone(),
        };
        state.append(record)?;
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
    /// shared a key and the checks ran one at a time (benches/workers: half the database
    /// time was spent waiting for these locks). The cost: a part and the page containing it,
    /// checked at the same moment by two processes, may both come back new (neither stored
    /// yet when the other looked); checked one after the other, they are linked as before.
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
        // Stored signatures keep 16 bits a value and samples 32 (see `record`): compare, band
        // and post like them.
        let signature = doc.signature.as_ref().map(|s| s.low_bits(SIGNATURE_BITS));
        let sample = doc.mod_sample.as_ref().map(|s| s.low_bits(SAMPLE_BITS));
        let band_keys = signature
            .as_ref()
            .map(|s| self.config.lsh.band_keys(s))
            .unwrap_or_default();
        if let Some(decision) = self.find_exact(state, doc)? {
            return Ok(decision);
        }
        let near = match &signature {
            Some(signature) => self.find_near(state, doc, signature, &band_keys)?,
            None => None,
        };
        let ContainmentFound {
            inside,
            around,
            copy_by_blocks,
        } = match (&sample, near) {
            (_, Some((_, _, true))) | (None, _) => ContainmentFound::default(),
            (Some(sample), _) => self.find_containment(state, doc, sample)?,
        };
        // Near an original, or inside one: a duplicate, linked to the closest page if one is
        // within the threshold (a page that is (almost) exactly another one is a near
        // duplicate), else to the page it is contained in. Not near an original by the
        // estimate but a copy by the blocks (of another host's page, or of a page of its host
        // recorded before the host's template was told apart): a near duplicate of it.
        let near = match (near, copy_by_blocks) {
            (Some((_, _, false)) | None, Some((id, resemblance))) => Some((id, resemblance, true)),
            (near, _) => near,
        };
        let decision = match (near, inside) {
            (Some((id, similarity, true)), _) | (Some((id, similarity, false)), Some(_)) => {
                let of = self.reference(state, id)?;
                let link = DocumentLink {
                    contained: false,
                    to: of.id,
                    cluster: of.cluster,
                    similarity,
                };
                Some((DedupDecision::NearDuplicate { of, similarity }, link))
            }
            (_, Some((within, containment))) => {
                let link = DocumentLink {
                    contained: true,
                    to: within.id,
                    cluster: within.cluster,
                    similarity: containment,
                };
                let decision = DedupDecision::Contained {
                    within,
                    containment,
                };
                Some((decision, link))
            }
            (_, None) => None,
        };
        if let Some((decision, link)) = decision {
            if insert && let Some(signature) = signature {
                self.append(state, doc, Some(signature), None, Some(link))?;
            }
            return Ok(decision);
        }
        if !insert {
            return Ok(DedupDecision::New {
                id: None,
                contains: around,
            });
        }
        let id = self.append(state, doc, signature, sample, None)?;
        Ok(DedupDecision::New {
            id: Some(id),
            contains: around,
        })
    }
}
