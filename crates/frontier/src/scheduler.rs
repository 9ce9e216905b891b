//! The synchronous, in-memory half of the frontier: per-host bookkeeping, the ready heap of
//! hosts, `governor` limiters on a clock set from the caller's instants. It owns no URL; a
//! store (see [`crate::FrontierStore`]) keeps the queues and asks it which host may go next.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};

/// The governor clock: nanoseconds since the frontier's epoch, set from the caller's `now`
/// before each limiter decision (under the frontier lock).
#[derive(Debug, Clone, Default)]
pub(crate) struct CallerClock {
    nanos: Arc<AtomicU64>,
}

impl Clock for CallerClock {
    type Instant = Nanos;
    fn now(&self) -> Nanos {
        Nanos::new(self.nanos.load(AtomicOrdering::Relaxed))
    }
}

pub(crate) type HostLimiter =
    RateLimiter<NotKeyed, InMemoryState, CallerClock, NoOpMiddleware<Nanos>>;

/// Converts between the caller's `Instant`s, the limiter clock and wall-clock milliseconds
/// (retry due times are stored, and must mean something after a restart).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Timebase {
    epoch: Instant,
    epoch_unix_ms: u64,
}

impl Timebase {
    pub(crate) fn now() -> Timebase {
        let epoch_unix_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Timebase {
            epoch: Instant::now(),
            epoch_unix_ms,
        }
    }

    pub(crate) fn nanos(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.epoch).as_nanos()).unwrap_or(u64::MAX)
    }

    pub(crate) fn instant_of_nanos(&self, nanos: u64) -> Instant {
        self.epoch + Duration::from_nanos(nanos)
    }

    pub(crate) fn unix_ms(&self, at: Instant) -> u64 {
        let since = u64::try_from(at.saturating_duration_since(self.epoch).as_millis());
        self.epoch_unix_ms.saturating_add(since.unwrap_or(u64::MAX))
    }

    /// The instant of a stored due time (due times before this process started map to its start).
    pub(crate) fn instant_of_unix_ms(&self, unix_ms: u64) -> Instant {
        self.epoch + Duration::from_millis(unix_ms.saturating_sub(self.epoch_unix_ms))
    }
}

/// The limiter clock and the timebase of one store.
#[derive(Debug)]
pub(crate) struct Clocks {
    clock: CallerClock,
    pub(crate) timebase: Timebase,
}

impl Clocks {
    pub(crate) fn new() -> Clocks {
        Clocks {
            clock: CallerClock::default(),
            timebase: Timebase::now(),
        }
    }

    /// A limiter allowing one request per `delay`; if `last_request` is given, the first
    /// permit is taken at that time so a changed delay still counts from the last request.
    pub(crate) fn new_limiter(
        &self,
        delay: Duration,
        last_request: Option<Instant>,
        now: Instant,
    ) -> Option<HostLimiter> {
        let quota = Quota::with_period(delay)?;
        self.set_clock(now.min(last_request.unwrap_or(now)));
        let limiter = RateLimiter::direct_with_clock(quota, self.clock.clone());
        if last_request.is_some() {
            // A fresh limiter always grants its first permit.
            let _ = limiter.check();
        }
        Some(limiter)
    }

    pub(crate) fn set_clock(&self, at: Instant) {
        self.clock
            .nanos
            .store(self.timebase.nanos(at), AtomicOrdering::Relaxed);
    }
}

/// Per-host bookkeeping (the only per-host state in RAM).
pub(crate) struct HostState {
    /// Whether the host queue has entries (kept exact by offer/lease/requeue).
    pub(crate) has_queued: bool,
    pub(crate) in_flight: u32,
    pub(crate) delay: Duration,
    /// `None` when the delay is zero.
    pub(crate) limiter: Option<HostLimiter>,
    pub(crate) last_request: Option<Instant>,
    pub(crate) paused_until: Option<Instant>,
    /// Whether the host has an entry in the ready heap.
    pub(crate) scheduled: bool,
}

/// A host in the ready heap; ties in time go to the host scheduled first (round robin).
#[derive(PartialEq, Eq)]
pub(crate) struct Scheduled {
    pub(crate) ready_at: Instant,
    pub(crate) order: u64,
    pub(crate) host: String,
}

impl Ord for Scheduled {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.ready_at, self.order).cmp(&(other.ready_at, other.order))
    }
}

impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

pub(crate) enum HostStep {
    Skip,
    WaitUntil(Instant),
    Lease,
}

#[derive(Default)]
pub(crate) struct Scheduler {
    pub(crate) hosts: HashMap<String, HostState>,
    pub(crate) heap: BinaryHeap<Reverse<Scheduled>>,
    pub(crate) schedule_order: u64,
    pub(crate) in_flight: u32,
    pub(crate) calls_since_prune: u32,
    /// Hosts given up for the life of this store (this run): never scheduled, their
    /// queues kept on disk for the next run.
    pub(crate) given_up: HashSet<String>,
}

impl Scheduler {
    /// Puts the host in the ready heap at `at` unless it is already there.
    pub(crate) fn schedule(&mut self, host: &str, at: Instant) {
        if self.given_up.contains(host) {
            return;
        }
        if let Some(state) = self.hosts.get_mut(host)
            && !state.scheduled
        {
            state.scheduled = true;
            self.schedule_order += 1;
            self.heap.push(Reverse(Scheduled {
                ready_at: at,
                order: self.schedule_order,
                host: host.to_string(),
            }));
        }
    }

    /// Schedules the host if it has queued URLs and room for another request.
    pub(crate) fn schedule_if_eligible(&mut self, host: &str, now: Instant, per_host: u32) {
        let at = match self.hosts.get(host) {
            Some(state) if state.has_queued && state.in_flight < per_host && !state.scheduled => {
                state.paused_until.map_or(now, |until| until.max(now))
            }
            _ => return,
        };
        self.schedule(host, at);
    }
}

impl Scheduler {
    /// Decides for a host popped from the ready heap; takes a limiter permit on `Lease`.
    pub(crate) fn host_step(
        &mut self,
        host: &str,
        now: Instant,
        per_host: u32,
        clocks: &Clocks,
    ) -> HostStep {
        let inner = self;
        let given_up = inner.given_up.contains(host);
        let Some(state) = inner.hosts.get_mut(host) else {
            return HostStep::Skip;
        };
        state.scheduled = false;
        if given_up {
            return HostStep::Skip;
        }
        if !state.has_queued || state.in_flight >= per_host {
            return HostStep::Skip; // rescheduled by offer/complete
        }
        if let Some(until) = state.paused_until {
            if until > now {
                return HostStep::WaitUntil(until);
            }
            state.paused_until = None;
        }
        if let Some(limiter) = &state.limiter {
            clocks.set_clock(now);
            if let Err(not_until) = limiter.check() {
                let at = clocks
                    .timebase
                    .instant_of_nanos(not_until.earliest_possible().as_u64());
                return HostStep::WaitUntil(at.max(now));
            }
        }
        state.last_request = Some(now);
        HostStep::Lease
    }

    /// Pauses the host until at least `now + pause` (capped at `max_retry_after`); returns the
    /// pause end.
    pub(crate) fn pause(
        &mut self,
        host: &str,
        now: Instant,
        pause: Duration,
        max_retry_after: Duration,
    ) -> Instant {
        let until = now + pause.min(max_retry_after);
        match self.hosts.get_mut(host) {
            Some(state) => {
                let until = state
                    .paused_until
                    .map_or(until, |current| current.max(until));
                state.paused_until = Some(until);
                until
            }
            None => until,
        }
    }

    /// Forgets hosts with nothing queued or in flight whose delay has passed: a fresh limiter
    /// would decide the same, and their delay override is stored.
    pub(crate) fn prune_idle_hosts(&mut self, now: Instant) {
        self.hosts.retain(|_, state| {
            let idle = !state.has_queued
                && state.in_flight == 0
                && !state.scheduled
                && state.paused_until.is_none_or(|until| until <= now)
                && state
                    .last_request
                    .is_none_or(|last| last + state.delay <= now);
            !idle
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timebase_round_trips() {
        let timebase = Timebase::now();
        let later = timebase.epoch + Duration::from_millis(1500);
        let ms = timebase.unix_ms(later);
        assert_eq!(ms, timebase.epoch_unix_ms + 1500);
        assert_eq!(timebase.instant_of_unix_ms(ms), later);
        assert_eq!(timebase.instant_of_unix_ms(0), timebase.epoch);
        let nanos = timebase.nanos(later);
        assert_eq!(timebase.instant_of_nanos(nanos), later);
    }
}
