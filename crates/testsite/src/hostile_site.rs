//! The hostile hosts of issue 15 together, for `crates/crawler/tests/hostile_servers.rs`
//! and the `hostile-site` binary (`benches/hostile/run`): a main host on 127.0.0.1 whose
//! front page links gzip and brotli bombs, an endless chunked body, a 1 MB header section,
//! 10,000 header lines, a `Content-Length` shorter than its body, redirects to `file:`,
//! `ftp:` and `data:`, a page with invalid UTF-8 in an href, and whose `/sitemap.xml` is
//! 50 MB; a "public" host on 127.0.0.2 redirecting into 127.0.0.1; hosts whose robots.txt
//! answers 503, 403 (with a body that disallows everything), and 10 MB (rules 400 KiB in).

use std::io;
use std::net::Ipv4Addr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::hostile::{Behaviour, HostileHost, page_html};
use crate::hostile_streams::{
    Stream, empty_status, lying_length, many_headers, raw_answer, redirect_to,
};

/// Decoded size of the bombs: 10 GB.
pub const BOMB_BYTES: u64 = 10_000_000_000;

/// The address of the host that plays a public one (list it in `crawl.public_addresses`).
pub const PUBLIC_ADDRESS: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);

/// The paths of the main host's hostile answers, linked from its front page.
pub const HOSTILE_PATHS: [&str; 10] = [
    "gzip-bomb",
    "brotli-bomb",
    "endless-chunked",
    "header-1mb",
    "headers-10000",
    "length-shorter",
    "redirect-file",
    "redirect-ftp",
    "redirect-data",
    "bad-utf8",
];

/// The running hosts.
pub struct HostileSite {
    /// 127.0.0.1: the hostile answers, `/page/1`, `/page/2`, `/from-sitemap` (only in the
    /// sitemap); `/page/9` is only the target of the public host's redirect.
    pub main: HostileHost,
    /// 127.0.0.2: `/to-loopback` redirects to the main host's `/page/9`.
    pub public: HostileHost,
    pub robots_5xx: HostileHost,
    pub robots_4xx: HostileHost,
    /// `/` links `/secret` (disallowed 400 KiB into robots.txt) and `/open`.
    pub robots_10mb: HostileHost,
}

impl HostileSite {
    /// Starts every host. Must be called inside a tokio runtime.
    pub async fn start() -> io::Result<HostileSite> {
        // The sitemap's URLs are on the main host: its base is only known once it listens.
        let base = Arc::new(OnceLock::<String>::new());
        let main = HostileHost::start_at(Ipv4Addr::LOCALHOST, 0, {
            let base = Arc::clone(&base);
            move |path| main_route(path, base.get().map_or("", String::as_str))
        })
        .await?;
        let main_url = main.url();
        let _ = base.set(main_url.clone());
        let loopback_target = format!("{main_url}page/9");
        let public = HostileHost::start_at(PUBLIC_ADDRESS, 0, {
            let target = loopback_target.clone();
            move |path| match path {
                "/to-loopback" => Behaviour::Raw(redirect_to(&target)),
                _ => Behaviour::NotFound,
            }
        })
        .await?;
        let robots_5xx = HostileHost::start(|path| match path {
            "/robots.txt" => Behaviour::Raw(empty_status("503 Service Unavailable")),
            _ => Behaviour::Html(page_html(20, 1)),
        })
        .await?;
        let robots_4xx = HostileHost::start(|path| match path {
            // RFC 9309: a 4xx means no rules, whatever the body says.
            "/robots.txt" => Behaviour::Raw(raw_answer(
                "403 Forbidden",
                &["Content-Length: 25".into()],
                b"User-agent: *\nDisallow: /",
            )),
            "/" => Behaviour::Html(page_html(21, 1)),
            _ => Behaviour::NotFound,
        })
        .await?;
        let robots_10mb = HostileHost::start(|path| match path {
            "/robots.txt" => Behaviour::Stream(Stream::Robots {
                bytes: 10 * 1024 * 1024,
                before: 400 * 1024,
                rules: "User-agent: *\nDisallow: /secret\n".into(),
            }),
            "/" => Behaviour::Html(links_page(31, "Big robots", &["secret", "open"])),
            "/open" => Behaviour::Html(page_html(22, 1)),
            "/secret" => Behaviour::Html(page_html(23, 1)),
            _ => Behaviour::NotFound,
        })
        .await?;

        Ok(HostileSite {
            main,
            public,
            robots_5xx,
            robots_4xx,
            robots_10mb,
        })
    }

    /// The seed of the public host's redirect into 127.0.0.1.
    pub fn public_seed(&self) -> String {
        format!("{}to-loopback", self.public.url())
    }

    /// Every seed of the site.
    pub fn seeds(&self) -> Vec<String> {
        vec![
            self.main.url(),
            self.public_seed(),
            self.robots_5xx.url(),
            self.robots_4xx.url(),
            self.robots_10mb.url(),
        ]
    }
}

/// A page of its own prose (`k`: no two are near duplicates) linking `paths`.
fn links_page(k: usize, title: &str, paths: &[&str]) -> String {
    let links: String = paths
        .iter()
        .map(|p| format!("<a href=\"/{p}\">{p}</a>\n"))
        .collect();
    format!(
        "<!doctype html><html><head><title>{title}</title></head><body><main>{}</main>{links}\
         </body></html>",
        page_html(k, 1)
    )
}

fn main_route(path: &str, base: &str) -> Behaviour {
    match path {
        "/" => {
            let mut paths = HOSTILE_PATHS.to_vec();
            paths.extend(["page/1", "page/2"]);
            Behaviour::Html(links_page(30, "Hostile", &paths))
        }
        "/robots.txt" => Behaviour::NotFound,
        // One URL found nowhere else, then a known page over and over (the frontier has
        // seen it: nothing more is fetched).
        "/sitemap.xml" => Behaviour::Stream(Stream::Sitemap {
            bytes: 50 * 1024 * 1024,
            first: vec![format!("{base}from-sitemap")],
            repeat: format!("{base}page/1"),
        }),
        "/from-sitemap" => Behaviour::Html(page_html(40, 1)),
        "/gzip-bomb" => Behaviour::Stream(Stream::GzipBomb {
            decoded: BOMB_BYTES,
        }),
        "/brotli-bomb" => Behaviour::Stream(Stream::BrotliBomb {
            decoded: BOMB_BYTES,
        }),
        "/endless-chunked" => Behaviour::Stream(Stream::EndlessChunked),
        "/header-1mb" => Behaviour::HugeHeader {
            bytes: 1024 * 1024,
            chunk: 8 * 1024,
            interval: Duration::ZERO,
        },
        "/headers-10000" => Behaviour::Raw(many_headers(10_000, &page_html(3, 1))),
        "/length-shorter" => {
            let body = page_html(4, 1);
            Behaviour::Raw(lying_length(1000, body.as_bytes()))
        }
        "/redirect-file" => Behaviour::Raw(redirect_to("file:///etc/passwd")),
        "/redirect-ftp" => Behaviour::Raw(redirect_to("ftp://127.0.0.1/pub/file")),
        "/redirect-data" => Behaviour::Raw(redirect_to("data:text/html,<h1>hi</h1>")),
        "/bad-utf8" => {
            let mut body = page_html(5, 1).into_bytes();
            let at = body.len() - "</body></html>".len();
            body.splice(
                at..at,
                b"<a href=\"/utf8-\xff\xfe-\xc3(\">bad</a>".iter().copied(),
            );
            Behaviour::Raw(raw_answer(
                "200 OK",
                &[
                    "Content-Type: text/html; charset=utf-8".into(),
                    format!("Content-Length: {}", body.len()),
                ],
                &body,
            ))
        }
        _ => match path
            .strip_prefix("/page/")
            .and_then(|k| k.parse::<usize>().ok())
        {
            Some(k) => Behaviour::Html(page_html(100 + k, 1)),
            None => Behaviour::NotFound,
        },
    }
}
