//! One page in one tab: its document answered from the caller's bytes, every other request
//! put to the gate, the DOM taken once the page has settled or at the deadline.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::fetch::{
    ContinueRequestParams, EventRequestPaused, FailRequestParams, FulfillRequestParams, HeaderEntry,
};
use chromiumoxide::cdp::browser_protocol::network::{
    ErrorReason, EventLoadingFailed, EventLoadingFinished, EventRequestWillBeSent, ResourceType,
    SetBypassServiceWorkerParams,
};
use futures_util::StreamExt;

use crate::browser::RunningBrowser;
use crate::{RenderSettings, Rendered, RequestGate, Subrequest};

/// How often the settle check looks at the page's requests.
const SETTLE_POLL: Duration = Duration::from_millis(50);

/// What the interception and the network events saw of the page's requests.
struct Activity {
    last_request: std::sync::Mutex<Instant>,
    /// Requests sent and not yet finished or failed (network request ids): a page waiting
    /// for a slow answer has not settled, however long ago the request was sent.
    in_flight: std::sync::Mutex<HashSet<String>>,
    allowed: AtomicU32,
    blocked: AtomicU32,
}

impl Activity {
    fn new() -> Self {
        Activity {
            last_request: std::sync::Mutex::new(Instant::now()),
            in_flight: std::sync::Mutex::new(HashSet::new()),
            allowed: AtomicU32::new(0),
            blocked: AtomicU32::new(0),
        }
    }

    /// How long the page has had no request in flight and started or ended none.
    fn quiet_for(&self) -> Duration {
        let waiting = self.in_flight.lock().map(|set| !set.is_empty());
        if waiting.unwrap_or(false) {
            return Duration::ZERO;
        }
        self.last_request
            .lock()
            .map(|last| last.elapsed())
            .unwrap_or_default()
    }

    fn sent(&self, request: &str) {
        if let Ok(mut set) = self.in_flight.lock() {
            set.insert(request.to_string());
        }
        self.touch();
    }

    fn ended(&self, request: &str) {
        if let Ok(mut set) = self.in_flight.lock() {
            set.remove(request);
        }
        self.touch();
    }

    fn touch(&self) {
        if let Ok(mut last) = self.last_request.lock() {
            *last = Instant::now();
        }
    }
}

/// Renders in a new tab of `browser`; `Err` says what failed (the caller restarts the
/// browser and tries again).
pub(crate) async fn render_in(
    browser: &RunningBrowser,
    settings: &RenderSettings,
    url: &str,
    document: &[u8],
    gate: Arc<dyn RequestGate>,
) -> Result<Rendered, String> {
    let started = Instant::now();
    let page = tokio::time::timeout(settings.deadline, browser.new_page())
        .await
        .map_err(|_| "no new tab within the deadline".to_string())??;
    let result = render_on(&page, settings, url, document, gate, started).await;
    // A tab that does not close is the browser's problem: it is not waited for.
    let closing = page.clone();
    tokio::spawn(async move {
        let _ = tokio::time::timeout(Duration::from_secs(5), closing.close()).await;
    });
    result
}

async fn render_on(
    page: &Page,
    settings: &RenderSettings,
    url: &str,
    document: &[u8],
    gate: Arc<dyn RequestGate>,
    started: Instant,
) -> Result<Rendered, String> {
    let protocol = |e: chromiumoxide::error::CdpError| format!("DevTools protocol: {e}");
    page.execute(SetBypassServiceWorkerParams::new(true))
        .await
        .map_err(protocol)?;
    let activity = Arc::new(Activity::new());
    let network = watch_network(page, activity.clone())
        .await
        .map_err(protocol)?;
    let paused = page
        .event_listener::<EventRequestPaused>()
        .await
        .map_err(protocol)?;
    let interception = tokio::spawn(intercept(
        page.clone(),
        paused,
        Answers {
            url: normalized(url),
            document: document.to_vec(),
            gate,
            activity: activity.clone(),
        },
    ));
    let rendered = navigate_and_settle(page, settings, url, &activity, started).await;
    interception.abort();
    network.abort();
    let (html, unsettled) = rendered?;
    Ok(Rendered {
        html,
        allowed: activity.allowed.load(Ordering::Relaxed),
        blocked: activity.blocked.load(Ordering::Relaxed),
        unsettled,
        restarts: 0,
    })
}

/// Navigates, waits for the page to settle (or the deadline), and serializes its DOM.
async fn navigate_and_settle(
    page: &Page,
    settings: &RenderSettings,
    url: &str,
    activity: &Activity,
    started: Instant,
) -> Result<(String, bool), String> {
    let left = |started: Instant| settings.deadline.saturating_sub(started.elapsed());
    // A page whose load never ends (a request that hangs) is still read at the deadline.
    let loaded = tokio::time::timeout(left(started), page.goto(url)).await;
    if let Ok(Err(e)) = &loaded {
        return Err(format!("navigation failed: {e}"));
    }
    // The quiet window starts when the page has loaded: its scripts' first requests may
    // come a while after the last subresource on a loaded machine.
    activity.touch();
    let mut unsettled = loaded.is_err();
    while !unsettled && activity.quiet_for() < settings.settle {
        if left(started).is_zero() {
            unsettled = true;
            break;
        }
        tokio::time::sleep(SETTLE_POLL.min(left(started))).await;
    }
    // The DOM is read even at the deadline: a browser that cannot answer then has hung.
    let grace = settings.settle.max(Duration::from_secs(2));
    let html = tokio::time::timeout(left(started) + grace, page.content())
        .await
        .map_err(|_| "the browser did not answer within the deadline (hung)".to_string())?
        .map_err(|e| format!("reading the DOM failed: {e}"))?;
    Ok((html, unsettled))
}

/// Follows the page's network events into `activity`'s requests in flight.
async fn watch_network(
    page: &Page,
    activity: Arc<Activity>,
) -> Result<tokio::task::JoinHandle<()>, chromiumoxide::error::CdpError> {
    enum Network {
        Sent(String),
        Ended(String),
    }
    let sent = page.event_listener::<EventRequestWillBeSent>().await?;
    let finished = page.event_listener::<EventLoadingFinished>().await?;
    let failed = page.event_listener::<EventLoadingFailed>().await?;
    let mut events = futures_util::stream::select(
        sent.map(|e| Network::Sent(e.request_id.inner().clone())),
        futures_util::stream::select(
            finished.map(|e| Network::Ended(e.request_id.inner().clone())),
            failed.map(|e| Network::Ended(e.request_id.inner().clone())),
        ),
    );
    Ok(tokio::spawn(async move {
        while let Some(event) = events.next().await {
            match event {
                Network::Sent(request) => activity.sent(&request),
                Network::Ended(request) => activity.ended(&request),
            }
        }
    }))
}

/// How the interception answers.
struct Answers {
    /// The page's own URL ([`normalized`]): its document is answered with `document`.
    url: String,
    document: Vec<u8>,
    gate: Arc<dyn RequestGate>,
    activity: Arc<Activity>,
}

async fn intercept(
    page: Page,
    mut paused: chromiumoxide::listeners::EventStream<EventRequestPaused>,
    answers: Answers,
) {
    let answers = Arc::new(answers);
    while let Some(event) = paused.next().await {
        answers.activity.touch();
        // Each request is answered on its own task: a gate that waits for one host's
        // politeness must not hold up the others.
        tokio::spawn(answer(page.clone(), event, answers.clone()));
    }
}

async fn answer(page: Page, event: Arc<EventRequestPaused>, answers: Arc<Answers>) {
    let id = event.request_id.clone();
    let is_page = normalized(&event.request.url) == answers.url;
    let is_document = event.resource_type == ResourceType::Document;
    let outcome = if is_document && !is_page {
        // The page is what is rendered: it does not navigate away (a refresh, a script
        // setting `location`) and loads no other document (frames are links of their own).
        answers.activity.blocked.fetch_add(1, Ordering::Relaxed);
        page.execute(FailRequestParams::new(id, ErrorReason::BlockedByClient))
            .await
            .map(|_| ())
    } else if is_document {
        let fulfil = FulfillRequestParams::builder()
            .request_id(id)
            .response_code(200)
            .response_header(HeaderEntry::new("Content-Type", "text/html; charset=utf-8"))
            .body(data_encoding::BASE64.encode(&answers.document))
            .build();
        match fulfil {
            Ok(fulfil) => page.execute(fulfil).await.map(|_| ()),
            Err(_) => return,
        }
    } else {
        let admitted = match url::Url::parse(&event.request.url) {
            Ok(target) if matches!(target.scheme(), "data" | "blob") => Subrequest::Allow,
            Ok(target) => answers.gate.admit(&target).await,
            Err(_) => Subrequest::Block,
        };
        answers.activity.touch();
        match admitted {
            Subrequest::Allow => {
                answers.activity.allowed.fetch_add(1, Ordering::Relaxed);
                page.execute(ContinueRequestParams::new(id))
                    .await
                    .map(|_| ())
            }
            Subrequest::Block => {
                answers.activity.blocked.fetch_add(1, Ordering::Relaxed);
                page.execute(FailRequestParams::new(id, ErrorReason::BlockedByClient))
                    .await
                    .map(|_| ())
            }
        }
    };
    if let Err(e) = outcome {
        tracing::debug!(url = %event.request.url, error = %e, "answering a paused request failed");
    }
}

/// A URL as compared with the page's: parsed (the browser's spelling), without fragment.
fn normalized(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) => {
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => url.to_string(),
    }
}
