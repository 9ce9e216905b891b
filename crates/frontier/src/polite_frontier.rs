//! The polite scheduling, written once over [`QueueStorage`]: which host may go next (the
//! in-memory [`Scheduler`]), leases, retries with backoff, Retry-After and host-failure
//! pauses, given-up hosts. Each backend only stores; [`PoliteFrontier`] is the
//! [`FrontierStore`] of every backend.
//!
//! # Politeness
//! Each host has a minimum delay between request starts: the larger of
//! [`PolitenessConfig::min_delay`] and [`FrontierStore::set_host_delay`] (robots Crawl-delay),
//! enforced by a `governor` direct limiter per host (governor's keyed limiter has one quota
//! for all keys). The limiters run on a clock set to the `now` given to
//! [`FrontierStore::next_ready`], so decisions are reproducible from the caller's instants.
//! Hosts wait in a min-heap by ready time; among ready hosts the one waiting longest goes
//! first (round robin), so a slow or paused host never holds up the others. Workers sharing
//! one store each keep this schedule, and the store spaces a host's requests across all of
//! them ([`QueueStorage::lease_front`] with the host's [`HostSpacing`], shared pauses).

use std::cmp::Reverse;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::canonical::CanonicalUrl;
use crate::entry::{
    Completion, FrontierEntry, FrontierStats, HostOutcome, Lease, NextUrl, OfferOutcome,
};
use crate::error::FrontierError;
use crate::politeness::PolitenessConfig;
use crate::queue_storage::{FrontLease, HostSpacing, QueueEnd, QueueStorage};
use crate::scheduler::{Clocks, HostState, HostStep, Scheduler};
use crate::store::FrontierStore;

/// Due retries moved back to their queues per call of `next_ready` (bounds the work per call).
const PROMOTE_BATCH: usize = 1024;
/// How long a worker with nothing of its own waits before asking again while other workers
/// of its crawl hold leases.
const SHARED_WORK_POLL: Duration = Duration::from_millis(200);
/// `next_ready` calls between two sweeps of idle hosts.
const PRUNE_EVERY: u32 = 1024;

/// A [`FrontierStore`] over one backend's storage. Thread-safe (`&self` methods, one lock
/// around the schedule and the storage calls of one method).
pub struct PoliteFrontier<Q> {
    pub(crate) storage: Q,
    config: PolitenessConfig,
    clocks: Clocks,
    inner: Mutex<Scheduler>,
}

impl<Q> std::fmt::Debug for PoliteFrontier<Q> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoliteFrontier")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl<Q: QueueStorage> PoliteFrontier<Q> {
    /// Schedules over `storage`, after putting what a previous process left leased back in
    /// front of its host queues.
    pub(crate) fn over(storage: Q, politeness: PolitenessConfig) -> Result<Self, FrontierError> {
        let frontier = PoliteFrontier {
            storage,
            config: PolitenessConfig {
                per_host_concurrency: politeness.per_host_concurrency.max(1),
                global_concurrency: politeness.global_concurrency.max(1),
                max_attempts: politeness.max_attempts.max(1),
                ..politeness
            },
            clocks: Clocks::new(),
            inner: Mutex::new(Scheduler::default()),
        };
        let now = Instant::now();
        {
            let mut inner = frontier.lock();
            for host in frontier.storage.recover()? {
                frontier.ensure_host(&mut inner, &host, now)?;
                if let Some(state) = inner.hosts.get_mut(&host) {
                    state.has_queued = true;
                }
                inner.schedule(&host, now);
            }
        }
        Ok(frontier)
    }

    fn lock(&self) -> MutexGuard<'_, Scheduler> {
        // Every mutation of the schedule completes before storage is called or is idempotent,
        // so the state behind a poisoned lock is still usable.
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Creates the host's bookkeeping if missing (delay from the stored override).
    fn ensure_host(
        &self,
        inner: &mut Scheduler,
        host: &str,
        now: Instant,
    ) -> Result<(), FrontierError> {
        if inner.hosts.contains_key(host) {
            return Ok(());
        }
        let stored_delay = self.storage.stored_host_delay(host)?;
        let delay = stored_delay.map_or(self.config.min_delay, |d| d.max(self.config.min_delay));
        let state = HostState {
            has_queued: false,
            in_flight: 0,
            delay,
            limiter: self.clocks.new_limiter(delay, None, now),
            last_request: None,
            paused_until: None,
            scheduled: false,
        };
        inner.hosts.insert(host.to_string(), state);
        Ok(())
    }

    /// Pauses the host in this worker's schedule and, for a storage shared by several
    /// workers, in theirs; returns the pause end.
    fn pause(
        &self,
        inner: &mut Scheduler,
        host: &str,
        now: Instant,
        pause: Duration,
    ) -> Result<Instant, FrontierError> {
        self.storage
            .pause_host(host, pause.min(self.config.max_retry_after))?;
        Ok(inner.pause(host, now, pause, self.config.max_retry_after))
    }

    /// Marks the host as having queued URLs and schedules it if it may go.
    fn host_has_queued(
        &self,
        inner: &mut Scheduler,
        host: &str,
        now: Instant,
    ) -> Result<(), FrontierError> {
        self.ensure_host(inner, host, now)?;
        if let Some(state) = inner.hosts.get_mut(host) {
            state.has_queued = true;
        }
        inner.schedule_if_eligible(host, now, self.config.per_host_concurrency);
        Ok(())
    }
}

impl<Q: QueueStorage> FrontierStore for PoliteFrontier<Q> {
    fn offer_all(&self, entries: Vec<FrontierEntry>) -> Result<Vec<OfferOutcome>, FrontierError> {
        Ok(self.offer_and_mark_seen(entries, &[])?.0)
    }

    fn offer_and_mark_seen(
        &self,
        entries: Vec<FrontierEntry>,
        seen_only: &[CanonicalUrl],
    ) -> Result<(Vec<OfferOutcome>, Vec<bool>), FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        let hosts: Vec<String> = entries.iter().map(|e| e.url.host().to_string()).collect();
        let (outcomes, new) = if seen_only.is_empty() {
            (self.storage.offer(entries)?, Vec::new())
        } else {
            self.storage.offer_and_mark_seen(entries, seen_only)?
        };
        let mut previous: Option<&str> = None;
        for (host, outcome) in hosts.iter().zip(&outcomes) {
            if *outcome == OfferOutcome::Enqueued && previous != Some(host.as_str()) {
                self.host_has_queued(&mut inner, host, now)?;
                previous = Some(host.as_str());
            }
        }
        Ok((outcomes, new))
    }

    fn offer_again(&self, entries: Vec<FrontierEntry>) -> Result<(), FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        let mut hosts: Vec<String> = entries.iter().map(|e| e.url.host().to_string()).collect();
        self.storage.offer_again(entries)?;
        hosts.sort();
        hosts.dedup();
        for host in &hosts {
            self.host_has_queued(&mut inner, host, now)?;
        }
        Ok(())
    }

    fn contains(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
        self.storage.contains(url)
    }

    fn mark_seen(&self, url: &CanonicalUrl) -> Result<bool, FrontierError> {
        let _inner = self.lock();
        self.storage.mark_seen(url)
    }

    fn mark_all_seen(&self, urls: &[CanonicalUrl]) -> Result<Vec<bool>, FrontierError> {
        let _inner = self.lock();
        self.storage.mark_all_seen(urls)
    }

    /// The next URL whose host allows a request at `now`, leased.
    fn next_ready(&self, now: Instant) -> Result<NextUrl, FrontierError> {
        let mut inner = self.lock();
        for host in self.storage.keep_alive()? {
            self.host_has_queued(&mut inner, &host, now)?;
        }
        let due = self.clocks.timebase.unix_ms(now);
        for host in self.storage.promote_due(due, PROMOTE_BATCH)? {
            self.host_has_queued(&mut inner, &host, now)?;
        }
        inner.calls_since_prune += 1;
        if inner.calls_since_prune >= PRUNE_EVERY {
            inner.calls_since_prune = 0;
            inner.prune_idle_hosts(now);
        }
        if inner.in_flight >= self.config.global_concurrency {
            return Ok(NextUrl::Busy);
        }
        let per_host = self.config.per_host_concurrency;
        while inner.heap.peek().is_some_and(|top| top.0.ready_at <= now) {
            let Some(Reverse(item)) = inner.heap.pop() else {
                break;
            };
            let host = item.host;
            match inner.host_step(&host, now, per_host, &self.clocks) {
                HostStep::Skip => continue,
                HostStep::WaitUntil(at) => {
                    inner.schedule(&host, at);
                    continue;
                }
                HostStep::Lease => {}
            }
            let spacing = HostSpacing {
                delay: inner
                    .hosts
                    .get(&host)
                    .map_or(self.config.min_delay, |s| s.delay),
                per_host,
            };
            let leased = match self.storage.lease_front(&host, spacing) {
                Ok(leased) => leased,
                Err(error) => {
                    // Keep the host reachable for the next call.
                    inner.schedule(&host, now);
                    return Err(error);
                }
            };
            let Some(state) = inner.hosts.get_mut(&host) else {
                continue;
            };
            let (lease, more) = match leased {
                FrontLease::Leased { lease, more } => (lease, more),
                FrontLease::Empty => {
                    state.has_queued = false;
                    continue;
                }
                FrontLease::NotBefore(wait) => {
                    inner.schedule(&host, now + wait);
                    continue;
                }
            };
            state.in_flight += 1;
            state.has_queued = more;
            let reschedule = more && state.in_flight < per_host;
            let next_at = now + state.delay;
            inner.in_flight += 1;
            if reschedule {
                inner.schedule(&host, next_at);
            }
            return Ok(NextUrl::Ready(lease));
        }
        let next_host = inner.heap.peek().map(|top| top.0.ready_at);
        let next_retry = self
            .storage
            .first_due()?
            .map(|unix_ms| self.clocks.timebase.instant_of_unix_ms(unix_ms));
        let wake = match (next_host, next_retry) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(at) = wake {
            return Ok(NextUrl::WaitUntil(at));
        }
        let given_up = &inner.given_up;
        if inner
            .hosts
            .iter()
            .any(|(host, s)| s.has_queued && !given_up.contains(host))
        {
            return Ok(NextUrl::Busy);
        }
        // Nothing of this worker's own: work other workers of a shared crawl queued is taken
        // up, and their fetches in flight may still add links, so the crawl is not over.
        let shared = self.storage.shared_work()?;
        let mut found = false;
        for host in shared.queued_hosts {
            if !inner.given_up.contains(&host) {
                self.host_has_queued(&mut inner, &host, now)?;
                found = true;
            }
        }
        if found {
            Ok(NextUrl::WaitUntil(now))
        } else if shared.leased_elsewhere {
            Ok(NextUrl::WaitUntil(now + SHARED_WORK_POLL))
        } else {
            Ok(NextUrl::Empty)
        }
    }

    fn complete(&self, lease: Lease, outcome: HostOutcome) -> Result<Completion, FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        let lease_id = lease.id();
        if !self.storage.is_leased(lease_id)? {
            return Err(FrontierError::UnknownLease(lease_id));
        }
        let host = lease.host().to_string();
        self.ensure_host(&mut inner, &host, now)?;
        inner.in_flight = inner.in_flight.saturating_sub(1);
        if let Some(state) = inner.hosts.get_mut(&host) {
            state.in_flight = state.in_flight.saturating_sub(1);
        }
        let attempts = lease.attempt.saturating_add(1);
        // Whatever a fetch of a given-up host says (other than done), its URL waits for the
        // next run.
        let outcome = match outcome {
            HostOutcome::Done | HostOutcome::Failed => outcome,
            _ if inner.given_up.contains(&host) => HostOutcome::HostGivenUp,
            _ => outcome,
        };
        let requeue = |inner: &mut Scheduler, tries: u8, end: QueueEnd| {
            self.storage
                .requeue(lease_id, lease.entry.clone(), tries, end)?;
            if let Some(state) = inner.hosts.get_mut(&host) {
                state.has_queued = true;
            }
            Ok::<_, FrontierError>(())
        };
        let completion = match outcome {
            HostOutcome::Done | HostOutcome::Failed => {
                self.storage.finish(lease_id)?;
                Completion::Finished
            }
            HostOutcome::HostGivenUp => {
                requeue(&mut inner, 0, QueueEnd::Front)?;
                Completion::Parked
            }
            HostOutcome::HostFailure {
                pause,
                count_try: true,
            } if attempts >= self.config.max_attempts => {
                self.storage.finish(lease_id)?;
                self.pause(&mut inner, &host, now, pause)?;
                Completion::GaveUp { attempts }
            }
            HostOutcome::HostFailure { pause, count_try } => {
                let not_before = self.pause(&mut inner, &host, now, pause)?;
                let tries = if count_try { attempts } else { lease.attempt };
                requeue(&mut inner, tries, QueueEnd::Back)?;
                Completion::Requeued {
                    attempt: tries,
                    not_before,
                }
            }
            HostOutcome::Retry | HostOutcome::RetryAfter(_)
                if attempts >= self.config.max_attempts =>
            {
                self.storage.finish(lease_id)?;
                if let HostOutcome::RetryAfter(pause) = outcome {
                    self.pause(&mut inner, &host, now, pause)?;
                }
                Completion::GaveUp { attempts }
            }
            HostOutcome::RetryAfter(pause) => {
                let not_before = self.pause(&mut inner, &host, now, pause)?;
                requeue(&mut inner, attempts, QueueEnd::Front)?;
                Completion::Requeued {
                    attempt: attempts,
                    not_before,
                }
            }
            HostOutcome::Retry => {
                let not_before = now + self.config.backoff(attempts);
                let due = self.clocks.timebase.unix_ms(not_before);
                self.storage
                    .delay(lease_id, lease.entry.clone(), attempts, due)?;
                Completion::Requeued {
                    attempt: attempts,
                    not_before,
                }
            }
        };
        inner.schedule_if_eligible(&host, now, self.config.per_host_concurrency);
        Ok(completion)
    }

    /// Gives a host up for the life of this store (one run): never scheduled again, its
    /// queued URLs and those waiting for a retry stay (moved to its queue), and leases still
    /// in flight go back to its queue when completed. A store opened later (the next run)
    /// schedules the host again.
    fn give_up_host(&self, host: &str) -> Result<bool, FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        if !inner.given_up.insert(host.to_string()) {
            return Ok(false);
        }
        // Its place in the ready heap (e.g. at the end of a pause) would keep the run waiting.
        inner.heap.retain(|scheduled| scheduled.0.host != host);
        if let Some(state) = inner.hosts.get_mut(host) {
            state.scheduled = false;
        }
        // Retries of the host would otherwise keep the run waiting for their backoff.
        if self.storage.release_delayed_of_host(host)? > 0 {
            self.ensure_host(&mut inner, host, now)?;
            if let Some(state) = inner.hosts.get_mut(host) {
                state.has_queued = true;
            }
        }
        Ok(true)
    }

    fn is_given_up(&self, host: &str) -> bool {
        self.lock().given_up.contains(host)
    }

    /// Pauses live in memory only.
    fn pause_host(&self, host: &str, pause: Duration) -> Result<Instant, FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        self.ensure_host(&mut inner, host, now)?;
        self.pause(&mut inner, host, now, pause)
    }

    /// Stored, so it survives pruning and restarts.
    fn set_host_delay(&self, host: &str, delay: Duration) -> Result<(), FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        let effective = delay.max(self.config.min_delay);
        let stored = (effective > self.config.min_delay).then_some(effective);
        self.storage.set_stored_host_delay(host, stored)?;
        self.ensure_host(&mut inner, host, now)?;
        if let Some(state) = inner.hosts.get_mut(host)
            && state.delay != effective
        {
            state.limiter = self.clocks.new_limiter(effective, state.last_request, now);
            state.delay = effective;
        }
        Ok(())
    }

    fn host_delay(&self, host: &str) -> Result<Duration, FrontierError> {
        let now = Instant::now();
        let mut inner = self.lock();
        self.ensure_host(&mut inner, host, now)?;
        Ok(inner
            .hosts
            .get(host)
            .map_or(self.config.min_delay, |s| s.delay))
    }

    fn flush(&self) -> Result<(), FrontierError> {
        self.storage.flush()
    }

    fn stats(&self) -> Result<FrontierStats, FrontierError> {
        let inner = self.lock();
        let counts = self.storage.counts()?;
        Ok(FrontierStats {
            queued: counts.queued,
            in_flight: u64::from(inner.in_flight),
            delayed: counts.delayed,
            seen: counts.seen,
            hosts: inner.hosts.values().filter(|s| s.has_queued).count(),
            tracked_hosts: inner.hosts.len(),
        })
    }

    fn config(&self) -> &PolitenessConfig {
        &self.config
    }
}
