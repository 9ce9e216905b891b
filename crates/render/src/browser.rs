//! One running Chromium: launched headless with a profile of its own, its DevTools event
//! loop polled on a task, killed when retired.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chromiumoxide::browser::{Browser, BrowserConfig};
use futures_util::StreamExt;
use tokio::sync::Mutex;
use tokio::task::JoinHandle;

use crate::{RenderError, RenderSettings};

/// Flags beyond chromiumoxide's defaults: no GPU, shared memory in /tmp (small /dev/shm in
/// containers), nothing the browser would fetch on its own behalf.
const EXTRA_ARGS: &[&str] = &[
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-sync",
    "--no-first-run",
    "--no-default-browser-check",
    "--mute-audio",
];

/// How long a browser asked to close gets before it is killed.
const CLOSE_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// The longest [`RunningBrowser::shut_down`] takes: the wait for its lock, the close, the kill.
pub(crate) const SHUT_DOWN_BOUND: std::time::Duration = std::time::Duration::from_secs(9);

/// Time past `render.deadline` a browser start may take (the DevTools connection after the
/// process printed its address).
pub(crate) const LAUNCH_BOUND: std::time::Duration = std::time::Duration::from_secs(5);

pub(crate) struct RunningBrowser {
    browser: Mutex<Browser>,
    events: JoinHandle<()>,
    alive: Arc<AtomicBool>,
    pid: Option<u32>,
    /// The browser's profile, deleted with it.
    _profile: tempfile::TempDir,
}

impl RunningBrowser {
    pub(crate) async fn launch(settings: &RenderSettings) -> Result<RunningBrowser, RenderError> {
        let failed = |reason: String| RenderError::Launch {
            path: settings.chromium.display().to_string(),
            reason,
        };
        let profile = tempfile::tempdir().map_err(|e| failed(format!("no profile folder: {e}")))?;
        let config = BrowserConfig::builder()
            .chrome_executable(&settings.chromium)
            .new_headless_mode()
            // Root in containers and CI: Chromium's sandbox needs user namespaces.
            .no_sandbox()
            .user_data_dir(profile.path())
            .enable_request_intercept()
            .disable_cache()
            .launch_timeout(settings.deadline)
            .request_timeout(settings.deadline)
            .args(EXTRA_ARGS.iter().copied())
            .build()
            .map_err(failed)?;
        let (mut browser, mut handler) = Browser::launch(config)
            .await
            .map_err(|e| failed(e.to_string()))?;
        let pid = browser
            .get_mut_child()
            .and_then(|child| child.as_mut_inner().id());
        let alive = Arc::new(AtomicBool::new(true));
        let flag = alive.clone();
        let events = tokio::spawn(async move {
            while let Some(event) = handler.next().await {
                if event.is_err() {
                    break;
                }
            }
            flag.store(false, Ordering::Relaxed);
        });
        Ok(RunningBrowser {
            browser: Mutex::new(browser),
            events,
            alive,
            pid,
            _profile: profile,
        })
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Whether its event loop still runs (it ends when the browser's connection closes).
    pub(crate) fn is_alive(&self) -> bool {
        self.alive.load(Ordering::Relaxed) && !self.events.is_finished()
    }

    pub(crate) async fn new_page(&self) -> Result<chromiumoxide::Page, String> {
        let browser = self.browser.lock().await;
        browser
            .new_page("about:blank")
            .await
            .map_err(|e| format!("no new tab: {e}"))
    }

    /// Closes the browser (it ends its own processes), killing it when it does not exit
    /// within [`CLOSE_GRACE`] (a crashed or hung one), and waits for it to exit.
    pub(crate) async fn shut_down(&self) {
        // A tab holding the browser past the grace: the process is killed by its id.
        let Ok(mut browser) = tokio::time::timeout(CLOSE_GRACE, self.browser.lock()).await else {
            if let Some(pid) = self.pid.and_then(|pid| i32::try_from(pid).ok()) {
                // SAFETY: kill(2) of the browser this value started.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            self.events.abort();
            self.alive.store(false, Ordering::Relaxed);
            return;
        };
        let closed = tokio::time::timeout(CLOSE_GRACE, async {
            browser.close().await.ok()?;
            browser.wait().await.ok()
        })
        .await;
        if !matches!(closed, Ok(Some(_)))
            && tokio::time::timeout(CLOSE_GRACE, browser.kill())
                .await
                .is_err()
            && let Some(pid) = self.pid.and_then(|pid| i32::try_from(pid).ok())
        {
            // SAFETY: kill(2) of the browser this value started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        self.events.abort();
        self.alive.store(false, Ordering::Relaxed);
    }
}
