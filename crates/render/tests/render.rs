//! The renderer with Debian's Chromium (installed by `./scripts/test`) on the single-page-app
//! fixture: an app shell filled by its script, a page that never settles (the deadline), a
//! page waiting longer than the quiet window for a slow answer (taken once it came), a
//! request to another host (blocked by the gate), a browser killed mid-page and a browser over
//! its memory bound (both restarted, the page rendered).

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use dedupcrawl_render::{GateFuture, RenderSettings, Rendered, Renderer, RequestGate, Subrequest};
use dedupcrawl_testsite::{SLOW_ANSWER, SpaSite};

/// Allows the fixture's own host, blocks the rest, counts both.
struct SameHost {
    host: String,
    allowed: AtomicU32,
    blocked: AtomicU32,
}

impl RequestGate for SameHost {
    fn admit<'a>(&'a self, url: &'a url::Url) -> GateFuture<'a> {
        Box::pin(async move {
            let authority = format!(
                "{}:{}",
                url.host_str().unwrap_or(""),
                url.port().unwrap_or(80)
            );
            if authority == self.host {
                self.allowed.fetch_add(1, Ordering::Relaxed);
                Subrequest::Allow
            } else {
                self.blocked.fetch_add(1, Ordering::Relaxed);
                Subrequest::Block
            }
        })
    }
}

fn gate(site: &SpaSite) -> Arc<SameHost> {
    let seed = url::Url::parse(&site.seed()).expect("seed url");
    Arc::new(SameHost {
        host: format!(
            "{}:{}",
            seed.host_str().unwrap_or(""),
            seed.port().unwrap_or(80)
        ),
        allowed: AtomicU32::new(0),
        blocked: AtomicU32::new(0),
    })
}

fn settings() -> RenderSettings {
    RenderSettings {
        deadline: Duration::from_secs(10),
        settle: Duration::from_millis(300),
        ..RenderSettings::default()
    }
}

async fn document(url: &str) -> Vec<u8> {
    reqwest::get(url)
        .await
        .expect("fixture answers")
        .bytes()
        .await
        .expect("body")
        .to_vec()
}

/// Renders `path` of a fresh fixture site with a renderer of its own: the page and how long
/// the render took.
async fn render_timed(settings: RenderSettings, path: &str) -> (Rendered, Duration) {
    let site = SpaSite::start().await.expect("site starts");
    let renderer = Renderer::new(settings);
    let url = site.url(path);
    let page = document(&url).await;
    let started = Instant::now();
    let rendered = renderer
        .render(&url, &page, gate(&site))
        .await
        .expect("renders");
    let took = started.elapsed();
    renderer.shut_down().await;
    (rendered, took)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn an_app_shell_is_filled_by_its_script_and_another_host_is_blocked() {
    runtime().block_on(async {
        let site = SpaSite::start().await.expect("site starts");
        let renderer = Renderer::new(settings());
        let gate = gate(&site);
        let home = site.seed();
        let rendered = renderer
            .render(&home, &document(&home).await, gate.clone())
            .await
            .expect("renders");
        assert!(
            rendered.html.contains(&SpaSite::app_title(0)),
            "{}",
            rendered.html
        );
        assert!(
            rendered.html.contains("href=\"/app/1\""),
            "{}",
            rendered.html
        );
        assert!(!rendered.unsettled);
        assert!(
            rendered.allowed >= 2,
            "the script and its JSON: {rendered:?}"
        );

        let reaching = site.url("/reaches-out");
        let rendered = renderer
            .render(&reaching, &document(&reaching).await, gate.clone())
            .await
            .expect("renders");
        assert!(
            rendered.html.contains("other host blocked"),
            "{}",
            rendered.html
        );
        assert_eq!(rendered.blocked, 1, "{rendered:?}");
        assert_eq!(gate.blocked.load(Ordering::Relaxed), 1);
        renderer.shut_down().await;
    });
}

#[test]
fn a_page_that_never_settles_is_taken_at_the_deadline() {
    runtime().block_on(async {
        let settings = RenderSettings {
            deadline: Duration::from_secs(3),
            ..settings()
        };
        let (rendered, took) = render_timed(settings, "/never-settles").await;
        assert!(rendered.unsettled, "{rendered:?}");
        assert!(rendered.html.contains("still polling"), "{}", rendered.html);
        assert!(
            took >= Duration::from_secs(3) && took < Duration::from_secs(8),
            "{took:?}"
        );
    });
}

#[test]
fn a_page_waiting_for_a_slow_answer_is_taken_once_the_answer_came() {
    runtime().block_on(async {
        let settings = settings();
        assert!(
            SLOW_ANSWER > settings.settle * 3,
            "the answer outlasts the quiet window"
        );
        let (rendered, took) = render_timed(settings, "/slow-answer").await;
        assert!(!rendered.unsettled, "{rendered:?}");
        assert!(
            rendered.html.contains("the slow answer"),
            "{}",
            rendered.html
        );
        assert!(took >= SLOW_ANSWER, "{took:?}");
    });
}

#[test]
fn a_killed_browser_is_restarted_and_the_page_rendered() {
    runtime().block_on(async {
        let site = SpaSite::start().await.expect("site starts");
        let renderer = Arc::new(Renderer::new(settings()));
        let home = site.seed();
        let body = document(&home).await;
        renderer
            .render(&home, &body, gate(&site))
            .await
            .expect("first render");
        let pid = renderer.browser_pid().await.expect("a browser runs");
        // Killed while the next page renders (the polling page keeps it busy).
        let url = site.url("/never-settles");
        let polling = document(&url).await;
        let killer = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(700)).await;
            // SAFETY: kill(2) on a process this test's renderer started.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
        });
        let rendered = renderer
            .render(&url, &polling, gate(&site))
            .await
            .expect("renders");
        killer.await.expect("killer");
        assert!(rendered.restarts >= 1, "{rendered:?}");
        assert!(rendered.html.contains("still polling"), "{}", rendered.html);
        assert_ne!(renderer.browser_pid().await, Some(pid));
        renderer.shut_down().await;
    });
}

#[test]
fn a_browser_over_its_memory_bound_is_restarted_before_the_next_page() {
    runtime().block_on(async {
        let site = SpaSite::start().await.expect("site starts");
        let renderer = Renderer::new(RenderSettings {
            max_memory_mb: 1,
            ..settings()
        });
        let home = site.seed();
        let body = document(&home).await;
        let mut pids = Vec::new();
        for _ in 0..3 {
            let rendered = renderer
                .render(&home, &body, gate(&site))
                .await
                .expect("renders");
            assert!(rendered.html.contains(&SpaSite::app_title(0)));
            pids.push(renderer.browser_pid().await.expect("a browser runs"));
        }
        pids.dedup();
        assert_eq!(pids.len(), 3, "a new browser for each page: {pids:?}");
        assert_eq!(renderer.restarts(), 2);
        renderer.shut_down().await;
    });
}
