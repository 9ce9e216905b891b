//! When the main loop samples the crawl's sizes (queue, index, WARC bytes) for the gauges and
//! the progress line, and the last sample.
//!
//! Why not simply once a second: the embedded store keeps counters, but PostgreSQL counts the
//! crawl's rows for them (`count(*)`: no shared counter row that every page of every worker
//! would update and wait on), so a sample's cost grows with the crawl. Sampled once a second
//! (and on every turn of the loop for a terminal's progress bar), the counts took the server
//! a growing share of its CPU and held the main loop while they ran. A sample is now due at
//! the earliest [`SAMPLE_EVERY`] after the last one and [`COST_FACTOR`] times as long as that
//! one took, so sampling keeps to about 1/[`COST_FACTOR`] of the loop's time whatever the
//! crawl's size; the progress line shows the last sample.

use std::time::{Duration, Instant};

use dedupcrawl_observe::Gauges;

/// How often the sizes are sampled when a sample is cheap.
pub(crate) const SAMPLE_EVERY: Duration = Duration::from_secs(1);

/// A sample waits at least this many times as long as the last one took.
pub(crate) const COST_FACTOR: u32 = 50;

/// The last sample of the sizes and when the next one is due.
#[derive(Debug)]
pub(crate) struct SizeSamples {
    last: Gauges,
    next_at: Instant,
}

impl SizeSamples {
    /// The first sample is due at once.
    pub(crate) fn new(now: Instant) -> SizeSamples {
        SizeSamples {
            last: Gauges::default(),
            next_at: now,
        }
    }

    pub(crate) fn due(&self, now: Instant) -> bool {
        now >= self.next_at
    }

    /// Keeps `sample`, which took `took` and was done at `now`.
    pub(crate) fn record(&mut self, sample: Gauges, took: Duration, now: Instant) {
        self.last = sample;
        self.next_at = now + SAMPLE_EVERY.max(took.saturating_mul(COST_FACTOR));
    }

    pub(crate) fn last(&self) -> &Gauges {
        &self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(queued: u64) -> Gauges {
        Gauges {
            queued,
            ..Gauges::default()
        }
    }

    #[test]
    fn a_cheap_sample_is_taken_again_after_a_second() {
        let start = Instant::now();
        let mut samples = SizeSamples::new(start);
        assert!(samples.due(start));
        samples.record(sample(7), Duration::from_millis(2), start);
        assert_eq!(samples.last().queued, 7);
        assert!(!samples.due(start + Duration::from_millis(999)));
        assert!(samples.due(start + SAMPLE_EVERY));
    }

    #[test]
    fn a_costly_sample_waits_in_proportion_to_its_cost() {
        let start = Instant::now();
        let mut samples = SizeSamples::new(start);
        // A count of a large crawl's rows that took 400 ms: the next one 20 s later, not 1 s.
        samples.record(sample(1), Duration::from_millis(400), start);
        assert!(!samples.due(start + Duration::from_secs(19)));
        assert!(samples.due(start + Duration::from_secs(20)));
        // It got cheap again (the store answered from a warm cache): back to once a second.
        let later = start + Duration::from_secs(20);
        samples.record(sample(2), Duration::from_millis(1), later);
        assert!(samples.due(later + SAMPLE_EVERY));
        assert_eq!(samples.last().queued, 2);
    }
}
