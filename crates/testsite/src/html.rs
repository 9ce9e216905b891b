//! HTML templates: host A's heavy "Meridian Gazette" template, the print and AMP variants,
//! and host B's "Northern Wire" template. Every template is pure ASCII (entities for the
//! rest) so a whole page can be re-encoded as Latin-1, windows-1252 or Shift_JIS.

use std::fmt::Write as _;

use crate::text::{Article, Product};

/// First day of the calendar trap.
pub(crate) const CALENDAR_START: &str = "2026-01-01";

/// Everything the templates need; built once per site.
pub(crate) struct Site {
    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub(crate) a: String,
    /// Host B's base, same form.
    pub(crate) b: String,
    pub(crate) articles: Vec<Article>,
    pub(crate) products: Vec<Product>,
    /// The calendar's fixed event listing (same every day).
    pub(crate) calendar: Vec<String>,
}

impl Site {
    pub(crate) fn article(&self, n: usize) -> Option<&Article> {
        n.checked_sub(1).and_then(|i| self.articles.get(i))
    }

    pub(crate) fn product(&self, n: usize) -> Option<&Product> {
        n.checked_sub(1).and_then(|i| self.products.get(i))
    }
}

/// Escapes text for HTML element content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

pub(crate) fn paragraphs(paras: &[String]) -> String {
    let mut out = String::new();
    for p in paras {
        let _ = writeln!(out, "<p>{}</p>", esc(p));
    }
    out
}

const STYLE: &str = r#"<style>
/* STYLEMARKER: house style v3 */
body{font-family:Georgia,serif;margin:0;color:#222}
header nav ul{display:flex;flex-wrap:wrap;list-style:none;padding:0}
header nav li{margin:0 .6em}
.layout{display:grid;grid-template-columns:3fr 1fr;gap:2em;padding:1em}
#cookie-banner{position:fixed;bottom:0;background:#ffd;padding:1em}
.STYLEMARKER-hidden::after{content:"STYLEMARKER"}
</style>"#;

const HEAD_SCRIPT: &str = r#"<script>
// SCRIPTMARKER analytics bootstrap
window.dataLayer = window.dataLayer || [];
function gtagSCRIPTMARKER(){ dataLayer.push(arguments); }
gtagSCRIPTMARKER('js', new Date()); var note = "<p>SCRIPTMARKER inside a string</p>";
</script>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsMediaOrganization","name":"SCRIPTMARKER Meridian"}</script>"#;

const COOKIE_BANNER: &str = r#"<div id="cookie-banner" role="dialog">
<p>We use cookies to remember your preferences, to measure how our pages are read and to show
you fewer repeated messages. You can accept all cookies or choose which ones you allow in the
settings panel at any time.</p>
<button type="button">Accept all cookies</button> <button type="button">Cookie settings</button>
</div>"#;

const LEGAL: &str = "The Meridian Gazette is published by Meridian Local Media Limited, \
registered in England and Wales under company number 04817263, with its registered office at \
12 Chandlery Yard, Aldermoor. All content on this website is protected by copyright and may not \
be reproduced, distributed, transmitted, cached or otherwise used except with the prior written \
permission of the publisher. Reader comments are the views of their authors and do not \
necessarily reflect the views of the publisher. We take reasonable care to ensure that the \
information on this website is accurate, but we accept no liability for any loss or damage \
arising from reliance on it. Advertisements are accepted subject to our standard terms and \
conditions. Personal data is processed in accordance with our privacy notice, which explains \
how we collect, use and protect it and how you can exercise your rights. If you believe that \
something we have published is inaccurate, please contact the editor, who will consider \
corrections promptly under our editorial complaints procedure.";

/// Host A's heavy template: ~40 nav links, sidebar, legal footer, cookie banner, scripts,
/// styles and comments around `main`.
pub(crate) fn layout_a(
    site: &Site,
    title: &str,
    charset_decl: &str,
    head_extra: &str,
    main: &str,
) -> String {
    let mut nav = String::new();
    let fixed: [(&str, &str); 9] = [
        ("/", "Home"),
        ("/articles/page/1", "Articles"),
        ("/articles/page/2", "More articles"),
        ("/articles/page/3", "Archive"),
        ("/products", "Shop"),
        ("/about", "About us"),
        ("/contact", "Contact"),
        ("/news/today", "Today"),
        ("/calendar?date=2026-01-01", "Events"),
    ];
    for (href, label) in fixed {
        let _ = writeln!(nav, "<li><a href=\"{href}\">{label}</a></li>");
    }
    for (i, a) in site.articles.iter().enumerate() {
        let _ = writeln!(
            nav,
            "<li><a href=\"/article/{}\">{}</a></li>",
            i + 1,
            esc(&a.title)
        );
    }
    let mut popular = String::new();
    for n in [2, 6, 8, 10, 13] {
        if let Some(a) = site.article(n) {
            let _ = writeln!(
                popular,
                "<li><a href=\"/article/{n}\">{}</a></li>",
                esc(&a.title)
            );
        }
    }
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
{charset_decl}
<title>{title} &mdash; The Meridian Gazette</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
{head_extra}
{STYLE}
{HEAD_SCRIPT}
</head>
<body>
<!-- COMMENTMARKER: template v3, build 2291. Do not remove the ad slots below. -->
{COOKIE_BANNER}
<header>
<div class="logo"><a href="/">The Meridian Gazette</a> <span class="tagline">News from the estuary towns since 1887</span></div>
<nav aria-label="Main">
<ul>
{nav}</ul>
</nav>
</header>
<div class="layout">
<main>
{main}
</main>
<aside class="sidebar">
<h2>Most read</h2>
<ul>
{popular}</ul>
<h2>Newsletter</h2>
<p>Get the week's stories from the estuary towns in your inbox every Friday morning. Free,
and you can unsubscribe with one click whenever you like.</p>
<form action="/newsletter" method="post"><input type="email" name="email" placeholder="you@example.com"><button>Sign up</button></form>
<!-- COMMENTMARKER: sidebar ad slot 300x250 -->
<h2>Topics</h2>
<p>Harbours &middot; Railways &middot; Mills &middot; Gardens &middot; Bridges &middot; Archives &middot; Weather &middot; Markets</p>
</aside>
</div>
<footer>
<p><a href="/about">About us</a> | <a href="/contact">Contact</a> | <a href="{b}/">Our partner: The Northern Wire</a></p>
<p class="legal">{LEGAL}</p>
<p>&copy; 2026 Meridian Local Media Limited. All rights reserved.</p>
</footer>
<script>
/* SCRIPTMARKER deferred */ document.addEventListener("DOMContentLoaded", function () {{ var b = document.getElementById("cookie-banner"); if (b) {{ b.dataset.x = "SCRIPTMARKER"; }} }});
</script>
</body>
</html>
"#,
        title = esc(title),
        b = site.b,
    )
}

pub(crate) const UTF8_META: &str = r#"<meta charset="utf-8">"#;

/// The article element shared by every rendering of an article (page, print, AMP, copy,
/// syndication): heading, byline, paragraphs. `extra` goes inside, after the text.
pub(crate) fn article_element(n: usize, a: &Article, extra: &str) -> String {
    let mut body = String::new();
    for (i, p) in a.paragraphs.iter().enumerate() {
        let _ = writeln!(body, "<p>{}</p>", esc(p));
        if i == 0 {
            body.push_str(
                "<script>/* SCRIPTMARKER read tracking */ trackRead(\"SCRIPTMARKER\");</script>\n\
                 <!-- COMMENTMARKER: editor note, check the figures in paragraph two -->\n",
            );
        }
    }
    format!(
        "<article class=\"story\" id=\"article-{n}\">\n<h1>{title}</h1>\n\
         <p class=\"byline\">By {author} &middot; <time datetime=\"{date}\">{date}</time></p>\n\
         {body}{extra}</article>\n",
        title = esc(&a.title),
        author = esc(&a.author),
        date = a.date,
    )
}

/// `/article/N` (and its tracking-parameter variants, and `/copy/article-5`).
pub(crate) fn article_page(site: &Site, n: usize, a: &Article) -> String {
    let count = site.articles.len();
    let mut main = article_element(n, a, "");
    main.push_str("<section class=\"related\"><h2>Related</h2><ul>\n");
    for m in [n % count + 1, (n + 6) % count + 1] {
        if let Some(r) = site.article(m) {
            let _ = writeln!(
                main,
                "<li><a href=\"/article/{m}\">{}</a></li>",
                esc(&r.title)
            );
        }
    }
    main.push_str("</ul></section>\n");
    if n == 9 {
        main.push_str(
            "<p class=\"tools\"><a href=\"/article/9/print\">Print this article</a></p>\n",
        );
    }
    layout_a(site, &a.title, UTF8_META, "", &main)
}

/// `/article/9/print`: same text, minimal template, no navigation.
pub(crate) fn print_page(n: usize, a: &Article) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{t} (print)</title>\n\
         <style>body{{font-family:serif;max-width:40em}}</style>\n</head>\n<body>\n{art}\
         <p class=\"printed\">Printed from The Meridian Gazette.</p>\n</body>\n</html>\n",
        t = esc(&a.title),
        art = article_element(n, a, ""),
    )
}

/// `/article/4/amp`: AMP-style template with `rel=canonical` to `/article/4`.
pub(crate) fn amp_page(n: usize, a: &Article) -> String {
    format!(
        "<!doctype html>\n<html amp lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{t}</title>\n<link rel=\"canonical\" href=\"/article/{n}\">\n\
         <meta name=\"viewport\" content=\"width=device-width\">\n\
         <script async src=\"https://cdn.ampproject.invalid/v0.js\"></script>\n\
         <style amp-custom>/* STYLEMARKER amp */ body{{margin:1em}}</style>\n</head>\n<body>\n\
         <div class=\"amp-header\"><a href=\"/\">Meridian</a></div>\n{art}</body>\n</html>\n",
        t = esc(&a.title),
        art = article_element(n, a, ""),
    )
}

/// A simple host-A page: heading plus prose, plus extra HTML inside the article element.
pub(crate) fn simple_a(site: &Site, title: &str, paras: &[String], extra: &str) -> String {
    let main = format!(
        "<article class=\"page\">\n<h1>{}</h1>\n{}{extra}</article>\n",
        esc(title),
        paragraphs(paras)
    );
    layout_a(site, title, UTF8_META, "", &main)
}

pub(crate) fn calendar_page(site: &Site, date: &str, prev: &str, next: &str) -> String {
    let main = format!(
        "<article class=\"calendar\">\n<h1>Events for {date}</h1>\n\
         <p>What is on around the estuary towns on {date}, updated by our listings desk.</p>\n\
         {}<p class=\"day-nav\"><a href=\"/calendar?date={prev}\">Previous day</a> \
         <a href=\"/calendar?date={next}\">Next day</a></p>\n</article>\n",
        paragraphs(&site.calendar)
    );
    layout_a(site, &format!("Events for {date}"), UTF8_META, "", &main)
}

pub(crate) fn product_page(site: &Site, p: &Product) -> String {
    let main = format!(
        "<article class=\"product\">\n<h1>{name}</h1>\n\
         <p class=\"sku\">SKU {sku} &middot; &pound;{pounds}.{pence:02}</p>\n\
         <p class=\"description\">{desc}</p>\n\
         <form action=\"/basket\" method=\"post\"><button>Add to basket</button></form>\n\
         <p><a href=\"/products\">Back to the shop</a></p>\n</article>\n",
        name = esc(&p.name),
        sku = p.sku,
        pounds = p.price_cents / 100,
        pence = p.price_cents % 100,
        desc = esc(&p.description),
    )
    .to_string();
    layout_a(site, &p.name, UTF8_META, "", &main)
}

/// Host B's template: a completely different layout.
pub(crate) fn layout_b(site: &Site, title: &str, content: &str) -> String {
    format!(
        r#"<!DOCTYPE html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<title>{t} | The Northern Wire</title>
<style>/* STYLEMARKER wire */ .masthead{{background:#003;color:#fff}} .column{{max-width:36em}}</style>
<script>var wireSCRIPTMARKER = 1;</script>
</head>
<body>
<div class="masthead"><h2 class="brand"><a href="/">The Northern Wire</a></h2>
<ul class="sections"><li><a href="/">Front page</a></li><li><a href="/b/page/1">Coast</a></li><li><a href="/b/page/2">Hills</a></li><li><a href="/syndicated/11">From our partners</a></li><li><a href="{a}/">The Meridian Gazette</a></li></ul></div>
<!-- COMMENTMARKER wire layout -->
<div class="column">
{content}
</div>
<div class="foot"><p>The Northern Wire is an independent cooperative newsroom. Stories marked as syndicated appear by arrangement with their publishers.</p></div>
</body>
</html>
"#,
        t = esc(title),
        a = site.a,
    )
}
