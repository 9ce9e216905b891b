//! The PostgreSQL index ([`PostgresDedupIndex`]) on a real server (`DEDUPCRAWL_TEST_POSTGRES`;
//! fails without one): the shared behaviour suite, check-and-insert racing across separate
//! index handles (separate pools, like separate processes), settings checks, and crawls
//! sharing one database without meeting.

use crate::index_suite;
use crate::postgres_support;

use std::sync::{Arc, Barrier};

use dedupcrawl_index::{DedupIndex, IndexConfig, IndexError, PostgresDedupIndex};
use index_suite::{document, edited, tokens};

fn connect(crawl: &str) -> PostgresDedupIndex {
    PostgresDedupIndex::connect(
        &postgres_support::server_url(),
        crawl,
        IndexConfig::default(),
    )
    .unwrap_or_else(|error| panic!("cannot open the PostgreSQL index: {error}"))
}

/// The PostgreSQL backend on a crawl of its own.
struct Postgres {
    crawl: String,
}

impl index_suite::Backend for Postgres {
    fn open(&self) -> Arc<dyn DedupIndex> {
        Arc::new(connect(&self.crawl))
    }
    fn dense_ids(&self) -> bool {
        false
    }
}

fn postgres() -> Box<dyn index_suite::Backend> {
    Box::new(Postgres {
        crawl: postgres_support::fresh_crawl(),
    })
}

dedup_index_suite!(postgres);

/// Four index handles (four pools, as four worker processes would have) on one crawl race
/// groups of near duplicates: exactly one of each group comes back new.
#[test]
fn four_handles_racing_near_duplicates_get_one_new_per_group() {
    let crawl = postgres_support::fresh_crawl();
    let handles: Vec<Arc<PostgresDedupIndex>> = (0..4).map(|_| Arc::new(connect(&crawl))).collect();
    let rounds = 10u64;
    for round in 0..rounds {
        let base = tokens(5_000 + round, 1000);
        let threads = 8;
        let barrier = Arc::new(Barrier::new(threads));
        let racers: Vec<_> = (0..threads as u64)
            .map(|t| {
                let index = handles[t as usize % handles.len()].clone();
                let barrier = barrier.clone();
                let doc = document(&format!("r{round}-t{t}"), &edited(&base, 5, t));
                std::thread::spawn(move || {
                    barrier.wait();
                    index.check_and_insert(&doc).unwrap().is_new()
                })
            })
            .collect();
        let new = racers
            .into_iter()
            .map(|h| h.join().unwrap())
            .filter(|&is_new| is_new)
            .count();
        assert_eq!(
            new, 1,
            "round {round}: {new} of 8 near duplicates came back new"
        );
    }
    for handle in &handles {
        assert_eq!(handle.stats().unwrap().documents, rounds);
    }
}

/// Unrelated documents checked at the same moment by four handles (their checks share no
/// lock key and run at once) are all new, each under its own id.
#[test]
fn four_handles_racing_distinct_documents_all_get_their_own_id() {
    let crawl = postgres_support::fresh_crawl();
    let handles: Vec<Arc<PostgresDedupIndex>> = (0..4).map(|_| Arc::new(connect(&crawl))).collect();
    let threads = 8u64;
    let rounds = 5u64;
    let mut ids = std::collections::HashSet::new();
    for round in 0..rounds {
        let barrier = Arc::new(Barrier::new(threads as usize));
        let racers: Vec<_> = (0..threads)
            .map(|t| {
                let index = handles[t as usize % handles.len()].clone();
                let barrier = barrier.clone();
                let doc = document(
                    &format!("d{round}-{t}"),
                    &tokens(90_000 + round * 100 + t, 800),
                );
                std::thread::spawn(move || {
                    barrier.wait();
                    index.check_and_insert(&doc).unwrap()
                })
            })
            .collect();
        for racer in racers {
            let decision = racer.join().unwrap();
            assert!(decision.is_new(), "{decision:?}");
            let id = match decision {
                dedupcrawl_index::DedupDecision::New { id: Some(id), .. } => id,
                other => panic!("{other:?}"),
            };
            assert!(ids.insert(id), "id {id} given twice");
        }
    }
    assert_eq!(handles[0].stats().unwrap().documents, threads * rounds);
}

/// Two crawls in one database keep apart: the same page is new in each.
#[test]
fn crawls_sharing_a_database_do_not_meet() {
    let (a, b) = (
        connect(&postgres_support::fresh_crawl()),
        connect(&postgres_support::fresh_crawl()),
    );
    let doc = document("page", &tokens(77, 600));
    assert!(a.check_and_insert(&doc).unwrap().is_new());
    assert!(b.check_and_insert(&doc).unwrap().is_new());
    assert!(!a.check_and_insert(&doc).unwrap().is_new());
    assert_eq!(a.stats().unwrap().documents, 1);
    assert_eq!(b.stats().unwrap().documents, 1);
}

/// Reopening a crawl's index with other signature settings is a clear error.
#[test]
fn other_signature_settings_are_refused() {
    let crawl = postgres_support::fresh_crawl();
    drop(connect(&crawl));
    let error = PostgresDedupIndex::connect(
        &postgres_support::server_url(),
        &crawl,
        IndexConfig::for_threshold(0.8, 64),
    )
    .unwrap_err();
    assert!(
        matches!(error, IndexError::ParameterMismatch { .. }),
        "{error}"
    );
}

/// Block counts and host page counts are learnt from originals, as in the embedded index: at
/// once in the handle that decided them, and in another handle (another worker) once written
/// (`flush`, or without it after enough originals).
#[test]
fn block_counts_count_originals_per_host() {
    let crawl = postgres_support::fresh_crawl();
    let (index, other) = (connect(&crawl), connect(&crawl));
    for (i, blocks) in [vec![1u64, 2], vec![1], vec![1, 3]].into_iter().enumerate() {
        let mut doc = document(&format!("p{i}"), &tokens(300 + i as u64, 600));
        doc.block_fingerprints = blocks;
        assert!(index.check_and_insert(&doc).unwrap().is_new());
    }
    let expected = vec![3, 1, 1, 0];
    let counts = |index: &PostgresDedupIndex| {
        index
            .block_page_counts("example.org", &[1, 2, 3, 4])
            .unwrap()
    };
    assert_eq!(counts(&index), expected);
    assert_eq!(index.host_document_count("example.org").unwrap(), 3);
    assert_eq!(index.host_document_count("other.org").unwrap(), 0);
    index.flush().unwrap();
    assert_eq!(counts(&other), expected);
    assert_eq!(other.host_document_count("example.org").unwrap(), 3);
    // Written and kept counts add up in the handle that keeps some.
    let mut doc = document("p3", &tokens(303, 600));
    doc.block_fingerprints = vec![1, 4];
    assert!(index.check_and_insert(&doc).unwrap().is_new());
    assert_eq!(counts(&index), vec![4, 1, 1, 1]);
    assert_eq!(index.host_document_count("example.org").unwrap(), 4);

    // A worker that never flushes still writes its counts as it goes (every 64 originals at
    // most): another sees all but the last few.
    let originals = 200u64;
    for i in 0..originals {
        let mut doc = document(&format!("q{i}"), &tokens(1_000 + i, 600));
        doc.block_fingerprints = vec![9];
        assert!(index.check_and_insert(&doc).unwrap().is_new());
    }
    let seen = other.block_page_counts("example.org", &[9]).unwrap()[0];
    assert!(
        (u32::try_from(originals).unwrap() - 64..=u32::try_from(originals).unwrap())
            .contains(&seen),
        "another handle sees {seen} of {originals} originals' block"
    );
    assert_eq!(
        index.block_page_counts("example.org", &[9]).unwrap(),
        vec![200]
    );
}

/// A decision whose COMMIT was applied but whose answer was lost with the connection (a
/// server restarting at that moment) runs again: it must come back with its first decision,
/// not find its own document as an exact duplicate, and the document is stored once.
#[test]
fn a_decision_whose_commit_answer_was_lost_keeps_its_decision() {
    let cutter =
        postgres_support::commit_cutter::CommitCutter::start(&postgres_support::server_url());
    let crawl = postgres_support::fresh_crawl();
    let index = PostgresDedupIndex::connect(cutter.url(), &crawl, IndexConfig::default())
        .unwrap_or_else(|error| panic!("cannot open the PostgreSQL index: {error}"));
    let text = tokens(9_001, 800);
    cutter.arm();
    let decision = index
        .check_and_insert(&document("lost-commit", &text))
        .expect("the decision goes on after the lost connection");
    assert_eq!(cutter.cuts(), 1, "the COMMIT's answer was cut");
    assert!(
        matches!(
            decision,
            dedupcrawl_index::DedupDecision::New { id: Some(_), .. }
        ),
        "{decision:?}"
    );
    assert_eq!(index.stats().expect("stats").documents, 1, "stored once");
    let copy = index
        .check_and_insert(&document("lost-commit-copy", &text))
        .expect("check");
    assert!(
        matches!(copy, dedupcrawl_index::DedupDecision::ExactDuplicate { .. }),
        "{copy:?}"
    );
}

/// The largest number of rows of `index_bucket` of the crawl under one bucket.
fn most_bucket_members(crawl: &str) -> i64 {
    count_in(
        crawl,
        "SELECT COALESCE(max(n), 0) FROM (SELECT count(*) AS n FROM index_bucket \
         WHERE crawl = $1 GROUP BY band, bucket_key) AS per_key",
    )
}

/// The longest posting list of the crawl.
fn most_postings(crawl: &str) -> i64 {
    count_in(
        crawl,
        "SELECT COALESCE(max(cardinality(ids)), 0)::int8 FROM index_posting_list WHERE crawl = $1",
    )
}

/// The one number `query` (with the crawl as `$1`) returns.
fn count_in(crawl: &str, query: &str) -> i64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let pool = sqlx::PgPool::connect(&postgres_support::server_url())
            .await
            .expect("connect");
        sqlx::query_scalar(query)
            .bind(crawl)
            .fetch_one(&pool)
            .await
            .expect("count rows")
    })
}

/// An LSH bucket keeps its first 1,024 members (the embedded index's cap: both backends
/// decide alike): 1,100 copies of one page with the same signature fill their buckets, and
/// every later copy is still decided (a near duplicate of the first), not stored in them.
#[test]
fn a_full_lsh_bucket_takes_no_more_members() {
    let crawl = postgres_support::fresh_crawl();
    let index = connect(&crawl);
    let base = tokens(4_242, 600);
    for i in 0..1_100 {
        // Same signature, another payload and no token digest: near, not exact, duplicates.
        let doc = dedupcrawl_index::DocumentFingerprint {
            tokens: None,
            ..document(&format!("copy-{i}"), &base)
        };
        let decision = index.check_and_insert(&doc).expect("check");
        assert_eq!(decision.is_new(), i == 0, "copy {i}: {decision:?}");
    }
    assert_eq!(most_bucket_members(&crawl), 1_024);
}

/// A sampled shingle keeps its first 256 postings: 300 originals sharing half their text
/// (not duplicates of each other) post shared samples, and none gets more.
#[test]
fn a_sample_keeps_its_first_256_postings() {
    let crawl = postgres_support::fresh_crawl();
    let index = connect(&crawl);
    let shared = tokens(8_080, 1_000);
    for i in 0..300u64 {
        let mut text = shared.clone();
        text.extend((0..1_000).map(|n| 10_000_000 + i * 10_000 + n));
        let decision = index
            .check_and_insert(&document(&format!("original-{i}"), &text))
            .expect("check");
        assert!(decision.is_new(), "original {i}: {decision:?}");
    }
    assert_eq!(most_postings(&crawl), 256);
}
