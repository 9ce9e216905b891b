//! Host A, "The Meridian Gazette": the messy main site.

use std::fmt::Write as _;
use std::io::{self, Write as _};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use flate2::Compression;
use flate2::write::GzEncoder;

use crate::Shared;
use crate::date;
use crate::html::{self, UTF8_META, esc};
use crate::text::prose_for;

type S = State<Arc<Shared>>;

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    let mut r = Router::new()
        .route("/robots.txt", get(robots))
        .route("/sitemap.xml", get(sitemap_index))
        .route("/sitemap-articles.xml.gz", get(sitemap_articles))
        .route("/", get(home))
        .route("/articles/page/{p}", get(article_index))
        .route("/article/{id}", get(article))
        .route("/article/{id}/print", get(article_print))
        .route("/article/{id}/amp", get(article_amp))
        .route("/copy/article-5", get(copy_article_5))
        .route("/news/today", get(news_today))
        .route("/list", get(list))
        .route("/calendar", get(calendar))
        .route("/products", get(products))
        .route("/product/{n}", get(product))
        .route("/about", get(about))
        .route("/contact", get(contact))
        .route("/private/{name}", get(private))
        .route("/files/report.pdf", get(pdf))
        .route("/files/data.csv", get(csv))
        .route("/img/logo.png", get(png))
        .route("/orphan/only-in-sitemap", get(orphan))
        .route("/rate-limited", get(rate_limited))
        .route("/unavailable-once", get(unavailable_once))
        .route("/flaky", get(flaky))
        .route("/r/{step}", get(redirect_chain))
        .route("/loop/{side}", get(redirect_loop))
        .route("/go/b", get(go_b))
        .route("/gzipped", get(gzipped))
        .route("/charset/{kind}", get(charset))
        .route("/huge", get(huge))
        .route("/slow", get(slow))
        .route("/noindex", get(noindex))
        .route("/nofollow", get(nofollow))
        .route("/x-robots", get(x_robots))
        .route("/broken/404-link", get(broken_link))
        .route("/broken/malformed", get(malformed))
        .route("/broken/truncated", get(truncated));
    for n in 1..=3 {
        r = r.route(
            &format!("/nofollow-target-{n}"),
            get(move |s: S| nofollow_target(s, n)),
        );
    }
    r.fallback(not_found).with_state(shared)
}

fn typed(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
    let mut resp = Response::new(body.into());
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    resp
}

pub(crate) fn html_ok(body: String) -> Response {
    typed(StatusCode::OK, "text/html; charset=utf-8", body)
}

fn set(resp: &mut Response, name: header::HeaderName, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        resp.headers_mut().insert(name, v);
    }
}

async fn not_found(State(s): S) -> Response {
    let page = html::simple_a(
        &s.site,
        "Page not found",
        &[
            "Sorry, we could not find that page. It may have moved, or it may never have existed."
                .to_string(),
        ],
        "<p><a href=\"/\">Back to the front page</a></p>\n",
    );
    typed(StatusCode::NOT_FOUND, "text/html; charset=utf-8", page)
}

async fn robots(State(s): S) -> Response {
    typed(
        StatusCode::OK,
        "text/plain; charset=utf-8",
        crate::expect::robots_a(&s.site.a, s.opts.crawl_delay),
    )
}

async fn sitemap_index(State(s): S) -> Response {
    let body = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n\
         <sitemap><loc>{}/sitemap-articles.xml.gz</loc><lastmod>2026-01-01</lastmod></sitemap>\n\
         </sitemapindex>\n",
        s.site.a
    );
    typed(StatusCode::OK, "application/xml", body)
}

async fn sitemap_articles(State(s): S) -> Response {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for path in crate::expect::SITEMAP_PATHS {
        let _ = writeln!(
            xml,
            "<url><loc>{}{path}</loc><changefreq>weekly</changefreq></url>",
            s.site.a
        );
    }
    xml.push_str("</urlset>\n");
    match gzip(xml.as_bytes()) {
        Ok(gz) => typed(StatusCode::OK, "application/gzip", gz),
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

pub(crate) fn gzip(bytes: &[u8]) -> io::Result<Vec<u8>> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(bytes)?;
    enc.finish()
}

/// Links from the front page to every oddity of the site.
const ODDITIES: &[(&str, &str)] = &[
    (
        "/article/3?utm_source=x&amp;utm_medium=y",
        "Shared story (newsletter link)",
    ),
    ("/article/3?fbclid=abc", "Shared story (social link)"),
    (
        "/article/3;jsessionid=ABC123",
        "Shared story (old session link)",
    ),
    ("/article/3?PHPSESSID=zz", "Shared story (forum link)"),
    ("/list?b=2&amp;a=1", "Filtered list (b first)"),
    ("/list?a=1&amp;b=2", "Filtered list (a first)"),
    ("/copy/article-5", "A copied story"),
    ("/article/4/amp", "Mobile edition of a story"),
    ("/rate-limited", "Busy page"),
    ("/unavailable-once", "Maintenance page"),
    ("/flaky", "Unreliable page"),
    ("/r/1", "Moved story"),
    ("/loop/a", "Going round in circles"),
    ("/go/b", "Partner story"),
    ("/gzipped", "Compressed page"),
    ("/charset/latin1", "Old French page"),
    ("/charset/cp1252", "Old Windows page"),
    ("/charset/sjis", "Japanese page"),
    ("/charset/utf8-bom", "Page with a byte order mark"),
    ("/huge", "Very long page"),
    ("/slow", "Slow page"),
    ("/files/report.pdf", "Annual report (PDF)"),
    ("/files/data.csv", "Figures (CSV)"),
    ("/img/logo.png", "Logo (PNG)"),
    ("/noindex", "Unlisted page"),
    ("/nofollow", "Page without endorsements"),
    ("/x-robots", "Page with a header"),
    ("/broken/404-link", "Page with a dead link"),
    ("/broken/malformed", "Badly written page"),
    ("/broken/truncated", "Cut-off page"),
    ("/private/secret-1", "Staff notes"),
    ("/private/secret-2", "Board minutes"),
    ("/private/public-ok", "Public notice"),
];

async fn home(State(s): S) -> Response {
    let mut main = String::from("<article class=\"home\">\n<h1>The Meridian Gazette</h1>\n");
    main.push_str(&html::paragraphs(&prose_for("home", 90)));
    main.push_str("<h2>Latest stories</h2>\n<ul class=\"teasers\">\n");
    for n in 1..=6 {
        if let Some(a) = s.site.article(n) {
            let _ = writeln!(
                main,
                "<li><a href=\"/article/{n}\">{}</a> {}</li>",
                esc(&a.title),
                esc(a.teaser())
            );
        }
    }
    main.push_str("</ul>\n<h2>From the newsroom</h2>\n<ul class=\"oddities\">\n");
    for (href, label) in ODDITIES {
        let _ = writeln!(main, "<li><a href=\"{href}\">{label}</a></li>");
    }
    let _ = writeln!(
        main,
        "</ul>\n<p><img src=\"/img/logo.png\" alt=\"Gazette logo\" width=\"16\" height=\"16\"> \
         Visit our partner <a href=\"{}/\">The Northern Wire</a> or the <a href=\"/products\">shop</a>.</p>\n</article>",
        s.site.b
    );
    html_ok(html::layout_a(&s.site, "Front page", UTF8_META, "", &main))
}

pub(crate) const ARTICLES_PER_INDEX: usize = 10;

async fn article_index(State(s): S, Path(p): Path<String>) -> Response {
    let pages = s.site.articles.len().div_ceil(ARTICLES_PER_INDEX);
    let Some(p) = strict_number(&p).filter(|p| (1..=pages).contains(p)) else {
        return not_found(State(s)).await;
    };
    let mut main =
        format!("<article class=\"index\">\n<h1>Articles, page {p} of {pages}</h1>\n<ul>\n");
    let first = (p - 1) * ARTICLES_PER_INDEX + 1;
    for n in first..first + ARTICLES_PER_INDEX {
        if let Some(a) = s.site.article(n) {
            let _ = writeln!(
                main,
                "<li><h2><a href=\"/article/{n}\">{}</a></h2><p>{} <em>{}</em></p></li>",
                esc(&a.title),
                esc(a.teaser()),
                a.date
            );
        }
    }
    main.push_str("</ul>\n<p class=\"pager\">");
    for q in 1..=pages {
        let _ = write!(main, "<a href=\"/articles/page/{q}\">{q}</a> ");
    }
    main.push_str("</p>\n</article>\n");
    html_ok(html::layout_a(
        &s.site,
        &format!("Articles, page {p}"),
        UTF8_META,
        "",
        &main,
    ))
}

/// "12" -> 12; rejects "012", "+1", "" so that each number has exactly one URL.
fn strict_number(s: &str) -> Option<usize> {
    let n: usize = s.parse().ok()?;
    (n.to_string() == s).then_some(n)
}

/// `/article/3;jsessionid=ABC123` arrives as id `3;jsessionid=ABC123`.
fn article_number(id: &str) -> Option<usize> {
    strict_number(id.split(';').next().unwrap_or(id))
}

/// RFC 9110 section 13.1: If-None-Match wins over If-Modified-Since.
fn not_modified(headers: &HeaderMap, etag: &str, last_modified: SystemTime) -> bool {
    if let Some(inm) = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
    {
        return inm
            .split(',')
            .map(|t| t.trim().trim_start_matches("W/"))
            .any(|t| t == "*" || t == etag);
    }
    headers
        .get(header::IF_MODIFIED_SINCE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| httpdate::parse_http_date(v).ok())
        .is_some_and(|since| last_modified <= since)
}

async fn article(State(s): S, Path(id): Path<String>, headers: HeaderMap) -> Response {
    let Some(r) = article_number(&id).and_then(|n| s.rendered.get(n.wrapping_sub(1))) else {
        return not_found(State(s)).await;
    };
    let lm = httpdate::fmt_http_date(r.last_modified);
    let mut resp = if not_modified(&headers, &r.etag, r.last_modified) {
        let mut resp = Response::new(Body::empty());
        *resp.status_mut() = StatusCode::NOT_MODIFIED;
        resp
    } else {
        html_ok(r.html.clone())
    };
    set(&mut resp, header::ETAG, &r.etag);
    set(&mut resp, header::LAST_MODIFIED, &lm);
    resp
}

async fn copy_article_5(State(s): S) -> Response {
    match s.rendered.get(4) {
        Some(r) => html_ok(r.html.clone()),
        None => not_found(State(s)).await,
    }
}

async fn article_print(State(s): S, Path(id): Path<String>) -> Response {
    match strict_number(&id)
        .filter(|n| *n == 9)
        .and_then(|n| s.site.article(n))
    {
        Some(a) => html_ok(html::print_page(9, a)),
        None => not_found(State(s)).await,
    }
}

async fn article_amp(State(s): S, Path(id): Path<String>) -> Response {
    match strict_number(&id)
        .filter(|n| *n == 4)
        .and_then(|n| s.site.article(n))
    {
        Some(a) => html_ok(html::amp_page(4, a)),
        None => not_found(State(s)).await,
    }
}

async fn news_today(State(s): S) -> Response {
    let Some(a) = s.site.article(7) else {
        return not_found(State(s)).await;
    };
    let generated = format!(
        "<p class=\"generated\">Generated at {}</p>\n",
        date::timestamp_ns(SystemTime::now())
    );
    let main = html::article_element(7, a, &generated);
    let mut resp = html_ok(html::layout_a(
        &s.site,
        &format!("Today: {}", a.title),
        UTF8_META,
        "",
        &main,
    ));
    set(&mut resp, header::CACHE_CONTROL, "no-store");
    resp
}

fn query_pairs(q: Option<&str>) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = q
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (k.to_string(), v.to_string()),
            None => (p.to_string(), String::new()),
        })
        .collect();
    pairs.sort();
    pairs
}

async fn list(State(s): S, RawQuery(q): RawQuery) -> Response {
    let pairs = query_pairs(q.as_deref());
    let key = pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("&");
    let title = if key.is_empty() {
        "Filtered list: everything".to_string()
    } else {
        format!(
            "Filtered list: {}",
            pairs
                .iter()
                .map(|(k, v)| format!("{k} is {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    html_ok(html::simple_a(
        &s.site,
        &title,
        &prose_for(&format!("list?{key}"), 140),
        "",
    ))
}

async fn calendar(State(s): S, RawQuery(q): RawQuery) -> Response {
    let day = query_pairs(q.as_deref())
        .into_iter()
        .find(|(k, _)| k == "date")
        .and_then(|(_, v)| date::parse_ymd(&v));
    let Some(day) = day else {
        return not_found(State(s)).await;
    };
    let page = html::calendar_page(
        &s.site,
        &date::ymd_string(day),
        &date::ymd_string(day - 1),
        &date::ymd_string(day + 1),
    );
    html_ok(page)
}

async fn products(State(s): S) -> Response {
    let mut main = String::from("<article class=\"shop\">\n<h1>The Gazette shop</h1>\n<ul>\n");
    for (i, p) in s.site.products.iter().enumerate() {
        let _ = writeln!(
            main,
            "<li><a href=\"/product/{}\">{}</a></li>",
            i + 1,
            esc(&p.name)
        );
    }
    main.push_str("</ul>\n</article>\n");
    html_ok(html::layout_a(&s.site, "Shop", UTF8_META, "", &main))
}

async fn product(State(s): S, Path(n): Path<String>) -> Response {
    match strict_number(&n).and_then(|n| s.site.product(n)) {
        Some(p) => html_ok(html::product_page(&s.site, p)),
        None => not_found(State(s)).await,
    }
}

async fn about(State(s): S) -> Response {
    html_ok(html::simple_a(
        &s.site,
        "About the Gazette",
        &prose_for("about", 170),
        "",
    ))
}

async fn contact(State(s): S) -> Response {
    html_ok(html::simple_a(
        &s.site,
        "Contact the newsroom",
        &prose_for("contact", 110),
        "<p>Write to the newsdesk at 12 Chandlery Yard, Aldermoor.</p>\n",
    ))
}

async fn private(State(s): S, Path(name): Path<String>) -> Response {
    let title = match name.as_str() {
        "secret-1" => "Staff notes (private)",
        "secret-2" => "Board minutes (private)",
        "public-ok" => "Public notice",
        _ => return not_found(State(s)).await,
    };
    html_ok(html::simple_a(
        &s.site,
        title,
        &prose_for(&format!("private/{name}"), 120),
        "",
    ))
}

const PDF: &[u8] = b"%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n\
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n\
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >> endobj\n\
4 0 obj << /Length 44 >> stream\nBT /F1 12 Tf 72 720 Td (Annual report) Tj ET\nendstream endobj\n\
trailer << /Root 1 0 R >>\n%%EOF\n";

async fn pdf() -> Response {
    typed(StatusCode::OK, "application/pdf", PDF)
}

async fn csv() -> Response {
    typed(
        StatusCode::OK,
        "text/csv; charset=utf-8",
        "year,town,visitors\n2023,Aldermoor,18211\n2024,Aldermoor,19470\n2024,Port Calder,7342\n",
    )
}

async fn png(State(s): S) -> Response {
    typed(StatusCode::OK, "image/png", s.png.clone())
}

async fn orphan(State(s): S) -> Response {
    html_ok(html::simple_a(
        &s.site,
        "Only in the sitemap",
        &prose_for("orphan", 130),
        "",
    ))
}

async fn rate_limited(State(s): S) -> Response {
    if s.hits.rate_limited.fetch_add(1, Ordering::SeqCst) == 0 {
        let mut resp = typed(
            StatusCode::TOO_MANY_REQUESTS,
            "text/plain; charset=utf-8",
            "Too many requests, slow down.\n",
        );
        set(
            &mut resp,
            header::RETRY_AFTER,
            &s.opts.retry_after_secs.to_string(),
        );
        return resp;
    }
    html_ok(html::simple_a(
        &s.site,
        "A busy page",
        &prose_for("rate-limited", 130),
        "",
    ))
}

async fn unavailable_once(State(s): S) -> Response {
    if s.hits.unavailable.fetch_add(1, Ordering::SeqCst) == 0 {
        let mut resp = typed(
            StatusCode::SERVICE_UNAVAILABLE,
            "text/plain; charset=utf-8",
            "Down for maintenance.\n",
        );
        let when = SystemTime::now() + Duration::from_secs(s.opts.retry_after_secs);
        set(
            &mut resp,
            header::RETRY_AFTER,
            &httpdate::fmt_http_date(when),
        );
        return resp;
    }
    html_ok(html::simple_a(
        &s.site,
        "Back after maintenance",
        &prose_for("unavailable-once", 130),
        "",
    ))
}

async fn flaky(State(s): S) -> Response {
    if s.hits.flaky.fetch_add(1, Ordering::SeqCst) < 2 {
        return typed(
            StatusCode::INTERNAL_SERVER_ERROR,
            "text/plain; charset=utf-8",
            "Internal server error.\n",
        );
    }
    html_ok(html::simple_a(
        &s.site,
        "An unreliable page",
        &prose_for("flaky", 130),
        "",
    ))
}

fn redirect(status: StatusCode, location: &str) -> Response {
    let mut resp = typed(
        status,
        "text/html; charset=utf-8",
        format!("<a href=\"{}\">Moved</a>\n", esc(location)),
    );
    set(&mut resp, header::LOCATION, location);
    resp
}

async fn redirect_chain(State(s): S, Path(step): Path<String>) -> Response {
    match step.as_str() {
        "1" => redirect(StatusCode::MOVED_PERMANENTLY, "/r/2"),
        // An absolute Location in the middle of the chain.
        "2" => redirect(StatusCode::FOUND, &format!("{}/r/3", s.site.a)),
        "3" => redirect(StatusCode::TEMPORARY_REDIRECT, "/article/12"),
        _ => not_found(State(s)).await,
    }
}

async fn redirect_loop(State(s): S, Path(side): Path<String>) -> Response {
    match side.as_str() {
        "a" => redirect(StatusCode::FOUND, "/loop/b"),
        "b" => redirect(StatusCode::FOUND, "/loop/a"),
        _ => not_found(State(s)).await,
    }
}

async fn go_b(State(s): S) -> Response {
    redirect(StatusCode::FOUND, &format!("{}/b/page/1", s.site.b))
}

fn accepts_gzip(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or("");
            let q_zero = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q == 0.0)
            });
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !q_zero
        })
}

async fn gzipped(State(s): S, headers: HeaderMap) -> Response {
    let page = html::simple_a(&s.site, "A compressed page", &prose_for("gzipped", 150), "");
    let mut resp = if accepts_gzip(&headers) {
        match gzip(page.as_bytes()) {
            Ok(gz) => {
                let mut resp = typed(StatusCode::OK, "text/html; charset=utf-8", gz);
                set(&mut resp, header::CONTENT_ENCODING, "gzip");
                resp
            }
            Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        }
    } else {
        html_ok(page)
    };
    set(&mut resp, header::VARY, "Accept-Encoding");
    resp
}

/// Encodes as ISO-8859-1 (every char of the page is below U+0100).
fn latin1(s: &str) -> Vec<u8> {
    s.chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect()
}

async fn charset(State(s): S, Path(kind): Path<String>) -> Response {
    let Some(cp) = crate::expect::CHARSET_PAGES
        .iter()
        .find(|c| c.path.strip_prefix("/charset/") == Some(kind.as_str()))
    else {
        return not_found(State(s)).await;
    };
    let mut main = format!("<article class=\"page\">\n<h1>{}</h1>\n", cp.title);
    let _ = writeln!(main, "<p class=\"sample\">{}</p>", cp.sample);
    main.push_str(&html::paragraphs(&prose_for(cp.path, 100)));
    main.push_str("</article>\n");
    let page = html::layout_a(&s.site, cp.title, cp.meta, "", &main);
    let body = match kind.as_str() {
        "latin1" => latin1(&page),
        "cp1252" => encoding_rs::WINDOWS_1252.encode(&page).0.into_owned(),
        "sjis" => encoding_rs::SHIFT_JIS.encode(&page).0.into_owned(),
        _ => {
            let mut b = vec![0xEF, 0xBB, 0xBF];
            b.extend_from_slice(page.as_bytes());
            b
        }
    };
    typed(StatusCode::OK, cp.content_type, body)
}

async fn huge(State(s): S) -> Response {
    let total = s.opts.huge_bytes;
    let head = Bytes::from_static(
        b"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>A very long page</title></head><body>\n",
    );
    let mut chunk = String::with_capacity(70_000);
    let paras = prose_for("huge", 200);
    while chunk.len() < 64 * 1024 {
        for p in &paras {
            let _ = writeln!(chunk, "<p>{p}</p>");
        }
    }
    let chunk = Bytes::from(chunk);
    let stream = futures_util::stream::unfold(0u64, move |sent| {
        let next = if sent == 0 {
            head.clone()
        } else {
            chunk.clone()
        };
        async move {
            if sent >= total {
                return None;
            }
            let take = (total - sent).min(next.len() as u64) as usize;
            Some((
                Ok::<Bytes, io::Error>(next.slice(..take)),
                sent + take as u64,
            ))
        }
    });
    typed(
        StatusCode::OK,
        "text/html; charset=utf-8",
        Body::from_stream(stream),
    )
}

async fn slow(State(s): S) -> Response {
    tokio::time::sleep(s.opts.slow_delay).await;
    html_ok(html::simple_a(
        &s.site,
        "A slow page",
        &prose_for("slow", 120),
        "",
    ))
}

async fn noindex(State(s): S) -> Response {
    let main = format!(
        "<article class=\"page\">\n<h1>An unlisted page</h1>\n{}</article>\n",
        html::paragraphs(&prose_for("noindex", 120))
    );
    html_ok(html::layout_a(
        &s.site,
        "An unlisted page",
        UTF8_META,
        "<meta name=\"robots\" content=\"noindex\">",
        &main,
    ))
}

async fn nofollow(State(s): S) -> Response {
    let mut main = format!(
        "<article class=\"page\">\n<h1>A page without endorsements</h1>\n{}<ul>\n",
        html::paragraphs(&prose_for("nofollow", 120))
    );
    for n in 1..=3 {
        let _ = writeln!(
            main,
            "<li><a href=\"/nofollow-target-{n}\">Sponsored link {n}</a></li>"
        );
    }
    main.push_str("</ul>\n</article>\n");
    html_ok(html::layout_a(
        &s.site,
        "A page without endorsements",
        UTF8_META,
        "<meta name=\"robots\" content=\"nofollow\">",
        &main,
    ))
}

async fn nofollow_target(State(s): S, n: u32) -> Response {
    html_ok(html::simple_a(
        &s.site,
        &format!("Sponsored page {n}"),
        &prose_for(&format!("nofollow-target-{n}"), 100),
        "",
    ))
}

async fn x_robots(State(s): S) -> Response {
    let mut resp = html_ok(html::simple_a(
        &s.site,
        "A page with a robots header",
        &prose_for("x-robots", 120),
        "",
    ));
    set(
        &mut resp,
        header::HeaderName::from_static("x-robots-tag"),
        "noindex",
    );
    resp
}

async fn broken_link(State(s): S) -> Response {
    html_ok(html::simple_a(
        &s.site,
        "A page with a dead link",
        &prose_for("broken/404-link", 120),
        &format!(
            "<p>See also <a href=\"{}\">this page, which is gone</a>.</p>\n",
            crate::expect::MISSING_PATH
        ),
    ))
}

async fn malformed() -> Response {
    let mut body = String::from(
        "<html><head><title>A badly written page</title>\n\
         <meta charset=utf-8><body><div id=main><div class=\"content\" class=\"dup\">\n\
         <h1>A badly written page</h1>\n\
         <p>",
    );
    body.push_str(crate::expect::MALFORMED_PHRASE);
    body.push_str(
        ". <b>Bold <i>and italic</b> wrongly nested</i>\n\
         <p>Paragraphs <span>never closed\n</div></div></div></span>\n\
         <table><tr><td>cell one<td>cell two<p>paragraph in a cell</table>\n\
         <ul><li>first item<li>second item</ul>\n\
         <p>Nul\0bytes\0in the\0middle of a sentence.\n\
         <a href=\"/article/2\">an anchor <a href=\"/article/6\">inside another anchor</a>\n\
         <script>var SCRIPTMARKER = \"</div>\";</script>\n\
         <!-- COMMENTMARKER -- with -- dashes -->\n",
    );
    for p in prose_for("broken/malformed", 90) {
        let _ = write!(body, "<p>{p}");
    }
    body.push_str("\n</i></b></body>\n<p>after the body</p>\n");
    html_ok(body)
}

async fn truncated(State(s): S) -> Response {
    let part = html::simple_a(
        &s.site,
        "A page that is cut off",
        &prose_for("broken/truncated", 150),
        "",
    );
    let declared = part.len() as u64 + crate::expect::TRUNCATED_MISSING_BYTES;
    let part = Bytes::from(part);
    let stream = futures_util::stream::unfold(0u8, move |step| {
        let part = part.clone();
        async move {
            match step {
                0 => Some((Ok(part), 1)),
                1 => {
                    // Let hyper flush what was sent, then fail the body: the connection closes.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    Some((Err(io::Error::other("truncated on purpose")), 2))
                }
                _ => None,
            }
        }
    });
    let mut resp = typed(
        StatusCode::OK,
        "text/html; charset=utf-8",
        Body::from_stream(stream),
    );
    set(&mut resp, header::CONTENT_LENGTH, &declared.to_string());
    resp
}
