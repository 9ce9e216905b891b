//! The behaviour every [`DedupIndex`] backend must show: decisions (exact, near, contained,
//! new), lookups and removal, atomic check-and-insert under concurrency, reopening, cluster
//! links, small documents. Each case takes a function that makes a [`Backend`] on fresh
//! state; [`dedup_index_suite!`] turns every case into a `#[test]` for one backend (the
//! embedded one in `tests/index.rs`).

use std::sync::{Arc, Barrier};

use dedupcrawl_index::{ContentUnit, DedupDecision, DedupIndex, DocumentFingerprint, ExactBasis};
use dedupcrawl_sketch::{
    MinHasher, ModSample, PayloadDigest, TokenDigest, shingle_sequence, shingle_set,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

mod block_cases;
mod cold_record_cases;
pub use block_cases::*;
pub use cold_record_cases::*;

/// A backend under test, on state of its own, with the default [`dedupcrawl_index::IndexConfig`].
/// [`open`](Backend::open) opens an index on that state; opening again after the last handle
/// was dropped is a restart.
pub trait Backend {
    fn open(&self) -> Arc<dyn DedupIndex>;
    /// Whether ids are dense and ascending (the embedded index); a shared backend reserves
    /// them in blocks per process (`IndexStorage::next_id`).
    fn dense_ids(&self) -> bool {
        true
    }
}

/// One `#[test]` per case of the suite, for the backend `$new_backend` makes
/// (`fn() -> Box<dyn Backend>`).
#[macro_export]
macro_rules! dedup_index_suite {
    ($new_backend:expr) => {
        $crate::dedup_index_suite!(@cases $new_backend; decisions_exact_near_contained_and_new, lookup_does_not_insert_and_remove_forgets, concurrent_near_duplicates_never_both_come_back_new, reopened_index_remembers_and_rebuilds_buckets, near_duplicates_name_the_most_resembling_original, a_page_only_like_a_duplicate_and_not_like_any_original_is_new, decisions_are_verified_on_the_exact_shingle_sets, a_copy_on_another_host_that_adds_a_note_lists_the_original, a_long_page_and_its_many_parts_find_each_other, a_page_with_text_of_its_own_is_not_a_duplicate_of_a_page_of_its_host, short_parts_and_their_one_page_edition_find_each_other_by_blocks, one_text_in_two_manuals_of_a_host_is_one_page_whatever_its_pager_and_label, a_copy_of_a_page_recorded_before_the_template_was_known_is_contained_in_it, a_listing_without_prose_is_no_part_of_a_larger_listing, a_page_whose_site_asks_a_higher_threshold_is_new_under_it, a_huge_page_is_indexed_and_the_index_opens_again);
    };
    (@cases $new_backend:expr; $($case:ident),*) => {
        $(
            #[test]
            fn $case() {
                index_suite::$case($new_backend);
            }
        )*
    };
}

pub fn tokens(seed: u64, n: usize) -> Vec<u64> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(0..5_000u64)).collect()
}

/// A page of these tokens as the pipeline fingerprints it (its shingle set kept for
/// verification, all of it its own text).
pub fn document(name: &str, token_hashes: &[u64]) -> DocumentFingerprint {
    let shingles = shingle_set(token_hashes, 5);
    DocumentFingerprint {
        tokens: Some(TokenDigest::of(token_hashes)),
        signature: MinHasher::new(128).signature(&shingles),
        mod_sample: Some(ModSample::from_shingles(&shingles)),
        ..DocumentFingerprint::new(name, "example.org", PayloadDigest::of(name.as_bytes()))
    }
    .with_shingles(&shingle_sequence(token_hashes, 5))
}

/// `base` with `edits` positions replaced (a near-duplicate for small `edits`).
pub fn edited(base: &[u64], edits: usize, seed: u64) -> Vec<u64> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = base.to_vec();
    for _ in 0..edits {
        let at = rng.random_range(0..out.len());
        out[at] = 1_000_000 + rng.random_range(0..1_000_000u64);
    }
    out
}

/// A document given as its shingle set.
pub fn small_document(name: &str, shingles: &[u64]) -> DocumentFingerprint {
    DocumentFingerprint {
        signature: MinHasher::new(128).signature(shingles),
        ..DocumentFingerprint::new(name, "example.org", PayloadDigest::of(name.as_bytes()))
    }
    .with_shingles(shingles)
}

/// The id a fresh, unrelated document gets.
pub fn fresh_id(index: &dyn DedupIndex) -> u32 {
    match index
        .check_and_insert(&document("fresh", &tokens(9_999, 600)))
        .unwrap()
    {
        DedupDecision::New { id: Some(id), .. } => id,
        other => panic!("not new: {other:?}"),
    }
}

/// Inserts a fresh document after `stored` recorded ones and checks its id: exactly `stored`
/// where ids are dense; elsewhere an id no stored document had (every earlier document is
/// still readable and the fresh one is readable under its id).
pub fn assert_fresh_id_follows(backend: &dyn Backend, index: &dyn DedupIndex, stored: u32) {
    let id = fresh_id(index);
    if backend.dense_ids() {
        assert_eq!(id, stored);
        return;
    }
    let bound = index.stats().unwrap().id_bound;
    let present: Vec<String> = (0..bound)
        .filter_map(|i| index.document(i).unwrap().map(|d| d.name))
        .collect();
    assert_eq!(present.len() as u32, stored + 1, "{present:?}");
    assert_eq!(
        index.document(id).unwrap().map(|d| d.name).as_deref(),
        Some("fresh")
    );
}

pub fn decisions_exact_near_contained_and_new(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let index = backend.open();
    let base = tokens(1, 2000);
    assert!(
        index
            .check_and_insert(&document("base", &base))
            .unwrap()
            .is_new()
    );

    // Same bytes.
    let mut same_bytes = document("copy", &tokens(99, 10));
    same_bytes.payload = PayloadDigest::of(b"base");
    match index.check_and_insert(&same_bytes).unwrap() {
        DedupDecision::ExactDuplicate { of, basis, .. } => {
            assert_eq!((of.name.as_str(), basis), ("base", ExactBasis::Payload))
        }
        other => panic!("{other:?}"),
    }
    // Other bytes, same tokens.
    match index
        .check_and_insert(&document("retemplated", &base))
        .unwrap()
    {
        DedupDecision::ExactDuplicate { of, basis, .. } => {
            assert_eq!(
                (of.name.as_str(), basis),
                ("base", ExactBasis::NormalizedText)
            )
        }
        other => panic!("{other:?}"),
    }
    // A few edits.
    match index
        .check_and_insert(&document("edited", &edited(&base, 10, 2)))
        .unwrap()
    {
        DedupDecision::NearDuplicate { of, similarity, .. } => {
            assert_eq!(of.name, "base");
            assert!(similarity > 0.9, "{similarity}");
        }
        other => panic!("{other:?}"),
    }
    // A fifth of the document on its own page: contained.
    match index
        .check_and_insert(&document("part", &base[..800]))
        .unwrap()
    {
        DedupDecision::Contained {
            within,
            containment,
            ..
        } => {
            assert_eq!(within.name, "base");
            assert!(containment >= 0.9, "{containment}");
        }
        other => panic!("{other:?}"),
    }
    // Unrelated.
    assert!(
        index
            .check_and_insert(&document("other", &tokens(3, 2000)))
            .unwrap()
            .is_new()
    );
    // A larger page around a known one is new, and says what it contains, once its host's
    // template is known (before, the host's first pages share their template: a lookup
    // lists nothing).
    let mut around = tokens(4, 1500);
    around.extend_from_slice(&tokens(3, 2000));
    let mut around = document("around", &around);
    assert!(matches!(
        index.lookup(&around).unwrap(),
        DedupDecision::New { ref contains, .. } if contains.is_empty()
    ));
    around.template_known = true;
    match index.check_and_insert(&around).unwrap() {
        DedupDecision::New {
            id: Some(_),
            contains,
            ..
        } if contains.len() == 1 => {
            let (inner, c) = &contains[0];
            assert_eq!(inner.name, "other");
            assert!(*c >= 0.9);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(index.stats().unwrap().documents, 3);
}

pub fn lookup_does_not_insert_and_remove_forgets(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let index = backend.open();
    let doc = document("a", &tokens(5, 500));
    assert!(matches!(
        index.lookup(&doc).unwrap(),
        DedupDecision::New { id: None, .. }
    ));
    assert!(matches!(
        index.lookup(&doc).unwrap(),
        DedupDecision::New { id: None, .. }
    ));
    let DedupDecision::New { id: Some(id), .. } = index.check_and_insert(&doc).unwrap() else {
        panic!("not new")
    };
    assert!(!index.lookup(&doc).unwrap().is_new());
    assert!(index.remove(id).unwrap());
    assert!(!index.remove(id).unwrap());
    assert!(
        index
            .lookup(&document("b", &tokens(5, 500)))
            .unwrap()
            .is_new()
    );
    assert!(index.check_and_insert(&doc).unwrap().is_new());
}

pub fn concurrent_near_duplicates_never_both_come_back_new(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let index = backend.open();
    for round in 0..20u64 {
        let base = tokens(1000 + round, 1000);
        let threads = 8;
        let barrier = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads as u64)
            .map(|t| {
                let (index, barrier) = (index.clone(), barrier.clone());
                let doc = document(&format!("r{round}-t{t}"), &edited(&base, 5, t));
                std::thread::spawn(move || {
                    barrier.wait();
                    index.check_and_insert(&doc).unwrap().is_new()
                })
            })
            .collect();
        let new = handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .filter(|&is_new| is_new)
            .count();
        assert_eq!(
            new, 1,
            "round {round}: {new} of 8 near-duplicates came back new"
        );
    }
    assert_eq!(index.stats().unwrap().documents, 20);
}

pub fn reopened_index_remembers_and_rebuilds_buckets(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let base = tokens(7, 1000);
    {
        let index = backend.open();
        for i in 0..50 {
            index
                .check_and_insert(&document(&format!("d{i}"), &tokens(100 + i, 800)))
                .unwrap();
        }
        index.check_and_insert(&document("base", &base)).unwrap();
        index.flush().unwrap();
    }
    let index = backend.open();
    assert_eq!(index.stats().unwrap().documents, 51);
    match index
        .check_and_insert(&document("again", &edited(&base, 5, 1)))
        .unwrap()
    {
        DedupDecision::NearDuplicate { of, .. } => assert_eq!(of.name, "base"),
        other => panic!("{other:?}"),
    }
    // Ids continue after the stored ones (and the near duplicate "again", kept as a member).
    assert_fresh_id_follows(backend.as_ref(), index.as_ref(), 52);
}

/// A near duplicate names the original it resembles most, with the exact resemblance of the
/// two shingle sets; a page like a near duplicate names that duplicate's original, since a
/// duplicate is never an original. The same page again gets the answer it got, an exact copy
/// of a member is its exact duplicate, and a reopened index knows them all.
pub fn near_duplicates_name_the_most_resembling_original(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let base = tokens(7, 2000);
    // J(a, x) ≈ 0.9; b is a with 3 more edits: J(b, a) ≈ 0.985, J(b, x) ≈ 0.89.
    let a = edited(&base, 20, 1);
    let b = edited(&a, 3, 2);
    let exact = |p: &[u64], q: &[u64]| {
        let (p, q) = (shingle_set(p, 5), shingle_set(q, 5));
        let set = |s: &[u64]| dedupcrawl_index::compared_shingle_set(s);
        dedupcrawl_index::shingle_counts(&set(&p), &set(&q)).resemblance()
    };
    let x_id;
    let a_similarity;
    {
        let index = backend.open();
        let DedupDecision::New { id: Some(id), .. } =
            index.check_and_insert(&document("x", &base)).unwrap()
        else {
            panic!("x is new")
        };
        x_id = id;
        let DedupDecision::NearDuplicate {
            of,
            similarity,
            reason,
        } = index.check_and_insert(&document("a", &a)).unwrap()
        else {
            panic!("a is a near duplicate of x")
        };
        assert_eq!((of.name.as_str(), of.cluster), ("x", x_id));
        assert_eq!(similarity, exact(&a, &base));
        assert_eq!(reason.verified, Some(similarity));
        assert_eq!(reason.original_record, Some(x_id));
        assert!(reason.estimate.is_some() && reason.shingles.is_some());
        a_similarity = similarity;
        match index.check_and_insert(&document("b", &b)).unwrap() {
            DedupDecision::NearDuplicate { of, similarity, .. } => {
                assert_eq!((of.name.as_str(), of.cluster), ("x", x_id));
                assert_eq!(similarity, exact(&b, &base));
            }
            other => panic!("b should name x, the original: {other:?}"),
        }
        index.flush().unwrap();
    }
    let index = backend.open();
    // The same page again gets the answer it got (a resumed crawl, a second run)...
    match index.check_and_insert(&document("a", &a)).unwrap() {
        DedupDecision::NearDuplicate {
            of,
            similarity,
            reason,
        } => {
            assert_eq!(of.name, "x");
            assert_eq!(similarity, a_similarity);
            assert!(reason.recorded);
        }
        other => panic!("{other:?}"),
    }
    // ...an exact copy of a member is an exact duplicate of it, in its cluster...
    match index.check_and_insert(&document("a-copy", &a)).unwrap() {
        DedupDecision::ExactDuplicate { of, basis, .. } => {
            assert_eq!((of.name.as_str(), of.cluster), ("a", x_id));
            assert_eq!(basis, ExactBasis::NormalizedText);
        }
        other => panic!("{other:?}"),
    }
    // ...and a reopened index still finds the original.
    match index
        .check_and_insert(&document("b2", &edited(&a, 3, 3)))
        .unwrap()
    {
        DedupDecision::NearDuplicate { of, .. } => assert_eq!(of.name, "x"),
        other => panic!("{other:?}"),
    }
    // x, a, b, b2 hold ids 0..4: the repeated "a" and the exact copy recorded nothing.
    assert_fresh_id_follows(backend.as_ref(), index.as_ref(), 4);
    assert_eq!(index.stats().unwrap().documents, 2);
}

/// x; a = x with 8 of 100 shingles replaced (J 0.85, a near duplicate of x); pages like a
/// (J ≥ 0.8) that drift from x: one 0.72 like x is new, since a duplicate names an original
/// (a page that is not like anything archived is archived), and a page like it names it.
pub fn a_page_only_like_a_duplicate_and_not_like_any_original_is_new(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let mut rng = StdRng::seed_from_u64(5);
    let x: Vec<u64> = (0..100).map(|_| rng.random()).collect();
    let mut a = x.clone();
    for value in a.iter_mut().take(8) {
        *value = rng.random();
    }
    // 8 more of a's values replaced: J(., a) = 92 / 108, J(., x) = 84 / 116.
    let mut drifted = a.clone();
    for value in drifted.iter_mut().skip(50).take(8) {
        *value = rng.random();
    }
    assert!(
        index
            .check_and_insert(&small_document("x", &x))
            .unwrap()
            .is_new()
    );
    match index.check_and_insert(&small_document("a", &a)).unwrap() {
        DedupDecision::NearDuplicate { of, .. } => assert_eq!(of.name, "x"),
        other => panic!("{other:?}"),
    }
    match index
        .check_and_insert(&small_document("drifted", &drifted))
        .unwrap()
    {
        DedupDecision::New { reason, .. } => {
            let closest = reason.closest.expect("x was compared");
            assert_eq!(closest.name, "x");
            assert!(
                (closest.resemblance - 84.0 / 116.0).abs() < 0.02,
                "{closest:?}"
            );
        }
        other => panic!("0.85 like a duplicate, 0.72 like the original: {other:?}"),
    }
    let mut c = drifted.clone();
    c[99] = rng.random();
    match index.check_and_insert(&small_document("c", &c)).unwrap() {
        DedupDecision::NearDuplicate { of, .. } => assert_eq!(of.name, "drifted"),
        other => panic!("{other:?}"),
    }
}

/// The reported similarity is the exact resemblance of the two shingle sets, whatever their
/// size, never the estimate: pairs at J ≈ 0.83 are near duplicates with exactly that figure,
/// pairs at J ≈ 0.62 are never flagged.
pub fn decisions_are_verified_on_the_exact_shingle_sets(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let index = backend.open();
    let mut rng = StdRng::seed_from_u64(21);
    let mut flagged_below = 0;
    for round in 0..200 {
        // Shared shingles, plus 4/40 (J ≈ 0.83) or 12/120 (J ≈ 0.62) of each document's own,
        // on small and on large sets.
        let scale = if round % 4 < 2 { 1 } else { 10 };
        let common: Vec<u64> = (0..40 * scale).map(|_| rng.random()).collect();
        let own = if round % 2 == 0 { 4 } else { 12 } * scale;
        let mut a = common.clone();
        let mut b = common.clone();
        a.extend((0..own).map(|_| rng.random::<u64>()));
        b.extend((0..own).map(|_| rng.random::<u64>()));
        a.sort_unstable();
        b.sort_unstable();
        let truth = dedupcrawl_sketch::jaccard(&a, &b);
        index
            .check_and_insert(&small_document(&format!("a{round}"), &a))
            .unwrap();
        match index
            .check_and_insert(&small_document(&format!("b{round}"), &b))
            .unwrap()
        {
            DedupDecision::NearDuplicate {
                similarity, reason, ..
            } => {
                assert!(
                    (similarity - truth).abs() < 1e-9,
                    "{similarity} vs exact {truth}"
                );
                assert_eq!(reason.verified, Some(similarity));
                flagged_below += (truth < 0.8) as usize;
            }
            DedupDecision::New { .. } => {
                // Only a pair below the threshold (or one LSH missed) may come back new.
                assert!(truth < 0.8 || round % 2 == 0, "{truth}");
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(flagged_below, 0);
}

/// A hostile page of a million distinct one-word paragraphs (10 MB of `<p>w1</p>`) is indexed
/// like any other, and its copy found: its record keeps a bounded share of its block keys
/// (`MAX_RECORD_BLOCKS`). Before the bound the record (36 MB) was past what the store takes,
/// and the error stopped the crawl. A page of 6 million shingles (a 40 MB text) has a MOD_m
/// sample of 100,000 values, whose length wrapped 16 bits: the index did not open again.
pub fn a_huge_page_is_indexed_and_the_index_opens_again(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let blocks = 1_000_000u64;
    let text = tokens(9_000, 400);
    let mut page = document("hostile/paragraphs", &text);
    page.host = "hostile.example".into();
    page.block_fingerprints = (0..blocks).map(|k| k * 7_919 + 1).collect();
    page.own_content = page
        .block_fingerprints
        .iter()
        .map(|&key| ContentUnit { key, tokens: 1 })
        .collect();
    page.template_known = true;
    page.mod_sample = Some(ModSample {
        modulus: 64,
        values: (1..=100_000u64).map(|v| v * 64 * 3).collect(),
    });
    {
        let index = backend.open();
        assert!(index.check_and_insert(&page).unwrap().is_new());
        index.flush().unwrap();
    }
    let index = backend.open();
    let mut copy = page.clone();
    copy.name = "hostile/paragraphs-again".into();
    match index.check_and_insert(&copy).unwrap() {
        DedupDecision::ExactDuplicate { of, .. } => assert_eq!(of.name, "hostile/paragraphs"),
        other => panic!("the copy: {other:?}"),
    }
}

/// [`dedupcrawl_index::MIN_PART_TOKENS`]: a page whose compared text is all link lists (a
/// section's table of contents, a letter of an index: `prose_tokens` under the minimum) is
/// not `contained` in the larger listing that holds its shingles, and is not listed in the
/// `contains` of a page around it; with prose it is, both ways.
pub fn a_listing_without_prose_is_no_part_of_a_larger_listing(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let contents = tokens(21, 2000);
    assert!(
        index
            .check_and_insert(&document("contents", &contents))
            .unwrap()
            .is_new()
    );
    let listing = |name: &str, text: &[u64], prose_tokens: u32| DocumentFingerprint {
        prose_tokens,
        ..document(name, text)
    };
    let short = dedupcrawl_index::MIN_PART_TOKENS - 1;
    let decision = index
        .check_and_insert(&listing("section", &contents[..400], short))
        .unwrap();
    assert!(decision.is_new(), "{decision:?}");
    assert_eq!(decision.reason().prose_tokens, Some(short));
    match index
        .check_and_insert(&listing(
            "part",
            &contents[400..800],
            dedupcrawl_index::MIN_PART_TOKENS,
        ))
        .unwrap()
    {
        DedupDecision::Contained { within, .. } => assert_eq!(within.name, "contents"),
        other => panic!("{other:?}"),
    }
    // The other way round: a page around two recorded pages lists the one with prose only.
    let (table, chapter) = (tokens(22, 300), tokens(24, 300));
    for (name, text, prose_tokens) in [("table", &table, short), ("chapter", &chapter, 40)] {
        let recorded = DocumentFingerprint {
            prose_tokens,
            ..document(name, text)
        };
        assert!(index.check_and_insert(&recorded).unwrap().is_new());
    }
    let mut around = tokens(23, 1500);
    around.extend_from_slice(&table);
    around.extend_from_slice(&chapter);
    let around = DocumentFingerprint {
        template_known: true,
        ..document("around", &around)
    };
    match index.check_and_insert(&around).unwrap() {
        DedupDecision::New { contains, .. } => {
            let listed: Vec<&str> = contains.iter().map(|(d, _)| d.name.as_str()).collect();
            assert_eq!(listed, ["chapter"]);
        }
        other => panic!("{other:?}"),
    }
}
