//! Ground truth: what a correct, polite, deduplicating crawler should do on the site.

use std::time::Duration;

use serde::Serialize;

use crate::Shared;
use crate::html::CALENDAR_START;

/// Paths listed in `/sitemap-articles.xml.gz` (host A).
pub(crate) const SITEMAP_PATHS: &[&str] = &[
    "/article/1",
    "/article/2",
    "/article/6",
    "/article/8",
    "/article/10",
    "/article/20",
    "/orphan/only-in-sitemap",
];

pub(crate) const MISSING_PATH: &str = "/missing/page-that-does-not-exist";
pub(crate) const MALFORMED_PHRASE: &str =
    "The malformed page still tells the story of a lighthouse keeper named Quennell";
pub(crate) const TRUNCATED_MISSING_BYTES: u64 = 50_000;

pub(crate) const ROBOTS_B: &str =
    "# The Northern Wire welcomes crawlers.\nUser-agent: *\nAllow: /\n";

pub(crate) fn robots_a(base: &str, crawl_delay: Option<f64>) -> String {
    let delay = crawl_delay
        .map(|d| format!("Crawl-delay: {d}\n"))
        .unwrap_or_default();
    format!(
        "# Robots rules for The Meridian Gazette (dedupcrawl test site).\n\
         User-agent: BadBot\n\
         Disallow: /\n\
         \n\
         User-agent: *\n\
         Disallow: /private/\n\
         Disallow: /*.pdf$\n\
         Allow: /private/public-ok\n\
         {delay}\
         \n\
         Sitemap: {base}/sitemap.xml\n"
    )
}

pub(crate) struct CharsetDef {
    pub(crate) path: &'static str,
    pub(crate) title: &'static str,
    /// The in-document declaration, if any.
    pub(crate) meta: &'static str,
    pub(crate) content_type: &'static str,
    pub(crate) encoding: &'static str,
    pub(crate) sample: &'static str,
}

pub(crate) const CHARSET_PAGES: &[CharsetDef] = &[
    CharsetDef {
        path: "/charset/latin1",
        title: "An old French page",
        meta: "",
        content_type: "text/html; charset=ISO-8859-1",
        encoding: "ISO-8859-1 (Content-Type header)",
        sample: "caf\u{e9} cr\u{e8}me, na\u{ef}ve fa\u{e7}ade, M\u{fc}ller und S\u{f6}hne, \u{bd} price",
    },
    CharsetDef {
        path: "/charset/cp1252",
        title: "An old Windows page",
        meta: "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\">",
        content_type: "text/html",
        encoding: "windows-1252 (meta http-equiv)",
        sample: "\u{201c}Smart quotes\u{201d} \u{2013} the \u{20ac} sign, \u{153}uvre\u{2026} and \u{2018}single\u{2019} caf\u{e9}",
    },
    CharsetDef {
        path: "/charset/sjis",
        title: "A Japanese page",
        meta: "<meta charset=\"Shift_JIS\">",
        content_type: "text/html",
        encoding: "Shift_JIS (meta charset)",
        sample: "\u{65e5}\u{672c}\u{8a9e}\u{306e}\u{30c6}\u{30ad}\u{30b9}\u{30c8}\u{3002}\u{6e2f}\u{753a}\u{306e}\u{65b0}\u{3057}\u{3044}\u{6a4b}\u{304c}\u{5b8c}\u{6210}\u{3057}\u{307e}\u{3057}\u{305f}\u{3002}",
    },
    CharsetDef {
        path: "/charset/utf8-bom",
        title: "A page with a byte order mark",
        meta: "",
        content_type: "text/html",
        encoding: "UTF-8 (byte order mark only)",
        sample: "Gr\u{fc}\u{df}e aus Z\u{fc}rich \u{2013} \u{c6}r\u{f8}sk\u{f8}bing \u{2013} \u{6771}\u{4eac}",
    },
];

/// How the members of a [`DuplicateGroup`] relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum DupKind {
    /// Byte-identical responses whose URLs differ only in ways URL canonicalization should
    /// remove (tracking parameters, session ids, query parameter order). A good crawler
    /// fetches only one of them.
    UrlVariant,
    /// Byte-identical payloads at unrelated URLs: only a content digest catches them.
    ExactCopy,
    /// Same main text with a small change (timestamp, date) or under another template
    /// (print version, another host): near-duplicate detection must catch them.
    NearDuplicate,
    /// The page declares `<link rel="canonical">` to the representative (same text, other
    /// template).
    CanonicalLink,
}

/// URLs that carry the same content. A correct crawler archives exactly one member as new;
/// which one depends on crawl order, so assert "exactly one of `members`", and use
/// `representative` only where order is fixed (it is also the one in `distinct_pages`).
#[derive(Clone, Debug, Serialize)]
pub struct DuplicateGroup {
    pub kind: DupKind,
    pub representative: String,
    /// All known members, the representative included.
    pub members: Vec<String>,
}

/// A page that fails before it succeeds.
#[derive(Clone, Debug, Serialize)]
pub struct RetryPage {
    pub url: String,
    /// Statuses of the first requests, in order; every later request gets 200.
    pub failures: Vec<u16>,
    /// `Retry-After` on the failures: `Some(secs)` as delta-seconds (429) or as an HTTP-date
    /// that many seconds ahead (503); `None` for plain 500s.
    pub retry_after_secs: Option<u64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CharsetPage {
    pub url: String,
    /// Where the encoding is declared.
    pub encoding: &'static str,
    /// Text that a correctly decoded page contains.
    pub sample: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct NonHtml {
    pub url: String,
    pub content_type: &'static str,
}

#[derive(Clone, Debug, Serialize)]
pub struct ConditionalPage {
    pub url: String,
    /// Quoted strong ETag, e.g. `"a1-9f2c..."`.
    pub etag: String,
    /// HTTP-date.
    pub last_modified: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct ArticleInfo {
    /// `http://A/article/N`.
    pub url: String,
    pub title: String,
    /// Byline line excluded; paragraphs separated by blank lines.
    pub text: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct ProductInfo {
    pub url: String,
    pub name: String,
    pub description: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct CalendarTrap {
    /// The day linked from the nav bar: `.../calendar?date=2026-01-01`.
    pub start: String,
    /// Every `prefix + YYYY-MM-DD` is a valid day page, forever in both directions.
    pub url_prefix: String,
    /// A crawler that drops duplicates' links fetches at most this many day pages
    /// (the start and its two neighbours).
    pub max_fetches_if_deduplicating: usize,
}

/// Everything the tests assert against; all URLs are absolute with the real ports.
#[derive(Clone, Debug, Serialize)]
pub struct Expectations {
    pub main_url: String,
    pub host_b_url: String,
    /// Every HTML page reachable by links from `main_url` and `host_b_url` that a correct
    /// crawler (obeying robots.txt and nofollow, retrying 429/503/500, following redirects)
    /// archives exactly once: one representative per duplicate group. Excludes noindex pages,
    /// sitemap-only pages, non-HTML files, `/huge`, `/slow` and `/broken/truncated`.
    pub distinct_pages: Vec<String>,
    pub duplicate_groups: Vec<DuplicateGroup>,
    /// Linked, exist, and must never be requested (robots.txt of host A).
    pub disallowed: Vec<String>,
    /// Allowed by a longer `Allow:` inside a disallowed directory (also in `distinct_pages`).
    pub allowed_exceptions: Vec<String>,
    /// Host A's `Crawl-delay` in seconds (`None`: no line). Host B has none.
    pub crawl_delay: Option<f64>,
    pub robots_txt_a: String,
    pub robots_txt_b: String,
    /// The sitemap index (`/sitemap.xml`, named in robots.txt) and its gzip child.
    pub sitemaps: Vec<String>,
    /// Every `<loc>` of the gzip sitemap.
    pub sitemap_urls: Vec<String>,
    /// Linked from nowhere, listed in the sitemap only.
    pub orphan_from_sitemap: Vec<String>,
    /// Linked only from the `<meta name=robots content=nofollow>` page: must not be fetched.
    pub nofollow_targets: Vec<String>,
    /// `<meta name=robots content=noindex>` and `X-Robots-Tag: noindex`: fetched, not archived.
    pub noindex_pages: Vec<String>,
    /// `(page, canonical target)` from `<link rel=canonical>`.
    pub canonical_links: Vec<(String, String)>,
    /// `/r/1 -> /r/2 -> /r/3 -> /article/12`.
    pub redirect_chain: Vec<String>,
    /// Status of each hop of `redirect_chain`.
    pub redirect_statuses: Vec<u16>,
    /// `/loop/a -> /loop/b -> /loop/a ...` (302s).
    pub redirect_loop: Vec<String>,
    /// `(host A URL, host B target)`, a 302.
    pub cross_host_redirect: (String, String),
    pub retry_pages: Vec<RetryPage>,
    pub calendar: CalendarTrap,
    /// Served gzip-encoded when the request accepts gzip.
    pub gzip_page: String,
    pub charset_pages: Vec<CharsetPage>,
    /// Streams exactly `huge_bytes` bytes of HTML, chunked, no Content-Length.
    pub huge_page: String,
    pub huge_bytes: u64,
    /// Answers after `slow_delay`.
    pub slow_page: String,
    pub slow_delay: Duration,
    /// Declares `Content-Length` larger by `truncated_missing_bytes` than what it sends, then
    /// closes the connection.
    pub truncated_page: String,
    pub truncated_missing_bytes: u64,
    /// Linked targets that answer 404.
    pub broken_links: Vec<String>,
    /// Unclosed tags, stray end tags, bad nesting, NUL bytes; contains `malformed_phrase`.
    pub malformed_page: String,
    pub malformed_phrase: &'static str,
    /// Linked non-HTML resources (`report.pdf` is also disallowed).
    pub non_html: Vec<NonHtml>,
    /// Every `/article/N` answers these validators and 304 to a matching conditional GET.
    pub conditional_pages: Vec<ConditionalPage>,
    /// Words that only occur inside `<script>`, `<style>` or comments: never in extracted text.
    pub forbidden_markers: Vec<&'static str>,
    /// `/article/1..=N` with their plain text.
    pub articles: Vec<ArticleInfo>,
    /// `/product/1..=60`: short distinct descriptions on the heavy template.
    pub products: Vec<ProductInfo>,
}

impl Expectations {
    /// The duplicate group a URL belongs to (calendar days other than the listed ones too).
    pub fn group_of(&self, url: &str) -> Option<&DuplicateGroup> {
        self.duplicate_groups
            .iter()
            .find(|g| g.members.iter().any(|m| m == url))
            .or_else(|| {
                url.starts_with(&self.calendar.url_prefix)
                    .then(|| {
                        self.duplicate_groups
                            .iter()
                            .find(|g| g.representative == self.calendar.start)
                    })
                    .flatten()
            })
    }

    /// URLs that must never appear in a crawler's request log.
    pub fn must_not_fetch(&self) -> Vec<String> {
        let mut v = self.disallowed.clone();
        v.extend(self.nofollow_targets.iter().cloned());
        v
    }
}

pub(crate) fn build(s: &Shared) -> Expectations {
    let a = s.site.a.as_str();
    let b = s.site.b.as_str();
    let ua = |p: &str| format!("{a}{p}");
    let ub = |p: &str| format!("{b}{p}");
    let n_articles = s.site.articles.len();
    let n_products = s.site.products.len();

    let mut distinct: Vec<String> = [
        "/",
        "/articles/page/1",
        "/articles/page/2",
        "/articles/page/3",
        "/products",
        "/about",
        "/contact",
        "/list?a=1&b=2",
        "/private/public-ok",
        "/rate-limited",
        "/unavailable-once",
        "/flaky",
        "/gzipped",
        "/nofollow",
        "/broken/404-link",
        "/broken/malformed",
    ]
    .iter()
    .map(|p| ua(p))
    .collect();
    distinct.push(ua(&format!("/calendar?date={CALENDAR_START}")));
    distinct.extend(CHARSET_PAGES.iter().map(|c| ua(c.path)));
    distinct.extend((1..=n_articles).map(|n| ua(&format!("/article/{n}"))));
    distinct.extend((1..=n_products).map(|n| ua(&format!("/product/{n}"))));
    distinct.extend(["/", "/b/page/1", "/b/page/2"].iter().map(|p| ub(p)));

    let group = |kind, members: Vec<String>| DuplicateGroup {
        kind,
        representative: members[0].clone(),
        members,
    };
    let calendar_prefix = ua("/calendar?date=");
    let duplicate_groups = vec![
        group(
            DupKind::UrlVariant,
            vec![
                ua("/article/3"),
                ua("/article/3?utm_source=x&utm_medium=y"),
                ua("/article/3?fbclid=abc"),
                ua("/article/3;jsessionid=ABC123"),
                ua("/article/3?PHPSESSID=zz"),
            ],
        ),
        group(
            DupKind::UrlVariant,
            vec![ua("/list?a=1&b=2"), ua("/list?b=2&a=1")],
        ),
        group(
            DupKind::ExactCopy,
            vec![ua("/article/5"), ua("/copy/article-5")],
        ),
        group(
            DupKind::NearDuplicate,
            vec![ua("/article/7"), ua("/news/today")],
        ),
        group(
            DupKind::NearDuplicate,
            vec![ua("/article/9"), ua("/article/9/print")],
        ),
        group(
            DupKind::CanonicalLink,
            vec![ua("/article/4"), ua("/article/4/amp")],
        ),
        group(
            DupKind::NearDuplicate,
            vec![ua("/article/11"), ub("/syndicated/11")],
        ),
        group(
            DupKind::NearDuplicate,
            vec![
                format!("{calendar_prefix}{CALENDAR_START}"),
                format!("{calendar_prefix}2025-12-31"),
                format!("{calendar_prefix}2026-01-02"),
            ],
        ),
    ];

    let retry = s.opts.retry_after_secs;
    Expectations {
        main_url: ua("/"),
        host_b_url: ub("/"),
        distinct_pages: distinct,
        duplicate_groups,
        disallowed: vec![
            ua("/private/secret-1"),
            ua("/private/secret-2"),
            ua("/files/report.pdf"),
        ],
        allowed_exceptions: vec![ua("/private/public-ok")],
        crawl_delay: s.opts.crawl_delay,
        robots_txt_a: robots_a(a, s.opts.crawl_delay),
        robots_txt_b: ROBOTS_B.to_string(),
        sitemaps: vec![ua("/sitemap.xml"), ua("/sitemap-articles.xml.gz")],
        sitemap_urls: SITEMAP_PATHS.iter().map(|p| ua(p)).collect(),
        orphan_from_sitemap: vec![ua("/orphan/only-in-sitemap")],
        nofollow_targets: (1..=3)
            .map(|n| ua(&format!("/nofollow-target-{n}")))
            .collect(),
        noindex_pages: vec![ua("/noindex"), ua("/x-robots")],
        canonical_links: vec![(ua("/article/4/amp"), ua("/article/4"))],
        redirect_chain: vec![ua("/r/1"), ua("/r/2"), ua("/r/3"), ua("/article/12")],
        redirect_statuses: vec![301, 302, 307],
        redirect_loop: vec![ua("/loop/a"), ua("/loop/b")],
        cross_host_redirect: (ua("/go/b"), ub("/b/page/1")),
        retry_pages: vec![
            RetryPage {
                url: ua("/rate-limited"),
                failures: vec![429],
                retry_after_secs: Some(retry),
            },
            RetryPage {
                url: ua("/unavailable-once"),
                failures: vec![503],
                retry_after_secs: Some(retry),
            },
            RetryPage {
                url: ua("/flaky"),
                failures: vec![500, 500],
                retry_after_secs: None,
            },
        ],
        calendar: CalendarTrap {
            start: format!("{calendar_prefix}{CALENDAR_START}"),
            url_prefix: calendar_prefix,
            max_fetches_if_deduplicating: 3,
        },
        gzip_page: ua("/gzipped"),
        charset_pages: CHARSET_PAGES
            .iter()
            .map(|c| CharsetPage {
                url: ua(c.path),
                encoding: c.encoding,
                sample: c.sample,
            })
            .collect(),
        huge_page: ua("/huge"),
        huge_bytes: s.opts.huge_bytes,
        slow_page: ua("/slow"),
        slow_delay: s.opts.slow_delay,
        truncated_page: ua("/broken/truncated"),
        truncated_missing_bytes: TRUNCATED_MISSING_BYTES,
        broken_links: vec![ua(MISSING_PATH)],
        malformed_page: ua("/broken/malformed"),
        malformed_phrase: MALFORMED_PHRASE,
        non_html: vec![
            NonHtml {
                url: ua("/files/report.pdf"),
                content_type: "application/pdf",
            },
            NonHtml {
                url: ua("/files/data.csv"),
                content_type: "text/csv; charset=utf-8",
            },
            NonHtml {
                url: ua("/img/logo.png"),
                content_type: "image/png",
            },
        ],
        conditional_pages: s
            .rendered
            .iter()
            .enumerate()
            .map(|(i, r)| ConditionalPage {
                url: ua(&format!("/article/{}", i + 1)),
                etag: r.etag.clone(),
                last_modified: httpdate::fmt_http_date(r.last_modified),
            })
            .collect(),
        forbidden_markers: vec!["SCRIPTMARKER", "STYLEMARKER", "COMMENTMARKER"],
        articles: s
            .site
            .articles
            .iter()
            .enumerate()
            .map(|(i, art)| ArticleInfo {
                url: ua(&format!("/article/{}", i + 1)),
                title: art.title.clone(),
                text: art.text(),
            })
            .collect(),
        products: s
            .site
            .products
            .iter()
            .enumerate()
            .map(|(i, p)| ProductInfo {
                url: ua(&format!("/product/{}", i + 1)),
                name: p.name.clone(),
                description: p.description.clone(),
            })
            .collect(),
    }
}
