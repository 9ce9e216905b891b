//! The main-content decision of a crawl: per host, the extractor on its first pages and on
//! pages its model does not know, the model on the others.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;

use super::config::MainContentConfig;
use super::content_mask::{ContentMask, ContentSource};
use super::host_content_model::HostContentModel;
use super::page_extractor::{EXTRACTOR_MAX_BYTES, decide_alone};
use crate::extract::{ExtractedPage, TextBlock};

/// HTML bytes the extractor sees on any warm host before `max_extractor_share` applies.
const EXTRACTOR_BUDGET_SLACK_BYTES: f64 = 256.0 * 1024.0;

/// How a page of a host is decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    /// One of the host's first pages (up to `cold_start_pages`, fewer once the model predicts
    /// the extractor): the extractor's view, learnt.
    ColdStart,
    /// A recheck or a departure within the extractor budget: learnt, then the model's view.
    Extractor,
    /// The model's view.
    Model,
}

/// The main-content decision for every host of a crawl: the page-level extractor on a host's
/// first pages and on pages its model does not know, the host's model on the others.
///
/// The models are a cache of the extractor's verdicts, not crawl state: after a restart a host
/// starts cold again (how closely a model follows the extractor is measured in
/// `tests/host_model.rs`).
#[derive(Debug, Default)]
pub struct MainContent {
    config: MainContentConfig,
    hosts: Mutex<HostModels>,
    /// Pages and HTML bytes given to the page-level extractor by [`decide_with_fallback`]
    /// (Self::decide_with_fallback), for benchmarks and metrics.
    extractor_pages: AtomicU64,
    extractor_bytes: AtomicU64,
}

/// What the page-level extractor saw: see [`MainContent::extractor_use`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExtractorUse {
    pub pages: u64,
    pub html_bytes: u64,
}

/// One host's model, and how its pages were routed so far.
#[derive(Debug, Default)]
struct HostState {
    model: HostContentModel,
    pages_seen: u32,
    /// Cold-start pages in a row whose extractor verdict the model predicted before learning it.
    predicted_in_a_row: u32,
    /// HTML bytes of the pages seen past the cold start, and of those the extractor saw.
    warm_bytes_seen: u64,
    warm_bytes_extracted: u64,
}

#[derive(Debug, Default)]
struct HostModels {
    models: FxHashMap<String, (HostState, u64)>,
    clock: u64,
}

impl MainContent {
    pub fn new(config: MainContentConfig) -> Self {
        MainContent {
            config,
            hosts: Mutex::new(HostModels::default()),
            extractor_pages: AtomicU64::new(0),
            extractor_bytes: AtomicU64::new(0),
        }
    }

    pub fn config(&self) -> &MainContentConfig {
        &self.config
    }

    /// Pages and bytes the page-level extractor has seen through the host route so far.
    pub fn extractor_use(&self) -> ExtractorUse {
        ExtractorUse {
            pages: self.extractor_pages.load(Ordering::Relaxed),
            html_bytes: self.extractor_bytes.load(Ordering::Relaxed),
        }
    }

    /// The page on its own (no host evidence): the crate's `decide_alone`.
    pub fn decide_alone(
        &self,
        html: &str,
        url: Option<&str>,
        page: &ExtractedPage,
        fallback: &dyn Fn(&TextBlock) -> bool,
    ) -> ContentMask {
        decide_alone(html, url, page, fallback)
    }

    /// The page as one of its host's: the host's model when it knows the page, else the
    /// extractor (whose verdict the model then learns).
    pub fn decide(
        &self,
        host: &str,
        html: &str,
        url: Option<&str>,
        page: &ExtractedPage,
    ) -> ContentMask {
        self.decide_with_fallback(host, html, url, page, &|_| false)
    }

    /// [`decide`](Self::decide), with the blocks kept when the extractor finds nothing.
    pub fn decide_with_fallback(
        &self,
        host: &str,
        html: &str,
        url: Option<&str>,
        page: &ExtractedPage,
        fallback: &dyn Fn(&TextBlock) -> bool,
    ) -> ContentMask {
        let route = self.route(host, html.len(), page);
        if route == Route::Model
            && let Some(mask) = self.model_view(host, page)
        {
            return mask;
        }
        if html.len() > EXTRACTOR_MAX_BYTES {
            // In a crawl a page over the bound never meets the extractor: its DOM costs about
            // 100 times the page (1 GB for a 10 MB body, crates/crawler/tests/hostile_servers.rs).
            return self.model_view(host, page).unwrap_or_else(|| ContentMask {
                mask: page.blocks.iter().map(fallback).collect(),
                source: ContentSource::PageRules,
            });
        }
        self.extractor_pages.fetch_add(1, Ordering::Relaxed);
        self.extractor_bytes
            .fetch_add(html.len() as u64, Ordering::Relaxed);
        let decided = decide_alone(html, url, page, fallback);
        if decided.source != ContentSource::PageExtractor {
            return decided;
        }
        let mut hosts = self.lock();
        let state = hosts.host_mut(host, self.config.max_hosts);
        if route == Route::ColdStart {
            let model = &state.model;
            let predicted = model.predicts(page, &decided.mask, self.config.max_unknown_share);
            state.predicted_in_a_row = if predicted {
                state.predicted_in_a_row + 1
            } else {
                0
            };
            state.model.learn_cold_start(page, &decided.mask);
            return decided;
        }
        state.model.learn(page, &decided.mask);
        drop(hosts);
        // A warm host's pages all take the model's view, the extractor (on a recheck or a
        // departure) only teaching the model first: two copies of a page must get the same
        // text whichever route each took, else the dedup sees them differ by whatever the
        // model and the extractor disagree on.
        self.model_view(host, page).unwrap_or(decided)
    }

    /// Which way a page of `host` (`html_bytes` long) goes: counts it as seen.
    fn route(&self, host: &str, html_bytes: usize, page: &ExtractedPage) -> Route {
        let mut hosts = self.lock();
        let state = hosts.host_mut(host, self.config.max_hosts);
        state.pages_seen += 1;
        let warm_early = self.config.warm_after_predicted_pages > 0
            && state.predicted_in_a_row >= self.config.warm_after_predicted_pages;
        if state.model.pages_learnt() < self.config.cold_start_pages && !warm_early {
            return Route::ColdStart;
        }
        let html_bytes = html_bytes as u64;
        state.warm_bytes_seen += html_bytes;
        let recheck = self.config.recheck_every;
        let is_recheck = recheck > 0 && state.pages_seen.is_multiple_of(recheck);
        let known = state.model.predict(page, self.config.max_unknown_share);
        if !is_recheck && known.is_some() {
            return Route::Model;
        }
        // A recheck or a page that departs from the model. The extractor costs ten to sixteen
        // times our own extraction, so after the cold start it sees at most `max_extractor_share` of a
        // host's bytes; past that the model answers, keeping what it does not know.
        let budget = self.config.max_extractor_share * state.warm_bytes_seen as f64
            + EXTRACTOR_BUDGET_SLACK_BYTES;
        if (state.warm_bytes_extracted + html_bytes) as f64 > budget {
            return Route::Model;
        }
        state.warm_bytes_extracted += html_bytes;
        Route::Extractor
    }

    /// The host model's view of a page: blocks it does not know are kept unless they sit in
    /// page chrome (keeping text errs toward "distinct", the safe side for a crawler; measured
    /// on rustdoc pages, keeping agrees better with the extractor than the per-page rules do).
    /// `None` when it would keep nothing.
    fn model_view(&self, host: &str, page: &ExtractedPage) -> Option<ContentMask> {
        let mut hosts = self.lock();
        let model = &mut hosts.host_mut(host, self.config.max_hosts).model;
        let mask = model.view(page, &|block| !block.in_chrome);
        mask.iter().any(|&keep| keep).then_some(ContentMask {
            mask,
            source: ContentSource::HostModel,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HostModels> {
        // A panic elsewhere while holding the lock leaves only a cache behind: keep using it.
        self.hosts.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl HostModels {
    fn host_mut(&mut self, host: &str, max_hosts: usize) -> &mut HostState {
        self.clock += 1;
        let clock = self.clock;
        if !self.models.contains_key(host) && self.models.len() >= max_hosts.max(1) {
            let oldest = self
                .models
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(name, _)| name.clone());
            if let Some(oldest) = oldest {
                self.models.remove(&oldest);
            }
        }
        let entry = self
            .models
            .entry(host.to_string())
            .or_insert_with(|| (HostState::default(), clock));
        entry.1 = clock;
        &mut entry.0
    }
}
