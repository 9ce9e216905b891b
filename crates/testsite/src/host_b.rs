//! Host B, "The Northern Wire": a partner site with its own template that syndicates
//! article 11 and links back to host A.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::Shared;
use crate::host_a::html_ok;
use crate::html::{self, esc};
use crate::text::prose_for;

type S = State<Arc<Shared>>;

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/robots.txt", get(robots))
        .route("/", get(home))
        .route("/syndicated/{id}", get(syndicated))
        .route("/b/page/{n}", get(page))
        .fallback(not_found)
        .with_state(shared)
}

async fn robots() -> Response {
    let mut resp = crate::expect::ROBOTS_B.into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    resp
}

async fn not_found(State(s): S) -> Response {
    let page = html::layout_b(
        &s.site,
        "Not found",
        "<h1>Not found</h1>\n<p>There is nothing at this address.</p>\n",
    );
    (StatusCode::NOT_FOUND, html_ok(page)).into_response()
}

async fn home(State(s): S) -> Response {
    let mut content = String::from("<h1>The Northern Wire</h1>\n");
    content.push_str(&html::paragraphs(&prose_for("b/home", 110)));
    content.push_str("<ul>\n<li><a href=\"/b/page/1\">News from the coast</a></li>\n");
    content.push_str("<li><a href=\"/b/page/2\">News from the hills</a></li>\n");
    if let Some(a) = s.site.article(11) {
        content.push_str(&format!(
            "<li><a href=\"/syndicated/11\">{}</a> (from our partners)</li>\n",
            esc(&a.title)
        ));
    }
    content.push_str(&format!(
        "</ul>\n<p>Read more at <a href=\"{a}/\">The Meridian Gazette</a> and its \
         <a href=\"{a}/articles/page/1\">article list</a>.</p>\n",
        a = s.site.a
    ));
    html_ok(html::layout_b(&s.site, "Front page", &content))
}

async fn syndicated(State(s): S, Path(id): Path<String>) -> Response {
    let Some(a) = (id == "11").then(|| s.site.article(11)).flatten() else {
        return not_found(State(s)).await;
    };
    let extra = format!(
        "<p class=\"credit\">Originally published by <a href=\"{}/article/11\">The Meridian Gazette</a>.</p>\n",
        s.site.a
    );
    let content = format!(
        "<div class=\"wire-story\">\n{}</div>\n",
        html::article_element(11, a, &extra)
    );
    html_ok(html::layout_b(&s.site, &a.title, &content))
}

async fn page(State(s): S, Path(n): Path<String>) -> Response {
    let title = match n.as_str() {
        "1" => "News from the coast",
        "2" => "News from the hills",
        _ => return not_found(State(s)).await,
    };
    let content = format!(
        "<article>\n<h1>{title}</h1>\n{}<p><a href=\"{}/\">Back to our partner</a></p>\n</article>\n",
        html::paragraphs(&prose_for(&format!("b/page/{n}"), 220)),
        s.site.a
    );
    html_ok(html::layout_b(&s.site, title, &content))
}
