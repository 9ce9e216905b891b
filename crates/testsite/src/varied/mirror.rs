//! The mirror host: republishes news articles in its own markup style and chrome, with its
//! own title suffix and byline format, an advertisement inside the body and, per copy, an
//! editor's note added and/or a paragraph removed. Each copy's edits are chosen so that its
//! main text resembles the original's 0.75-0.97 (exact word-5-shingle Jaccard on the served
//! main text, measured here). The home page lists only the mirror's own articles: copies
//! are reached from their originals.

use super::chrome::{Chrome, Widget};
use super::corpus::{Draw, shuffle};
use super::furniture::{
    authors, byline, comments, date_text, info_pages, render_info_pages, slug, teaser, token,
};
use super::news::{News, NewsArticle};
use super::page::{Block, Extra, MAIN_END, MAIN_START, Page};
use super::style::{MarkupStyle, render};
use super::{HostPages, HostTruth};
use crate::PageClass;
use crate::classes::CopyOf;
use crate::similarity::{blocks_between, jaccard, text_shingles};

/// Resemblance of a copy's main text to its original's: the range the copies are built in.
pub(crate) const RESEMBLANCE: std::ops::RangeInclusive<f64> = 0.75..=0.97;

/// Where the mirror puts its copy of the news article at `i` (newest first).
pub(crate) fn copy_path(style: MarkupStyle, i: usize, article: &NewsArticle) -> String {
    if style == MarkupStyle::Tables {
        format!("/view.php?story={}", i + 1)
    } else {
        format!("/reprints/{}-{}.html", i + 1, slug(&article.title))
    }
}

/// The copies' resemblance to their originals, `(copy path, resemblance)`.
pub(crate) type Resemblance = Vec<(String, f64)>;

#[allow(clippy::too_many_arguments)]
pub(crate) fn build(
    style: MarkupStyle,
    brand: &str,
    draw: &mut Draw,
    news: &News,
    news_base: &str,
    mirrored: &[usize],
    truth: &mut HostTruth,
) -> (HostPages, Resemblance) {
    let rng = draw.rng();
    let byline_format = rng.range(0, 3);
    let date_format = rng.range(0, 3);
    let with_comments = rng.chance(60);
    let ad_after = rng.range(1, 3) as usize;
    let info = info_pages(draw, 2);
    let mut targets: Vec<(String, String)> = vec![("/".into(), "Home".into())];
    targets.extend(info.iter().map(|(p, l, _)| (p.clone(), l.clone())));
    let mut chrome = Chrome::draw(style, brand, &targets, draw);
    // An i18n mirror: its copies are the untranslated English originals, served under the
    // declaration of the mirror's own language (the brand picks it, so the seed's draws stay
    // as they were).
    const DECLARED: [&str; 5] = ["es", "de", "fr", "pt-BR", "it"];
    chrome.lang = DECLARED[brand.bytes().map(usize::from).sum::<usize>() % DECLARED.len()];
    let ads: Vec<String> = (0..4).map(|_| draw.snippet(18, 35)).collect();

    let mut pages = HostPages::new();
    let own_writers = authors(draw, 2);
    let mut own = Vec::new();
    for k in 1..=4 {
        let doc = draw.document(4, 250, 700);
        let path = if style == MarkupStyle::Tables {
            format!("/view.php?own={k}")
        } else {
            format!("/our-reporting/{}.html", slug(&doc.title))
        };
        own.push((path, doc));
    }
    let own_teasers: Vec<_> = own
        .iter()
        .map(|(path, doc)| teaser(path, &doc.title, &doc.paragraphs, 24))
        .collect();
    chrome.widgets.push(Widget::Teasers {
        title: "From our newsroom".into(),
        items: own_teasers.clone(),
    });

    let class = truth.class(PageClass::Mirror);
    for path in render_info_pages(&chrome, &info, &mut pages) {
        class.distinct.push(path);
    }
    for (k, (path, doc)) in own.iter().enumerate() {
        let writer = &own_writers[k % own_writers.len()];
        let days = crate::date::days_from_civil(2025, 6, 1) + 9 * k as i64;
        let mut page = Page::new(&doc.title)
            .with(Block::Title(doc.title.clone()))
            .with(Block::Meta(byline(
                byline_format,
                &writer.name,
                &date_text(days, date_format),
            )))
            .paragraphs(&doc.paragraphs);
        let (before, after) = chrome.article_extras();
        page.before = before;
        page.after = after;
        pages.insert(path.clone(), render(&chrome, &page, &[]));
        class.distinct.push(path.clone());
    }
    let mut home = Page::new(brand)
        .with(Block::Title(brand.to_string()))
        .with(Block::Para(draw.snippet(25, 50)));
    for t in &own_teasers {
        home = home.with(Block::Teaser(t.clone()));
    }
    pages.insert("/".into(), render(&chrome, &home, &[]));
    class.distinct.push("/".into());

    let mut resemblance = Vec::new();
    for &i in mirrored {
        let a = &news.articles[i];
        let original_blocks = blocks_between(&news.pages[&a.path], MAIN_START, MAIN_END)
            .expect("a rendered page has its main text marked");
        let original = text_shingles(&original_blocks);
        let note = format!("Editor's note: {}", draw.snippet(30, 70));
        let ad = ads[i % ads.len()].clone();
        let mut edits: Vec<(bool, bool, bool)> = vec![
            (true, false, false),
            (true, true, false),
            (true, false, true),
            (true, true, true),
            (false, true, false),
            (false, false, true),
        ];
        shuffle(&mut edits, draw.rng());
        let list = with_comments.then(|| {
            let count = draw.rng().range(0, 4) as usize;
            comments(draw, count, a.days + 2, date_format)
        });
        let csrf = token(draw.rng());
        let path = copy_path(style, i, a);
        let mut chosen: Option<(String, f64)> = None;
        for (with_ad, add, remove) in edits {
            let mut body = a.paragraphs.clone();
            if remove && body.len() > 4 {
                body.remove(body.len() / 2);
            }
            if add {
                body.push(note.clone());
            }
            let mut page = Page::new(&a.title)
                .with(Block::Title(a.title.clone()))
                .with(Block::Meta(format!(
                    "Originally published in {}. {}",
                    news.brand,
                    byline(byline_format, &a.author, &date_text(a.days, date_format))
                )));
            for (k, p) in body.iter().enumerate() {
                page.main.push(Block::Para(p.clone()));
                if with_ad && k + 1 == ad_after {
                    page.main.push(Block::Ad(ad.clone()));
                }
            }
            let (before, mut after) = chrome.article_extras();
            page.before = before;
            after.push(Extra::Links(vec![(
                format!("{news_base}{}", a.path),
                format!("Read the original at {}", news.brand),
            )]));
            after.push(Extra::Related {
                heading: "More from us".into(),
                items: own_teasers.iter().take(3).cloned().collect(),
            });
            if let Some(list) = &list {
                after.push(Extra::Comments {
                    comments: list.clone(),
                    token: csrf.clone(),
                });
            }
            page.after = after;
            let html = render(&chrome, &page, &[]);
            let blocks = blocks_between(&html, MAIN_START, MAIN_END)
                .expect("a rendered page has its main text marked");
            let j = jaccard(&original, &text_shingles(&blocks));
            let fits = RESEMBLANCE.contains(&j);
            if fits || chosen.is_none() {
                chosen = Some((html, j));
            }
            if fits {
                break;
            }
        }
        let (html, j) = chosen.expect("at least one edit tried");
        pages.insert(path.clone(), html);
        resemblance.push((path.clone(), j));
        truth.class(PageClass::Mirror).copies.push(CopyOf {
            copy: path,
            original: format!("{news_base}{}", a.path),
        });
    }
    (pages, resemblance)
}
