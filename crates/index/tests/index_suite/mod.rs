//! The behaviour every [`DedupIndex`] backend must show: decisions (exact, near, contained,
//! new), lookups and removal, atomic check-and-insert under concurrency, reopening, cluster
//! links, small documents. Each case takes a function that makes a [`Backend`] on fresh
//! state; [`dedup_index_suite!`] turns every case into a `#[test]` for one backend (the
//! embedded one in `tests/index.rs`).

use std::sync::{Arc, Barrier};

use dedupcrawl_index::{ContentUnit, DedupDecision, DedupIndex, DocumentFingerprint, ExactBasis};
use dedupcrawl_sketch::{
    BlockSketch, MinHasher, ModSample, PayloadDigest, TokenDigest, shingle_set,
};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

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
        $crate::dedup_index_suite!(@cases $new_backend; decisions_exact_near_contained_and_new, lookup_does_not_insert_and_remove_forgets, concurrent_near_duplicates_never_both_come_back_new, reopened_index_remembers_and_rebuilds_buckets, near_duplicates_link_to_the_closest_page_and_stay_in_its_cluster, a_page_only_like_a_duplicate_and_not_like_any_original_is_new, small_documents_are_verified_by_exact_resemblance, a_copy_on_another_host_that_adds_a_note_is_a_near_duplicate, a_long_page_and_its_many_parts_find_each_other, a_sibling_with_the_same_shared_docs_is_not_listed_inside, short_parts_and_their_one_page_edition_find_each_other_by_blocks, siblings_on_one_template_that_differ_in_their_titles_are_both_kept, a_huge_page_is_indexed_and_the_index_opens_again);
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

pub fn document(name: &str, token_hashes: &[u64]) -> DocumentFingerprint {
    let shingles = shingle_set(token_hashes, 5);
    DocumentFingerprint {
        tokens: Some(TokenDigest::of(token_hashes)),
        signature: MinHasher::new(128).signature(&shingles),
        mod_sample: Some(ModSample::from_shingles(&shingles)),
        ..DocumentFingerprint::new(name, "example.org", PayloadDigest::of(name.as_bytes()))
    }
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

/// A document given as its shingle set, small enough to be compared exactly.
pub fn small_document(name: &str, shingles: &[u64]) -> DocumentFingerprint {
    DocumentFingerprint {
        signature: MinHasher::new(128).signature(shingles),
        ..DocumentFingerprint::new(name, "example.org", PayloadDigest::of(name.as_bytes()))
    }
    .with_small_shingles(shingles)
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
        DedupDecision::ExactDuplicate { of, basis } => {
            assert_eq!((of.name.as_str(), basis), ("base", ExactBasis::Payload))
        }
        other => panic!("{other:?}"),
    }
    // Other bytes, same tokens.
    match index
        .check_and_insert(&document("retemplated", &base))
        .unwrap()
    {
        DedupDecision::ExactDuplicate { of, basis } => {
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
        DedupDecision::NearDuplicate { of, similarity } => {
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

pub fn near_duplicates_link_to_the_closest_page_and_stay_in_its_cluster(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let base = tokens(7, 2000);
    // J(a, x) ≈ 0.9; b is a with 3 more edits: J(b, a) ≈ 0.985, J(b, x) ≈ 0.89.
    let a = edited(&base, 20, 1);
    let b = edited(&a, 3, 2);
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
        let DedupDecision::NearDuplicate { of, similarity } =
            index.check_and_insert(&document("a", &a)).unwrap()
        else {
            panic!("a is a near duplicate of x")
        };
        assert_eq!((of.name.as_str(), of.cluster), ("x", x_id));
        a_similarity = similarity;
        match index.check_and_insert(&document("b", &b)).unwrap() {
            DedupDecision::NearDuplicate { of, similarity } => {
                assert_eq!((of.name.as_str(), of.cluster), ("a", x_id));
                assert!(similarity > a_similarity, "{similarity} vs {a_similarity}");
            }
            other => panic!("b should name a, its closest page: {other:?}"),
        }
        index.flush().unwrap();
    }
    let index = backend.open();
    // The same page again gets the answer it got (a resumed crawl, a second run)...
    match index.check_and_insert(&document("a", &a)).unwrap() {
        DedupDecision::NearDuplicate { of, similarity } => {
            assert_eq!(of.name, "x");
            assert_eq!(similarity, a_similarity);
        }
        other => panic!("{other:?}"),
    }
    // ...an exact copy of a member is an exact duplicate of it, in its cluster...
    match index.check_and_insert(&document("a-copy", &a)).unwrap() {
        DedupDecision::ExactDuplicate { of, basis } => {
            assert_eq!((of.name.as_str(), of.cluster), ("a", x_id));
            assert_eq!(basis, ExactBasis::NormalizedText);
        }
        other => panic!("{other:?}"),
    }
    // ...and a reopened index still finds the members.
    match index
        .check_and_insert(&document("b2", &edited(&a, 3, 3)))
        .unwrap()
    {
        DedupDecision::NearDuplicate { of, .. } => {
            assert!(["a", "b"].contains(&of.name.as_str()), "{}", of.name);
            assert_eq!(of.cluster, x_id);
        }
        other => panic!("{other:?}"),
    }
    // x, a, b, b2 hold ids 0..4: the repeated "a" and the exact copy recorded nothing.
    assert_fresh_id_follows(backend.as_ref(), index.as_ref(), 4);
    assert_eq!(index.stats().unwrap().documents, 2);
}

pub fn a_page_only_like_a_duplicate_and_not_like_any_original_is_new(
    new_backend: fn() -> Box<dyn Backend>,
) {
    // Small sets: resemblance is exact. x; a = x with 8 of 100 replaced (J 0.85); then pages
    // like a (J ≥ 0.8) that drift from x. One that is still 0.72 like x joins the cluster (a
    // re-exported copy of a near duplicate); one 0.69 like x (more than 0.1 under the
    // threshold) must be archived, not dropped as "like a page that was itself dropped".
    let backend = new_backend();
    let index = backend.open();
    let mut rng = StdRng::seed_from_u64(5);
    let x: Vec<u64> = (0..100).map(|_| rng.random()).collect();
    let mut a = x.clone();
    for value in a.iter_mut().take(8) {
        *value = rng.random();
    }
    // `k` more of a's values replaced: J(., a) = (100 - k) / (100 + k), J(., x) = (92 - k) /
    // (108 + k).
    let drifted = |rng: &mut StdRng, k: usize| {
        let mut page = a.clone();
        for value in page.iter_mut().skip(50).take(k) {
            *value = rng.random();
        }
        page
    };
    let (near, far) = (drifted(&mut rng, 8), drifted(&mut rng, 10));
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
        .check_and_insert(&small_document("near", &near))
        .unwrap()
    {
        DedupDecision::NearDuplicate { of, similarity } => {
            assert_eq!(of.name, "a", "J 0.85 with a, 0.72 with x");
            assert!((similarity - 92.0 / 108.0).abs() < 1e-9, "{similarity}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        index
            .check_and_insert(&small_document("far", &far))
            .unwrap()
            .is_new(),
        "far is 0.82 like a but 0.69 like x, the only original"
    );
    // far is an original now: a page like it names it.
    let mut c = far.clone();
    c[99] = rng.random();
    match index.check_and_insert(&small_document("c", &c)).unwrap() {
        DedupDecision::NearDuplicate { of, .. } => assert_eq!(of.name, "far"),
        other => panic!("{other:?}"),
    }
}

pub fn small_documents_are_verified_by_exact_resemblance(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let index = backend.open();
    let mut rng = StdRng::seed_from_u64(21);
    let mut flagged_below = 0;
    for round in 0..200 {
        // 40 shared shingles, plus 4 (J ≈ 0.83) or 12 (J ≈ 0.62) of each document's own.
        let common: Vec<u64> = (0..40).map(|_| rng.random()).collect();
        let own = if round % 2 == 0 { 4 } else { 12 };
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
            DedupDecision::NearDuplicate { similarity, .. } => {
                assert!(
                    (similarity - truth).abs() < 1e-9,
                    "{similarity} vs exact {truth}"
                );
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

/// A page of `host` made of `paragraphs` (its substantial content blocks), each followed in
/// the token stream by a token of the host's own (an ad label, a link: what sits between the
/// paragraphs of a page in another template), so its shingles resemble another host's copy
/// well below the blocks.
fn page_of_blocks(name: &str, host: &str, paragraphs: &[Vec<u64>]) -> DocumentFingerprint {
    let mut page = page_of_short_and_long_blocks(name, host, paragraphs);
    // Every block sketched, however short.
    page.block_sketches = paragraphs.iter().map(|p| BlockSketch::of(p)).collect();
    for (unit, p) in page.own_content.iter_mut().zip(paragraphs) {
        unit.sketch = Some(BlockSketch::of(p));
    }
    page
}

/// A page of `paragraphs` as the pipeline makes it: a block of 12 tokens or more has a
/// sketch, a shorter one (a heading, a one-line summary) only its key.
fn page_of_short_and_long_blocks(
    name: &str,
    host: &str,
    paragraphs: &[Vec<u64>],
) -> DocumentFingerprint {
    let host_token = 10_000_000 + host.len() as u64;
    let stream: Vec<u64> = paragraphs
        .iter()
        .flat_map(|p| p.iter().copied().chain([host_token]))
        .collect();
    let sketches: Vec<Option<BlockSketch>> = paragraphs
        .iter()
        .map(|p| (p.len() >= 12).then(|| BlockSketch::of(p)))
        .collect();
    let keys: Vec<u64> = paragraphs.iter().map(|p| p[0] * 31 + p[1]).collect();
    DocumentFingerprint {
        host: host.into(),
        block_fingerprints: keys.clone(),
        block_sketches: sketches.iter().flatten().copied().collect(),
        own_content: keys
            .iter()
            .zip(&sketches)
            .zip(paragraphs)
            .map(|((&key, &sketch), p)| ContentUnit {
                key,
                tokens: p.len() as u16,
                sketch,
            })
            .collect(),
        own_sequence: keys,
        template_known: true,
        ..document(name, &stream)
    }
}

/// A reprint on another host that holds all of the original and adds a note of its own (an
/// editor's note of a quarter of the article) is a near duplicate of it, although its
/// resemblance is a little under the threshold; one that adds half as much again is a page
/// of its own that lists the original in `contains`.
pub fn a_copy_on_another_host_that_adds_a_note_is_a_near_duplicate(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let article: Vec<Vec<u64>> = (0..8).map(|k| tokens(100 + k, 30)).collect();
    let original = page_of_blocks("news/article", "news.example", &article);
    assert!(index.check_and_insert(&original).unwrap().is_new());
    let with = |name: &str, note_tokens: usize| {
        let mut blocks = article.clone();
        blocks.push(tokens(200 + note_tokens as u64, note_tokens));
        page_of_blocks(name, "mirror.example", &blocks)
    };
    // 240 tokens of the article and a note of 64: 0.79 of the copy is the original.
    match index.check_and_insert(&with("mirror/noted", 64)).unwrap() {
        DedupDecision::NearDuplicate { of, similarity } => {
            assert_eq!(of.name, "news/article");
            assert!((0.75..0.8).contains(&similarity), "{similarity}");
        }
        other => panic!("a copy with an editor's note: {other:?}"),
    }
    // A note of 130: the original is 0.65 of the page.
    match index
        .check_and_insert(&with("mirror/commented", 130))
        .unwrap()
    {
        DedupDecision::New { contains, .. } => {
            let names: Vec<&str> = contains.iter().map(|(d, _)| d.name.as_str()).collect();
            assert_eq!(names, ["news/article"]);
        }
        other => panic!("a page that quotes the article: {other:?}"),
    }
}

/// A book's one-page version and its chapters, on one host: the chapters fetched before it are
/// listed in its `contains` (more of them than a page is checked against for containment
/// otherwise), and those fetched after it are contained in it. Each chapter (2,000 tokens) is a
/// fortieth of the whole: the whole's 16 most divisible sampled shingles are in none of them,
/// so it must post (and probe) more.
pub fn a_long_page_and_its_many_parts_find_each_other(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let index = backend.open();
    let chapters: Vec<Vec<Vec<u64>>> = (0..40)
        .map(|c| (0..8).map(|p| tokens(1_000 + c * 10 + p, 250)).collect())
        .collect();
    let chapter =
        |c: usize| page_of_blocks(&format!("book/ch{c:02}"), "book.example", &chapters[c]);
    for c in 0..24 {
        assert!(
            index.check_and_insert(&chapter(c)).unwrap().is_new(),
            "chapter {c}"
        );
    }
    let all: Vec<Vec<u64>> = chapters.iter().flatten().cloned().collect();
    let whole = page_of_blocks("book/print", "book.example", &all);
    match index.check_and_insert(&whole).unwrap() {
        DedupDecision::New { contains, .. } => {
            let mut names: Vec<&str> = contains.iter().map(|(d, _)| d.name.as_str()).collect();
            names.sort_unstable();
            let expected: Vec<String> = (0..24).map(|c| format!("book/ch{c:02}")).collect();
            assert_eq!(names, expected, "the chapters before the whole");
        }
        other => panic!("the one-page version: {other:?}"),
    }
    for c in 24..40 {
        match index.check_and_insert(&chapter(c)).unwrap() {
            DedupDecision::Contained {
                within,
                containment,
            } => {
                assert_eq!(within.name, "book/print", "chapter {c}");
                assert!(containment >= 0.9, "chapter {c}: {containment}");
            }
            other => panic!("chapter {c} after the whole: {other:?}"),
        }
    }
}

/// Two pages of one host that share their long blocks (rustdoc's trait docs under two
/// iterator structs), the smaller with a heading, a summary and a declaration of its own,
/// each under 12 tokens: the larger does not list the smaller in `contains`, though nearly
/// all of the smaller's shingles are in it (18 tokens of its own are missing there). A part
/// whose blocks are all in the larger page bar a few words of its own (its heading, pager, a
/// man page's section titles: 4 blocks, 8 tokens) is listed: it was not while the rule
/// counted blocks (at most 2 missing) rather than their tokens.
pub fn a_sibling_with_the_same_shared_docs_is_not_listed_inside(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let shared: Vec<Vec<u64>> = (0..6).map(|k| tokens(3_000 + k, 60)).collect();
    let own = |seed: u64| -> Vec<Vec<u64>> { (0..3).map(|k| tokens(seed + k, 6)).collect() };
    let small: Vec<Vec<u64>> = own(4_000).into_iter().chain(shared.clone()).collect();
    // A part's own blocks are a few words each (its heading, pager, a man page's section
    // titles): 4 blocks, 8 tokens in all, none of them in the larger page.
    let chapter: Vec<Vec<u64>> = (0..3).map(|k| tokens(8_000 + k, 60)).collect();
    let part: Vec<Vec<u64>> = (0..4)
        .map(|k| tokens(5_000 + k, 2))
        .chain(chapter.clone())
        .collect();
    let mut large: Vec<Vec<u64>> = own(6_000).into_iter().chain(shared.clone()).collect();
    large.extend((0..6).map(|k| tokens(7_000 + k, 60)));
    // The host's template is known from earlier pages.
    let small_page = page_of_short_and_long_blocks("api/DecodeUtf16", "docs.example", &small);
    assert!(index.check_and_insert(&small_page).unwrap().is_new());
    let part_page = page_of_short_and_long_blocks("book/part", "docs.example", &part);
    assert!(index.check_and_insert(&part_page).unwrap().is_new());
    let mut large_blocks = large.clone();
    large_blocks.extend(chapter);
    let large_page =
        page_of_short_and_long_blocks("api/EscapeDefault", "docs.example", &large_blocks);
    match index.check_and_insert(&large_page).unwrap() {
        DedupDecision::New { contains, .. } => {
            let names: Vec<&str> = contains.iter().map(|(d, _)| d.name.as_str()).collect();
            assert!(
                !names.contains(&"api/DecodeUtf16"),
                "a sibling with its own heading, summary and declaration: {names:?}"
            );
            assert!(names.contains(&"book/part"), "{names:?}");
        }
        other => panic!("the larger page: {other:?}"),
    }
}

/// Two API pages of one generator that share an inherited-method list of about 200 tokens and
/// differ only in their titles, source files and constructors (6 tokens, under the
/// own-content check's 12; Crystal's exception classes): each is archived. A copy of the first
/// with a line of noise is still its near duplicate, and without their titles the two pages
/// would be one (the case fails without the title rule).
pub fn siblings_on_one_template_that_differ_in_their_titles_are_both_kept(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    let inherited: Vec<Vec<u64>> = (0..6).map(|k| tokens(9_000 + k, 32)).collect();
    let class_page = |name: &str, seed: u64, titled: bool| {
        // Title, source file and constructor, 2 tokens each: 6 tokens of its own, before and
        // after the inherited lists.
        let mut blocks = vec![tokens(seed, 2), tokens(seed + 1, 2)];
        blocks.extend(inherited.iter().cloned());
        blocks.push(tokens(seed + 2, 2));
        let mut page = page_of_short_and_long_blocks(name, "api.example", &blocks);
        if titled {
            page.name_block = Some(page.own_sequence[0]);
        }
        page
    };
    let first = class_page("api/ArgumentError", 9_100, true);
    assert!(index.check_and_insert(&first).unwrap().is_new());
    let sibling = class_page("api/Channel/ClosedError", 9_200, true);
    match index.check_and_insert(&sibling).unwrap() {
        DedupDecision::New { .. } => {}
        other => panic!("a sibling with its own title: {other:?}"),
    }
    let untitled = class_page("api/Iterator/Stop", 9_300, false);
    assert!(
        !index.check_and_insert(&untitled).unwrap().is_new(),
        "without a title the sibling is taken for a copy: the case tests the title"
    );
    let mut noisy_blocks = vec![tokens(9_100, 2), tokens(9_101, 2)];
    noisy_blocks.extend(inherited.iter().cloned());
    noisy_blocks.push(tokens(9_102, 2));
    noisy_blocks.push(tokens(9_150, 3));
    let mut copy =
        page_of_short_and_long_blocks("api/ArgumentError?ref=1", "api.example", &noisy_blocks);
    copy.name_block = Some(copy.own_sequence[0]);
    match index.check_and_insert(&copy).unwrap() {
        DedupDecision::NearDuplicate { of, .. } | DedupDecision::Contained { within: of, .. } => {
            assert_eq!(of.name, "api/ArgumentError")
        }
        other => panic!("a copy keeps its title: {other:?}"),
    }
    // An edition's untranslated page: a translated title, the same file name.
    let mut translated_blocks = noisy_blocks[..noisy_blocks.len() - 1].to_vec();
    translated_blocks[0] = tokens(9_400, 2);
    let mut translated =
        page_of_short_and_long_blocks("es/ArgumentError", "api.example", &translated_blocks);
    translated.name_block = Some(translated.own_sequence[0]);
    match index.check_and_insert(&translated).unwrap() {
        DedupDecision::NearDuplicate { of, .. } | DedupDecision::Contained { within: of, .. } => {
            assert_eq!(of.name, "api/ArgumentError")
        }
        other => panic!("an untranslated copy under a translated title: {other:?}"),
    }
}

/// A book's one-page edition and its short chapters on one host (Rust by Example: a heading, a
/// paragraph and an example, 40 tokens): a chapter has about one sampled shingle in 64 in
/// common with the edition, mostly none, and fewer than 3 substantial blocks, so neither its
/// sample nor the block overlap could vouch for it. By its own blocks (posted and probed) the
/// chapters fetched before the edition are listed in its `contains` and those fetched after
/// it are contained in it; a page that shares only the example is in neither.
pub fn short_parts_and_their_one_page_edition_find_each_other_by_blocks(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let index = backend.open();
    // 120 chapters in the edition (4,800 tokens: a long page), the first 30 also alone.
    let chapters: Vec<Vec<Vec<u64>>> = (0..120u64)
        .map(|c| {
            vec![
                tokens(20_000 + c * 10, 4),
                tokens(20_001 + c * 10, 16),
                tokens(20_002 + c * 10, 20),
            ]
        })
        .collect();
    let host = "rbe.example";
    let chapter =
        |c: usize| page_of_short_and_long_blocks(&format!("rbe/ch{c:02}"), host, &chapters[c]);
    for c in 0..15 {
        assert!(
            index.check_and_insert(&chapter(c)).unwrap().is_new(),
            "chapter {c}"
        );
    }
    // A page of its own (heading, paragraph) that shows the example of chapter `c`.
    let sibling = |name: &str, seed: u64, c: usize| {
        page_of_short_and_long_blocks(
            name,
            host,
            &[
                tokens(seed, 4),
                tokens(seed + 1, 16),
                chapters[c][2].clone(),
            ],
        )
    };
    let sibling_page = sibling("rbe/other", 29_000, 3);
    assert!(index.check_and_insert(&sibling_page).unwrap().is_new());
    let all: Vec<Vec<u64>> = chapters.iter().flatten().cloned().collect();
    let edition = page_of_short_and_long_blocks("rbe/print", host, &all);
    match index.check_and_insert(&edition).unwrap() {
        DedupDecision::New { contains, .. } => {
            let mut names: Vec<&str> = contains.iter().map(|(d, _)| d.name.as_str()).collect();
            names.sort_unstable();
            let expected: Vec<String> = (0..15).map(|c| format!("rbe/ch{c:02}")).collect();
            assert_eq!(
                names, expected,
                "the chapters before the edition, not the sibling"
            );
        }
        other => panic!("the one-page edition: {other:?}"),
    }
    for c in 15..30 {
        match index.check_and_insert(&chapter(c)).unwrap() {
            DedupDecision::Contained { within, .. } => {
                assert_eq!(within.name, "rbe/print", "chapter {c}")
            }
            other => panic!("chapter {c} after the edition: {other:?}"),
        }
    }
    let later_sibling = sibling("rbe/other-later", 29_100, 20);
    assert!(
        index.check_and_insert(&later_sibling).unwrap().is_new(),
        "a page sharing only an example is not inside the edition"
    );
    // A digest of 16 more chapters (all their headings, then all their paragraphs, then all
    // their examples: a page that lists everything, like Javadoc's `class-use/Object.html`)
    // has every block of each, none beside its neighbours: a chapter is not inside it.
    let more: Vec<Vec<Vec<u64>>> = (0..16u64)
        .map(|c| {
            vec![
                tokens(40_000 + c * 10, 4),
                tokens(40_001 + c * 10, 16),
                tokens(40_002 + c * 10, 20),
            ]
        })
        .collect();
    let digest: Vec<Vec<u64>> = (0..3)
        .flat_map(|block| more.iter().map(move |chapter| chapter[block].clone()))
        .collect();
    let digest_page = page_of_short_and_long_blocks("rbe/digest", host, &digest);
    assert!(index.check_and_insert(&digest_page).unwrap().is_new());
    for (c, blocks) in more.iter().enumerate() {
        let page = page_of_short_and_long_blocks(&format!("rbe/more{c:02}"), host, blocks);
        assert!(
            index.check_and_insert(&page).unwrap().is_new(),
            "chapter {c} is not inside a page that has its blocks apart"
        );
    }
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
        .map(|&key| ContentUnit {
            key,
            tokens: 1,
            sketch: None,
        })
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
