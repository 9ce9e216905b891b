//! Rendering a fetched page in headless Chromium (`crawl.render`, `[render]`,
//! `crates/render`): which pages are rendered, the gate every request of a rendered page
//! goes through, and what `auto` learns per host.
//!
//! * `never` (the default): no page is rendered, no browser is started.
//! * `always`: every HTML page answered `200`.
//! * `auto`: a page whose text outside page chrome has fewer than `render.auto_min_words`
//!   words and no heading or preformatted text, that has a `<script>` and does not redirect (an app's shell), on a
//!   host where rendering has added something: once `render.auto_probe_pages` rendered pages of a host added nothing (fewer
//!   than `auto_min_words` more words and no new link), the host's pages are not rendered.
//!
//! The browser gets the bytes already fetched as the page's document (it is not fetched
//! twice). Each other request the page makes is allowed only to a host in scope of a site,
//! spaced by that host's delay from the page's fetch and from each other; requests to other
//! hosts are blocked. Downloads and service workers get nothing (the renderer bypasses
//! service workers; a download is a request like any). The rendered DOM is what the
//! pipeline reads (text, main content, links, dedup); the WARC keeps the response as fetched
//! and the DOM as a `conversion` record referring to it; the crawl-log line says
//! `"rendered": true`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dedupcrawl_frontier::{CanonicalUrl, CanonicalizationRules};
use dedupcrawl_render::{GateFuture, Renderer, RequestGate, Subrequest};
use dedupcrawl_textprep::{BlockKind, ExtractedPage, LinkKind};
use tokio::time::Instant;

use crate::config::{CrawlConfig, RenderMode, RenderSettings, ResolvedSite};
use crate::error::CrawlError;
use crate::fetched::Fetched;
use crate::mutex::lock;

/// The browser pool and what `auto` has learnt.
pub(crate) struct RenderPool {
    renderer: Renderer,
    gate: Arc<PoliteGate>,
    settings: RenderSettings,
    hosts: Mutex<HashMap<String, HostRendering>>,
}

/// `auto` on one host: pages rendered, and how many of them rendering added to.
#[derive(Default)]
struct HostRendering {
    rendered: usize,
    added: usize,
}

/// What rendering a page gave: its DOM (`None`: the browser failed twice, the page is read
/// as fetched) and the note for its crawl-log line.
pub(crate) struct RenderedPage {
    pub(crate) html: Option<String>,
    pub(crate) note: String,
}

impl RenderPool {
    /// The pool when some site renders (no browser starts before its first page).
    pub(crate) fn for_config(
        config: &CrawlConfig,
        sites: &[ResolvedSite],
    ) -> Result<Option<RenderPool>, CrawlError> {
        if sites.iter().all(|site| site.render == RenderMode::Never) {
            return Ok(None);
        }
        let chromium = &config.render.chromium;
        if !chromium.is_file() {
            return Err(CrawlError::ConfigValue(format!(
                "crawl.render asks for a browser and render.chromium = {} is no file: install \
                 Debian's chromium package, set render.chromium to the browser, or set \
                 crawl.render = \"never\"",
                chromium.display()
            )));
        }
        let renderer = Renderer::new(config.render.renderer_settings()?);
        Ok(Some(RenderPool {
            renderer,
            gate: Arc::new(PoliteGate {
                sites: sites.to_vec(),
                rules: config.canonicalization.rules(),
                next_request: Mutex::new(HashMap::new()),
            }),
            settings: config.render.clone(),
            hosts: Mutex::new(HashMap::new()),
        }))
    }

    /// Kills the browser (end of the crawl).
    pub(crate) async fn shut_down(&self) {
        self.renderer.shut_down().await;
    }
}

/// The page rendered, when its site's mode says so; `None` otherwise.
pub(crate) fn render_if_needed(
    fetched: &Fetched<'_>,
    text: &str,
) -> Result<Option<RenderedPage>, CrawlError> {
    let engine = fetched.engine;
    let Some(pool) = engine.renderer.as_ref() else {
        return Ok(None);
    };
    let mode = engine
        .site_for(&fetched.url)
        .map_or(RenderMode::Never, |site| site.render);
    let host = fetched.url.host().to_string();
    let before = match mode {
        RenderMode::Never => return Ok(None),
        RenderMode::Always => None,
        RenderMode::Auto => {
            let page = dedupcrawl_textprep::extract(text);
            if !pool.auto_wants(&host, &page) {
                return Ok(None);
            }
            Some(page)
        }
    };
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return Ok(None);
    };
    let delay = engine.host_delay_for(&fetched.url);
    pool.gate.page_fetched(&host, delay);
    let gate: Arc<dyn RequestGate> = pool.gate.clone();
    let rendered = match runtime.block_on(pool.renderer.render(
        fetched.url.as_str(),
        text.as_bytes(),
        gate,
    )) {
        Ok(rendered) => rendered,
        Err(failure) => {
            return Ok(Some(RenderedPage {
                html: None,
                note: format!("not rendered, read as fetched: {failure}"),
            }));
        }
    };
    if let Some(before) = before {
        pool.learn(
            &host,
            &before,
            &dedupcrawl_textprep::extract(&rendered.html),
        );
    }
    let note = format!(
        "rendered: {} requests allowed, {} blocked{}",
        rendered.allowed,
        rendered.blocked,
        if rendered.unsettled {
            ", taken at render.deadline (still busy)"
        } else {
            ""
        }
    );
    Ok(Some(RenderedPage {
        html: Some(rendered.html),
        note,
    }))
}

fn words_outside_chrome(page: &ExtractedPage) -> usize {
    page.blocks
        .iter()
        .filter(|block| !block.in_chrome)
        .map(|block| block.words as usize)
        .sum()
}

/// A heading or preformatted text (code) outside page chrome: blocks that are content at any
/// length (as [`dedupcrawl_textprep::BoilerplateRules`] counts them), which the page's author
/// wrote into the HTML. Its few words are the page (a short chapter, a removed error code, a
/// small source file), not an app's shell waiting for its script (which writes its title as
/// it writes its text).
fn has_heading_or_code(page: &ExtractedPage) -> bool {
    page.blocks.iter().any(|block| {
        !block.in_chrome
            && block.words > 0
            && matches!(block.kind, BlockKind::Heading | BlockKind::Preformatted)
    })
}

impl RenderPool {
    /// `auto`: whether a page with this extraction is rendered on `host`.
    fn auto_wants(&self, host: &str, page: &ExtractedPage) -> bool {
        // A page that redirects (`<meta http-equiv=refresh>`) is a stub, not an app's shell.
        let redirects = page
            .links
            .iter()
            .any(|link| link.kind == LinkKind::MetaRefresh);
        if page.scripts == 0
            || redirects
            || has_heading_or_code(page)
            || words_outside_chrome(page) >= self.settings.auto_min_words
        {
            return false;
        }
        let hosts = lock(&self.hosts);
        hosts
            .get(host)
            .is_none_or(|state| state.added > 0 || state.rendered < self.settings.auto_probe_pages)
    }

    /// Records whether rendering added to a page of `host` (words or links).
    fn learn(&self, host: &str, before: &ExtractedPage, after: &ExtractedPage) {
        let more_words = words_outside_chrome(after)
            >= words_outside_chrome(before) + self.settings.auto_min_words;
        // Links a script adds to page chrome (a sidebar's table of contents) are the host's
        // navigation, which its other pages' links reach anyway.
        let anchors = |page: &ExtractedPage| -> std::collections::HashSet<String> {
            page.links
                .iter()
                .filter(|link| link.kind == LinkKind::Anchor)
                .filter(|link| {
                    page.blocks
                        .get(link.block as usize)
                        .is_none_or(|block| !block.in_chrome)
                })
                .map(|link| link.href.clone())
                .collect()
        };
        let new_link = !anchors(after).is_subset(&anchors(before));
        let mut hosts = lock(&self.hosts);
        let state = hosts.entry(host.to_string()).or_default();
        state.rendered += 1;
        state.added += usize::from(more_words || new_link);
    }
}

/// The gate of a rendered page's requests: hosts in scope of a site only, each spaced by its
/// host's delay.
struct PoliteGate {
    sites: Vec<ResolvedSite>,
    rules: CanonicalizationRules,
    /// When each host may get the next request of a rendered page.
    next_request: Mutex<HashMap<String, Instant>>,
}

impl PoliteGate {
    /// The page was just fetched from `host`: its first request waits one delay.
    fn page_fetched(&self, host: &str, delay: Duration) {
        let earliest = Instant::now() + delay;
        let mut next = lock(&self.next_request);
        let slot = next.entry(host.to_string()).or_insert(earliest);
        *slot = (*slot).max(earliest);
    }

    /// The site whose hosts hold `url` (scope by host: a page's scripts and data live beside
    /// it, outside the patterns its pages match).
    fn site_of(&self, url: &CanonicalUrl) -> Option<&ResolvedSite> {
        crate::engine::site_holding(&self.sites, url)
    }

    /// The moment the request to `host` may start, reserving the slot after it.
    fn reserve(&self, host: &str, delay: Duration) -> Instant {
        let now = Instant::now();
        let mut next = lock(&self.next_request);
        let slot = next.entry(host.to_string()).or_insert(now);
        let start = (*slot).max(now);
        *slot = start + delay;
        start
    }
}

impl RequestGate for PoliteGate {
    fn admit<'a>(&'a self, url: &'a url::Url) -> GateFuture<'a> {
        Box::pin(async move {
            let Ok(canonical) = CanonicalUrl::parse(url.as_str(), None, &self.rules) else {
                return Subrequest::Block;
            };
            let Some(site) = self.site_of(&canonical) else {
                return Subrequest::Block;
            };
            let start = self.reserve(canonical.host(), site.delay);
            tokio::time::sleep_until(start).await;
            Subrequest::Allow
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> RenderPool {
        let mut config = CrawlConfig::default();
        config.crawl.seeds = vec!["http://127.0.0.1:9/".to_string()];
        config.crawl.render = RenderMode::Auto;
        let sites = config.sites().expect("sites");
        RenderPool::for_config(&config, &sites)
            .expect("pool")
            .expect("a site renders")
    }

    fn page(html: &str) -> ExtractedPage {
        dedupcrawl_textprep::extract(html)
    }

    #[test]
    fn auto_renders_shells_with_a_script_and_stops_on_a_host_where_it_adds_nothing() {
        let pool = pool();
        let shell =
            page("<html><body><div id=root></div><script src=app.js></script></body></html>");
        let no_script = page("<html><body><p>Hello.</p></body></html>");
        let words = "word ".repeat(80);
        let full = page(&format!(
            "<html><body><p>{words}</p><script>x()</script></body></html>"
        ));
        assert!(pool.auto_wants("a", &shell));
        assert!(
            !pool.auto_wants("a", &no_script),
            "no script: nothing to render"
        );
        assert!(
            !pool.auto_wants("a", &full),
            "text of its own: nothing to render"
        );
        let short = page(
            "<html><body><main><h1>Compiler environment variables</h1></main>\
             <script src=book.js></script></body></html>",
        );
        assert!(
            !pool.auto_wants("a", &short),
            "a short page with its own heading is a document, not a shell"
        );
        let code = page(
            "<html><body><main><pre>pub use core::pat::pattern_type;</pre></main>\
             <script src=src.js></script></body></html>",
        );
        assert!(
            !pool.auto_wants("a", &code),
            "a small source file is a document, not a shell"
        );
        for _ in 0..pool.settings.auto_probe_pages {
            pool.learn("a", &shell, &shell);
        }
        assert!(
            !pool.auto_wants("a", &shell),
            "rendering added nothing on host a"
        );
        pool.learn("b", &shell, &full);
        for _ in 0..pool.settings.auto_probe_pages {
            pool.learn("b", &shell, &shell);
        }
        assert!(
            pool.auto_wants("b", &shell),
            "rendering added to a page of host b"
        );
    }
}
