//! The behaviour every [`FrontierStore`] backend must show: dedup, politeness, fairness,
//! retries, leases, reopening on the same state. Each case takes a function that makes a
//! [`Backend`] on fresh state; [`frontier_store_suite!`] turns every case into a `#[test]` for
//! one backend (the embedded one in `tests/frontier.rs`; a PostgreSQL one runs the same).

use std::collections::HashSet;
use std::thread::sleep;
use std::time::{Duration, Instant};

use dedupcrawl_frontier::{
    CanonicalUrl, Completion, FrontierEntry, FrontierError, FrontierStore, HostOutcome, Lease,
    NextUrl, OfferOutcome, PolitenessConfig,
};

/// A backend under test, on state of its own. [`open`](Backend::open) opens a store on that
/// state; opening again after the last store was dropped is a restart (what a crashed or
/// finished process leaves is there).
pub trait Backend {
    fn open(&self, politeness: PolitenessConfig) -> Box<dyn FrontierStore>;
}

/// One `#[test]` per case of the suite, for the backend `$new_backend` makes
/// (`fn() -> Box<dyn Backend>`).
#[macro_export]
macro_rules! frontier_store_suite {
    ($new_backend:expr) => {
        $crate::frontier_store_suite!(@cases $new_backend; offers_are_deduplicated_by_canonical_url, empty_frontier_says_so, each_host_queue_is_fifo, per_host_delay_is_honoured, ready_hosts_are_served_round_robin, with_a_delay_every_host_gets_its_first_request_at_once, a_slow_host_never_stalls_the_others, crawl_delay_spaces_requests_and_is_stored, changing_the_delay_counts_from_the_last_request, per_host_and_global_concurrency, retry_after_pauses_the_host_only, retries_back_off_exponentially_and_give_up, completing_twice_is_an_error, reopening_puts_unfinished_leases_back_in_front_in_order, delayed_retries_survive_a_restart, idle_hosts_are_pruned_from_memory, a_given_up_host_is_not_scheduled_again_but_keeps_its_urls_for_the_next_run, known_urls_are_offered_again_for_a_new_round, links_offered_and_marked_seen_at_once);
    };
    (@cases $new_backend:expr; $($case:ident),*) => {
        $(
            #[test]
            fn $case() {
                store_suite::$case($new_backend);
            }
        )*
    };
}

fn url(text: &str) -> CanonicalUrl {
    text.parse().unwrap()
}

fn seed(text: &str) -> FrontierEntry {
    FrontierEntry::seed(url(text))
}

fn config(delay_ms: u64) -> PolitenessConfig {
    PolitenessConfig {
        min_delay: Duration::from_millis(delay_ms),
        per_host_concurrency: 1,
        global_concurrency: 100,
        max_attempts: 3,
        retry_backoff: Duration::from_millis(40),
        max_retry_backoff: Duration::from_secs(10),
        max_retry_after: Duration::from_secs(10),
    }
}

/// Leases the next URL, sleeping through `WaitUntil`s (at most 5 s).
fn wait_ready(frontier: &dyn FrontierStore) -> Lease {
    wait_ready_at(frontier).0
}

/// [`wait_ready`], also returning the instant the lease was granted at.
fn wait_ready_at(frontier: &dyn FrontierStore) -> (Lease, Instant) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let now = Instant::now();
        assert!(now < deadline, "no URL became ready");
        match frontier.next_ready(now).unwrap() {
            NextUrl::Ready(lease) => return (lease, now),
            NextUrl::WaitUntil(at) => sleep(at.saturating_duration_since(Instant::now())),
            other => panic!("expected a URL, got {other:?}"),
        }
    }
}

fn ready_now(frontier: &dyn FrontierStore) -> Lease {
    match frontier.next_ready(Instant::now()).unwrap() {
        NextUrl::Ready(lease) => lease,
        other => panic!("expected a ready URL, got {other:?}"),
    }
}

/// A page's links in one call: the in-scope ones offered, the others only marked seen, as
/// `offer_all` then `mark_all_seen` would (a URL in both counts as offered).
pub fn links_offered_and_marked_seen_at_once(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(config(0));
    frontier.mark_seen(&url("http://c.example/old")).unwrap();
    let (offered, new) = frontier
        .offer_and_mark_seen(
            vec![seed("http://a.example/1"), seed("http://a.example/1")],
            &[
                url("http://c.example/new"),
                url("http://a.example/1"),
                url("http://c.example/old"),
                url("http://c.example/new"),
            ],
        )
        .unwrap();
    assert_eq!(offered, [OfferOutcome::Enqueued, OfferOutcome::AlreadySeen]);
    assert_eq!(new, [true, false, false, false]);
    assert!(frontier.contains(&url("http://c.example/new")).unwrap());
    let lease = wait_ready(frontier.as_ref());
    assert_eq!(lease.url().as_str(), "http://a.example/1");
    frontier.complete(lease, HostOutcome::Done).unwrap();
    assert!(matches!(
        frontier.next_ready(Instant::now()).unwrap(),
        NextUrl::Empty
    ));
}

pub fn offers_are_deduplicated_by_canonical_url(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(config(0));
    assert_eq!(
        frontier.offer(seed("http://a.example/x")).unwrap(),
        OfferOutcome::Enqueued
    );
    assert_eq!(
        frontier.offer(seed("http://a.example/x")).unwrap(),
        OfferOutcome::AlreadySeen
    );
    // another spelling of the same URL
    assert_eq!(
        frontier
            .offer(seed("HTTP://A.example:80/./x?utm_source=feed#top"))
            .unwrap(),
        OfferOutcome::AlreadySeen
    );
    let batch = [
        seed("http://a.example/y"),
        seed("http://b.example/"),
        seed("http://a.example/y"),
    ];
    assert_eq!(
        frontier.offer_all(batch.into()).unwrap(),
        [
            OfferOutcome::Enqueued,
            OfferOutcome::Enqueued,
            OfferOutcome::AlreadySeen
        ]
    );
    let stats = frontier.stats().unwrap();
    assert_eq!((stats.seen, stats.queued, stats.hosts), (3, 3, 2));
    assert!(frontier.contains(&url("http://a.example/y")).unwrap());
    assert!(!frontier.contains(&url("http://a.example/z")).unwrap());

    // fetched URLs stay seen
    let lease = ready_now(frontier.as_ref());
    let fetched = lease.url().clone();
    assert_eq!(
        frontier.complete(lease, HostOutcome::Done).unwrap(),
        Completion::Finished
    );
    assert_eq!(
        frontier.offer(FrontierEntry::seed(fetched)).unwrap(),
        OfferOutcome::AlreadySeen
    );
    // redirect targets can be marked without queueing them
    assert!(frontier.mark_seen(&url("http://c.example/target")).unwrap());
    assert!(!frontier.mark_seen(&url("http://c.example/target")).unwrap());
    assert_eq!(
        frontier.offer(seed("http://c.example/target")).unwrap(),
        OfferOutcome::AlreadySeen
    );
    assert_eq!(frontier.stats().unwrap().seen, 4);
}

pub fn empty_frontier_says_so(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(config(0));
    assert!(matches!(
        frontier.next_ready(Instant::now()).unwrap(),
        NextUrl::Empty
    ));
}

pub fn each_host_queue_is_fifo(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(PolitenessConfig {
        per_host_concurrency: 10,
        ..config(0)
    });
    for i in 0..5 {
        frontier
            .offer(seed(&format!("http://a.example/{i}")))
            .unwrap();
    }
    for i in 0..5 {
        assert_eq!(
            ready_now(frontier.as_ref()).url().url().path(),
            format!("/{i}")
        );
    }
}

pub fn per_host_delay_is_honoured(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(config(50));
    for i in 0..5 {
        frontier
            .offer(seed(&format!("http://a.example/{i}")))
            .unwrap();
    }
    let started = Instant::now();
    let mut lease_times = Vec::new();
    for _ in 0..5 {
        let (lease, leased_at) = wait_ready_at(frontier.as_ref());
        lease_times.push(leased_at);
        // the next request waits for the delay even though this one completed at once
        frontier.complete(lease, HostOutcome::Done).unwrap();
        let now = Instant::now();
        // (checked only while the delay surely runs: the test threads share 2 cores)
        if lease_times.len() < 5 && now < leased_at + Duration::from_millis(40) {
            match frontier.next_ready(now).unwrap() {
                NextUrl::WaitUntil(at) => assert!(at >= leased_at + Duration::from_millis(50)),
                other => panic!("expected WaitUntil, got {other:?}"),
            }
        }
    }
    for pair in lease_times.windows(2) {
        let gap = pair[1] - pair[0];
        assert!(gap >= Duration::from_millis(50), "requests {gap:?} apart");
    }
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "waits are not much longer than needed"
    );
}

pub fn ready_hosts_are_served_round_robin(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(PolitenessConfig {
        per_host_concurrency: 10,
        ..config(0)
    });
    for host in ["a", "b", "c"] {
        for i in 0..3 {
            frontier
                .offer(seed(&format!("http://{host}.example/{i}")))
                .unwrap();
        }
    }
    let order: Vec<String> = (0..9)
        .map(|_| ready_now(frontier.as_ref()).url().host_name().to_string())
        .collect();
    let expected: Vec<String> = ["a", "b", "c", "a", "b", "c", "a", "b", "c"]
        .iter()
        .map(|h| format!("{h}.example"))
        .collect();
    assert_eq!(order, expected);
}

pub fn with_a_delay_every_host_gets_its_first_request_at_once(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let frontier = backend.open(config(1000));
    for host in ["a", "b", "c"] {
        for i in 0..2 {
            frontier
                .offer(seed(&format!("http://{host}.example/{i}")))
                .unwrap();
        }
    }
    let mut hosts = HashSet::new();
    for _ in 0..3 {
        let lease = ready_now(frontier.as_ref());
        hosts.insert(lease.host().to_string());
        frontier.complete(lease, HostOutcome::Done).unwrap();
    }
    assert_eq!(hosts.len(), 3);
    assert!(matches!(
        frontier.next_ready(Instant::now()).unwrap(),
        NextUrl::WaitUntil(_)
    ));
}

pub fn a_slow_host_never_stalls_the_others(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(config(0));
    frontier
        .set_host_delay("slow.example", Duration::from_secs(10))
        .unwrap();
    assert_eq!(
        frontier.host_delay("slow.example").unwrap(),
        Duration::from_secs(10)
    );
    for i in 0..3 {
        frontier
            .offer(seed(&format!("http://slow.example/{i}")))
            .unwrap();
    }
    for i in 0..5 {
        frontier
            .offer(seed(&format!("http://fast.example/{i}")))
            .unwrap();
    }
    let started = Instant::now();
    let mut fast = 0;
    let mut slow = 0;
    for _ in 0..6 {
        let lease = ready_now(frontier.as_ref());
        match lease.host() {
            "fast.example" => fast += 1,
            _ => slow += 1,
        }
        frontier.complete(lease, HostOutcome::Done).unwrap();
    }
    assert_eq!((fast, slow), (5, 1));
    assert!(started.elapsed() < Duration::from_secs(1));
    match frontier.next_ready(Instant::now()).unwrap() {
        NextUrl::WaitUntil(at) => {
            assert!(
                at >= started + Duration::from_secs(9),
                "slow host waits for its delay"
            )
        }
        other => panic!("expected WaitUntil, got {other:?}"),
    }
}

pub fn crawl_delay_spaces_requests_and_is_stored(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    {
        let frontier = backend.open(config(10));
        frontier
            .set_host_delay("a.example", Duration::from_millis(80))
            .unwrap();
        // below the configured minimum: the minimum wins
        frontier
            .set_host_delay("b.example", Duration::from_millis(1))
            .unwrap();
        assert_eq!(
            frontier.host_delay("b.example").unwrap(),
            Duration::from_millis(10)
        );
        frontier.offer(seed("http://a.example/1")).unwrap();
        frontier.offer(seed("http://a.example/2")).unwrap();
        let (first, t1) = wait_ready_at(frontier.as_ref());
        frontier.complete(first, HostOutcome::Done).unwrap();
        let (second, t2) = wait_ready_at(frontier.as_ref());
        assert!(t2 - t1 >= Duration::from_millis(80));
        frontier.complete(second, HostOutcome::Done).unwrap();
        frontier.flush().unwrap();
    }
    let frontier = backend.open(config(10));
    assert_eq!(
        frontier.host_delay("a.example").unwrap(),
        Duration::from_millis(80)
    );
    assert_eq!(
        frontier.host_delay("c.example").unwrap(),
        Duration::from_millis(10)
    );
}

pub fn changing_the_delay_counts_from_the_last_request(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(config(0));
    frontier.offer(seed("http://a.example/1")).unwrap();
    frontier.offer(seed("http://a.example/2")).unwrap();
    let (first, leased_at) = wait_ready_at(frontier.as_ref());
    frontier.complete(first, HostOutcome::Done).unwrap();
    // robots.txt arrives after the first request and asks for 150 ms
    frontier
        .set_host_delay("a.example", Duration::from_millis(150))
        .unwrap();
    let (second, second_at) = wait_ready_at(frontier.as_ref());
    assert!(second_at - leased_at >= Duration::from_millis(150));
    frontier.complete(second, HostOutcome::Done).unwrap();
}

pub fn per_host_and_global_concurrency(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(PolitenessConfig {
        per_host_concurrency: 2,
        ..config(0)
    });
    for i in 0..5 {
        frontier
            .offer(seed(&format!("http://a.example/{i}")))
            .unwrap();
    }
    let first = ready_now(frontier.as_ref());
    let _second = ready_now(frontier.as_ref());
    assert!(matches!(
        frontier.next_ready(Instant::now()).unwrap(),
        NextUrl::Busy
    ));
    assert_eq!(frontier.stats().unwrap().in_flight, 2);
    frontier.complete(first, HostOutcome::Done).unwrap();
    let _third = ready_now(frontier.as_ref());
    assert!(matches!(
        frontier.next_ready(Instant::now()).unwrap(),
        NextUrl::Busy
    ));

    let backend2 = new_backend();
    let frontier = backend2.open(PolitenessConfig {
        global_concurrency: 3,
        ..config(0)
    });
    for host in ["a", "b", "c", "d", "e"] {
        frontier
            .offer(seed(&format!("http://{host}.example/")))
            .unwrap();
    }
    let leases: Vec<Lease> = (0..3).map(|_| ready_now(frontier.as_ref())).collect();
    assert!(matches!(
        frontier.next_ready(Instant::now()).unwrap(),
        NextUrl::Busy
    ));
    let mut leases = leases.into_iter();
    frontier
        .complete(leases.next().unwrap(), HostOutcome::Done)
        .unwrap();
    let fourth = ready_now(frontier.as_ref());
    assert!(matches!(
        frontier.next_ready(Instant::now()).unwrap(),
        NextUrl::Busy
    ));
    assert_eq!(frontier.stats().unwrap().in_flight, 3);
    frontier.complete(fourth, HostOutcome::Failed).unwrap();
}

pub fn retry_after_pauses_the_host_only(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(config(0));
    frontier.offer(seed("http://a.example/1")).unwrap();
    frontier.offer(seed("http://a.example/2")).unwrap();
    frontier.offer(seed("http://b.example/1")).unwrap();
    let lease = ready_now(frontier.as_ref());
    assert_eq!(lease.url().as_str(), "http://a.example/1");
    let before = Instant::now();
    let not_before =
        match frontier.complete(lease, HostOutcome::RetryAfter(Duration::from_millis(300))) {
            Ok(Completion::Requeued {
                attempt: 1,
                not_before,
            }) => not_before,
            other => panic!("unexpected {other:?}"),
        };
    assert!(not_before >= before + Duration::from_millis(300));
    // the other host is not affected
    let b = ready_now(frontier.as_ref());
    assert_eq!(b.host(), "b.example");
    frontier.complete(b, HostOutcome::Done).unwrap();
    match frontier.next_ready(Instant::now()).unwrap() {
        NextUrl::WaitUntil(at) => assert!(at >= not_before),
        other => panic!("expected WaitUntil, got {other:?}"),
    }
    // after the pause the same URL comes first, with its try counted
    let (again, again_at) = wait_ready_at(frontier.as_ref());
    assert!(again_at >= not_before);
    assert_eq!(again.url().as_str(), "http://a.example/1");
    assert_eq!(again.attempt, 1);
    frontier.complete(again, HostOutcome::Done).unwrap();
    assert_eq!(
        wait_ready(frontier.as_ref()).url().as_str(),
        "http://a.example/2"
    );
}

pub fn retries_back_off_exponentially_and_give_up(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(config(0));
    frontier.offer(seed("http://a.example/flaky")).unwrap();

    let lease = ready_now(frontier.as_ref());
    assert_eq!((lease.attempt, lease.leased_before), (0, false));
    let t0 = Instant::now();
    let Completion::Requeued {
        attempt: 1,
        not_before: first_due,
    } = frontier.complete(lease, HostOutcome::Retry).unwrap()
    else {
        panic!("expected a requeue");
    };
    assert!(first_due >= t0 + Duration::from_millis(40));
    let stats = frontier.stats().unwrap();
    assert_eq!((stats.queued, stats.delayed, stats.in_flight), (0, 1, 0));
    let now = Instant::now();
    if now < first_due {
        assert!(matches!(
            frontier.next_ready(now).unwrap(),
            NextUrl::WaitUntil(_)
        ));
    }

    let lease = wait_ready(frontier.as_ref());
    assert_eq!((lease.attempt, lease.leased_before), (1, true));
    // due times are stored in milliseconds: allow for the rounding
    assert!(Instant::now() + Duration::from_millis(1) >= first_due);
    let t1 = Instant::now();
    let Completion::Requeued {
        attempt: 2,
        not_before: second_due,
    } = frontier.complete(lease, HostOutcome::Retry).unwrap()
    else {
        panic!("expected a second requeue");
    };
    assert!(
        second_due >= t1 + Duration::from_millis(80),
        "backoff doubled"
    );

    let lease = wait_ready(frontier.as_ref());
    assert_eq!(lease.attempt, 2);
    assert_eq!(
        frontier.complete(lease, HostOutcome::Retry).unwrap(),
        Completion::GaveUp { attempts: 3 }
    );
    assert!(matches!(
        frontier.next_ready(Instant::now()).unwrap(),
        NextUrl::Empty
    ));
    let stats = frontier.stats().unwrap();
    assert_eq!(
        (stats.queued, stats.delayed, stats.in_flight, stats.seen),
        (0, 0, 0, 1)
    );
}

pub fn completing_twice_is_an_error(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(config(0));
    frontier.offer(seed("http://a.example/")).unwrap();
    let lease = ready_now(frontier.as_ref());
    frontier.complete(lease.clone(), HostOutcome::Done).unwrap();
    assert!(matches!(
        frontier.complete(lease, HostOutcome::Done),
        Err(FrontierError::UnknownLease(_))
    ));
}

pub fn reopening_puts_unfinished_leases_back_in_front_in_order(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let wide = PolitenessConfig {
        per_host_concurrency: 10,
        ..config(0)
    };
    {
        let frontier = backend.open(wide.clone());
        for i in 0..6 {
            frontier
                .offer(seed(&format!("http://a.example/{i}")))
                .unwrap();
        }
        frontier.offer(seed("http://b.example/0")).unwrap();
        let leases: Vec<Lease> = (0..4).map(|_| ready_now(frontier.as_ref())).collect();
        assert!(
            leases.iter().all(|lease| !lease.leased_before),
            "first leases since the URLs were queued"
        );
        let mut leases = leases.into_iter();
        // a/0 done; a/1, b/0 and a/2 leased and never completed (the process "dies")
        let done = leases.next().unwrap();
        assert_eq!(done.url().url().path(), "/0");
        frontier.complete(done, HostOutcome::Done).unwrap();
        frontier.flush().unwrap();
    }
    let frontier = backend.open(wide);
    let stats = frontier.stats().unwrap();
    assert_eq!((stats.queued, stats.in_flight, stats.seen), (6, 0, 7));
    let mut order = Vec::new();
    while let NextUrl::Ready(lease) = frontier.next_ready(Instant::now()).unwrap() {
        // The leases the dead process held may have been fetched; the others were not.
        let was_out =
            ["/1", "/2"].contains(&lease.url().url().path()) || lease.url().host() == "b.example";
        assert_eq!(lease.leased_before, was_out, "{}", lease.url());
        order.push(lease.url().to_string());
    }
    let expected = [
        "http://a.example/1",
        "http://b.example/0",
        "http://a.example/2",
        "http://a.example/3",
        "http://a.example/4",
        "http://a.example/5",
    ];
    let a_order: Vec<&str> = order
        .iter()
        .map(String::as_str)
        .filter(|u| u.contains("a.ex"))
        .collect();
    assert_eq!(
        a_order,
        expected
            .iter()
            .copied()
            .filter(|u| u.contains("a.ex"))
            .collect::<Vec<_>>()
    );
    assert_eq!(order.len(), 6);
    assert!(order.contains(&"http://b.example/0".to_string()));
    assert_eq!(
        frontier.offer(seed("http://a.example/0")).unwrap(),
        OfferOutcome::AlreadySeen,
        "the seen set survives"
    );
}

pub fn delayed_retries_survive_a_restart(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    {
        let frontier = backend.open(config(0));
        frontier.offer(seed("http://a.example/retry")).unwrap();
        let lease = ready_now(frontier.as_ref());
        frontier.complete(lease, HostOutcome::Retry).unwrap();
        frontier.flush().unwrap();
    }
    let frontier = backend.open(config(0));
    assert_eq!(frontier.stats().unwrap().delayed, 1);
    let lease = wait_ready(frontier.as_ref());
    assert_eq!(lease.url().as_str(), "http://a.example/retry");
    assert_eq!(lease.attempt, 1);
}

pub fn idle_hosts_are_pruned_from_memory(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    let frontier = backend.open(PolitenessConfig {
        global_concurrency: 10_000,
        ..config(0)
    });
    let hosts = 1_500;
    frontier
        .offer_all(
            (0..hosts)
                .map(|i| seed(&format!("http://h{i}.example/")))
                .collect(),
        )
        .unwrap();
    assert_eq!(frontier.stats().unwrap().tracked_hosts, hosts);
    for _ in 0..hosts {
        let lease = ready_now(frontier.as_ref());
        frontier.complete(lease, HostOutcome::Done).unwrap();
    }
    assert!(matches!(
        frontier.next_ready(Instant::now()).unwrap(),
        NextUrl::Empty
    ));
    // pruning runs every 1024 calls
    for _ in 0..1024 {
        frontier.next_ready(Instant::now()).unwrap();
    }
    let stats = frontier.stats().unwrap();
    assert_eq!(stats.tracked_hosts, 0);
    assert_eq!(stats.seen, hosts as u64);
}

pub fn a_given_up_host_is_not_scheduled_again_but_keeps_its_urls_for_the_next_run(
    new_backend: fn() -> Box<dyn Backend>,
) {
    let backend = new_backend();
    let wide = PolitenessConfig {
        per_host_concurrency: 2,
        ..config(0)
    };
    {
        let frontier = backend.open(wide.clone());
        for i in 0..4 {
            frontier
                .offer(seed(&format!("http://dead.example/{i}")))
                .unwrap();
        }
        let first = ready_now(frontier.as_ref());
        let second = ready_now(frontier.as_ref());
        // A retry waiting for its backoff is brought back to the queue when the host is given up.
        assert!(matches!(
            frontier.complete(
                second,
                HostOutcome::HostFailure {
                    pause: Duration::from_secs(60),
                    count_try: true,
                }
            ),
            Ok(Completion::Requeued { attempt: 1, .. })
        ));
        assert!(frontier.give_up_host("dead.example").unwrap());
        assert!(!frontier.give_up_host("dead.example").unwrap(), "only once");
        assert!(frontier.is_given_up("dead.example"));
        // The lease in flight when the host was given up goes back too, whatever its outcome.
        assert_eq!(
            frontier.complete(first, HostOutcome::Retry).unwrap(),
            Completion::Parked
        );
        assert!(matches!(
            frontier.next_ready(Instant::now()).unwrap(),
            NextUrl::Empty
        ));
        let stats = frontier.stats().unwrap();
        assert_eq!((stats.queued, stats.delayed, stats.in_flight), (4, 0, 0));
        frontier.flush().unwrap();
    }
    // The next run tries the host again, tries counted afresh for the parked lease.
    let frontier = backend.open(wide);
    assert!(!frontier.is_given_up("dead.example"));
    let mut urls = HashSet::new();
    while let NextUrl::Ready(lease) = frontier.next_ready(Instant::now()).unwrap() {
        urls.insert(lease.url().to_string());
        frontier.complete(lease, HostOutcome::Done).unwrap();
    }
    assert_eq!(urls.len(), 4, "{urls:?}");
}

/// A recrawl round enqueues URLs fetched before (the seen set does not stop it), once per
/// call, and what it enqueues survives a restart like any queued URL.
pub fn known_urls_are_offered_again_for_a_new_round(new_backend: fn() -> Box<dyn Backend>) {
    let backend = new_backend();
    {
        let frontier = backend.open(config(0));
        frontier
            .offer_all(vec![seed("http://a.example/1"), seed("http://a.example/2")])
            .unwrap();
        for _ in 0..2 {
            let lease = wait_ready(frontier.as_ref());
            frontier.complete(lease, HostOutcome::Done).unwrap();
        }
        assert!(matches!(
            frontier.next_ready(Instant::now()).unwrap(),
            NextUrl::Empty
        ));
        frontier
            .offer_again(vec![
                seed("http://a.example/2"),
                seed("http://a.example/1"),
                seed("http://b.example/new"),
            ])
            .unwrap();
        let stats = frontier.stats().unwrap();
        assert_eq!((stats.queued, stats.seen), (3, 3), "{stats:?}");
        assert_eq!(
            frontier.offer(seed("http://b.example/new")).unwrap(),
            OfferOutcome::AlreadySeen,
            "a URL offered again joins the seen set"
        );
        frontier.flush().unwrap();
    }
    let frontier = backend.open(config(0));
    let mut fetched = Vec::new();
    for _ in 0..3 {
        let lease = wait_ready(frontier.as_ref());
        fetched.push(lease.url().as_str().to_string());
        frontier.complete(lease, HostOutcome::Done).unwrap();
    }
    let a_order: Vec<&String> = fetched.iter().filter(|u| u.contains("a.example")).collect();
    assert_eq!(
        a_order,
        ["http://a.example/2", "http://a.example/1"],
        "FIFO in the order offered again"
    );
    assert!(fetched.contains(&"http://b.example/new".to_string()));
    assert!(matches!(
        frontier.next_ready(Instant::now()).unwrap(),
        NextUrl::Empty
    ));
}
