//! Pages rendered by a real browser: Debian's Chromium, headless, driven over the DevTools
//! protocol ([chromiumoxide](https://docs.rs/chromiumoxide)).
//!
//! The crawler has already fetched the page: [`Renderer::render`] hands the browser those
//! bytes as the page's document (no second fetch of it) and lets it run the page's scripts.
//! Every other request the page makes is paused and put to the caller's [`RequestGate`]:
//! allowed (after the gate has waited for the host's politeness) or blocked. What comes back
//! is the DOM serialized once the page has settled (no request in flight, started or finished
//! for [`RenderSettings::settle`]) or, for a page that never settles, at
//! [`RenderSettings::deadline`].
//!
//! A pool of at most [`RenderSettings::max_pages`] tabs shares one browser. A browser that
//! crashes, hangs past the deadline or grows past [`RenderSettings::max_memory_mb`] (its
//! processes' resident memory, read from `/proc`) is killed and started again, and the page is
//! tried once more on the new one.
//!
//! ```no_run
//! use std::sync::Arc;
//! use dedupcrawl_render::{AllowAll, RenderSettings, Renderer};
//!
//! # async fn demo() -> Result<(), dedupcrawl_render::RenderError> {
//! let renderer = Renderer::new(RenderSettings::default());
//! let html = b"<html><body><div id=root></div><script>root.textContent = 'hi'</script></body></html>";
//! let page = renderer
//!     .render("http://127.0.0.1:8000/", html, Arc::new(AllowAll))
//!     .await?;
//! assert!(page.html.contains("hi"));
//! # Ok(()) }
//! ```

mod browser;
mod gate;
mod memory;
mod tab;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::{Mutex, Semaphore};

pub use gate::{AllowAll, GateFuture, RequestGate, Subrequest};

use browser::RunningBrowser;

/// Time on top of twice the deadline that one attempt at a page may take before the browser is
/// taken for hung.
const ATTEMPT_GRACE: Duration = Duration::from_secs(5);

/// The longest one [`Renderer::render`] takes: waiting for a tab (the other tabs' pages, each
/// bounded alike, are ahead of it), then two attempts, each with a browser start
/// ([`browser::LAUNCH_BOUND`] past the deadline) and a shut-down ([`browser::SHUT_DOWN_BOUND`]).
pub fn whole_render_bound(settings: &RenderSettings) -> Duration {
    let attempt = settings.deadline * 2
        + ATTEMPT_GRACE
        + settings.deadline
        + browser::LAUNCH_BOUND
        + browser::SHUT_DOWN_BOUND * 2;
    attempt * 2 * u32::try_from(settings.max_pages.max(1)).unwrap_or(u32::MAX)
}

/// How pages are rendered.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderSettings {
    /// The browser's executable.
    pub chromium: PathBuf,
    /// Most pages rendered at once (tabs of the one browser).
    pub max_pages: usize,
    /// Longest a page gets, from its first byte to its DOM: a page still busy then is taken as
    /// it is; a browser that does not answer by then is restarted.
    pub deadline: Duration,
    /// A page has settled when, after loading, it has had no request in flight and started or
    /// finished none for this long.
    pub settle: Duration,
    /// The browser's processes together above this many MiB resident: it is restarted
    /// before the next page.
    pub max_memory_mb: u64,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            chromium: PathBuf::from("/usr/bin/chromium"),
            max_pages: 2,
            deadline: Duration::from_secs(15),
            settle: Duration::from_millis(500),
            max_memory_mb: 1024,
        }
    }
}

/// A rendered page.
#[derive(Debug, Clone)]
pub struct Rendered {
    /// The DOM serialized (doctype and `<html>` element).
    pub html: String,
    /// Requests the page made that the gate allowed, and blocked.
    pub allowed: u32,
    pub blocked: u32,
    /// The page was still making requests at the deadline (taken as it was).
    pub unsettled: bool,
    /// Browsers started again during this render (a crash, a hang, the memory bound).
    pub restarts: u32,
}

#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(
        "cannot start the browser {path}: {reason} (install Debian's chromium package, or set \
         render.chromium to its path)"
    )]
    Launch { path: String, reason: String },
    #[error(
        "the browser {path} started but did not answer within {seconds} s (render.deadline and \
         5 s): the page is read as fetched; on a loaded machine raise render.deadline"
    )]
    SlowStart { path: String, seconds: u64 },
    #[error("the browser failed on {url} twice (restarted in between): {reason}")]
    Failed { url: String, reason: String },
}

/// The browser pool. Cheap to share (`Arc`); the browser starts on the first page.
pub struct Renderer {
    settings: RenderSettings,
    browser: Mutex<Option<Arc<RunningBrowser>>>,
    tabs: Semaphore,
    restarts: AtomicU64,
}

impl Renderer {
    pub fn new(settings: RenderSettings) -> Renderer {
        Renderer {
            tabs: Semaphore::new(settings.max_pages.max(1)),
            settings,
            browser: Mutex::new(None),
            restarts: AtomicU64::new(0),
        }
    }

    pub fn settings(&self) -> &RenderSettings {
        &self.settings
    }

    /// Browsers started again since the pool was made.
    pub fn restarts(&self) -> u64 {
        self.restarts.load(Ordering::Relaxed)
    }

    /// Renders the page fetched from `url` as `document`; see the module docs.
    ///
    /// Every step is bounded, and so is the whole: two attempts, each with a browser start
    /// and a shut-down, at most [`whole_render_bound`]; past it the page fails (the caller
    /// reads it as fetched) and whatever was stuck is dropped, so a browser that stops
    /// answering in a way no step notices cannot hold the crawl.
    pub async fn render(
        &self,
        url: &str,
        document: &[u8],
        gate: Arc<dyn RequestGate>,
    ) -> Result<Rendered, RenderError> {
        let bound = whole_render_bound(&self.settings);
        match tokio::time::timeout(bound, self.render_bounded(url, document, gate)).await {
            Ok(outcome) => outcome,
            Err(_) => {
                tracing::warn!(
                    url,
                    bound_s = bound.as_secs(),
                    "rendering stuck; page read as fetched"
                );
                Err(RenderError::Failed {
                    url: url.to_string(),
                    reason: format!("stuck for {} s", bound.as_secs()),
                })
            }
        }
    }

    async fn render_bounded(
        &self,
        url: &str,
        document: &[u8],
        gate: Arc<dyn RequestGate>,
    ) -> Result<Rendered, RenderError> {
        let _tab = self.tabs.acquire().await.map_err(|_| RenderError::Failed {
            url: url.to_string(),
            reason: "renderer closed".to_string(),
        })?;
        let mut restarts = 0;
        let mut last_failure = String::new();
        for _attempt in 0..2 {
            let browser = self.browser(&mut restarts).await?;
            // The tab bounds each of its steps; this bounds them all (a browser that stops
            // answering in a way no step notices).
            let attempt = tab::render_in(&browser, &self.settings, url, document, gate.clone());
            let bound = self.settings.deadline * 2 + ATTEMPT_GRACE;
            let outcome = tokio::time::timeout(bound, attempt)
                .await
                .unwrap_or_else(|_| Err("the page took twice render.deadline (hung)".to_string()));
            match outcome {
                Ok(mut rendered) => {
                    rendered.restarts = restarts;
                    return Ok(rendered);
                }
                Err(failure) => {
                    tracing::warn!(url, %failure, "browser failed; restarting it");
                    last_failure = failure;
                    self.retire(&browser).await;
                    restarts += 1;
                }
            }
        }
        Err(RenderError::Failed {
            url: url.to_string(),
            reason: last_failure,
        })
    }

    /// The running browser, started (again) when there is none, it has exited or it is over
    /// the memory bound.
    async fn browser(&self, restarts: &mut u32) -> Result<Arc<RunningBrowser>, RenderError> {
        let mut slot = self.browser.lock().await;
        if let Some(running) = slot.as_ref() {
            // Restarted for memory only between pages: the other tabs' pages would fail.
            let alone = self.tabs.available_permits() + 1 >= self.settings.max_pages.max(1);
            let over = alone && memory::resident_mb(running.pid()) > self.settings.max_memory_mb;
            if running.is_alive() && !over {
                return Ok(running.clone());
            }
            if over {
                tracing::info!(
                    bound_mb = self.settings.max_memory_mb,
                    "browser over its memory bound; restarting it"
                );
            }
            if let Some(old) = slot.take() {
                old.shut_down().await;
            }
            *restarts += 1;
            self.restarts.fetch_add(1, Ordering::Relaxed);
        }
        let launch = RunningBrowser::launch(&self.settings);
        let running = tokio::time::timeout(self.settings.deadline + browser::LAUNCH_BOUND, launch)
            .await
            .map_err(|_| RenderError::SlowStart {
                path: self.settings.chromium.display().to_string(),
                seconds: (self.settings.deadline + browser::LAUNCH_BOUND).as_secs(),
            })??;
        let running = Arc::new(running);
        *slot = Some(running.clone());
        Ok(running)
    }

    /// Drops `browser` from the pool (if it is still the pool's), killing it.
    async fn retire(&self, browser: &Arc<RunningBrowser>) {
        let mut slot = self.browser.lock().await;
        if slot
            .as_ref()
            .is_some_and(|running| Arc::ptr_eq(running, browser))
            && let Some(old) = slot.take()
        {
            old.shut_down().await;
            self.restarts.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Kills the browser (the pool starts a new one on the next page).
    pub async fn shut_down(&self) {
        if let Some(running) = self.browser.lock().await.take() {
            running.shut_down().await;
        }
    }

    /// The browser's main process id, when one runs (tests kill it to show a restart).
    pub async fn browser_pid(&self) -> Option<u32> {
        self.browser.lock().await.as_ref().and_then(|b| b.pid())
    }
}
