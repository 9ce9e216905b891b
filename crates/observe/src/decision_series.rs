//! Decisions over time for the pages-per-second chart, counted by each decision's own time
//! (the crawl log's `ts`), not by when the observer heard of it: a crawl read from disk at
//! once shows the rates it ran at, and a live crawl's chart equals its crawl log's.
//!
//! Buckets of `step` seconds from `start`, empty ones included; bounded: past
//! [`SERIES_POINTS`] buckets, two neighbours merge and `step` doubles.

use serde::Serialize;

/// Buckets kept before two neighbours merge.
pub(crate) const SERIES_POINTS: usize = 600;

/// The decisions of one bucket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SeriesPoint {
    /// Decisions with an HTTP response.
    pub fetched: u64,
    pub archived: u64,
    /// Exact and near duplicates and contained pages.
    pub duplicates: u64,
    pub errors: u64,
}

impl SeriesPoint {
    fn add(&mut self, other: &SeriesPoint) {
        self.fetched += other.fetched;
        self.archived += other.archived;
        self.duplicates += other.duplicates;
        self.errors += other.errors;
    }
}

/// What `/api/state` returns as `series`: point `i` counts the decisions made from
/// `start + i * step` (Unix seconds, UTC) for `step` seconds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DecisionSeries {
    /// None before the first decision with a readable time.
    pub start: Option<i64>,
    /// Seconds per point: 1, doubled each time the series would pass [`SERIES_POINTS`].
    pub step: i64,
    pub points: Vec<SeriesPoint>,
}

impl Default for DecisionSeries {
    fn default() -> Self {
        DecisionSeries {
            start: None,
            step: 1,
            points: Vec::new(),
        }
    }
}

impl DecisionSeries {
    /// Counts `decision` in the bucket of `second` (Unix seconds), in whatever order decisions
    /// come: workers log slightly out of order, and an earlier one extends the series back.
    pub(crate) fn add(&mut self, second: i64, decision: &SeriesPoint) {
        while self.buckets_with(second) > SERIES_POINTS {
            self.halve();
        }
        let bucket_start = second.div_euclid(self.step) * self.step;
        let start = match self.start {
            Some(start) if start <= bucket_start => start,
            Some(start) => {
                let before = ((start - bucket_start) / self.step) as usize;
                self.points
                    .splice(0..0, std::iter::repeat_n(SeriesPoint::default(), before));
                bucket_start
            }
            None => bucket_start,
        };
        self.start = Some(start);
        let index = ((bucket_start - start) / self.step) as usize;
        if index >= self.points.len() {
            self.points.resize(index + 1, SeriesPoint::default());
        }
        self.points[index].add(decision);
    }

    /// How many buckets the series would have with `second` in it.
    fn buckets_with(&self, second: i64) -> usize {
        let Some(start) = self.start else { return 1 };
        let end = start + (self.points.len().max(1) as i64 - 1) * self.step;
        let first = start.min(second).div_euclid(self.step);
        let last = end.max(second).div_euclid(self.step);
        (last - first + 1) as usize
    }

    /// Merges neighbours: twice the step, half the points, the same total. Buckets stay aligned
    /// to multiples of the step.
    fn halve(&mut self) {
        let Some(start) = self.start else { return };
        let step = self.step * 2;
        if start.rem_euclid(step) != 0 {
            self.points.insert(0, SeriesPoint::default());
            self.start = Some(start - self.step);
        }
        self.points = self
            .points
            .chunks(2)
            .map(|pair| {
                let mut merged = SeriesPoint::default();
                pair.iter().for_each(|point| merged.add(point));
                merged
            })
            .collect();
        self.step = step;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: SeriesPoint = SeriesPoint {
        fetched: 1,
        archived: 1,
        duplicates: 0,
        errors: 0,
    };

    fn fetched(series: &DecisionSeries) -> Vec<u64> {
        series.points.iter().map(|point| point.fetched).collect()
    }

    #[test]
    fn decisions_count_in_the_second_of_their_time_with_empty_seconds_between() {
        let mut series = DecisionSeries::default();
        for second in [100, 100, 103, 101] {
            series.add(second, &ONE);
        }
        assert_eq!(series.start, Some(100));
        assert_eq!(fetched(&series), [2, 1, 0, 1]);
        // An earlier decision logged late extends the series back.
        series.add(98, &ONE);
        assert_eq!(series.start, Some(98));
        assert_eq!(fetched(&series), [1, 0, 2, 1, 0, 1]);
    }

    #[test]
    fn a_long_crawl_keeps_at_most_the_bound_in_buckets_of_doubled_steps() {
        let mut series = DecisionSeries::default();
        let seconds = 3 * SERIES_POINTS as i64 + 7;
        for second in 1_001..1_001 + seconds {
            series.add(second, &ONE);
        }
        assert!(
            series.points.len() <= SERIES_POINTS,
            "{}",
            series.points.len()
        );
        assert_eq!(series.step, 4);
        let start = series.start.expect("start");
        assert_eq!(start % series.step, 0);
        assert!(start <= 1_001 && 1_001 < start + series.step);
        let total: u64 = series.points.iter().map(|point| point.fetched).sum();
        assert_eq!(total, seconds as u64);
        // Each bucket holds the decisions of its own seconds.
        for (index, point) in series.points.iter().enumerate() {
            let from = (start + index as i64 * series.step).max(1_001);
            let to = (start + (index as i64 + 1) * series.step).min(1_001 + seconds);
            assert_eq!(point.fetched, (to - from) as u64, "bucket {index}");
        }
    }
}
