//! Politeness and retry settings, the same for every [`crate::FrontierStore`] backend.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Politeness and retry settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct PolitenessConfig {
    /// Minimum time between two request starts on one host (default 1 s).
    pub min_delay: Duration,
    /// Most requests in flight per host (default 1).
    pub per_host_concurrency: u32,
    /// Most requests in flight overall (default 32).
    pub global_concurrency: u32,
    /// Most tries of one URL, the first included (default 3).
    pub max_attempts: u8,
    /// Backoff before the first retry; doubled for each further one (default 30 s).
    pub retry_backoff: Duration,
    /// Longest backoff (default 1 h).
    pub max_retry_backoff: Duration,
    /// Longest host pause honoured from a Retry-After (default 1 h).
    pub max_retry_after: Duration,
}

impl Default for PolitenessConfig {
    fn default() -> Self {
        PolitenessConfig {
            min_delay: Duration::from_secs(1),
            per_host_concurrency: 1,
            global_concurrency: 32,
            max_attempts: 3,
            retry_backoff: Duration::from_secs(30),
            max_retry_backoff: Duration::from_secs(3600),
            max_retry_after: Duration::from_secs(3600),
        }
    }
}

impl PolitenessConfig {
    /// `retry_backoff · 2^(attempts−1)`, capped.
    pub fn backoff(&self, attempts: u8) -> Duration {
        let doublings = u32::from(attempts.saturating_sub(1)).min(30);
        self.retry_backoff
            .saturating_mul(1 << doublings)
            .min(self.max_retry_backoff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let config = PolitenessConfig {
            retry_backoff: Duration::from_secs(10),
            max_retry_backoff: Duration::from_secs(35),
            ..PolitenessConfig::default()
        };
        assert_eq!(config.backoff(1), Duration::from_secs(10));
        assert_eq!(config.backoff(2), Duration::from_secs(20));
        assert_eq!(config.backoff(3), Duration::from_secs(35));
        assert_eq!(config.backoff(255), Duration::from_secs(35));
    }
}
