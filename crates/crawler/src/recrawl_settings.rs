//! `[recrawl]`: how often a URL is revisited by later rounds (`dedupcrawl recrawl`), and when a
//! missing page is dropped.

use serde::{Deserialize, Serialize};

use crate::error::CrawlError;

/// `[recrawl]` keys (documented in `config/default.toml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RecrawlSettings {
    /// Seconds between two revisits of a URL fetched for the first time.
    pub initial_interval: f64,
    /// Shortest revisit interval, seconds.
    pub min_interval: f64,
    /// Longest revisit interval, seconds.
    pub max_interval: f64,
    /// An unchanged page (304, or the same payload) is revisited `inc_rate` times later.
    pub inc_rate: f64,
    /// A page that changed completely (similarity 0 with its previous version) is revisited
    /// `dec_rate` times sooner; a small edit (similarity s) divides the interval by
    /// `1 + (dec_rate - 1) * (1 - s)`.
    pub dec_rate: f64,
    /// Rounds in a row a URL may answer 404/410 before later rounds drop it.
    pub gone_after_misses: u32,
}

impl Default for RecrawlSettings {
    fn default() -> Self {
        RecrawlSettings {
            initial_interval: 86_400.0,
            min_interval: 3_600.0,
            max_interval: 30.0 * 86_400.0,
            inc_rate: 1.5,
            dec_rate: 2.0,
            gone_after_misses: 2,
        }
    }
}

impl RecrawlSettings {
    /// Checks every key; the message names the key.
    pub(crate) fn validate(&self) -> Result<(), CrawlError> {
        let error = |message: String| Err(CrawlError::ConfigValue(message));
        for (key, value) in [
            ("recrawl.initial_interval", self.initial_interval),
            ("recrawl.min_interval", self.min_interval),
            ("recrawl.max_interval", self.max_interval),
        ] {
            if !(value.is_finite() && value >= 0.0) {
                return error(format!("{key} = {value} must be seconds, at least 0"));
            }
        }
        if self.min_interval > self.max_interval {
            return error(format!(
                "recrawl.min_interval = {} must not exceed recrawl.max_interval = {}",
                self.min_interval, self.max_interval
            ));
        }
        for (key, value) in [
            ("recrawl.inc_rate", self.inc_rate),
            ("recrawl.dec_rate", self.dec_rate),
        ] {
            if !(value.is_finite() && value >= 1.0) {
                return error(format!("{key} = {value} must be at least 1"));
            }
        }
        if self.gone_after_misses == 0 {
            return error("recrawl.gone_after_misses = 0 must be at least 1".into());
        }
        Ok(())
    }

    /// The next interval after a revisit that found the page with `similarity` to its previous
    /// version (1.0: unchanged), bounded by `min_interval` and `max_interval`.
    pub(crate) fn next_interval(&self, interval: f64, similarity: f64) -> f64 {
        let similarity = similarity.clamp(0.0, 1.0);
        let next = if similarity >= 1.0 {
            interval * self.inc_rate
        } else {
            interval / (1.0 + (self.dec_rate - 1.0) * (1.0 - similarity))
        };
        next.clamp(self.min_interval, self.max_interval)
    }

    /// The first interval of a URL, bounded like the others.
    pub(crate) fn first_interval(&self) -> f64 {
        self.initial_interval
            .clamp(self.min_interval, self.max_interval)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unchanged_pages_wait_longer_and_changed_ones_less_the_more_they_changed() {
        let settings = RecrawlSettings::default();
        let day = 86_400.0;
        assert_eq!(settings.next_interval(day, 1.0), 1.5 * day);
        assert_eq!(settings.next_interval(day, 0.0), day / 2.0);
        let small_edit = settings.next_interval(day, 0.95);
        let big_edit = settings.next_interval(day, 0.3);
        assert!(day / 2.0 < big_edit && big_edit < small_edit && small_edit < day);
        assert_eq!(
            settings.next_interval(settings.max_interval, 1.0),
            settings.max_interval
        );
        assert_eq!(
            settings.next_interval(settings.min_interval, 0.0),
            settings.min_interval
        );
    }

    #[test]
    fn bad_values_name_their_key() {
        let settings = RecrawlSettings {
            dec_rate: 0.5,
            ..RecrawlSettings::default()
        };
        let message = settings.validate().unwrap_err().to_string();
        assert!(message.contains("recrawl.dec_rate"), "{message}");
        let settings = RecrawlSettings {
            min_interval: 10.0,
            max_interval: 5.0,
            ..RecrawlSettings::default()
        };
        assert!(
            settings
                .validate()
                .unwrap_err()
                .to_string()
                .contains("recrawl.min_interval")
        );
    }
}
