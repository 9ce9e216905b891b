//! [`CrawlConfig::validate`]: every value checked before anything is fetched, each message
//! naming the key, section by section.

use super::{
    CrawlConfig, DEFAULT_INTERRUPT_GRACE_SECONDS, DEFAULT_MAX_MEMORY_MB,
    MAX_INTERRUPT_GRACE_SECONDS, MIN_MAX_MEMORY_MB, compile_patterns, positive_seconds, seconds,
    threshold_check,
};
use crate::error::CrawlError;
use crate::site_schedule::SiteSchedule;

impl CrawlConfig {
    /// Checks every value; the error names the key. Called by the engine before any fetch.
    pub fn validate(&self) -> Result<(), CrawlError> {
        self.dedup.validate().map_err(CrawlError::ConfigValue)?;
        self.store.location()?;
        self.recrawl.validate()?;
        self.validate_crawl()?;
        self.validate_fetch()?;
        self.validate_archive_and_scope()?;
        self.validate_sites()?;
        self.validate_url_rules()?;
        if self.crawl.seeds.is_empty() && self.site.is_empty() {
            return Err(CrawlError::ConfigValue(
                "no seeds: set crawl.seeds, add a [[site]], or pass --seed".into(),
            ));
        }
        self.sites()?;
        Ok(())
    }

    /// `[crawl]`.
    fn validate_crawl(&self) -> Result<(), CrawlError> {
        let c = &self.crawl;
        if c.concurrency == 0 {
            return Err(CrawlError::ConfigValue(
                "crawl.concurrency = 0 must be at least 1".into(),
            ));
        }
        if c.per_host == 0 {
            return Err(CrawlError::ConfigValue(
                "crawl.per_host = 0 must be at least 1".into(),
            ));
        }
        seconds("crawl.delay", c.delay)?;
        seconds("crawl.max_crawl_delay", c.max_crawl_delay)?;
        positive_seconds("crawl.checkpoint_every", c.checkpoint_every)?;
        positive_seconds("crawl.progress_every", c.progress_every)?;
        if !(0.0..=MAX_INTERRUPT_GRACE_SECONDS).contains(&c.interrupt_grace_seconds) {
            return Err(CrawlError::ConfigValue(format!(
                "crawl.interrupt_grace_seconds = {} must be between 0 and \
                 {MAX_INTERRUPT_GRACE_SECONDS} (default {DEFAULT_INTERRUPT_GRACE_SECONDS}: how \
                 long fetches in flight may end after Ctrl-C)",
                c.interrupt_grace_seconds
            )));
        }
        if c.user_agent.trim().is_empty() || c.user_agent.contains(['\r', '\n']) {
            return Err(CrawlError::ConfigValue(
                "crawl.user_agent must be a non-empty single line".into(),
            ));
        }
        if c.out.as_os_str().is_empty() {
            return Err(CrawlError::ConfigValue(
                "crawl.out must not be empty".into(),
            ));
        }
        self.validate_crawl_limits()
    }

    /// `[url_rules]`.
    fn validate_url_rules(&self) -> Result<(), CrawlError> {
        let r = &self.url_rules;
        if r.min_support == 0 {
            return Err(CrawlError::ConfigValue(
                "url_rules.min_support = 0 must be at least 1 (distinct duplicate pairs a rule \
                 needs before it is applied)"
                    .into(),
            ));
        }
        if r.verify_every == 0 {
            return Err(CrawlError::ConfigValue(
                "url_rules.verify_every = 0 must be at least 1 (1: every application is \
                 fetched anyway)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// `[fetch]`.
    fn validate_fetch(&self) -> Result<(), CrawlError> {
        let f = &self.fetch;
        positive_seconds("fetch.connect_timeout", f.connect_timeout)?;
        positive_seconds("fetch.read_timeout", f.read_timeout)?;
        positive_seconds("fetch.total_timeout", f.total_timeout)?;
        seconds("fetch.retry_backoff", f.retry_backoff)?;
        seconds("fetch.max_retry_backoff", f.max_retry_backoff)?;
        seconds("fetch.max_retry_after", f.max_retry_after)?;
        positive_seconds("fetch.robots_retry", f.robots_retry)?;
        seconds("fetch.host_max_backoff", f.host_max_backoff)?;
        if f.host_max_failures == 0 {
            return Err(CrawlError::ConfigValue(
                "fetch.host_max_failures = 0 must be at least 1".into(),
            ));
        }
        if f.max_body_bytes == 0 {
            return Err(CrawlError::ConfigValue(
                "fetch.max_body_bytes = 0 must be at least 1".into(),
            ));
        }
        if f.max_attempts == 0 {
            return Err(CrawlError::ConfigValue(
                "fetch.max_attempts = 0 must be at least 1".into(),
            ));
        }
        Ok(())
    }

    /// `[crawl]`'s bounds and rules.
    fn validate_crawl_limits(&self) -> Result<(), CrawlError> {
        let c = &self.crawl;
        if c.max_memory_mb < MIN_MAX_MEMORY_MB {
            return Err(CrawlError::ConfigValue(format!(
                "crawl.max_memory_mb = {} is below the least a crawl needs, {MIN_MAX_MEMORY_MB} \
                 MiB; raise it (default {DEFAULT_MAX_MEMORY_MB})",
                c.max_memory_mb
            )));
        }
        if c.max_links_per_page == 0 {
            return Err(CrawlError::ConfigValue(
                "crawl.max_links_per_page = 0 must be at least 1 (no links at all: \
                 crawl.max_depth = 0)"
                    .into(),
            ));
        }
        if c.soft_404_probes > crate::soft_404::MAX_PROBES {
            return Err(CrawlError::ConfigValue(format!(
                "crawl.soft_404_probes = {} is more than {}: two probes (the default) tell a \
                 host's soft-404 answer; 0 turns probing off",
                c.soft_404_probes,
                crate::soft_404::MAX_PROBES
            )));
        }
        if !(c.soft_404_resemblance > 0.0 && c.soft_404_resemblance <= 1.0) {
            return Err(CrawlError::ConfigValue(format!(
                "crawl.soft_404_resemblance = {} must be above 0 and at most 1 (default 0.9)",
                c.soft_404_resemblance
            )));
        }
        if !(0.0..=1.0).contains(&c.duplicate_links_min_share) {
            return Err(CrawlError::ConfigValue(format!(
                "crawl.duplicate_links_min_share = {} must be in [0, 1] (default 0.5)",
                c.duplicate_links_min_share
            )));
        }
        Ok(())
    }

    /// `[archive]`, `[canonicalization]`, `[scope]`.
    fn validate_archive_and_scope(&self) -> Result<(), CrawlError> {
        if self.archive.prefix.is_empty()
            || self
                .archive
                .prefix
                .chars()
                .any(|ch| ch == '/' || ch == '\\' || ch.is_whitespace())
        {
            return Err(CrawlError::ConfigValue(format!(
                "archive.prefix = {:?} must be non-empty, without separators or whitespace",
                self.archive.prefix
            )));
        }
        if !(1..=9).contains(&self.archive.gzip_level) {
            return Err(CrawlError::ConfigValue(format!(
                "archive.gzip_level = {} must be 1 (fastest) ..= 9 (smallest); default {}",
                self.archive.gzip_level,
                dedupcrawl_archive::WarcWriterConfig::DEFAULT_GZIP_LEVEL
            )));
        }
        if self.canonicalization.max_url_length < 16 {
            return Err(CrawlError::ConfigValue(format!(
                "canonicalization.max_url_length = {} must be at least 16",
                self.canonicalization.max_url_length
            )));
        }
        compile_patterns("scope.deny_patterns", &self.scope.deny_patterns)?;
        Ok(())
    }

    /// Each `[[site]]`.
    fn validate_sites(&self) -> Result<(), CrawlError> {
        for (i, site) in self.site.iter().enumerate() {
            let key = |name: &str| format!("site[{i}].{name}");
            if site.seeds.is_empty() {
                return Err(CrawlError::ConfigValue(format!(
                    "{} must list at least one seed URL",
                    key("seeds")
                )));
            }
            if let Some(delay) = site.delay {
                seconds(&key("delay"), delay)?;
            }
            if let Some(threshold) = site.threshold {
                threshold_check(&key("threshold"), threshold)?;
            }
            compile_patterns(&key("allow_patterns"), &site.allow_patterns)?;
            compile_patterns(&key("deny_patterns"), &site.deny_patterns)?;
            SiteSchedule::parse(
                &format!("site[{i}]"),
                site.schedule.as_deref(),
                site.every.as_deref(),
            )?;
        }
        Ok(())
    }
}
