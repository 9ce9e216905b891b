//! A messy multi-host fixture web site for dedupcrawl's end-to-end tests.
//!
//! [`TestSite::start`] serves two hosts on random ports of the loopback interface:
//!
//! * **host A**, "The Meridian Gazette" (`127.0.0.1`): 30 articles and 60 products on a heavy
//!   template (40-link nav, sidebar, legal footer, cookie banner, inline scripts, styles and
//!   comments), plus every trap a polite deduplicating crawler must survive: tracking
//!   parameters and session ids, an exact copy, a page with a changing timestamp, a print
//!   version, an AMP page with `rel=canonical`, an endless calendar, robots.txt rules with a
//!   `Crawl-delay`, a gzip sitemap with an orphan page, 429/503/500 answers, redirect chains
//!   and loops, gzip, four charsets, a huge and a slow page, non-HTML files, noindex/nofollow,
//!   a dead link, malformed HTML, a truncated body and conditional GET;
//! * **host B**, "The Northern Wire" (`127.0.0.2` when the OS lets us bind it, else
//!   `127.0.0.1` on another port): another template, a syndicated copy of article 11, links
//!   back to host A.
//!
//! [`ClassesSite::start`] serves five more hosts, one per page class of issue 10 (heavy
//! template, re-templated mirror, multi-part stories, per-request noise, identifiers, hubs),
//! with their ground truth ([`ClassesTruth`]).
//!
//! [`VariedSites::start`]`(seed)` serves a second, independent family of class hosts, drawn
//! from the seed: each host in its own markup style ([`MarkupStyle`]) and chrome, real prose
//! from the benchmark data sets in `../shared/data`, plus an endless calendar, with its
//! ground truth checked on the served text ([`VariedTruth`]).
//!
//! [`ScriptNavigationSite`] serves pages linked only from scripts: a book whose table of
//! contents a script file writes (mdBook's pattern) and an app whose pages an inline script
//! names, among script strings that name no page.
//!
//! [`SpaSite`] serves single-page-app shells that only a browser fills, beside pages a
//! browser adds nothing to, a page that never settles and one that reaches for another host.
//!
//! [`Soft404Site`] serves a heavy-template shop that answers `200` "page not found" for any
//! unknown path (soft 404s), with its ground truth ([`Soft404Truth`]).
//!
//! [`UrlVariantsSite`] serves one host of URL variants (tracking parameters, print and AMP
//! views, session ids in paths, case and slash variants, directory indexes, one item under
//! two prefixes) and counterexamples (pagination, ids, sort orders, language prefixes), for
//! the URL rules learned from duplicates, with its ground truth ([`UrlVariantsTruth`]).
//!
//! [`TestSite::expected`] returns the ground truth ([`Expectations`]) with absolute URLs, and
//! [`TestSite::request_log`] every request received, for politeness assertions.
//!
//! ```no_run
//! use dedupcrawl_testsite::{TestSite, TestSiteOptions};
//! use std::time::Duration;
//!
//! # async fn demo() -> std::io::Result<()> {
//! let site = TestSite::start_with(TestSiteOptions {
//!     crawl_delay: Some(0.05),
//!     retry_after_secs: 1,
//!     slow_delay: Duration::from_millis(300),
//!     huge_bytes: 3 * 1024 * 1024,
//!     ..TestSiteOptions::default()
//! })
//! .await?;
//! let expected = site.expected();
//! // ... run the crawler from site.main_url() and site.host_b_url() ...
//! for url in expected.must_not_fetch() {
//!     assert!(site.request_log().iter().all(|r| r.url() != url));
//! }
//! # Ok(()) }
//! ```
//!
//! The servers run on the current tokio runtime and stop when the [`TestSite`] is dropped.
//! Counters (the 429/503/500 pages) are per `TestSite`: start a fresh one per test.
//! `cargo run -p dedupcrawl-testsite` serves it for manual crawls.

mod classes;
mod date;
mod expect;
mod host_a;
mod host_b;
pub mod hostile;
pub mod hostile_site;
pub mod hostile_streams;
mod html;
mod listings;
mod mutating;
mod page_server;
mod script_navigation;
pub mod similarity;
mod soft_404;
mod spa;
mod text;
mod url_variants;
mod varied;

use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::{self, Next};
use axum::response::Response;
use tokio::net::TcpListener;
use tokio::sync::watch;

pub use classes::{ClassTruth, ClassesSite, ClassesTruth, CopyOf, PageClass, PartOf};
pub use expect::{
    ArticleInfo, CalendarTrap, CharsetPage, ConditionalPage, DupKind, DuplicateGroup, Expectations,
    NonHtml, ProductInfo, RetryPage,
};
pub use listings::{ITEMS_PER_PAGE, LISTING_PAGES, ListingSite};
pub use mutating::{MutatingSite, Validation, text};
pub use script_navigation::ScriptNavigationSite;
pub use soft_404::{SOFT_404_PRODUCTS, Soft404Site, Soft404Truth};
pub use spa::{SLOW_ANSWER, SPA_PAGES, SpaSite};
pub use url_variants::{
    DRIFT_ITEMS, DRIFT_SAME, UrlVariantsSite, UrlVariantsTruth, VARIANT_ITEMS, Variant,
};
pub use varied::{
    CalendarTruth, MAIN_END, MAIN_START, MarkupStyle, Measured, VariedHost, VariedSites,
    VariedTruth, shared_data_root,
};

/// Number of `/article/N` pages.
pub const ARTICLE_COUNT: usize = 30;
/// Number of `/product/N` pages.
pub const PRODUCT_COUNT: usize = 60;

/// Knobs for the slow parts of the site; the defaults are the realistic values, tests
/// usually shrink them.
#[derive(Clone, Debug)]
pub struct TestSiteOptions {
    /// Host A's robots.txt `Crawl-delay` in seconds (fractions allowed, e.g. `0.2`);
    /// `None` leaves the line out. Default `Some(1.0)`.
    pub crawl_delay: Option<f64>,
    /// `Retry-After` of `/rate-limited` (delta-seconds) and `/unavailable-once` (HTTP-date
    /// this far ahead). Default 2.
    pub retry_after_secs: u64,
    /// How long `/slow` waits before answering. Default 5 s.
    pub slow_delay: Duration,
    /// Exact size of `/huge`. Default 30 MiB.
    pub huge_bytes: u64,
    /// Put host B on 127.0.0.2 (distinct host name) when it can be bound. Default true.
    pub separate_ips: bool,
}

impl Default for TestSiteOptions {
    fn default() -> Self {
        TestSiteOptions {
            crawl_delay: Some(1.0),
            retry_after_secs: 2,
            slow_delay: Duration::from_secs(5),
            huge_bytes: 30 * 1024 * 1024,
            separate_ips: true,
        }
    }
}

/// One request as the site received it.
#[derive(Clone, Debug)]
pub struct RequestRecord {
    /// `IP:PORT` of the host that received it (the URL authority).
    pub host: String,
    pub method: String,
    /// E.g. `/article/3;jsessionid=ABC123` or `/list?b=2&a=1`, as sent.
    pub path_and_query: String,
    /// When the request arrived (before the handler ran).
    pub at: Instant,
    pub user_agent: Option<String>,
    /// The `Authorization` header as sent (the credentials of a seed `http://user:pw@host/`).
    pub authorization: Option<String>,
}

impl RequestRecord {
    /// The absolute URL, comparable with [`Expectations`] URLs.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.host, self.path_and_query)
    }
}

/// A pre-rendered article page and its validators.
pub(crate) struct Rendered {
    pub(crate) html: String,
    pub(crate) etag: String,
    pub(crate) last_modified: SystemTime,
}

#[derive(Default)]
pub(crate) struct Hits {
    pub(crate) rate_limited: AtomicU32,
    pub(crate) unavailable: AtomicU32,
    pub(crate) flaky: AtomicU32,
}

/// State shared by both hosts.
pub(crate) struct Shared {
    pub(crate) site: html::Site,
    pub(crate) opts: TestSiteOptions,
    pub(crate) rendered: Vec<Rendered>,
    pub(crate) png: Vec<u8>,
    pub(crate) hits: Hits,
    log: Mutex<Vec<RequestRecord>>,
}

impl Shared {
    fn log(&self) -> MutexGuard<'_, Vec<RequestRecord>> {
        // A panic while holding the lock cannot leave the Vec inconsistent.
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The running site. Dropping it stops the servers (in-flight responses finish).
pub struct TestSite {
    shared: Arc<Shared>,
    expected: Expectations,
    _shutdown: watch::Sender<()>,
}

impl TestSite {
    /// Starts all hosts with [`TestSiteOptions::default`].
    pub async fn start() -> io::Result<TestSite> {
        Self::start_with(TestSiteOptions::default()).await
    }

    /// Starts all hosts on random ports. Must be called inside a tokio runtime.
    pub async fn start_with(opts: TestSiteOptions) -> io::Result<TestSite> {
        let localhost = IpAddr::V4(Ipv4Addr::LOCALHOST);
        let listener_a = TcpListener::bind(SocketAddr::new(localhost, 0)).await?;
        let listener_b = if opts.separate_ips {
            match TcpListener::bind(SocketAddr::new(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2)), 0))
                .await
            {
                Ok(l) => l,
                Err(_) => TcpListener::bind(SocketAddr::new(localhost, 0)).await?,
            }
        } else {
            TcpListener::bind(SocketAddr::new(localhost, 0)).await?
        };
        let addr_a = listener_a.local_addr()?;
        let addr_b = listener_b.local_addr()?;

        let site = html::Site {
            a: format!("http://{addr_a}"),
            b: format!("http://{addr_b}"),
            articles: text::articles(ARTICLE_COUNT),
            products: text::products(PRODUCT_COUNT),
            calendar: text::prose_for("calendar", 300),
        };
        let rendered = site
            .articles
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let html = html::article_page(&site, i + 1, a);
                let etag = format!("\"a{}-{:016x}\"", i + 1, text::fnv1a(html.as_bytes()));
                let published = a.date.as_str();
                let last_modified =
                    date::system_time(date::parse_ymd(published).unwrap_or_default());
                Rendered {
                    html,
                    etag,
                    last_modified,
                }
            })
            .collect();
        let shared = Arc::new(Shared {
            site,
            opts,
            rendered,
            png: logo_png()?,
            hits: Hits::default(),
            log: Mutex::new(Vec::new()),
        });
        let expected = expect::build(&shared);

        let (tx, rx) = watch::channel(());
        serve(
            listener_a,
            addr_a,
            host_a::router(shared.clone()),
            &shared,
            rx.clone(),
        );
        serve(
            listener_b,
            addr_b,
            host_b::router(shared.clone()),
            &shared,
            rx,
        );
        Ok(TestSite {
            shared,
            expected,
            _shutdown: tx,
        })
    }

    /// Host A's root, `http://127.0.0.1:PORT/`.
    pub fn main_url(&self) -> String {
        self.expected.main_url.clone()
    }

    /// Host B's root, `http://127.0.0.2:PORT/` (or `127.0.0.1`, see the crate docs).
    pub fn host_b_url(&self) -> String {
        self.expected.host_b_url.clone()
    }

    /// Absolute URL of a path on host A (`"/article/3"`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.shared.site.a)
    }

    /// Absolute URL of a path on host B.
    pub fn url_b(&self, path: &str) -> String {
        format!("{}{path}", self.shared.site.b)
    }

    /// Every request received so far, both hosts, in arrival order.
    pub fn request_log(&self) -> Vec<RequestRecord> {
        self.shared.log().clone()
    }

    /// Forgets the requests logged so far.
    pub fn clear_request_log(&self) {
        self.shared.log().clear();
    }

    pub fn options(&self) -> &TestSiteOptions {
        &self.shared.opts
    }

    /// The ground truth.
    pub fn expected(&self) -> Expectations {
        self.expected.clone()
    }
}

#[derive(Clone)]
struct LogCtx {
    shared: Arc<Shared>,
    host: String,
}

async fn log_request(State(ctx): State<LogCtx>, req: Request, next: Next) -> Response {
    let record = RequestRecord {
        host: ctx.host.clone(),
        method: req.method().to_string(),
        path_and_query: req
            .uri()
            .path_and_query()
            .map_or_else(|| req.uri().path().to_string(), ToString::to_string),
        at: Instant::now(),
        user_agent: req
            .headers()
            .get(header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
        authorization: req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
    };
    ctx.shared.log().push(record);
    next.run(req).await
}

fn serve(
    listener: TcpListener,
    addr: SocketAddr,
    router: Router,
    shared: &Arc<Shared>,
    mut shutdown: watch::Receiver<()>,
) {
    let ctx = LogCtx {
        shared: shared.clone(),
        host: addr.to_string(),
    };
    let app = router.layer(middleware::from_fn_with_state(ctx, log_request));
    tokio::spawn(async move {
        let stopped = async move {
            // Resolves when the TestSite (the only sender) is dropped.
            while shutdown.changed().await.is_ok() {}
        };
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(stopped)
            .await
        {
            eprintln!("testsite server on {addr} failed: {e}");
        }
    });
}

/// A 16x16 two-colour PNG, built with flate2 (zlib stream and CRCs).
fn logo_png() -> io::Result<Vec<u8>> {
    use std::io::Write as _;
    let (w, h) = (16u32, 16u32);
    let mut raw = Vec::new();
    for y in 0..h {
        raw.push(0); // filter: none
        for x in 0..w {
            let on = (x / 4 + y / 4) % 2 == 0;
            raw.extend_from_slice(if on {
                &[0x1f, 0x3a, 0x5f]
            } else {
                &[0xf5, 0xf0, 0xe1]
            });
        }
    }
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&raw)?;
    let idat = z.finish()?;
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    for (kind, data) in [(b"IHDR", ihdr), (b"IDAT", idat), (b"IEND", Vec::new())] {
        png.extend_from_slice(&(data.len() as u32).to_be_bytes());
        let mut crc = flate2::Crc::new();
        crc.update(kind);
        crc.update(&data);
        png.extend_from_slice(kind);
        png.extend_from_slice(&data);
        png.extend_from_slice(&crc.sum().to_be_bytes());
    }
    Ok(png)
}
