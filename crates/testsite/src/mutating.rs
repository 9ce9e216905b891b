//! [`MutatingSite`]: a small site whose pages a test changes between crawl rounds (edited a
//! little or a lot, deleted, added, moved), served with configurable validators (strong or weak
//! `ETag`, `Last-Modified` only, none) and honest answers to conditional requests.

use std::collections::BTreeMap;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Which validators a page is served with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Validation {
    /// A strong `ETag` and `Last-Modified`.
    StrongEtag,
    /// A weak `ETag` (`W/"..."`) only.
    WeakEtag,
    /// `Last-Modified` only.
    LastModifiedOnly,
    /// Neither: every request gets the whole page.
    None,
}

/// What a path answers.
#[derive(Debug, Clone)]
enum Answer {
    Page {
        body: String,
        validation: Validation,
        version: u32,
    },
    MovedTo(String),
}

/// The site's mutable state.
#[derive(Default)]
struct Pages {
    answers: BTreeMap<String, Answer>,
    /// `(path, status)` of every request, in order.
    requests: Vec<(String, u16)>,
}

/// The mutating fixture site on 127.0.0.1 (random port); dropped: the server stops.
pub struct MutatingSite {
    addr: SocketAddr,
    pages: Arc<Mutex<Pages>>,
    _shutdown: watch::Sender<()>,
}

fn lock(pages: &Mutex<Pages>) -> MutexGuard<'_, Pages> {
    pages
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `words` words of text, a different text for each `seed` (a small LCG over syllables, so
/// two seeds share almost no shingles).
pub fn text(seed: u64, words: usize) -> String {
    const SYLLABLES: [&str; 24] = [
        "ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "bri", "dan", "fel", "gor", "hul", "jin",
        "kev", "lum", "mor", "nix", "pol", "quen", "ras", "sol", "tar", "ulm",
    ];
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize
    };
    (0..words)
        .map(|_| {
            let parts = 2 + next() % 2;
            (0..parts)
                .map(|_| SYLLABLES[next() % SYLLABLES.len()])
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl MutatingSite {
    /// Starts serving an empty site (add pages with [`put`](Self::put)).
    pub async fn start() -> io::Result<MutatingSite> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let addr = listener.local_addr()?;
        let pages = Arc::new(Mutex::new(Pages::default()));
        let app = Router::new().fallback(answer).with_state(pages.clone());
        let (shutdown, mut stopped) = watch::channel(());
        tokio::spawn(async move {
            let stopped = async move { while stopped.changed().await.is_ok() {} };
            if let Err(e) = axum::serve(listener, app)
                .with_graceful_shutdown(stopped)
                .await
            {
                eprintln!("mutating testsite on {addr} failed: {e}");
            }
        });
        Ok(MutatingSite {
            addr,
            pages,
            _shutdown: shutdown,
        })
    }

    /// The absolute URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Serves `path` as an HTML page titled `title` with the `body` text and links to `links`,
    /// validated as `validation`. A page put again gets a new version (new validators) if its
    /// HTML changed.
    pub fn put(&self, path: &str, title: &str, body: &str, links: &[&str], validation: Validation) {
        let links: String = links
            .iter()
            .map(|l| format!("<li><a href=\"{l}\">{l}</a></li>"))
            .collect();
        let html = format!(
            "<!doctype html><html lang=\"en\"><head><title>{title}</title></head><body>\
             <main><h1>{title}</h1><p>{body}</p></main><nav><ul>{links}</ul></nav></body></html>"
        );
        let mut pages = lock(&self.pages);
        let version = match pages.answers.get(path) {
            Some(Answer::Page {
                body: old, version, ..
            }) if *old == html => *version,
            Some(Answer::Page { version, .. }) => version + 1,
            _ => 1,
        };
        pages.answers.insert(
            path.to_string(),
            Answer::Page {
                body: html,
                validation,
                version,
            },
        );
    }

    /// `path` answers 404 from now on.
    pub fn delete(&self, path: &str) {
        lock(&self.pages).answers.remove(path);
    }

    /// `path` answers 301 to `target` from now on.
    pub fn move_to(&self, path: &str, target: &str) {
        lock(&self.pages)
            .answers
            .insert(path.to_string(), Answer::MovedTo(target.to_string()));
    }

    /// `(path, status)` of every request so far, in order.
    pub fn requests(&self) -> Vec<(String, u16)> {
        lock(&self.pages).requests.clone()
    }

    /// Forgets the requests so far.
    pub fn clear_requests(&self) {
        lock(&self.pages).requests.clear();
    }
}

/// `Last-Modified` of a page's version: a fixed day plus one day per version.
fn last_modified(version: u32) -> String {
    let day = std::time::UNIX_EPOCH
        + std::time::Duration::from_secs(1_780_000_000 + 86_400 * u64::from(version));
    httpdate::fmt_http_date(day)
}

fn etag_matches(if_none_match: &str, etag: &str) -> bool {
    // Weak comparison (RFC 9110 13.1.2), as servers do for GET.
    let opaque = |tag: &str| tag.trim().trim_start_matches("W/").to_string();
    if_none_match.trim() == "*"
        || if_none_match
            .split(',')
            .any(|candidate| opaque(candidate) == opaque(etag))
}

async fn answer(State(pages): State<Arc<Mutex<Pages>>>, uri: Uri, headers: HeaderMap) -> Response {
    let path = uri.path().to_string();
    let mut pages = lock(&pages);
    let answer = pages.answers.get(&path).cloned();
    let (status, response) = match answer {
        None => (StatusCode::NOT_FOUND, StatusCode::NOT_FOUND.into_response()),
        Some(Answer::MovedTo(target)) => (
            StatusCode::MOVED_PERMANENTLY,
            (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, target)]).into_response(),
        ),
        Some(Answer::Page {
            body,
            validation,
            version,
        }) => {
            let tag = format!("\"{}-v{version}\"", path.replace('/', "_"));
            let etag = match validation {
                Validation::StrongEtag => Some(tag),
                Validation::WeakEtag => Some(format!("W/{tag}")),
                _ => None,
            };
            let modified = matches!(
                validation,
                Validation::StrongEtag | Validation::LastModifiedOnly
            )
            .then(|| last_modified(version));
            let header = |name: header::HeaderName| {
                headers
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string)
            };
            let not_modified = match (header(header::IF_NONE_MATCH), &etag) {
                (Some(candidates), Some(etag)) => etag_matches(&candidates, etag),
                (Some(_), None) => false,
                (None, _) => match (header(header::IF_MODIFIED_SINCE), &modified) {
                    (Some(since), Some(modified)) => {
                        match (
                            httpdate::parse_http_date(&since),
                            httpdate::parse_http_date(modified),
                        ) {
                            (Ok(since), Ok(modified)) => modified <= since,
                            _ => false,
                        }
                    }
                    _ => false,
                },
            };
            let mut validators = Vec::new();
            if let Some(etag) = etag {
                validators.push((header::ETAG, etag));
            }
            if let Some(modified) = modified {
                validators.push((header::LAST_MODIFIED, modified));
            }
            let mut response = if not_modified {
                StatusCode::NOT_MODIFIED.into_response()
            } else {
                (
                    [(header::CONTENT_TYPE, "text/html; charset=utf-8".to_string())],
                    body,
                )
                    .into_response()
            };
            for (name, value) in validators {
                if let Ok(value) = value.parse() {
                    response.headers_mut().insert(name, value);
                }
            }
            (response.status(), response)
        }
    };
    pages.requests.push((path, status.as_u16()));
    response
}
