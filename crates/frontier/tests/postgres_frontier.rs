//! The shared [`FrontierStore`] behaviour suite on the PostgreSQL backend: a fresh database
//! per case on the server `DEDUPCRAWL_TEST_POSTGRES` names (fails without one).

// The index tests' proxy (one copy for both crates' tests).
use crate::commit_cutter;
use crate::postgres_support;
use crate::store_suite;

use dedupcrawl_frontier::{
    DEFAULT_LEASE, FrontierStore, PolitenessConfig, PostgresFrontierConfig, PostgresFrontierStore,
};

/// One worker of one crawl in a database of its own; reopening is the same worker restarting.
struct Postgres {
    url: String,
}

impl store_suite::Backend for Postgres {
    fn open(&self, politeness: PolitenessConfig) -> Box<dyn FrontierStore> {
        let config = PostgresFrontierConfig {
            url: self.url.clone(),
            crawl: "suite".into(),
            worker: "worker-1".into(),
            lease: DEFAULT_LEASE,
            reconnect_for: dedupcrawl_reconnect::DEFAULT_LIMIT,
        };
        Box::new(PostgresFrontierStore::connect(&config, politeness).expect("connect"))
    }
}

fn postgres() -> Box<dyn store_suite::Backend> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let url = runtime.block_on(postgres_support::fresh_database());
    Box::new(Postgres { url })
}

frontier_store_suite!(postgres);

fn shared_politeness() -> PolitenessConfig {
    PolitenessConfig {
        min_delay: std::time::Duration::ZERO,
        per_host_concurrency: 100,
        global_concurrency: 1000,
        ..PolitenessConfig::default()
    }
}

/// A worker of the crawl `shared` in the database at `url`, with this lease.
fn worker(url: &str, name: &str, lease: std::time::Duration) -> PostgresFrontierStore {
    let config = PostgresFrontierConfig {
        url: url.to_string(),
        crawl: "shared".into(),
        worker: name.into(),
        lease,
        reconnect_for: dedupcrawl_reconnect::DEFAULT_LIMIT,
    };
    PostgresFrontierStore::connect(&config, shared_politeness()).expect("connect")
}

fn fresh_url() -> String {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(postgres_support::fresh_database())
}

fn entry(i: usize) -> dedupcrawl_frontier::FrontierEntry {
    let url = format!("http://h{}.example/{i}", i % 3)
        .parse()
        .expect("a URL");
    dedupcrawl_frontier::FrontierEntry::seed(url)
}

/// Leases everything ready now.
fn drain(store: &PostgresFrontierStore) -> Vec<dedupcrawl_frontier::Lease> {
    let mut leases = Vec::new();
    while let dedupcrawl_frontier::NextUrl::Ready(lease) =
        store.next_ready(std::time::Instant::now()).expect("next")
    {
        leases.push(lease);
    }
    leases
}

#[test]
fn two_workers_never_lease_the_same_url() {
    let url = fresh_url();
    let a = worker(&url, "worker-a", DEFAULT_LEASE);
    let b = worker(&url, "worker-b", DEFAULT_LEASE);
    // Both offer the same URLs: each is enqueued once.
    let outcomes_a = a.offer_all((0..60).map(entry).collect()).expect("offer");
    let outcomes_b = b.offer_all((0..60).map(entry).collect()).expect("offer");
    let enqueued = outcomes_a
        .iter()
        .chain(&outcomes_b)
        .filter(|o| **o == dedupcrawl_frontier::OfferOutcome::Enqueued)
        .count();
    assert_eq!(enqueued, 60);
    let (leases_a, leases_b) = std::thread::scope(|scope| {
        let from_a = scope.spawn(|| drain(&a));
        let from_b = scope.spawn(|| drain(&b));
        (from_a.join().expect("a"), from_b.join().expect("b"))
    });
    let mut urls: Vec<String> = leases_a
        .iter()
        .chain(&leases_b)
        .map(|lease| lease.url().to_string())
        .collect();
    urls.sort();
    let total = urls.len();
    urls.dedup();
    assert_eq!(
        (total, urls.len()),
        (60, 60),
        "every URL leased exactly once"
    );
    // A worker cannot complete the other's lease: the write is fenced on the owner.
    let lease = leases_a
        .first()
        .or(leases_b.first())
        .expect("some lease")
        .clone();
    let other = if leases_a.is_empty() { &a } else { &b };
    assert!(matches!(
        other.complete(lease, dedupcrawl_frontier::HostOutcome::Done),
        Err(dedupcrawl_frontier::FrontierError::UnknownLease(_))
    ));
}

/// Runs `statement` on the database at `url`.
fn execute(url: &str, statement: &str) {
    use sqlx::Connection;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let mut connection = sqlx::PgConnection::connect(url).await.expect("connect");
        sqlx::query(statement)
            .execute(&mut connection)
            .await
            .expect("statement");
    });
}

#[test]
fn keys_a_worker_learnt_are_answered_without_the_database() {
    use dedupcrawl_frontier::OfferOutcome::{AlreadySeen, Enqueued};
    let url = fresh_url();
    let a = worker(&url, "worker-a", DEFAULT_LEASE);
    let b = worker(&url, "worker-b", DEFAULT_LEASE);
    assert_eq!(
        a.offer_all((0..4).map(entry).collect()).expect("offer"),
        vec![Enqueued; 4]
    );
    // B learns from the database that A's URLs are seen; 4 and 5 are new.
    assert_eq!(
        b.offer_all((2..6).map(entry).collect()).expect("offer"),
        vec![AlreadySeen, AlreadySeen, Enqueued, Enqueued]
    );
    // The seen set only grows, so what a worker learnt stays true; to show that the known
    // keys are not asked for again, the test (only) empties the table behind the workers.
    execute(&url, "DELETE FROM frontier_seen");
    assert_eq!(
        b.offer_all((0..7).map(entry).collect()).expect("offer"),
        vec![
            Enqueued,
            Enqueued,
            AlreadySeen,
            AlreadySeen,
            AlreadySeen,
            AlreadySeen,
            Enqueued
        ],
        "0 and 1 (never offered by B) and 6 are asked for; 2 to 5 are known"
    );
    let c = worker(&url, "worker-c", DEFAULT_LEASE);
    assert_eq!(
        c.offer_all(vec![entry(3)]).expect("offer"),
        vec![Enqueued],
        "a worker that learnt nothing asks the database"
    );
}

#[test]
fn a_dead_workers_leases_come_back_when_they_expire() {
    let url = fresh_url();
    let lease = std::time::Duration::from_millis(300);
    let a = worker(&url, "worker-a", lease);
    a.offer_all((0..6).map(entry).collect()).expect("offer");
    assert_eq!(drain(&a).len(), 6);
    drop(a); // the worker dies with its leases out
    let b = worker(&url, "worker-b", lease);
    assert!(drain(&b).is_empty(), "the leases of a worker still hold");
    drop(b);
    std::thread::sleep(lease + std::time::Duration::from_millis(100));
    // A worker opening the crawl sweeps expired leases back into their queues.
    let b = worker(&url, "worker-b", lease);
    let mut urls: Vec<String> = drain(&b).iter().map(|l| l.url().to_string()).collect();
    urls.sort();
    assert_eq!(urls.len(), 6, "{urls:?}");
    assert_eq!(b.stats().expect("stats").seen, 6);
}

/// A worker with nothing of its own takes up the hosts another worker queued, and does not
/// report the crawl empty while the other holds leases (its fetches may add links).
#[test]
fn a_worker_takes_up_hosts_another_queued_and_waits_for_its_leases() {
    use dedupcrawl_frontier::{HostOutcome, NextUrl};
    let url = fresh_url();
    let a = worker(&url, "worker-a", DEFAULT_LEASE);
    let b = worker(&url, "worker-b", DEFAULT_LEASE);
    a.offer_all((0..6).map(entry).collect()).expect("offer");
    let now = std::time::Instant::now();
    // b knows no host yet: it learns a's, then leases from them.
    assert!(matches!(
        b.next_ready(now).expect("next"),
        NextUrl::WaitUntil(_)
    ));
    let from_b = drain(&b);
    assert_eq!(from_b.len(), 6, "b leases what a queued");
    // a has nothing left, but b's leases are out: not empty yet.
    assert!(matches!(
        a.next_ready(now).expect("next"),
        NextUrl::WaitUntil(_)
    ));
    for lease in from_b {
        b.complete(lease, HostOutcome::Done).expect("complete");
    }
    // b's finished leases go with its next call (its lease call or, here, its look for
    // other workers' work): then neither has work left.
    assert!(matches!(b.next_ready(now).expect("next"), NextUrl::Empty));
    assert!(matches!(a.next_ready(now).expect("next"), NextUrl::Empty));
}

/// A worker like [`worker`] with this politeness.
fn polite_worker(url: &str, name: &str, politeness: PolitenessConfig) -> PostgresFrontierStore {
    let config = PostgresFrontierConfig {
        url: url.to_string(),
        crawl: "shared".into(),
        worker: name.into(),
        lease: DEFAULT_LEASE,
        reconnect_for: dedupcrawl_reconnect::DEFAULT_LIMIT,
    };
    PostgresFrontierStore::connect(&config, politeness).expect("connect")
}

/// Leases and completes URLs until the crawl is empty, sleeping while told to wait; for each
/// lease, the instants just before its `next_ready` call and just after it returned (the
/// lease started in between).
fn crawl_until_empty(
    store: &PostgresFrontierStore,
) -> Vec<(std::time::Instant, std::time::Instant)> {
    use dedupcrawl_frontier::{HostOutcome, NextUrl};
    let mut leased_at = Vec::new();
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let now = std::time::Instant::now();
        assert!(now < give_up, "the crawl did not end");
        match store.next_ready(now).expect("next") {
            NextUrl::Ready(lease) => {
                leased_at.push((now, std::time::Instant::now()));
                store.complete(lease, HostOutcome::Done).expect("complete");
            }
            NextUrl::WaitUntil(at) => std::thread::sleep(at.saturating_duration_since(now)),
            NextUrl::Busy => std::thread::sleep(std::time::Duration::from_millis(5)),
            NextUrl::Empty => return leased_at,
        }
    }
}

/// Politeness holds across workers: two workers crawling one host never start requests to it
/// closer than its delay (each alone would lease as soon as its own schedule allows).
#[test]
fn two_workers_keep_a_hosts_delay_between_them() {
    let url = fresh_url();
    let delay = std::time::Duration::from_millis(200);
    let politeness = PolitenessConfig {
        min_delay: delay,
        per_host_concurrency: 100,
        global_concurrency: 1000,
        ..PolitenessConfig::default()
    };
    let a = polite_worker(&url, "worker-a", politeness.clone());
    let b = polite_worker(&url, "worker-b", politeness);
    let one_host = (0..8).map(|i| {
        dedupcrawl_frontier::FrontierEntry::seed(
            format!("http://one.example/{i}").parse().expect("a URL"),
        )
    });
    a.offer_all(one_host.collect()).expect("offer");
    b.offer_all(Vec::new()).expect("offer nothing");
    let (from_a, from_b) = std::thread::scope(|scope| {
        let from_a = scope.spawn(|| crawl_until_empty(&a));
        let from_b = scope.spawn(|| crawl_until_empty(&b));
        (from_a.join().expect("a"), from_b.join().expect("b"))
    });
    assert!(!from_b.is_empty(), "b took part");
    let all: Vec<_> = from_a.iter().chain(&from_b).copied().collect();
    assert_eq!(all.len(), 8);
    // The database's clock spaces the starts; each start is known to lie between the instants
    // around its call, so of two leases, whichever started second ended its call at least the
    // delay after the first's call began (however long either call took on a loaded machine).
    for (i, &(before_i, after_i)) in all.iter().enumerate() {
        for &(before_j, after_j) in &all[i + 1..] {
            let widest = after_j
                .saturating_duration_since(before_i)
                .max(after_i.saturating_duration_since(before_j));
            assert!(widest >= delay, "two starts at most {widest:?} apart");
        }
    }
}

/// A Retry-After a worker got holds every worker of the crawl back from the host.
#[test]
fn a_retry_after_holds_back_every_worker() {
    use dedupcrawl_frontier::{HostOutcome, NextUrl};
    let url = fresh_url();
    let a = worker(&url, "worker-a", DEFAULT_LEASE);
    let b = worker(&url, "worker-b", DEFAULT_LEASE);
    a.offer_all((0..3).map(|i| entry(3 * i)).collect())
        .expect("offer"); // all on h0
    let lease = drain(&a).into_iter().next().expect("a lease");
    let pause = std::time::Duration::from_millis(600);
    let paused_at = std::time::Instant::now();
    a.complete(lease, HostOutcome::RetryAfter(pause))
        .expect("complete");
    let leased = loop {
        let now = std::time::Instant::now();
        assert!(now - paused_at < std::time::Duration::from_secs(30));
        match b.next_ready(now).expect("next") {
            NextUrl::Ready(_) => break now,
            NextUrl::WaitUntil(at) => std::thread::sleep(at.saturating_duration_since(now)),
            NextUrl::Busy => std::thread::sleep(std::time::Duration::from_millis(5)),
            NextUrl::Empty => panic!("b found nothing"),
        }
    };
    assert!(
        leased - paused_at >= pause - std::time::Duration::from_millis(20),
        "b leased {:?} after the pause began",
        leased - paused_at
    );
}

/// While it runs, a worker renews its own leases (a fetch longer than the lease keeps its URL)
/// and takes back the expired leases of a worker that died, without restarting.
#[test]
fn a_running_worker_renews_its_leases_and_takes_over_a_dead_workers() {
    use dedupcrawl_frontier::{HostOutcome, NextUrl};
    let url = fresh_url();
    let lease = std::time::Duration::from_millis(400);
    let live = worker(&url, "worker-live", lease);
    let dying = worker(&url, "worker-dying", lease);
    live.offer_all(vec![entry(0)]).expect("offer");
    let own = drain(&live);
    assert_eq!(own.len(), 1);
    dying.offer_all((1..4).map(entry).collect()).expect("offer");
    assert_eq!(drain(&dying).len(), 3);
    drop(dying); // dies with three leases out
    let mut taken_over = Vec::new();
    let until = std::time::Instant::now() + 4 * lease;
    while std::time::Instant::now() < until {
        match live.next_ready(std::time::Instant::now()).expect("next") {
            NextUrl::Ready(lease) => taken_over.push(lease.url().to_string()),
            _ => std::thread::sleep(std::time::Duration::from_millis(20)),
        }
    }
    taken_over.sort();
    assert_eq!(taken_over.len(), 3, "{taken_over:?}");
    // Held for four lease lengths, the live worker's own lease is still its own.
    for lease in own {
        live.complete(lease, HostOutcome::Done)
            .expect("a renewed lease completes");
    }
}

/// A lease whose call was committed but whose answer was lost with the connection (a server
/// restarting at that moment): the next try hands out that lease (this worker holds it)
/// instead of leaving it held by nobody, renewed for ever, while it leases another URL.
#[test]
fn a_lease_whose_commit_answer_was_lost_is_handed_out() {
    let url = fresh_url();
    let cutter = commit_cutter::CommitCutter::start(&url);
    let store = worker(cutter.url(), "worker-a", DEFAULT_LEASE);
    store.offer_all(vec![entry(0)]).expect("offer");
    // The lease is one frontier_lease call, committed as it runs: its answer is cut.
    cutter.arm_answer_to("frontier_lease(");
    let next = store
        .next_ready(std::time::Instant::now())
        .expect("the lease goes on after the lost connection");
    assert_eq!(cutter.cuts(), 1, "the lease's answer was cut");
    let dedupcrawl_frontier::NextUrl::Ready(lease) = next else {
        panic!("the URL leased by the lost COMMIT should come back: {next:?}");
    };
    assert_eq!(lease.url().as_str(), "http://h0.example/0");
    // It is the lease in the database: completing it (fenced on the lease) empties the crawl.
    store
        .complete(lease, dedupcrawl_frontier::HostOutcome::Done)
        .expect("complete the lease");
    let other = worker(&url, "worker-b", DEFAULT_LEASE);
    assert!(drain(&other).is_empty(), "nothing left queued or leased");
    assert_eq!(store.stats().expect("stats").queued, 0);
}
