//! The news host: articles of real prose reachable only through hubs whose teasers overlap
//! (`/page/N`, `/category/X`, `/tag/Y`; `index.php?…` on a table-layout host), a home page,
//! multi-part long reads (see [`super::stories`]), an endless events calendar and info pages.
//! Articles the mirror reprints link to their reprint, so the copy is fetched after them.
//! Related boxes and sidebar teasers point at the newest articles only, so the others are
//! reachable through the hubs alone.

use std::collections::HashSet;

use super::chrome::{Chrome, Widget};
use super::corpus::Draw;
use super::furniture::{
    Author, authors, byline, comments, date_text, info_pages, long_date, render_info_pages, teaser,
    token, unique_slug,
};
use super::page::{Block, Extra, Page, Teaser};
use super::stories;
use super::style::{MarkupStyle, render};
use super::{HostPages, HostTruth};
use crate::PageClass;
use crate::date::days_from_civil;

/// Articles per `/page/N` hub.
const PER_PAGE: usize = 8;

const CATEGORIES: &[&str] = &[
    "local", "business", "culture", "science", "sport", "travel", "opinion", "health",
];
const TAGS: &[&str] = &[
    "elections",
    "housing",
    "rail",
    "schools",
    "climate",
    "startups",
    "music",
    "football",
    "farming",
    "museums",
    "courts",
    "energy",
    "water",
    "tourism",
    "markets",
    "libraries",
];

/// One article of the news host.
pub(crate) struct NewsArticle {
    pub(crate) path: String,
    pub(crate) title: String,
    pub(crate) author: String,
    pub(crate) days: i64,
    pub(crate) paragraphs: Vec<String>,
    category: usize,
    tags: Vec<usize>,
}

impl NewsArticle {
    /// The article's teaser: its title and first `words` words, linked.
    fn teaser(&self, words: usize) -> Teaser {
        teaser(&self.path, &self.title, &self.paragraphs, words)
    }
}

/// How the host spells its URLs.
struct Urls {
    query_style: bool,
}

impl Urls {
    fn article(&self, n: usize, slug: &str, days: i64) -> String {
        if self.query_style {
            return format!("/article.php?id={n}");
        }
        let (y, m, _) = crate::date::civil_from_days(days);
        format!("/{y}/{m:02}/{slug}/")
    }
    fn page(&self, p: usize) -> String {
        if self.query_style {
            format!("/index.php?page={p}")
        } else {
            format!("/page/{p}/")
        }
    }
    fn category(&self, c: &str) -> String {
        if self.query_style {
            format!("/index.php?cat={c}")
        } else {
            format!("/category/{c}/")
        }
    }
    fn tag(&self, t: &str) -> String {
        if self.query_style {
            format!("/index.php?tag={t}")
        } else {
            format!("/tag/{t}/")
        }
    }
    fn events(&self) -> &'static str {
        if self.query_style {
            "/events.php?day="
        } else {
            "/events/"
        }
    }
}

/// The news host's pages and what the mirror needs of them.
pub(crate) struct News {
    pub(crate) brand: String,
    pub(crate) articles: Vec<NewsArticle>,
    pub(crate) pages: HostPages,
    pub(crate) calendar: Calendar,
}

/// The endless events calendar: every day page is the same listing with its date and
/// prev/next links.
pub(crate) struct Calendar {
    pub(crate) prefix: String,
    pub(crate) start: i64,
    chrome: Chrome,
    events: Vec<(String, String)>,
}

impl Calendar {
    /// The day page at `rest` (what follows the prefix: `YYYY-MM-DD`).
    pub(crate) fn render(&self, rest: &str) -> Option<String> {
        let day = crate::date::parse_ymd(rest.trim_end_matches('/'))?;
        let link = |d: i64| format!("{}{}", self.prefix, crate::date::ymd_string(d));
        let mut page = Page::new(&format!("Events on {}", long_date(day)))
            .with(Block::Title(format!("What's on: {}", long_date(day))));
        for (title, text) in &self.events {
            page = page
                .with(Block::Subhead(title.clone()))
                .with(Block::Para(text.clone()));
        }
        page = page.with(Block::Links(vec![
            (link(day - 1), "Previous day".into()),
            (link(day + 1), "Next day".into()),
        ]));
        Some(render(&self.chrome, &page, &[]))
    }
}

/// Where article `n` is reprinted, if it is: `(mirror URL, note shown under the article)`.
pub(crate) type Reprint<'a> = &'a dyn Fn(usize, &NewsArticle) -> Option<(String, String)>;

pub(crate) fn build(
    style: MarkupStyle,
    draw: &mut Draw,
    article_count: usize,
    reprint: Reprint<'_>,
    truth: &mut HostTruth,
) -> News {
    let urls = Urls {
        query_style: style == MarkupStyle::Tables,
    };
    let brand = format!("The {} Courier", draw.brand_word("Daily"));
    let rng = draw.rng();
    let date_format = rng.range(0, 3);
    let byline_format = rng.range(0, 3);
    let with_bio = rng.chance(70);
    let with_related = rng.chance(70);
    let with_comments = rng.chance(60);
    let start_days = days_from_civil(2024, 1, 1) + rng.range(0, 500) as i64;
    let category_count = rng.range(4, 6) as usize;
    let tag_count = rng.range(6, 10) as usize;
    let calendar_start = days_from_civil(2026, 1, 1) + rng.range(0, 300) as i64;
    let mut category_names: Vec<&str> = CATEGORIES.to_vec();
    super::corpus::shuffle(&mut category_names, rng);
    category_names.truncate(category_count);
    let mut tag_names: Vec<&str> = TAGS.to_vec();
    super::corpus::shuffle(&mut tag_names, rng);
    tag_names.truncate(tag_count);

    let writers = authors(draw, 5);
    let mut slugs = HashSet::new();
    let mut articles = Vec::new();
    for n in 1..=article_count {
        let doc = draw.document(5, 300, 900);
        let rng = draw.rng();
        let days = start_days + 3 * n as i64 + rng.range(0, 2) as i64;
        let slug = unique_slug(&doc.title, &mut slugs);
        let category = (rng.next_u64() % category_count as u64) as usize;
        let first_tag = (rng.next_u64() % tag_count as u64) as usize;
        let mut tags = vec![first_tag];
        if rng.chance(50) {
            tags.push(
                (first_tag + 1 + (rng.next_u64() % (tag_count as u64 - 1)) as usize) % tag_count,
            );
        }
        let author = writers[(rng.next_u64() % writers.len() as u64) as usize]
            .name
            .clone();
        articles.push(NewsArticle {
            path: urls.article(n, &slug, days),
            title: doc.title,
            author,
            days,
            paragraphs: doc.paragraphs,
            category,
            tags,
        });
    }
    // Newest first, as a news site lists them.
    articles.sort_by_key(|a| std::cmp::Reverse(a.days));
    // Pages of PER_PAGE or more teasers: a short last page would sit wholly inside a
    // category or tag page, and then it is not a distinct page.
    let hub_pages = (article_count / PER_PAGE).max(1);

    let info = info_pages(draw, 3);
    let mut targets: Vec<(String, String)> = vec![("/".into(), "Home".into())];
    for c in &category_names {
        targets.push((urls.category(c), capitalize(c)));
    }
    targets.push((urls.page(1), "Latest".into()));
    targets.push((stories::HUB.into(), "Long reads".into()));
    targets.push((
        format!(
            "{}{}",
            urls.events(),
            crate::date::ymd_string(calendar_start)
        ),
        "Events".into(),
    ));
    targets.extend(info.iter().map(|(p, l, _)| (p.clone(), l.clone())));
    let mut chrome = Chrome::draw(style, &brand, &targets, draw);
    let newest: Vec<usize> = (0..PER_PAGE.min(articles.len())).collect();
    let popular = newest
        .iter()
        .take(4)
        .map(|&i| articles[i].teaser(22))
        .collect();
    chrome.widgets.push(Widget::Teasers {
        title: "Most read".into(),
        items: popular,
    });

    let mut pages = HostPages::new();
    let class = truth.class(PageClass::Hubs);
    for p in render_info_pages(&chrome, &info, &mut pages) {
        class.distinct.push(p);
    }

    // Articles.
    for (i, a) in articles.iter().enumerate() {
        let date = date_text(a.days, date_format);
        let mut page = Page::new(&a.title)
            .with(Block::Title(a.title.clone()))
            .with(Block::Meta(byline(byline_format, &a.author, &date)))
            .paragraphs(&a.paragraphs);
        let (before, mut after) = chrome.article_extras();
        page.before = before;
        if let Some(link) = reprint(i, a) {
            after.push(Extra::Links(vec![link]));
        }
        if with_bio {
            let bio = author_bio(&writers, &a.author);
            after.push(Extra::AuthorBio {
                name: a.author.clone(),
                bio,
            });
        }
        if with_related {
            let items = newest
                .iter()
                .filter(|&&j| j != i)
                .take(3)
                .map(|&j| articles[j].teaser(25))
                .collect();
            after.push(Extra::Related {
                heading: "Related articles".into(),
                items,
            });
        }
        if with_comments {
            let count = draw.rng().range(0, 4) as usize;
            let list = comments(draw, count, a.days, date_format);
            after.push(Extra::Comments {
                comments: list,
                token: token(draw.rng()),
            });
        }
        page.after = after;
        pages.insert(a.path.clone(), render(&chrome, &page, &[]));
        class.distinct.push(a.path.clone());
    }

    // Hubs: pages, categories, tags; their teasers overlap.
    let teaser_block = |a: &NewsArticle| Block::Teaser(a.teaser(36));
    for p in 1..=hub_pages {
        let mut page = Page::new(&format!("Latest news, page {p}")).with(Block::Title(format!(
            "Latest news, page {p} of {hub_pages}"
        )));
        let listed = (p - 1) * articles.len() / hub_pages..p * articles.len() / hub_pages;
        for a in &articles[listed] {
            page = page.with(teaser_block(a));
        }
        let pager = (1..=hub_pages)
            .map(|q| (urls.page(q), q.to_string()))
            .collect();
        page = page.with(Block::Links(pager));
        pages.insert(urls.page(p), render(&chrome, &page, &[]));
        class.distinct.push(urls.page(p));
    }
    for (c, name) in category_names.iter().enumerate() {
        let listed: Vec<&NewsArticle> = articles.iter().filter(|a| a.category == c).collect();
        if listed.is_empty() {
            continue;
        }
        let mut page = Page::new(&capitalize(name))
            .with(Block::Title(capitalize(name)))
            .with(Block::Para(draw.snippet(18, 40)));
        for a in listed {
            page = page.with(teaser_block(a));
        }
        pages.insert(urls.category(name), render(&chrome, &page, &[]));
        class.distinct.push(urls.category(name));
    }
    let mut tag_cloud = Vec::new();
    for (t, name) in tag_names.iter().enumerate() {
        let listed: Vec<&NewsArticle> = articles.iter().filter(|a| a.tags.contains(&t)).collect();
        if listed.is_empty() {
            continue;
        }
        let mut page = Page::new(&format!("Tagged {name}"))
            .with(Block::Title(format!(
                "Articles tagged \u{201c}{name}\u{201d}"
            )))
            .with(Block::Para(draw.snippet(15, 32)));
        for a in listed {
            page = page.with(teaser_block(a));
        }
        pages.insert(urls.tag(name), render(&chrome, &page, &[]));
        class.distinct.push(urls.tag(name));
        tag_cloud.push((urls.tag(name), name.to_string()));
    }

    // Home: an intro, the four newest, the tags.
    let mut home = Page::new(&brand)
        .with(Block::Title(format!("Welcome to {brand}")))
        .with(Block::Para(draw.snippet(25, 50)));
    for &i in newest.iter().take(4) {
        home = home.with(Block::Teaser(articles[i].teaser(30)));
    }
    home = home
        .with(Block::Subhead("Browse by tag".into()))
        .with(Block::Links(tag_cloud))
        .with(Block::Links(vec![(
            urls.page(1),
            "All the latest news".into(),
        )]));
    pages.insert("/".into(), render(&chrome, &home, &[]));
    class.distinct.push("/".into());

    stories::build(&chrome, draw, byline_format, date_format, &mut pages, truth);

    let events = (0..6)
        .map(|_| (draw.title(), draw.snippet(15, 35)))
        .collect();
    let calendar = Calendar {
        prefix: urls.events().to_string(),
        start: calendar_start,
        chrome,
        events,
    };
    News {
        brand,
        articles,
        pages,
        calendar,
    }
}

fn author_bio(writers: &[Author], name: &str) -> String {
    writers
        .iter()
        .find(|w| w.name == name)
        .map(|w| w.bio.clone())
        .unwrap_or_default()
}

pub(crate) fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
