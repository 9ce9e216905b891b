//! Checks the fixture site against its own ground truth with a tiny raw HTTP/1.1 client
//! (no redirects followed, no decompression, truncated bodies visible).

use std::collections::HashSet;
use std::io::Read;
use std::time::{Duration, Instant, SystemTime};

use dedupcrawl_testsite::{DupKind, TestSite, TestSiteOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const UA: &str = "testsite-tests/1.0";

fn fast() -> TestSiteOptions {
    TestSiteOptions {
        crawl_delay: Some(0.2),
        retry_after_secs: 1,
        slow_delay: Duration::from_millis(300),
        huge_bytes: 300_000,
        ..TestSiteOptions::default()
    }
}

struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size_str = String::from_utf8_lossy(&data[..eol]);
        let size = usize::from_str_radix(size_str.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            return out;
        }
        let start = eol + 2;
        out.extend_from_slice(&data[start..start + size]);
        data = &data[start + size + 2..];
    }
}

/// GET with `Connection: close`; returns whatever arrived even if the connection breaks.
async fn get(url: &str, extra: &[(&str, &str)]) -> Resp {
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let mut stream = TcpStream::connect(authority).await.unwrap();
    let mut req = format!(
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nUser-Agent: {UA}\r\nConnection: close\r\n"
    );
    for (k, v) in extra {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    stream.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match stream.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let body = &raw[split + 4..];
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_vec()
    };
    Resp {
        status,
        headers,
        body,
    }
}

/// Follows the first failures of a retry page until it answers 200.
async fn get_ok(url: &str) -> Resp {
    for _ in 0..4 {
        let r = get(url, &[]).await;
        if r.status == 200 {
            return r;
        }
    }
    panic!("{url} never answered 200");
}

/// Crude visible text: drops script/style/comments and tags, decodes a few entities.
fn visible_text(html: &str) -> String {
    let mut s = html.to_string();
    for (open, close) in [
        ("<script", "</script>"),
        ("<style", "</style>"),
        ("<!--", "-->"),
    ] {
        while let Some(i) = s.find(open) {
            let end = s[i..].find(close).map_or(s.len(), |j| i + j + close.len());
            s.replace_range(i..end, " ");
        }
    }
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&amp;", "&")
        .replace("&quot;", "\"")
        .replace("&middot;", " ")
}

/// Text of the `<article>` element (the main content), else of the whole page.
fn main_text(html: &str) -> String {
    match (html.find("<article"), html.rfind("</article>")) {
        (Some(i), Some(j)) if j > i => visible_text(&html[i..j]),
        _ => visible_text(html),
    }
}

fn shingles(text: &str) -> HashSet<String> {
    let tokens: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect();
    tokens.windows(5).map(|w| w.join(" ")).collect()
}

fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let inter = a.intersection(b).count() as f64;
    let union = (a.len() + b.len()) as f64 - inter;
    if union == 0.0 { 1.0 } else { inter / union }
}

#[tokio::test]
async fn robots_txt_of_both_hosts() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let exp = site.expected();
    let r = get(&site.url("/robots.txt"), &[]).await;
    assert_eq!(r.status, 200);
    let body = r.text();
    assert_eq!(body, exp.robots_txt_a);
    for line in [
        "User-agent: *",
        "Disallow: /private/",
        "Disallow: /*.pdf$",
        "Allow: /private/public-ok",
        "Crawl-delay: 0.2",
    ] {
        assert!(
            body.lines().any(|l| l == line),
            "missing {line:?} in\n{body}"
        );
    }
    assert!(body.contains(&format!("Sitemap: {}sitemap.xml", site.main_url())));
    let b = get(&site.url_b("/robots.txt"), &[]).await;
    assert_eq!(b.text(), exp.robots_txt_b);
    assert!(!b.text().contains("Crawl-delay"));
    // Disallowed pages exist, so a crawler that ignores robots.txt would archive them.
    for url in &exp.disallowed {
        assert_eq!(get(url, &[]).await.status, 200, "{url}");
    }
    assert_ne!(site.main_url(), site.host_b_url());
}

#[tokio::test]
async fn failures_then_success() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let r = get(&site.url("/rate-limited"), &[]).await;
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after"), Some("1"));
    assert_eq!(get(&site.url("/rate-limited"), &[]).await.status, 200);
    assert_eq!(get(&site.url("/rate-limited"), &[]).await.status, 200);

    let r = get(&site.url("/unavailable-once"), &[]).await;
    assert_eq!(r.status, 503);
    let when = httpdate::parse_http_date(r.header("retry-after").unwrap()).unwrap();
    assert!(when + Duration::from_secs(2) > SystemTime::now());
    assert_eq!(get(&site.url("/unavailable-once"), &[]).await.status, 200);

    let statuses = [
        get(&site.url("/flaky"), &[]).await.status,
        get(&site.url("/flaky"), &[]).await.status,
        get(&site.url("/flaky"), &[]).await.status,
    ];
    assert_eq!(statuses, [500, 500, 200]);
    let exp = site.expected();
    assert_eq!(exp.retry_pages[2].failures, vec![500, 500]);
}

#[tokio::test]
async fn redirects() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let exp = site.expected();
    let mut url = exp.redirect_chain[0].clone();
    for (i, want) in exp.redirect_statuses.iter().enumerate() {
        let r = get(&url, &[]).await;
        assert_eq!(r.status, *want, "{url}");
        let loc = r.header("location").unwrap();
        url = if loc.starts_with("http") {
            loc.to_string()
        } else {
            site.url(loc)
        };
        assert_eq!(url, exp.redirect_chain[i + 1]);
    }
    assert_eq!(get(&url, &[]).await.status, 200);

    let a = get(&exp.redirect_loop[0], &[]).await;
    assert_eq!(a.header("location"), Some("/loop/b"));
    let b = get(&exp.redirect_loop[1], &[]).await;
    assert_eq!(b.header("location"), Some("/loop/a"));

    let (from, to) = &exp.cross_host_redirect;
    let r = get(from, &[]).await;
    assert_eq!(r.status, 302);
    assert_eq!(r.header("location"), Some(to.as_str()));
    assert_eq!(get(to, &[]).await.status, 200);
}

#[tokio::test]
async fn gzip_only_when_accepted() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let url = site.expected().gzip_page;
    let plain = get(&url, &[]).await;
    assert_eq!(plain.header("content-encoding"), None);
    let gz = get(&url, &[("Accept-Encoding", "gzip, deflate")]).await;
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    let mut unzipped = String::new();
    flate2::read::GzDecoder::new(&gz.body[..])
        .read_to_string(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, plain.text());
    assert!(unzipped.contains("A compressed page"));
}

#[tokio::test]
async fn timestamp_page_changes_but_stays_near_article_7() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let one = get(&site.url("/news/today"), &[]).await.text();
    let two = get(&site.url("/news/today"), &[]).await.text();
    assert_ne!(one, two);
    assert!(one.contains("Generated at "));
    let article = get(&site.url("/article/7"), &[]).await.text();
    let j = jaccard(&shingles(&main_text(&one)), &shingles(&main_text(&article)));
    assert!(j > 0.9, "jaccard {j}");
}

#[tokio::test]
async fn articles_are_distinct_and_match_ground_truth() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let exp = site.expected();
    assert!(exp.articles.len() >= 25);
    let mut sets = Vec::new();
    for a in &exp.articles {
        let html = get(&a.url, &[]).await.text();
        for marker in &exp.forbidden_markers {
            assert!(html.contains(marker), "{marker} missing from {}", a.url);
        }
        let text = main_text(&html);
        let words = a.text.split_whitespace().count();
        assert!((300..=800).contains(&words), "{} has {words} words", a.url);
        let first_para = a.text.split("\n\n").next().unwrap();
        let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(norm(&text).contains(&norm(first_para)), "{}", a.url);
        sets.push(shingles(&text));
    }
    let mut worst: f64 = 0.0;
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            worst = worst.max(jaccard(&sets[i], &sets[j]));
        }
    }
    assert!(worst < 0.2, "max article Jaccard {worst}");
    eprintln!("max Jaccard between two articles: {worst:.3}");
}

#[tokio::test]
async fn distinct_pages_are_distinct_and_groups_are_duplicates() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let exp = site.expected();
    let mut pages = Vec::new();
    for url in &exp.distinct_pages {
        let r = get_ok(url).await;
        pages.push((url.clone(), r.text()));
    }
    // Pairwise main-content resemblance stays low (products vs. products included).
    let sets: Vec<_> = pages.iter().map(|(_, h)| shingles(&main_text(h))).collect();
    let mut worst: f64 = 0.0;
    for i in 0..sets.len() {
        assert!(sets[i].len() >= 20, "{} has little text", pages[i].0);
        for j in i + 1..sets.len() {
            let s = jaccard(&sets[i], &sets[j]);
            assert!(s < 0.3, "{} ~ {}: {s}", pages[i].0, pages[j].0);
            worst = worst.max(s);
        }
    }
    eprintln!(
        "{} distinct pages, max main-content Jaccard {worst:.3}",
        pages.len()
    );
    // Nothing links to sitemap-only or nofollow-only pages except where documented.
    for (url, html) in &pages {
        assert!(!html.contains("/orphan/"), "{url} links the orphan");
        if !url.ends_with("/nofollow") {
            assert!(!html.contains("nofollow-target"), "{url}");
        }
    }

    for g in &exp.duplicate_groups {
        let rep = get(&g.representative, &[]).await;
        assert_eq!(rep.status, 200);
        assert!(exp.distinct_pages.contains(&g.representative));
        for m in &g.members {
            let r = get(m, &[]).await;
            assert_eq!(r.status, 200, "{m}");
            match g.kind {
                DupKind::UrlVariant | DupKind::ExactCopy => assert_eq!(r.body, rep.body, "{m}"),
                DupKind::NearDuplicate | DupKind::CanonicalLink => {
                    let s = jaccard(
                        &shingles(&main_text(&r.text())),
                        &shingles(&main_text(&rep.text())),
                    );
                    assert!(s >= 0.8, "{m} vs {}: {s}", g.representative);
                    eprintln!("{m} ~ {}: {s:.3}", g.representative);
                }
            }
        }
    }
    let amp = get(&site.url("/article/4/amp"), &[]).await.text();
    assert!(amp.contains("<link rel=\"canonical\" href=\"/article/4\">"));
    assert!(
        exp.group_of(&site.url("/calendar?date=1999-05-05"))
            .is_some()
    );
}

#[tokio::test]
async fn products_differ_in_main_content_but_not_in_full_text() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let one = get(&site.url("/product/1"), &[]).await.text();
    let two = get(&site.url("/product/2"), &[]).await.text();
    let main = jaccard(&shingles(&main_text(&one)), &shingles(&main_text(&two)));
    let full = jaccard(
        &shingles(&visible_text(&one)),
        &shingles(&visible_text(&two)),
    );
    assert!(main < 0.1, "main-content Jaccard {main}");
    assert!(
        full > 0.7,
        "full-text Jaccard {full}: the template should dominate"
    );
}

#[tokio::test]
async fn calendar_trap() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let start = site.expected().calendar.start;
    let page = get(&start, &[]).await.text();
    assert!(page.contains("href=\"/calendar?date=2026-01-02\">Next day"));
    assert!(page.contains("href=\"/calendar?date=2025-12-31\">Previous day"));
    let far = get(&site.url("/calendar?date=2031-07-19"), &[]).await;
    assert_eq!(far.status, 200);
    let s = jaccard(
        &shingles(&main_text(&page)),
        &shingles(&main_text(&far.text())),
    );
    assert!(s >= 0.85, "calendar days Jaccard {s}");
    assert_eq!(
        get(&site.url("/calendar?date=2026-02-30"), &[])
            .await
            .status,
        404
    );
}

#[tokio::test]
async fn request_log_records_requests() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let before = Instant::now();
    get(&site.url("/article/3;jsessionid=ABC123"), &[]).await;
    get(&site.url_b("/syndicated/11"), &[]).await;
    let log = site.request_log();
    assert_eq!(log.len(), 2);
    assert_eq!(log[0].url(), site.url("/article/3;jsessionid=ABC123"));
    assert_eq!(log[1].url(), site.url_b("/syndicated/11"));
    assert_eq!(log[0].user_agent.as_deref(), Some(UA));
    assert_eq!(log[0].method, "GET");
    assert!(log[0].at >= before && log[1].at >= log[0].at);
    assert_ne!(log[0].host, log[1].host);
    site.clear_request_log();
    assert!(site.request_log().is_empty());
}

#[tokio::test]
async fn charsets() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let pages = site.expected().charset_pages;
    let body = |i: usize| {
        let url = pages[i].url.clone();
        async move { get(&url, &[]).await }
    };
    let latin1 = body(0).await;
    assert_eq!(
        latin1.header("content-type"),
        Some("text/html; charset=ISO-8859-1")
    );
    assert!(latin1.body.windows(4).any(|w| w == b"caf\xe9"));
    let text: String = latin1.body.iter().map(|&b| char::from(b)).collect();
    assert!(text.contains(pages[0].sample));

    let cp = body(1).await;
    assert!(cp.text().contains("charset=windows-1252"));
    assert!(cp.body.contains(&0x80), "euro sign as 0x80");
    let (decoded, _, bad) = encoding_rs::WINDOWS_1252.decode(&cp.body);
    assert!(!bad && decoded.contains(pages[1].sample));

    let sjis = body(2).await;
    let (decoded, _, bad) = encoding_rs::SHIFT_JIS.decode(&sjis.body);
    assert!(!bad && decoded.contains(pages[2].sample));
    assert!(std::str::from_utf8(&sjis.body).is_err());

    let bom = body(3).await;
    assert!(bom.body.starts_with(&[0xEF, 0xBB, 0xBF]));
    assert!(bom.text().contains(pages[3].sample));
}

#[tokio::test]
async fn truncated_huge_and_slow() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let exp = site.expected();
    let t = get(&exp.truncated_page, &[]).await;
    let declared: usize = t.header("content-length").unwrap().parse().unwrap();
    assert_eq!(
        declared - t.body.len(),
        exp.truncated_missing_bytes as usize
    );

    let h = get(&exp.huge_page, &[]).await;
    assert_eq!(h.header("content-length"), None);
    assert_eq!(h.body.len() as u64, exp.huge_bytes);

    let start = Instant::now();
    assert_eq!(get(&exp.slow_page, &[]).await.status, 200);
    assert!(start.elapsed() >= exp.slow_delay);
}

#[tokio::test]
async fn conditional_get() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let c = &site.expected().conditional_pages[0];
    let r = get(&c.url, &[]).await;
    assert_eq!(r.header("etag"), Some(c.etag.as_str()));
    assert_eq!(r.header("last-modified"), Some(c.last_modified.as_str()));
    let inm = get(&c.url, &[("If-None-Match", &c.etag)]).await;
    assert_eq!((inm.status, inm.body.len()), (304, 0));
    let ims = get(&c.url, &[("If-Modified-Since", &c.last_modified)]).await;
    assert_eq!(ims.status, 304);
    let old = get(
        &c.url,
        &[("If-Modified-Since", "Mon, 01 Jan 2001 00:00:00 GMT")],
    )
    .await;
    assert_eq!(old.status, 200);
    let other = get(&c.url, &[("If-None-Match", "\"nope\"")]).await;
    assert_eq!(other.status, 200);
}

#[tokio::test]
async fn sitemaps_and_robots_meta_and_files() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let exp = site.expected();
    let index = get(&exp.sitemaps[0], &[]).await.text();
    assert!(index.contains(&format!("<loc>{}</loc>", exp.sitemaps[1])));
    let gz = get(&exp.sitemaps[1], &[]).await;
    let mut xml = String::new();
    flate2::read::GzDecoder::new(&gz.body[..])
        .read_to_string(&mut xml)
        .unwrap();
    for url in &exp.sitemap_urls {
        assert!(xml.contains(&format!("<loc>{url}</loc>")), "{url}");
    }
    assert_eq!(get(&exp.orphan_from_sitemap[0], &[]).await.status, 200);

    let noindex = get(&exp.noindex_pages[0], &[]).await.text();
    assert!(noindex.contains("<meta name=\"robots\" content=\"noindex\">"));
    let xr = get(&exp.noindex_pages[1], &[]).await;
    assert_eq!(xr.header("x-robots-tag"), Some("noindex"));
    let nofollow = get(&site.url("/nofollow"), &[]).await.text();
    assert!(nofollow.contains("content=\"nofollow\""));
    for t in &exp.nofollow_targets {
        assert!(
            nofollow.contains(
                t.strip_prefix(site.main_url().trim_end_matches('/'))
                    .unwrap()
            )
        );
        assert_eq!(get(t, &[]).await.status, 200);
    }

    for f in &exp.non_html {
        let r = get(&f.url, &[]).await;
        assert_eq!(r.header("content-type"), Some(f.content_type), "{}", f.url);
    }
    let png = get(&site.url("/img/logo.png"), &[]).await;
    assert!(png.body.starts_with(b"\x89PNG\r\n\x1a\n"));

    let broken = get(&site.url("/broken/404-link"), &[]).await.text();
    let missing = exp.broken_links[0]
        .strip_prefix(site.main_url().trim_end_matches('/'))
        .unwrap();
    assert!(broken.contains(missing));
    assert_eq!(get(&exp.broken_links[0], &[]).await.status, 404);

    let bad = get(&exp.malformed_page, &[]).await;
    assert!(bad.body.contains(&0));
    assert!(bad.text().contains(exp.malformed_phrase));
}

#[tokio::test]
async fn dropping_the_site_stops_the_servers() {
    let site = TestSite::start_with(fast()).await.unwrap();
    let authority = site
        .main_url()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    assert_eq!(get(&site.main_url(), &[]).await.status, 200);
    drop(site);
    let mut refused = false;
    for _ in 0..50 {
        if TcpStream::connect(&authority).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(refused, "{authority} still accepts connections");
}
