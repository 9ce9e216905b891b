//! [`SiteSchedule`]: when `dedupcrawl schedule` runs a site's rounds, from its `schedule`
//! (cron, UTC) or `every` (a fixed interval) key.

use std::str::FromStr as _;
use std::time::Duration;

use chrono::{DateTime, Utc};
use croner::Cron;

use crate::error::CrawlError;

/// A site's round schedule.
#[derive(Debug, Clone)]
pub enum SiteSchedule {
    /// A cron expression (5 or 6 fields, UTC): rounds start at its occurrences.
    Cron(Box<Cron>),
    /// Rounds start this long after the previous round started (or at once when a round
    /// outlasted the interval).
    Every(Duration),
}

impl SiteSchedule {
    /// The schedule of the site whose keys start with `key` (e.g. `site[2]`): `None` when it
    /// sets neither `schedule` nor `every`. The error names the key and says what to write.
    pub fn parse(
        key: &str,
        schedule: Option<&str>,
        every: Option<&str>,
    ) -> Result<Option<SiteSchedule>, CrawlError> {
        match (schedule, every) {
            (None, None) => Ok(None),
            (Some(_), Some(_)) => Err(CrawlError::ConfigValue(format!(
                "{key}.schedule and {key}.every are both set: keep one"
            ))),
            (Some(expression), None) => Cron::from_str(expression)
                .map(|cron| Some(SiteSchedule::Cron(Box::new(cron))))
                .map_err(|error| {
                    CrawlError::ConfigValue(format!(
                        "{key}.schedule = {expression:?} is not a cron expression ({error}); \
                         write e.g. \"0 3 * * *\" (minute hour day month weekday, UTC)"
                    ))
                }),
            (None, Some(interval)) => match humantime::parse_duration(interval) {
                Ok(duration) if !duration.is_zero() => Ok(Some(SiteSchedule::Every(duration))),
                Ok(_) => Err(CrawlError::ConfigValue(format!(
                    "{key}.every = {interval:?} must be longer than zero"
                ))),
                Err(error) => Err(CrawlError::ConfigValue(format!(
                    "{key}.every = {interval:?} is not a duration ({error}); write e.g. \
                     \"6h\", \"30m\" or \"2s\""
                ))),
            },
        }
    }

    /// When the round after one that started at `started` and ended at `finished` is due:
    /// never before `finished`, so a long round delays the next instead of stacking rounds.
    pub fn next_due(
        &self,
        started: DateTime<Utc>,
        finished: DateTime<Utc>,
    ) -> Result<DateTime<Utc>, CrawlError> {
        match self {
            SiteSchedule::Every(interval) => {
                let interval = chrono::Duration::from_std(*interval).map_err(|_| {
                    CrawlError::ConfigValue(format!("every = {interval:?} is too long"))
                })?;
                Ok((started + interval).max(finished))
            }
            SiteSchedule::Cron(cron) => cron.find_next_occurrence(&finished, false).map_err(|e| {
                CrawlError::ConfigValue(format!(
                    "schedule {:?} has no occurrence after {finished}: {e}",
                    cron.as_str()
                ))
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(text)
            .expect("test time")
            .with_timezone(&Utc)
    }

    #[test]
    fn every_counts_from_the_start_but_never_before_the_end() {
        let every = SiteSchedule::parse("site[0]", None, Some("6h"))
            .expect("valid")
            .expect("set");
        let start = at("2026-01-01T00:00:00Z");
        assert_eq!(
            every
                .next_due(start, at("2026-01-01T01:00:00Z"))
                .expect("due"),
            at("2026-01-01T06:00:00Z")
        );
        assert_eq!(
            every
                .next_due(start, at("2026-01-01T07:00:00Z"))
                .expect("due"),
            at("2026-01-01T07:00:00Z")
        );
    }

    #[test]
    fn cron_gives_the_next_occurrence_after_the_round() {
        let cron = SiteSchedule::parse("site[1]", Some("0 3 * * *"), None)
            .expect("valid")
            .expect("set");
        let start = at("2026-01-01T03:00:00Z");
        assert_eq!(
            cron.next_due(start, at("2026-01-01T03:20:00Z"))
                .expect("due"),
            at("2026-01-02T03:00:00Z")
        );
    }

    #[test]
    fn errors_name_the_key() {
        for (schedule, every, key) in [
            (Some("61 * * * *"), None, "site[3].schedule"),
            (None, Some("two days"), "site[3].every"),
            (None, Some("0s"), "site[3].every"),
            (
                Some("* * * * *"),
                Some("1h"),
                "site[3].schedule and site[3].every",
            ),
        ] {
            let error = SiteSchedule::parse("site[3]", schedule, every)
                .expect_err("invalid")
                .to_string();
            assert!(error.contains(key), "{error}");
        }
    }
}
