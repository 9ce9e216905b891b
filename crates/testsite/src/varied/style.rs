//! The six markup styles a varied host is written in, and how each dresses a [`Page`] in its
//! host's [`Chrome`]: where the menu, sidebar, footer and banners go, and which elements and
//! class names carry the main text.

use std::fmt::Write as _;

use serde::Serialize;

use super::chrome::{Chrome, Widget};
use super::page::{Block, Comment, Extra, MAIN_END, MAIN_START, Page, Teaser};
use crate::html::esc;

/// How a host writes its HTML.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkupStyle {
    /// `header`/`nav`/`main`/`article`/`aside`/`footer`.
    Semantic,
    /// Divs with telling class names: `div.site-header`, `div#content`, `div.sidebar`,
    /// `div.post-body`.
    DivSoup,
    /// Divs and spans only, with random class names ("x7f-3a"): no semantic element and no
    /// chrome-ish word in any tag, id or class.
    Obfuscated,
    /// An old table layout: the menu in one `<td>`, the content in another, `<font>` and
    /// `<br>`.
    Tables,
    /// A WordPress theme: `article.post > div.entry-content`, `aside.widget-area`, comments
    /// under the article.
    WordPress,
    /// A Bootstrap grid: `div.container > div.row > div.col-md-8` / `col-md-4`, cards.
    Bootstrap,
}

impl MarkupStyle {
    pub const ALL: [MarkupStyle; 6] = [
        MarkupStyle::Semantic,
        MarkupStyle::DivSoup,
        MarkupStyle::Obfuscated,
        MarkupStyle::Tables,
        MarkupStyle::WordPress,
        MarkupStyle::Bootstrap,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MarkupStyle::Semantic => "semantic",
            MarkupStyle::DivSoup => "div soup",
            MarkupStyle::Obfuscated => "obfuscated",
            MarkupStyle::Tables => "tables",
            MarkupStyle::WordPress => "wordpress",
            MarkupStyle::Bootstrap => "bootstrap",
        }
    }
}

/// The parts of a page an element plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Title,
    Subhead,
    Meta,
    Para,
    Ad,
    SpecTable,
    Teaser,
    TeaserTitle,
    TeaserText,
    LinkRow,
    Code,
    ExtraBox,
    ExtraHeading,
    ExtraText,
    Comment,
    CommentMeta,
    Widget,
    WidgetTitle,
    Legal,
    Cookie,
    Brand,
    Menu,
    Page,
    Column,
    Sidebar,
    Bottom,
    Body,
    Top,
}

const ROLES: usize = 28;

fn role_index(role: Role) -> usize {
    role as usize
}

/// Random class names of an obfuscated host, one per role: consonants and digits only, so
/// no name spells a word.
#[derive(Clone, Debug)]
pub(crate) struct ObfuscatedNames(Vec<String>);

impl ObfuscatedNames {
    pub(crate) fn new(rng: &mut crate::text::Rng) -> ObfuscatedNames {
        const ALPHABET: &[u8] = b"bcdfghjkqxz0123456789";
        let mut names: Vec<String> = Vec::new();
        while names.len() < ROLES {
            let mut name = String::from(if rng.chance(50) { "x" } else { "_" });
            for i in 0..6 {
                if i == 3 {
                    name.push('-');
                }
                name.push(ALPHABET[(rng.next_u64() % ALPHABET.len() as u64) as usize] as char);
            }
            if !names.contains(&name) {
                names.push(name);
            }
        }
        ObfuscatedNames(names)
    }

    fn of(&self, role: Role) -> &str {
        &self.0[role_index(role)]
    }
}

/// Opening tag and closing tag of the element that plays `role` in `chrome`'s style.
fn element(chrome: &Chrome, role: Role) -> (String, &'static str) {
    use MarkupStyle::*;
    use Role::*;
    let simple = |tag: &'static str, class: &str| -> (String, &'static str) {
        let close = match tag {
            "h1" => "</h1>",
            "h2" => "</h2>",
            "h3" => "</h3>",
            "h5" => "</h5>",
            "h6" => "</h6>",
            "a" => "</a>",
            "p" => "</p>",
            "section" => "</section>",
            "aside" => "</aside>",
            "article" => "</article>",
            "span" => "</span>",
            "table" => "</table>",
            "pre" => "</pre>",
            "ul" => "</ul>",
            "ol" => "</ol>",
            "li" => "</li>",
            "footer" => "</footer>",
            "header" => "</header>",
            "nav" => "</nav>",
            "main" => "</main>",
            "small" => "</small>",
            "div" => "</div>",
            // A tag without its closing tag here would be closed by `</div>`: markup the
            // fixture never meant to serve (it once served `<h6>…</div>`).
            other => panic!("the varied styles have no closing tag for <{other}>"),
        };
        let open = if class.is_empty() {
            format!("<{tag}>")
        } else {
            format!("<{tag} class=\"{class}\">")
        };
        (open, close)
    };
    match chrome.style {
        Obfuscated => {
            let tag = match role {
                Meta | TeaserTitle | CommentMeta => "span",
                Code => "pre",
                _ => "div",
            };
            simple(tag, chrome.names.of(role))
        }
        Tables => match role {
            Title => (
                "<font face=\"Arial\" size=\"5\"><b>".into(),
                "</b></font><br>",
            ),
            Subhead | ExtraHeading | WidgetTitle => ("<p><b>".into(), "</b></p>"),
            Meta => ("<font size=\"2\" color=\"#666666\">".into(), "</font><br>"),
            Ad => (
                "<table width=\"100%\" bgcolor=\"#ffffcc\"><tr><td>".into(),
                "</td></tr></table>",
            ),
            SpecTable => (
                "<table border=\"1\" cellpadding=\"3\" cellspacing=\"0\">".into(),
                "</table>",
            ),
            Teaser | Comment => ("<p>".into(), "</p>"),
            TeaserTitle | CommentMeta => ("<b>".into(), "</b><br>"),
            TeaserText => ("<font size=\"2\">".into(), "</font>"),
            Code => simple("pre", ""),
            Legal | Cookie => ("<p><font size=\"1\">".into(), "</font></p>"),
            Brand => (
                "<font size=\"6\" color=\"#003366\"><b>".into(),
                "</b></font>",
            ),
            ExtraBox | Widget => (
                "<table width=\"100%\" cellpadding=\"4\"><tr><td>".into(),
                "</td></tr></table>",
            ),
            _ => simple("p", ""),
        },
        Semantic => match role {
            Title => simple("h1", ""),
            Subhead | ExtraHeading => simple("h2", ""),
            WidgetTitle => simple("h3", ""),
            Meta => simple("p", "byline"),
            Ad => simple("aside", "ad"),
            SpecTable => simple("table", "specs"),
            Teaser => simple("article", "teaser"),
            TeaserTitle => simple("h3", ""),
            LinkRow => simple("nav", "pagination"),
            Code => simple("pre", ""),
            ExtraBox => simple("section", ""),
            Comment => simple("article", "comment"),
            CommentMeta => simple("header", ""),
            Widget => simple("section", "widget"),
            Brand => simple("p", "site-title"),
            _ => simple("p", ""),
        },
        DivSoup => match role {
            Title => simple("div", "post-title"),
            Subhead => simple("div", "post-subtitle"),
            Meta => simple("div", "post-meta"),
            Para => simple("p", ""),
            Ad => simple("div", "ad-box"),
            SpecTable => simple("table", "product-specs"),
            Teaser => simple("div", "teaser"),
            TeaserTitle => simple("div", "teaser-title"),
            TeaserText => simple("div", "teaser-text"),
            LinkRow => simple("div", "pagination"),
            Code => simple("pre", "code"),
            ExtraBox => simple("div", "box"),
            ExtraHeading => simple("div", "box-title"),
            ExtraText => simple("div", "box-text"),
            Comment => simple("div", "comment"),
            CommentMeta => simple("div", "comment-author"),
            Widget => simple("div", "widget"),
            WidgetTitle => simple("div", "widget-title"),
            Legal => simple("div", "legal"),
            Cookie => simple("div", "cookie-notice"),
            Brand => simple("div", "logo"),
            _ => simple("div", ""),
        },
        WordPress => match role {
            Title => simple("h1", "entry-title"),
            Subhead => simple("h2", "wp-block-heading"),
            Meta => simple("div", "entry-meta"),
            Ad => simple("div", "wp-block-group inline-ad"),
            SpecTable => simple("table", "wp-block-table"),
            Teaser => simple("article", "post type-post status-publish hentry"),
            TeaserTitle => simple("h2", "entry-title"),
            TeaserText => simple("div", "entry-summary"),
            LinkRow => simple("nav", "navigation pagination"),
            Code => simple("pre", "wp-block-code"),
            ExtraBox => simple("div", "wp-block-group"),
            ExtraHeading => simple("h3", "wp-block-heading"),
            Comment => simple("li", "comment byuser comment-author"),
            CommentMeta => simple("footer", "comment-meta"),
            Widget => simple("section", "widget widget_recent_entries"),
            WidgetTitle => simple("h2", "widget-title"),
            Legal => simple("div", "site-info"),
            Cookie => simple("div", "cookie-law-info-bar"),
            Brand => simple("p", "site-title"),
            _ => simple("p", ""),
        },
        Bootstrap => match role {
            Title => simple("h1", "display-5 fw-bold"),
            Subhead => simple("h3", "mt-4"),
            Meta => simple("p", "text-muted small"),
            Ad => simple("div", "alert alert-secondary"),
            SpecTable => simple("table", "table table-sm table-striped"),
            Teaser => simple("div", "card mb-3"),
            TeaserTitle => simple("h5", "card-title"),
            TeaserText => simple("p", "card-text"),
            LinkRow => simple("ul", "pagination"),
            Code => simple("pre", "bg-light p-2"),
            ExtraBox => simple("div", "card my-4"),
            ExtraHeading => simple("h5", "card-header"),
            ExtraText => simple("p", "card-text px-3"),
            Comment => simple("div", "media border-top pt-2"),
            CommentMeta => simple("h6", "mt-0"),
            Widget => simple("div", "card mb-4"),
            WidgetTitle => simple("h5", "card-header"),
            Legal => simple("p", "small text-muted"),
            Cookie => simple("div", "alert alert-warning fixed-bottom mb-0"),
            Brand => simple("a", "navbar-brand"),
            _ => simple("p", ""),
        },
    }
}

fn wrap(out: &mut String, chrome: &Chrome, role: Role, inner: &str) {
    let (open, close) = element(chrome, role);
    let _ = writeln!(out, "{open}{inner}{close}");
}

fn link(href: &str, text: &str) -> String {
    format!("<a href=\"{}\">{}</a>", esc(href), esc(text))
}

fn links_row(chrome: &Chrome, links: &[(String, String)]) -> String {
    let items: Vec<String> = links
        .iter()
        .map(|(href, label)| match chrome.style {
            MarkupStyle::Bootstrap => format!(
                "<li class=\"page-item\"><a class=\"page-link\" href=\"{}\">{}</a></li>",
                esc(href),
                esc(label)
            ),
            _ => link(href, label),
        })
        .collect();
    let sep = if chrome.style == MarkupStyle::Tables {
        " | "
    } else {
        " "
    };
    items.join(sep)
}

fn teaser(out: &mut String, chrome: &Chrome, t: &Teaser) {
    let mut inner = String::new();
    wrap(
        &mut inner,
        chrome,
        Role::TeaserTitle,
        &link(&t.href, &t.title),
    );
    wrap(&mut inner, chrome, Role::TeaserText, &esc(&t.text));
    if chrome.style == MarkupStyle::Bootstrap {
        inner = format!("<div class=\"card-body\">{inner}</div>");
    }
    wrap(out, chrome, Role::Teaser, &inner);
}

fn block(out: &mut String, chrome: &Chrome, b: &Block) {
    match b {
        Block::Title(t) => wrap(out, chrome, Role::Title, &esc(t)),
        Block::Subhead(t) => wrap(out, chrome, Role::Subhead, &esc(t)),
        Block::Meta(t) => wrap(out, chrome, Role::Meta, &esc(t)),
        Block::Para(t) if chrome.style == MarkupStyle::Tables && chrome.br_paragraphs => {
            let _ = writeln!(out, "{}<br><br>", esc(t));
        }
        Block::Para(t) => wrap(out, chrome, Role::Para, &esc(t)),
        Block::Ad(t) => {
            let label = match chrome.style {
                MarkupStyle::Bootstrap => "Sponsored",
                MarkupStyle::Tables => "ADVERTISEMENT",
                _ => "Advertisement",
            };
            let (open, close) = element(chrome, Role::Meta);
            wrap(
                out,
                chrome,
                Role::Ad,
                &format!("{open}{label}{close}{}", esc(t)),
            );
        }
        Block::Specs(rows) => {
            let mut inner = String::new();
            for (label, value) in rows {
                let _ = write!(
                    inner,
                    "<tr><th>{}</th><td>{}</td></tr>",
                    esc(label),
                    esc(value)
                );
            }
            if chrome.style == MarkupStyle::Obfuscated {
                inner = rows
                    .iter()
                    .map(|(l, v)| {
                        format!(
                            "<div class=\"{}\"><span>{}</span> <span>{}</span></div>",
                            chrome.names.of(Role::ExtraText),
                            esc(l),
                            esc(v)
                        )
                    })
                    .collect();
            }
            wrap(out, chrome, Role::SpecTable, &inner);
        }
        Block::Teaser(t) => teaser(out, chrome, t),
        Block::Links(links) => wrap(out, chrome, Role::LinkRow, &links_row(chrome, links)),
        Block::Code(code) => wrap(out, chrome, Role::Code, &esc(code)),
    }
}

fn comments(out: &mut String, chrome: &Chrome, list: &[Comment], token: &str) {
    let mut inner = String::new();
    wrap(
        &mut inner,
        chrome,
        Role::ExtraHeading,
        &format!("{} responses", list.len()),
    );
    for c in list {
        let mut one = String::new();
        wrap(
            &mut one,
            chrome,
            Role::CommentMeta,
            &format!("{} &middot; {}", esc(&c.name), esc(&c.date)),
        );
        wrap(&mut one, chrome, Role::ExtraText, &esc(&c.text));
        wrap(&mut inner, chrome, Role::Comment, &one);
    }
    let _ = writeln!(
        inner,
        "<form method=\"post\" action=\"#respond\"><input type=\"hidden\" name=\"csrf_token\" \
         value=\"{token}\"><textarea name=\"comment\"></textarea><input type=\"text\" \
         name=\"author\"><button type=\"submit\">Post comment</button></form>"
    );
    if chrome.style == MarkupStyle::WordPress {
        inner = format!(
            "<div id=\"comments\" class=\"comments-area\"><ol class=\"comment-list\">{inner}</ol></div>"
        );
    }
    wrap(out, chrome, Role::ExtraBox, &inner);
}

fn extra(out: &mut String, chrome: &Chrome, e: &Extra) {
    let mut inner = String::new();
    match e {
        Extra::Share => {
            wrap(&mut inner, chrome, Role::ExtraText, "Share this:");
            for net in ["Facebook", "X", "LinkedIn", "WhatsApp", "Email"] {
                let _ = write!(
                    inner,
                    "<a href=\"#share-{}\">{net}</a> ",
                    net.to_lowercase()
                );
            }
        }
        Extra::Newsletter(pitch) => {
            wrap(
                &mut inner,
                chrome,
                Role::ExtraHeading,
                &chrome.newsletter_title,
            );
            wrap(&mut inner, chrome, Role::ExtraText, &esc(pitch));
            inner.push_str(
                "<form method=\"post\" action=\"#signup\"><input type=\"email\" name=\"email\">\
                 <button type=\"submit\">Sign me up</button></form>\n",
            );
        }
        Extra::AuthorBio { name, bio } => {
            wrap(
                &mut inner,
                chrome,
                Role::ExtraHeading,
                &format!("About {}", esc(name)),
            );
            wrap(&mut inner, chrome, Role::ExtraText, &esc(bio));
        }
        Extra::Related { heading, items } => {
            wrap(&mut inner, chrome, Role::ExtraHeading, &esc(heading));
            for t in items {
                teaser(&mut inner, chrome, t);
            }
        }
        Extra::Comments {
            comments: list,
            token,
        } => {
            comments(out, chrome, list, token);
            return;
        }
        Extra::Links(links) => {
            wrap(
                &mut inner,
                chrome,
                Role::ExtraText,
                &links_row(chrome, links),
            );
        }
    }
    wrap(out, chrome, Role::ExtraBox, &inner);
}

fn widget(out: &mut String, chrome: &Chrome, w: &Widget) {
    let mut inner = String::new();
    match w {
        Widget::Text { title, text } => {
            wrap(&mut inner, chrome, Role::WidgetTitle, &esc(title));
            wrap(&mut inner, chrome, Role::ExtraText, &esc(text));
        }
        Widget::Teasers { title, items } => {
            wrap(&mut inner, chrome, Role::WidgetTitle, &esc(title));
            for t in items {
                teaser(&mut inner, chrome, t);
            }
        }
        Widget::Links { title, links } => {
            wrap(&mut inner, chrome, Role::WidgetTitle, &esc(title));
            let list: String = links
                .iter()
                .map(|(h, l)| {
                    if matches!(chrome.style, MarkupStyle::Obfuscated | MarkupStyle::Tables) {
                        format!("{}<br>", link(h, l))
                    } else {
                        format!("<li>{}</li>", link(h, l))
                    }
                })
                .collect();
            if matches!(chrome.style, MarkupStyle::Obfuscated | MarkupStyle::Tables) {
                inner.push_str(&list);
            } else {
                let _ = writeln!(inner, "<ul>{list}</ul>");
            }
        }
    }
    if chrome.style == MarkupStyle::Bootstrap {
        inner = format!("<div class=\"card-body\">{inner}</div>");
    }
    wrap(out, chrome, Role::Widget, &inner);
}

/// The page's main column: extras, the marked main text, extras.
fn column(chrome: &Chrome, page: &Page) -> String {
    let mut out = String::new();
    for e in &page.before {
        extra(&mut out, chrome, e);
    }
    let mut main = String::new();
    let head_len = if chrome.style == MarkupStyle::WordPress {
        page.main
            .iter()
            .take_while(|b| matches!(b, Block::Title(_) | Block::Meta(_)))
            .count()
    } else {
        0
    };
    for b in &page.main[..head_len] {
        block(&mut main, chrome, b);
    }
    let mut body = String::new();
    for b in &page.main[head_len..] {
        block(&mut body, chrome, b);
    }
    let main = match chrome.style {
        MarkupStyle::WordPress => format!(
            "<article id=\"post-{id}\" class=\"post-{id} post type-post status-publish format-standard hentry\">\n\
             {MAIN_START}<header class=\"entry-header\">{main}</header>\n\
             <div class=\"entry-content\">\n{body}</div>{MAIN_END}\n</article>\n",
            id = chrome.post_id(&page.title)
        ),
        MarkupStyle::Semantic => format!("<article>\n{MAIN_START}{body}{MAIN_END}\n</article>\n"),
        MarkupStyle::DivSoup => {
            format!("<div class=\"post\">\n{MAIN_START}{body}{MAIN_END}\n</div>\n")
        }
        MarkupStyle::Obfuscated => format!(
            "<div class=\"{}\">\n{MAIN_START}{body}{MAIN_END}\n</div>\n",
            chrome.names.of(Role::ExtraBox)
        ),
        _ => format!("{MAIN_START}{body}{MAIN_END}\n"),
    };
    out.push_str(&main);
    for e in &page.after {
        extra(&mut out, chrome, e);
    }
    out
}

fn menu(chrome: &Chrome) -> String {
    let mut out = String::new();
    match chrome.style {
        MarkupStyle::Tables | MarkupStyle::Obfuscated => {
            for (href, label) in &chrome.menu {
                let _ = writeln!(out, "{}<br>", link(href, label));
            }
        }
        MarkupStyle::Bootstrap => {
            for (href, label) in &chrome.menu {
                let _ = writeln!(
                    out,
                    "<li class=\"nav-item\"><a class=\"nav-link\" href=\"{}\">{}</a></li>",
                    esc(href),
                    esc(label)
                );
            }
        }
        _ => {
            for (href, label) in &chrome.menu {
                let _ = writeln!(out, "<li class=\"menu-item\">{}</li>", link(href, label));
            }
        }
    }
    out
}

fn sidebar(chrome: &Chrome, extra_widgets: &[Widget]) -> String {
    let mut out = String::new();
    for w in chrome.widgets.iter().chain(extra_widgets) {
        widget(&mut out, chrome, w);
    }
    out
}

fn bottom(chrome: &Chrome) -> String {
    let mut out = String::new();
    let links: Vec<String> = chrome
        .footer_links
        .iter()
        .map(|(h, l)| link(h, l))
        .collect();
    let _ = writeln!(out, "<p>{}</p>", links.join(" &middot; "));
    for p in &chrome.legal {
        wrap(&mut out, chrome, Role::Legal, &esc(p));
    }
    let _ = writeln!(
        out,
        "<p>&copy; {} {}. All rights reserved.</p>",
        chrome.year,
        esc(&chrome.brand)
    );
    out
}

fn cookie(chrome: &Chrome) -> String {
    let Some(text) = &chrome.cookie else {
        return String::new();
    };
    let mut out = String::new();
    wrap(
        &mut out,
        chrome,
        Role::Cookie,
        &format!(
            "{} <button type=\"button\">Accept</button> <button type=\"button\">Settings</button>",
            esc(text)
        ),
    );
    out
}

const SCRIPT: &str = "<script>window.dataLayer=window.dataLayer||[];function track(){dataLayer.push(arguments)}track('js',new Date());</script>";

/// The whole HTML page: `page` in `chrome`, with `extra_widgets` after the host's own
/// sidebar widgets (per-request ones, such as a rotating quote).
pub(crate) fn render(chrome: &Chrome, page: &Page, extra_widgets: &[Widget]) -> String {
    let title = esc(&chrome.page_title(&page.title));
    let column = column(chrome, page);
    let menu = menu(chrome);
    let sidebar = sidebar(chrome, extra_widgets);
    let bottom = bottom(chrome);
    let cookie = cookie(chrome);
    let brand = {
        let (open, close) = element(chrome, Role::Brand);
        format!("{open}{}{close}", esc(&chrome.brand))
    };
    let tagline = esc(&chrome.tagline);
    let lang = chrome.lang;
    let head = format!(
        "<!DOCTYPE html>\n<html lang=\"{lang}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title>\n{SCRIPT}\n</head>\n"
    );
    match chrome.style {
        MarkupStyle::Semantic => format!(
            "{head}<body>\n{cookie}<header><a href=\"/\">{brand}</a><p>{tagline}</p>\n\
             <nav><ul>\n{menu}</ul></nav></header>\n<div class=\"layout\">\n<main>\n{column}</main>\n\
             <aside>\n{sidebar}</aside>\n</div>\n<footer>\n{bottom}</footer>\n</body></html>\n"
        ),
        MarkupStyle::DivSoup => format!(
            "{head}<body>\n<div id=\"wrapper\">\n<div class=\"site-header\"><a href=\"/\">{brand}</a>\
             <div class=\"tagline\">{tagline}</div>\n<div class=\"main-menu\"><ul>\n{menu}</ul></div></div>\n\
             <div id=\"content\">\n<div class=\"post-body\">\n{column}</div>\n\
             <div class=\"sidebar\">\n{sidebar}</div>\n</div>\n<div class=\"site-footer\">\n{bottom}</div>\n\
             {cookie}</div>\n</body></html>\n"
        ),
        MarkupStyle::Obfuscated => {
            let n = |r| chrome.names.of(r);
            format!(
                "{head}<body>\n<div class=\"{page}\">\n<div class=\"{top}\"><a href=\"/\">{brand}</a>\
                 <span>{tagline}</span>\n<div class=\"{menu_class}\">\n{menu}</div></div>\n\
                 <div class=\"{wrap}\">\n<div class=\"{col}\">\n{column}</div>\n\
                 <div class=\"{side}\">\n{sidebar}</div>\n</div>\n<div class=\"{bot}\">\n{bottom}</div>\n\
                 {cookie}</div>\n</body></html>\n",
                page = n(Role::Page),
                top = n(Role::Top),
                menu_class = n(Role::Menu),
                wrap = n(Role::Body),
                col = n(Role::Column),
                side = n(Role::Sidebar),
                bot = n(Role::Bottom),
            )
        }
        MarkupStyle::Tables => format!(
            "<html><head><title>{title}</title>\n<meta http-equiv=\"Content-Type\" \
             content=\"text/html; charset=utf-8\"></head>\n<body bgcolor=\"#ffffff\" text=\"#000000\">\n\
             <table width=\"100%\" border=\"0\" cellpadding=\"0\" cellspacing=\"0\">\n\
             <tr><td colspan=\"3\" bgcolor=\"#dde6ee\"><a href=\"/\">{brand}</a><br><i>{tagline}</i></td></tr>\n\
             <tr><td width=\"170\" valign=\"top\" bgcolor=\"#eeeeee\">\n{menu}</td>\n\
             <td width=\"10\">&nbsp;</td>\n<td valign=\"top\">\n{column}<hr>\n{sidebar}</td></tr>\n\
             <tr><td colspan=\"3\"><hr>\n{bottom}{cookie}</td></tr>\n</table>\n</body></html>\n"
        ),
        MarkupStyle::WordPress => format!(
            "{head}<body class=\"post-template-default single single-post\">\n<div id=\"page\" class=\"site\">\n\
             <header id=\"masthead\" class=\"site-header\"><div class=\"site-branding\"><a href=\"/\">{brand}</a>\
             <p class=\"site-description\">{tagline}</p></div>\n\
             <nav id=\"site-navigation\" class=\"main-navigation\"><ul id=\"primary-menu\" class=\"menu\">\n{menu}</ul></nav></header>\n\
             <div id=\"content\" class=\"site-content\">\n<div id=\"primary\" class=\"content-area\">\
             <main id=\"main\" class=\"site-main\">\n{column}</main></div>\n\
             <aside id=\"secondary\" class=\"widget-area\">\n{sidebar}</aside>\n</div>\n\
             <footer id=\"colophon\" class=\"site-footer\">\n{bottom}</footer>\n</div>\n{cookie}</body></html>\n"
        ),
        MarkupStyle::Bootstrap => format!(
            "{head}<body>\n<nav class=\"navbar navbar-expand-lg navbar-light bg-light\"><div class=\"container\">\
             <a href=\"/\">{brand}</a><span class=\"navbar-text\">{tagline}</span>\n\
             <ul class=\"navbar-nav me-auto\">\n{menu}</ul></div></nav>\n\
             <div class=\"container mt-4\">\n<div class=\"row\">\n<div class=\"col-md-8\">\n{column}</div>\n\
             <div class=\"col-md-4\">\n{sidebar}</div>\n</div>\n</div>\n\
             <footer class=\"footer mt-5 py-4 bg-light\"><div class=\"container\">\n{bottom}</div></footer>\n\
             {cookie}</body></html>\n"
        ),
    }
}
