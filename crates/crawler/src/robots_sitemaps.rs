//! robots.txt and sitemaps for the crawl loop: a host's policy, cached or fetched (following up
//! to 5 redirects, RFC 9309), and the sitemaps it names, read into the frontier once per host;
//! then the host's soft-404 probes ([`crate::soft_404`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use dedupcrawl_fetch::FetchRequest;
use dedupcrawl_frontier::{
    CanonicalUrl, EntryKind, FrontierEntry, RobotsPolicy, SitemapFormat, parse_sitemap,
};

use crate::context::Engine;
use crate::error::CrawlError;
use crate::mutex::lock;
use crate::redirect_guard::RedirectGuard;

/// Most sitemap files read per host.
const MAX_SITEMAP_FILES: usize = 50;
/// Redirects followed when fetching robots.txt (RFC 9309: at least 5).
const ROBOTS_MAX_REDIRECTS: usize = 5;

/// What the robots.txt step says for a URL.
pub(crate) enum RobotsStep {
    /// The policy, and whether requests other than the page were made for it.
    Ready(Arc<RobotsPolicy>, bool),
    /// robots.txt could not be had (unreachable, 5xx): disallow all for now (RFC 9309), and
    /// count it as a failure of the host.
    Failed(String),
}

impl Engine {
    /// robots.txt policy of the URL's host: cached, or fetched now (with the host's sitemaps
    /// the first time). A failed robots.txt is not cached: the host is paused by the failure
    /// policy and robots.txt is fetched again at its next turn.
    pub(crate) async fn robots_for(&self, url: &CanonicalUrl) -> Result<RobotsStep, CrawlError> {
        let host = url.host().to_string();
        if let Some(policy) = self.robots.get(&host, Instant::now()) {
            return Ok(RobotsStep::Ready(policy, false));
        }
        let host_lock = {
            let mut locks = lock(&self.robots_locks);
            Arc::clone(locks.entry(host.clone()).or_default())
        };
        let _guard = host_lock.lock().await;
        if let Some(policy) = self.robots.get(&host, Instant::now()) {
            return Ok(RobotsStep::Ready(policy, false));
        }
        self.ensure_not_stopping()?;
        let policy = match self.fetch_robots(url).await {
            Ok(policy) => policy,
            Err(reason) => return Ok(RobotsStep::Failed(reason)),
        };
        self.health.record_success(&host);
        let delay = self
            .host_delay_for(url)
            .max(policy.crawl_delay().unwrap_or_default());
        self.frontier.set_host_delay(&host, delay)?;
        let sitemap_urls: Vec<String> = policy.sitemaps().to_vec();
        let policy = self.robots.insert(&host, policy, Instant::now());
        if self.config.crawl.sitemaps
            && !policy.is_temporary()
            && !self.crawl_state.sitemaps_read(&host)?
        {
            self.read_sitemaps(url, &policy, sitemap_urls, delay)
                .await?;
            self.crawl_state.mark_sitemaps_read(&host)?;
        }
        if !policy.is_temporary() {
            self.probe_soft_404(url, &policy, delay).await?;
        }
        Ok(RobotsStep::Ready(policy, true))
    }

    /// The host's robots.txt policy, or why it could not be had (network failure, 5xx, 429).
    async fn fetch_robots(&self, url: &CanonicalUrl) -> Result<RobotsPolicy, String> {
        let mut target = RobotsPolicy::robots_url(url);
        for _ in 0..=ROBOTS_MAX_REDIRECTS {
            match self.fetcher.fetch(FetchRequest::new(target.clone())).await {
                Ok(response) => {
                    if let Some(next) = response.redirect_location() {
                        if let Some(refusal) =
                            RedirectGuard::of(&self.config).refusal_of(&response, &next)
                        {
                            // As a robots.txt that cannot be had for good: no rules (RFC 9309).
                            tracing::info!(robots = %target, "robots.txt {refusal}");
                            return Ok(RobotsPolicy::allow_all());
                        }
                        target = next;
                        continue;
                    }
                    let policy = RobotsPolicy::from_fetch_with(
                        response.status,
                        &response.body,
                        &self.config.crawl.user_agent,
                        &self.robots_config,
                    );
                    if policy.is_temporary() {
                        return Err(format!("robots.txt answered {}", response.status));
                    }
                    return Ok(policy);
                }
                Err(error) => {
                    tracing::info!(%error, robots = %target, "robots.txt unreachable");
                    return Err(error
                        .host_failure()
                        .unwrap_or_else(|| format!("robots.txt unreadable: {error}")));
                }
            }
        }
        // Too many redirects: as if there were no robots.txt (RFC 9309 2.3.1.2).
        Ok(RobotsPolicy::allow_all())
    }

    /// Fetches the host's sitemaps (robots.txt `Sitemap:` lines and `/sitemap.xml`), politely,
    /// and offers their URLs.
    async fn read_sitemaps(
        &self,
        url: &CanonicalUrl,
        policy: &RobotsPolicy,
        mut queue: Vec<String>,
        delay: Duration,
    ) -> Result<(), CrawlError> {
        let mut default_sitemap = url.url().clone();
        default_sitemap.set_path("/sitemap.xml");
        default_sitemap.set_query(None);
        let default_sitemap = default_sitemap.to_string();
        if !queue.contains(&default_sitemap) && policy.allows_path("/sitemap.xml") {
            queue.push(default_sitemap);
        }
        let mut read = 0;
        let mut done: Vec<String> = Vec::new();
        while let Some(sitemap_url) = queue.pop() {
            if read >= MAX_SITEMAP_FILES || done.contains(&sitemap_url) {
                continue;
            }
            done.push(sitemap_url.clone());
            let Ok(request) = FetchRequest::parse(&sitemap_url) else {
                continue;
            };
            read += 1;
            tokio::time::sleep(delay).await;
            // Interrupted: the host's sitemaps are not marked read, the next run reads them.
            self.ensure_not_stopping()?;
            let response = match self.fetcher.fetch(request).await {
                Ok(response) if response.status == 200 => response,
                Ok(response) => {
                    tracing::debug!(sitemap = %sitemap_url, status = response.status, "no sitemap");
                    continue;
                }
                Err(error) => {
                    tracing::info!(sitemap = %sitemap_url, %error, "sitemap fetch failed");
                    continue;
                }
            };
            if response.body_truncated {
                // A sitemap may be 50 MB (the protocol's limit); the URLs in the part that
                // fits are still taken.
                tracing::info!(
                    sitemap = %sitemap_url,
                    "sitemap larger than fetch.max_body_bytes = {}: reading its first {} bytes",
                    self.fetcher.config().max_body_bytes,
                    response.body.len()
                );
            }
            let sitemap = match parse_sitemap(&response.body) {
                Ok(sitemap) => sitemap,
                Err(error) => {
                    tracing::info!(sitemap = %sitemap_url, %error, "sitemap unreadable");
                    continue;
                }
            };
            if sitemap.format == SitemapFormat::Index {
                queue.extend(sitemap.sitemaps.into_iter().map(|e| e.loc));
            }
            let base = response.url.clone();
            let mut entries = Vec::new();
            for entry in sitemap.urls {
                let Ok(page) = CanonicalUrl::parse(&entry.loc, Some(&base), &self.rules) else {
                    continue;
                };
                if self.scope_check(&page, 0).is_in_scope() {
                    entries.push(FrontierEntry {
                        url: page,
                        depth: 0,
                        via: Some(sitemap_url.clone()),
                        kind: EntryKind::Sitemap,
                        redirect_hops: 0,
                        duplicate_hops: 0,
                    });
                }
            }
            self.frontier.offer_all(entries)?;
        }
        Ok(())
    }
}
