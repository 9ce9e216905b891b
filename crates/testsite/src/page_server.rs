//! Serves a generated host: a `robots.txt` that allows everything, the page a
//! [`PageSource`] has for each path (and query), `404` for the rest. Used by the class hosts
//! and the varied hosts.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use tokio::net::TcpListener;
use tokio::sync::watch;

/// What a host serves.
pub(crate) trait PageSource: Send + Sync + 'static {
    /// The page at `path_and_query` (`/a/b` or `/a?x=1`), or `None` for a 404.
    fn page(&self, path_and_query: &str) -> Option<String>;

    /// A file that is not a page at `path_and_query` (a script, a style): its content type
    /// and body. Asked before [`page`](Self::page).
    fn file(&self, _path_and_query: &str) -> Option<(&'static str, String)> {
        None
    }

    /// How long the answer at `path_and_query` waits before it is sent (a slow backend).
    fn delay(&self, _path_and_query: &str) -> Option<std::time::Duration> {
        None
    }
}

async fn answer(State(source): State<Arc<dyn PageSource>>, req: Request) -> Response {
    let uri = req.uri();
    if uri.path() == "/robots.txt" {
        return (
            [(header::CONTENT_TYPE, "text/plain")],
            "User-agent: *\nDisallow:\n",
        )
            .into_response();
    }
    let path_and_query = uri.path_and_query().map_or(uri.path(), |p| p.as_str());
    if let Some(delay) = source.delay(path_and_query) {
        tokio::time::sleep(delay).await;
    }
    if let Some((content_type, body)) = source.file(path_and_query) {
        return ([(header::CONTENT_TYPE, content_type)], body).into_response();
    }
    match source.page(path_and_query) {
        Some(html) => Html(html).into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// Serves `source` on `listener` on the current tokio runtime until `shutdown` changes or
/// its sender is dropped.
pub(crate) fn serve(
    listener: TcpListener,
    source: Arc<dyn PageSource>,
    mut shutdown: watch::Receiver<()>,
) {
    let app = Router::new().fallback(answer).with_state(source);
    tokio::spawn(async move {
        let stopped = async move { while shutdown.changed().await.is_ok() {} };
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(stopped)
            .await
        {
            eprintln!("fixture host failed: {e}");
        }
    });
}

/// Serves each source on its listener until the returned sender is dropped.
pub(crate) fn serve_all<S: PageSource>(
    listeners: Vec<TcpListener>,
    sources: impl IntoIterator<Item = S>,
) -> watch::Sender<()> {
    let (tx, rx) = watch::channel(());
    for (listener, source) in listeners.into_iter().zip(sources) {
        serve(listener, Arc::new(source), rx.clone());
    }
    tx
}
