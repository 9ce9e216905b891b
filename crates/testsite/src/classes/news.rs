//! The news host: a home page, pagination hubs `/list/page/1..6` that differ only by the
//! articles they list (same intro, list items are links with titles), and the articles,
//! reachable only through the hubs. The first [`MIRRORED`] articles link to their reprint
//! on the mirror host, so a copy is always fetched after its original.

use std::fmt::Write as _;

use super::skeleton::{Chrome, esc, link_list, paragraphs};
use super::truth::{ClassTruth, PageClass};
use super::{HUB_PAGES, HostPages, MIRRORED, PER_HUB, STORIES};
use crate::text::{Rng, headline, person, prose, prose_for};

pub(crate) const CHROME: Chrome = Chrome {
    brand: "The Lantern Courier",
    nav: &[
        ("/", "Front page"),
        ("/list/page/1", "Latest"),
        ("/story/1", "Serials"),
    ],
    footer: "The Lantern Courier is an independent weekly. Letters to the editor are welcome.",
};

pub(crate) struct NewsArticle {
    pub(crate) title: String,
    pub(crate) author: String,
    pub(crate) paragraphs: Vec<String>,
}

pub(crate) fn articles() -> Vec<NewsArticle> {
    let mut rng = Rng::new(7_305_311);
    let mut titles = std::collections::HashSet::new();
    (0..HUB_PAGES * PER_HUB)
        .map(|_| {
            let mut title = headline(&mut rng);
            while !titles.insert(title.clone()) {
                title = headline(&mut rng);
            }
            let author = person(&mut rng);
            let words = rng.range(420, 650) as usize;
            NewsArticle {
                title,
                author,
                paragraphs: prose(&mut rng, words),
            }
        })
        .collect()
}

pub(crate) fn article_path(n: usize) -> String {
    format!("/article/{n}")
}

/// Home, hubs and articles; `reprint_url(n)` is the mirror's copy of article `n`.
pub(crate) fn build(
    base: &str,
    articles: &[NewsArticle],
    reprint_url: impl Fn(usize) -> String,
) -> (HostPages, ClassTruth) {
    let mut pages = HostPages::new();
    let mut truth = ClassTruth::new(PageClass::Hubs);

    let mut home = format!(
        "<h1>The Lantern Courier</h1>\n{}<p><a href=\"/list/page/1\">Latest articles</a></p>\n<h2>Serials</h2>\n",
        paragraphs(&prose_for("courier-home", 60))
    );
    let serials: Vec<(String, String)> = (1..=STORIES)
        .map(|s| (format!("/story/{s}"), format!("Serial number {s}")))
        .collect();
    home.push_str(&link_list(&serials));
    pages.insert("/".into(), CHROME.page("Front page", &home, ""));
    truth.distinct.push(format!("{base}/"));

    let intro = prose_for("courier-hub-intro", 30);
    for hub in 1..=HUB_PAGES {
        let listed: Vec<(String, String)> = (1..=PER_HUB)
            .map(|k| {
                let n = (hub - 1) * PER_HUB + k;
                (article_path(n), articles[n - 1].title.clone())
            })
            .collect();
        let mut pager = String::from("<p class=\"pager\">");
        for p in 1..=HUB_PAGES {
            let _ = write!(pager, "<a href=\"/list/page/{p}\">{p}</a> ");
        }
        pager.push_str("</p>\n");
        let main = format!(
            "<h1>Latest articles</h1>\n{}{}{pager}",
            paragraphs(&intro),
            link_list(&listed)
        );
        let path = format!("/list/page/{hub}");
        pages.insert(path.clone(), CHROME.page("Latest articles", &main, ""));
        truth.distinct.push(format!("{base}{path}"));
    }

    for (i, a) in articles.iter().enumerate() {
        let n = i + 1;
        let main = format!(
            "<article><h1>{}</h1>\n<p class=\"byline\">By {}</p>\n{}</article>\n",
            esc(&a.title),
            esc(&a.author),
            paragraphs(&a.paragraphs)
        );
        let after = if n <= MIRRORED {
            format!(
                "<div class=\"syndication\"><a href=\"{}\">Also in the Harbour Digest</a></div>\n",
                reprint_url(n)
            )
        } else {
            String::new()
        };
        let path = article_path(n);
        pages.insert(path.clone(), CHROME.page(&a.title, &main, &after));
        truth.distinct.push(format!("{base}{path}"));
    }
    (pages, truth)
}
