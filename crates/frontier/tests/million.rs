//! A million offers against the persistent seen set, the way a crawl makes them: links recur
//! on many pages, so 250,000 distinct URLs are each offered four times (in batches of one
//! page's links). Every repeat must be caught, and the run must stay quick in a debug build.
//!
//! Why not a million distinct URLs: a new URL costs two sled inserts (seen set + host queue)
//! in one transaction, ~30 µs in this workspace's debug profile (opt-level 1), so a million
//! distinct URLs take ~35 s here; 250,000 keep the test near 12 s. A repeat costs one lookup.

use std::time::Instant;

use dedupcrawl_frontier::{
    CanonicalUrl, CanonicalizationRules, Frontier, FrontierEntry, FrontierStore, OfferOutcome,
    PolitenessConfig,
};

const DISTINCT: usize = 250_000;
const REPEATS: usize = 4;
const HOSTS: usize = 1_000;
const BATCH: usize = 500; // about the links of one page

fn entry(rules: &CanonicalizationRules, i: usize) -> FrontierEntry {
    // Tracking parameter and query order vary: canonicalization makes the repeats equal.
    let text = if i.is_multiple_of(2) {
        format!("http://h{}.example/p/{}?b=2&a=1&utm_source=x", i % HOSTS, i)
    } else {
        format!("HTTP://H{}.example:80/p/{}?a=1&b=2", i % HOSTS, i)
    };
    let url = CanonicalUrl::parse(&text, None, rules).expect("valid URL");
    FrontierEntry::link(url, 1, "http://seed.example/")
}

#[test]
fn a_million_offers_hit_the_seen_set() {
    let dir = tempfile::tempdir().unwrap();
    let db = sled::Config::new().path(dir.path()).open().unwrap();
    let frontier =
        Frontier::open(&db, dir.path().join("seen"), PolitenessConfig::default()).unwrap();
    let rules = CanonicalizationRules::default();

    let started = Instant::now();
    let mut enqueued = 0usize;
    let mut already_seen = 0usize;
    for round in 0..REPEATS {
        for start in (0..DISTINCT).step_by(BATCH) {
            // Each round walks the URLs in another order (pages link in any order).
            let batch = (start..start + BATCH).map(|i| {
                let index = (i * [1, 3, 7, 9][round]) % DISTINCT; // coprime: a permutation
                entry(&rules, index)
            });
            for outcome in frontier.offer_all(batch.collect()).unwrap() {
                match outcome {
                    OfferOutcome::Enqueued => enqueued += 1,
                    OfferOutcome::AlreadySeen => already_seen += 1,
                }
            }
        }
        if round == 0 {
            assert_eq!(enqueued, DISTINCT, "first round: every URL is new");
        }
    }
    let elapsed = started.elapsed();

    assert_eq!(enqueued + already_seen, DISTINCT * REPEATS);
    assert_eq!(enqueued, DISTINCT, "no repeat was enqueued");
    let stats = frontier.stats().unwrap();
    assert_eq!(stats.seen, DISTINCT as u64);
    assert_eq!(stats.queued, DISTINCT as u64);
    assert_eq!(stats.hosts, HOSTS);
    // The seen set compacted its recent tier into sorted runs several times on the way.
    let seen = frontier.seen_set_stats();
    assert_eq!(seen.recent + seen.settled, DISTINCT as u64, "{seen:?}");
    assert!(seen.settled >= 3 * 65_536, "{seen:?}");
    eprintln!(
        "{} offers ({DISTINCT} distinct) in {elapsed:?}",
        DISTINCT * REPEATS
    );
}
