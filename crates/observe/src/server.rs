//! The read-only HTTP server: the dashboard page, its JSON, and `/metrics`.
//!
//! | path | what |
//! | --- | --- |
//! | `/` | the dashboard (HTML, JS and CSS embedded in the binary, no build step) |
//! | `/api/crawls` | the crawls served: `[{"id": 0, "name": "OUT"}]` |
//! | `/api/state?crawl=N` | a [`Snapshot`](crate::Snapshot) of crawl N (default 0) |
//! | `/api/clusters?crawl=N&page=P&q=TEXT` | a page of duplicate clusters (search by URL) |
//! | `/api/why?crawl=N&url=URL` | what `why OUT URL --json` prints |
//! | `/api/changes?crawl=N` | the latest recrawl round's changes (`changes OUT`) |
//! | `/metrics` | OpenMetrics text (Prometheus scrapes it), every crawl's metrics |

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use prometheus_client::registry::Registry;
use serde::{Deserialize, Serialize};
use tokio::net::TcpListener;

use crate::access::{AccessToken, require_token};
use crate::error::ServeError;
use crate::observer::CrawlObserver;
use crate::queries::{ClusterQuery, CrawlQueries, QueryError};

const PAGE: &str = include_str!("assets/dashboard.html");
const SCRIPT: &str = include_str!("assets/dashboard.js");
const STYLE: &str = include_str!("assets/dashboard.css");

/// The crawls one server shows, and the registry their metrics are in.
pub struct Dashboard {
    registry: Registry,
    crawls: Vec<ServedCrawl>,
}

struct ServedCrawl {
    name: String,
    observer: Arc<CrawlObserver>,
    /// None: a crawl not on disk (tests); its clusters, why and changes answer 404.
    queries: Option<Arc<dyn CrawlQueries>>,
}

impl Default for Dashboard {
    fn default() -> Self {
        Dashboard::new()
    }
}

impl Dashboard {
    pub fn new() -> Dashboard {
        Dashboard {
            registry: Registry::default(),
            crawls: Vec::new(),
        }
    }

    /// Adds a crawl named `name`; its metrics carry the label `crawl="NAME"` when the server
    /// shows more than one crawl (`multiple`), none otherwise.
    pub fn add_crawl(&mut self, name: &str, multiple: bool) -> Arc<CrawlObserver> {
        self.add_crawl_with_queries(name, multiple, None)
    }

    /// As [`Dashboard::add_crawl`], for a crawl whose files answer the dashboard's questions.
    pub fn add_crawl_with_queries(
        &mut self,
        name: &str,
        multiple: bool,
        queries: Option<Arc<dyn CrawlQueries>>,
    ) -> Arc<CrawlObserver> {
        let registry = if multiple {
            self.registry
                .sub_registry_with_label(("crawl".into(), name.to_string().into()))
        } else {
            &mut self.registry
        };
        let observer = Arc::new(CrawlObserver::new(registry));
        self.crawls.push(ServedCrawl {
            name: name.to_string(),
            observer: Arc::clone(&observer),
            queries,
        });
        observer
    }

    /// The router, every route behind the token check.
    pub fn router(self, token: AccessToken) -> Router {
        Router::new()
            .route("/", get(|| async { html(PAGE) }))
            .route(
                "/dashboard.js",
                get(|| async { asset(SCRIPT, "text/javascript") }),
            )
            .route("/dashboard.css", get(|| async { asset(STYLE, "text/css") }))
            .route("/api/crawls", get(crawls))
            .route("/api/state", get(state))
            .route("/api/clusters", get(clusters))
            .route("/api/why", get(why))
            .route("/api/changes", get(changes))
            .route("/metrics", get(metrics))
            .with_state(Arc::new(self))
            .layer(axum::middleware::from_fn_with_state(token, require_token))
    }
}

/// Binds `addr` (checked against the token rule first); the bound address is the listener's
/// (port 0 picks a free one).
pub async fn bind(
    addr: SocketAddr,
    token: Option<String>,
) -> Result<(TcpListener, AccessToken), ServeError> {
    let token = AccessToken::for_address(addr, token)?;
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ServeError::Bind { addr, source })?;
    Ok((listener, token))
}

/// Serves until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(ServeError::Serve)
}

fn html(body: &'static str) -> Response {
    asset(body, "text/html; charset=utf-8")
}

fn asset(body: &'static str, content_type: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

#[derive(Serialize)]
struct CrawlEntry<'a> {
    id: usize,
    name: &'a str,
}

async fn crawls(State(dashboard): State<Arc<Dashboard>>) -> Response {
    let list: Vec<CrawlEntry<'_>> = dashboard
        .crawls
        .iter()
        .enumerate()
        .map(|(id, crawl)| CrawlEntry {
            id,
            name: &crawl.name,
        })
        .collect();
    axum::Json(list).into_response()
}

#[derive(Deserialize)]
struct StateQuery {
    #[serde(default)]
    crawl: usize,
}

async fn state(
    State(dashboard): State<Arc<Dashboard>>,
    Query(query): Query<StateQuery>,
) -> Response {
    match dashboard.crawls.get(query.crawl) {
        Some(crawl) => axum::Json(crawl.observer.snapshot()).into_response(),
        None => (StatusCode::NOT_FOUND, "no such crawl\n").into_response(),
    }
}

#[derive(Deserialize)]
struct ClustersQuery {
    #[serde(default)]
    crawl: usize,
    #[serde(default)]
    page: usize,
    #[serde(default)]
    q: String,
}

async fn clusters(
    State(dashboard): State<Arc<Dashboard>>,
    Query(query): Query<ClustersQuery>,
) -> Response {
    let question = ClusterQuery {
        page: query.page,
        search: query.q,
    };
    ask(&dashboard, query.crawl, move |queries| {
        queries.clusters(&question)
    })
    .await
}

#[derive(Deserialize)]
struct WhyQuery {
    #[serde(default)]
    crawl: usize,
    url: String,
}

async fn why(State(dashboard): State<Arc<Dashboard>>, Query(query): Query<WhyQuery>) -> Response {
    ask(&dashboard, query.crawl, move |queries| {
        queries.why(&query.url)
    })
    .await
}

async fn changes(
    State(dashboard): State<Arc<Dashboard>>,
    Query(query): Query<StateQuery>,
) -> Response {
    ask(&dashboard, query.crawl, |queries| queries.changes()).await
}

/// Runs a query on a blocking thread (it reads the crawl's files) and answers with its JSON.
async fn ask(
    dashboard: &Dashboard,
    crawl: usize,
    question: impl FnOnce(&dyn CrawlQueries) -> Result<serde_json::Value, QueryError> + Send + 'static,
) -> Response {
    let Some(served) = dashboard.crawls.get(crawl) else {
        return (StatusCode::NOT_FOUND, "no such crawl\n").into_response();
    };
    let Some(queries) = served.queries.clone() else {
        return (
            StatusCode::NOT_FOUND,
            "this crawl has no files to ask about\n",
        )
            .into_response();
    };
    match tokio::task::spawn_blocking(move || question(queries.as_ref())).await {
        Ok(Ok(answer)) => axum::Json(answer).into_response(),
        Ok(Err(QueryError::NotFound(message))) => {
            (StatusCode::NOT_FOUND, format!("{message}\n")).into_response()
        }
        Ok(Err(QueryError::Failed(message))) => {
            (StatusCode::INTERNAL_SERVER_ERROR, format!("{message}\n")).into_response()
        }
        Err(error) => (StatusCode::INTERNAL_SERVER_ERROR, format!("{error}\n")).into_response(),
    }
}

async fn metrics(State(dashboard): State<Arc<Dashboard>>) -> Response {
    let mut text = String::new();
    if let Err(error) = prometheus_client::encoding::text::encode(&mut text, &dashboard.registry) {
        return (StatusCode::INTERNAL_SERVER_ERROR, format!("{error}\n")).into_response();
    }
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    )
        .into_response()
}
