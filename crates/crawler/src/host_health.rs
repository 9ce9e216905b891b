//! The finite failure policy per host: connection-level failures (refused, reset, DNS, TLS,
//! timeouts, robots.txt unreachable or 5xx) in a row slow a host down with a capped backoff,
//! and after `fetch.host_max_failures` of them the host is given up for this run, so a dead
//! site in a list never keeps a crawl from ending.
//!
//! Only this run's state is kept (in RAM): the next run tries every host again.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::mutex::lock;

/// Settings of the policy (from `[fetch]`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct HostFailurePolicy {
    /// Failures in a row that give a host up.
    pub(crate) max_failures: u32,
    /// Pause after the first failure; doubled for each further one.
    pub(crate) backoff: Duration,
    /// Longest pause.
    pub(crate) max_backoff: Duration,
}

impl HostFailurePolicy {
    /// Pause after the `failures`-th failure in a row: `backoff · 2^(failures−1)`, capped.
    pub(crate) fn pause_after(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(30);
        self.backoff
            .saturating_mul(1 << doublings)
            .min(self.max_backoff)
    }
}

/// A host given up for this run, as `report.json` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GivenUpHost {
    /// `host[:port]`.
    pub host: String,
    /// What failed last, e.g. `connection refused`.
    pub reason: String,
    /// Failed tries in a row.
    pub tries: u32,
    /// Seconds from the start of the first failed try to the end of the last one.
    pub seconds: f64,
}

impl GivenUpHost {
    /// The crawl-log `error` of the host's seeds:
    /// `host unreachable: connection refused (3 tries over 95 s)`.
    pub fn message(&self) -> String {
        format!(
            "host unreachable: {} ({} tries over {:.0} s)",
            self.reason, self.tries, self.seconds
        )
    }
}

/// What to do with a host after a failure.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Verdict {
    /// Pause the host this long, then try again.
    Backoff(Duration),
    /// The failure that gave the host up (returned once per host and run).
    GiveUp(GivenUpHost),
    /// Given up earlier in this run (a fetch that was in flight at that moment).
    AlreadyGivenUp,
}

/// A host in backoff, for the periodic "waiting for" line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Waiting {
    pub(crate) host: String,
    pub(crate) reason: String,
    pub(crate) failures: u32,
    pub(crate) retry_at: Instant,
}

/// `waiting for 2 hosts in backoff: 127.0.0.1:4001 (connection refused, failure 2, next try
/// in 41 s); ...` (the soonest first, at most five named).
pub(crate) fn waiting_message(waiting: &[Waiting], now: Instant) -> String {
    const NAMED: usize = 5;
    let named: Vec<String> = waiting
        .iter()
        .take(NAMED)
        .map(|w| {
            format!(
                "{} ({}, failure {}, next try in {:.0} s)",
                w.host,
                w.reason,
                w.failures,
                w.retry_at.saturating_duration_since(now).as_secs_f64()
            )
        })
        .collect();
    let more = waiting.len().saturating_sub(NAMED);
    let hosts = if waiting.len() == 1 { "host" } else { "hosts" };
    let mut message = format!(
        "waiting for {} {hosts} in backoff: {}",
        waiting.len(),
        named.join("; ")
    );
    if more > 0 {
        message.push_str(&format!("; and {more} more"));
    }
    message
}

#[derive(Debug)]
struct Failures {
    in_a_row: u32,
    first_started: Instant,
    reason: String,
    retry_at: Instant,
    given_up: bool,
}

/// Failures in a row per host, for this run.
#[derive(Debug)]
pub(crate) struct HostHealth {
    policy: HostFailurePolicy,
    hosts: Mutex<HashMap<String, Failures>>,
}

impl HostHealth {
    pub(crate) fn new(policy: HostFailurePolicy) -> HostHealth {
        HostHealth {
            policy,
            hosts: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a connection-level failure of a request started at `started`.
    pub(crate) fn record_failure(&self, host: &str, reason: &str, started: Instant) -> Verdict {
        let now = Instant::now();
        let mut hosts = lock(&self.hosts);
        let failures = hosts.entry(host.to_string()).or_insert(Failures {
            in_a_row: 0,
            first_started: started,
            reason: String::new(),
            retry_at: now,
            given_up: false,
        });
        if failures.given_up {
            return Verdict::AlreadyGivenUp;
        }
        failures.in_a_row += 1;
        failures.reason = reason.to_string();
        if failures.in_a_row >= self.policy.max_failures {
            failures.given_up = true;
            return Verdict::GiveUp(GivenUpHost {
                host: host.to_string(),
                reason: reason.to_string(),
                tries: failures.in_a_row,
                seconds: now.duration_since(failures.first_started).as_secs_f64(),
            });
        }
        let pause = self.policy.pause_after(failures.in_a_row);
        failures.retry_at = now + pause;
        Verdict::Backoff(pause)
    }

    /// The host answered: its count starts over (a given-up host stays given up).
    pub(crate) fn record_success(&self, host: &str) {
        let mut hosts = lock(&self.hosts);
        if hosts.get(host).is_some_and(|f| !f.given_up) {
            hosts.remove(host);
        }
    }

    /// Hosts in backoff now, soonest retry first.
    pub(crate) fn waiting(&self, now: Instant) -> Vec<Waiting> {
        let hosts = lock(&self.hosts);
        let mut waiting: Vec<Waiting> = hosts
            .iter()
            .filter(|(_, f)| !f.given_up && f.retry_at > now)
            .map(|(host, f)| Waiting {
                host: host.clone(),
                reason: f.reason.clone(),
                failures: f.in_a_row,
                retry_at: f.retry_at,
            })
            .collect();
        waiting.sort_by_key(|w| w.retry_at);
        waiting
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn health(max_failures: u32) -> HostHealth {
        HostHealth::new(HostFailurePolicy {
            max_failures,
            backoff: Duration::from_secs(30),
            max_backoff: Duration::from_secs(45),
        })
    }

    #[test]
    fn backoff_doubles_is_capped_then_the_host_is_given_up_once() {
        let health = health(3);
        let start = Instant::now();
        let refused = "connection refused";
        assert_eq!(
            health.record_failure("a:1", refused, start),
            Verdict::Backoff(Duration::from_secs(30))
        );
        assert_eq!(
            health.record_failure("a:1", refused, start),
            Verdict::Backoff(Duration::from_secs(45))
        );
        let Verdict::GiveUp(given_up) = health.record_failure("a:1", refused, start) else {
            panic!("the third failure in a row gives the host up");
        };
        assert_eq!(given_up.tries, 3);
        assert!(
            given_up
                .message()
                .starts_with("host unreachable: connection refused (3 tries over ")
        );
        assert_eq!(
            health.record_failure("a:1", refused, start),
            Verdict::AlreadyGivenUp
        );
        health.record_success("a:1");
        assert_eq!(
            health.record_failure("a:1", refused, start),
            Verdict::AlreadyGivenUp
        );
    }

    #[test]
    fn an_answer_starts_the_count_over() {
        let health = health(2);
        let start = Instant::now();
        assert!(matches!(
            health.record_failure("b:1", "x", start),
            Verdict::Backoff(_)
        ));
        let now = Instant::now();
        let waiting = health.waiting(now);
        assert_eq!(waiting.len(), 1);
        let message = waiting_message(&waiting, now);
        assert!(
            message.starts_with("waiting for 1 host in backoff: b:1 (x, failure 1, next try in 3"),
            "{message}"
        );
        health.record_success("b:1");
        assert!(health.waiting(Instant::now()).is_empty());
        assert!(matches!(
            health.record_failure("b:1", "x", start),
            Verdict::Backoff(_)
        ));
    }
}
