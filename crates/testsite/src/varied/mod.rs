//! A second, independent family of page-class hosts (issue 10), randomized by a seed: five
//! hosts on 127.0.0.1, each in its own markup style ([`MarkupStyle`]: semantic HTML5, div
//! soup with telling or with obfuscated class names, an old table layout, a WordPress theme,
//! a Bootstrap grid) and its own chrome (a top menu of 10-60 links, sidebar teasers, a long
//! footer of prose, a cookie banner, newsletter and share boxes, author bios, related
//! articles with teasers, comments), filled with real prose from the benchmark data sets in
//! `../shared/data` (read at run time; `DEDUP_SHARED_DATA` points elsewhere):
//!
//! * **shop**: ≥ 50 products whose main text is 90-97 % shared template prose, each with its
//!   own description, specifications, price and SKU; catalogue and category hubs;
//! * **news**: articles reachable only through hubs with overlapping teasers (`/page/N`,
//!   `/category/X`, `/tag/Y`), multi-part long reads (parts first for odd stories, the whole
//!   first for even ones) and an endless events calendar (the trap);
//! * **mirror**: ≥ 20 news articles republished in the mirror's own style with edits (an ad
//!   in the body, a paragraph added or removed, another byline), 0.75-0.97 alike, under the
//!   `<html lang>` of another language (an i18n mirror's untranslated copies);
//! * **noise**: notes whose HTML changes on every request, with AMP, print and `?ref=`
//!   copies that carry their own noise;
//! * **reference**: API pages that differ only by identifiers (`u8`/`u16`, `sha1`/`sha256`,
//!   `x86`/`x86_64`, `i16x8`/`u16x8`).
//!
//! Styles, counts, texts, URL schemes and chrome all come from the seed, so a seed is one
//! reproducible site (the noise host aside, random per request by design). The ground truth
//! ([`VariedTruth`]) is built with the pages and checked on the served main text by the
//! fixture's own exact Jaccard ([`crate::similarity`]); its `problems` list is empty when
//! every page is what the truth says.
//!
//! ```no_run
//! use dedupcrawl_testsite::{PageClass, VariedSites};
//!
//! # async fn demo() -> std::io::Result<()> {
//! let sites = VariedSites::start(7).await?;
//! let truth = sites.truth();
//! assert!(truth.problems.is_empty(), "{:?}", truth.problems);
//! // ... crawl truth.seeds, then score the crawl log per class:
//! for copy in &truth.class(PageClass::Mirror).copies {
//!     println!("{} should be linked to {}", copy.copy, copy.original);
//! }
//! # Ok(()) }
//! ```

mod check;
mod chrome;
mod corpus;
mod furniture;
mod identifiers;
mod mirror;
mod news;
mod noise;
mod page;
mod shop;
mod stories;
mod style;
mod truth;

use std::collections::HashMap;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};

use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::page_server::{PageSource, serve_all};

pub use corpus::shared_data_root;
pub use page::{MAIN_END, MAIN_START};
pub use style::MarkupStyle;
pub(crate) use truth::HostTruth;
pub use truth::{CalendarTruth, Measured, VariedHost, VariedTruth};

use crate::{ClassTruth, PageClass};

/// Multi-part long reads on the news host.
pub const STORIES: usize = 4;

/// A static host: path and query -> HTML.
pub(crate) type HostPages = HashMap<String, String>;

const ROLES: [&str; 5] = ["shop", "news", "mirror", "noise", "reference"];

/// What one host serves.
enum Server {
    Static(HostPages),
    // Boxed: the calendar's and the noise host's state are much larger than a page map.
    News(HostPages, Box<news::Calendar>),
    Noise(Box<noise::NoiseHost>),
}

impl PageSource for Server {
    fn page(&self, path_and_query: &str) -> Option<String> {
        match self {
            Server::Static(pages) => pages.get(path_and_query).cloned(),
            Server::News(pages, calendar) => pages.get(path_and_query).cloned().or_else(|| {
                calendar.render(path_and_query.strip_prefix(calendar.prefix.as_str())?)
            }),
            Server::Noise(host) => host.render(path_and_query),
        }
    }
}

/// The running varied hosts; dropping it stops them.
pub struct VariedSites {
    truth: VariedTruth,
    _shutdown: watch::Sender<()>,
}

impl VariedSites {
    /// Builds the site of `seed`, binds five listeners on 127.0.0.1 and serves them on the
    /// current tokio runtime. Fails when the data sets cannot be read.
    pub async fn start(seed: u64) -> io::Result<VariedSites> {
        let mut listeners = Vec::new();
        let mut bases = Vec::new();
        for _ in ROLES {
            let l = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
            bases.push(format!("http://{}", l.local_addr()?));
            listeners.push(l);
        }
        let (servers, truth) = build(seed, &bases)?;
        Ok(VariedSites {
            truth,
            _shutdown: serve_all(listeners, servers),
        })
    }

    /// The truth of `seed`'s site without serving it (URLs on placeholder ports).
    pub fn truth_for(seed: u64) -> io::Result<VariedTruth> {
        let bases: Vec<String> = (1..=ROLES.len())
            .map(|i| format!("http://127.0.0.1:{}", 40_000 + i))
            .collect();
        Ok(build(seed, &bases)?.1)
    }

    pub fn truth(&self) -> &VariedTruth {
        &self.truth
    }
}

/// Every host's pages and the truth, checked.
fn build(seed: u64, bases: &[String]) -> io::Result<(Vec<Server>, VariedTruth)> {
    let corpus = corpus::corpus()?;
    let mut draw = corpus::Draw::new(corpus, seed);
    let mut styles = MarkupStyle::ALL.to_vec();
    corpus::shuffle(&mut styles, draw.rng());
    let [shop_base, news_base, mirror_base] = [0, 1, 2].map(|i| bases[i].as_str());
    let mut truths: Vec<HostTruth> = ROLES.iter().map(|_| HostTruth::default()).collect();

    let rng = draw.rng();
    let products = rng.range(50, 56) as usize;
    let articles = rng.range(40, 48) as usize;
    let mirrored_count = rng.range(20, 24) as usize;
    let notes = rng.range(18, 24) as usize;
    let mut mirrored: Vec<usize> = (0..articles).collect();
    corpus::shuffle(&mut mirrored, rng);
    mirrored.truncate(mirrored_count);
    mirrored.sort_unstable();

    let shop_pages = shop::build(styles[0], &mut draw, products, &mut truths[0]);
    let mirror_style = styles[2];
    let mirror_brand = format!("{} Digest", draw.brand_word("Weekly"));
    let reprint = |i: usize, a: &news::NewsArticle| {
        mirrored.binary_search(&i).ok().map(|_| {
            (
                format!("{mirror_base}{}", mirror::copy_path(mirror_style, i, a)),
                format!("Also published in {mirror_brand}"),
            )
        })
    };
    let news = news::build(styles[1], &mut draw, articles, &reprint, &mut truths[1]);
    let (mirror_pages, _) = mirror::build(
        mirror_style,
        &mirror_brand,
        &mut draw,
        &news,
        news_base,
        &mirrored,
        &mut truths[2],
    );
    let noise_host = noise::build(styles[3], &mut draw, notes, 9, &mut truths[3]);
    let reference_pages = identifiers::build(styles[4], &mut draw, &mut truths[4]);

    let mut classes: Vec<ClassTruth> = PageClass::ALL.iter().map(|&c| ClassTruth::new(c)).collect();
    let product_paths: Vec<String> = truths[0]
        .class(PageClass::HeavyTemplate)
        .distinct
        .iter()
        .filter(|p| shop_pages.contains_key(*p) && is_product(p))
        .map(|p| format!("{shop_base}{p}"))
        .collect();
    for (truth, base) in truths.into_iter().zip(bases) {
        truth.absolute_into(base, &mut classes);
    }
    let url_prefix = format!("{news_base}{}", news.calendar.prefix);
    let day = |d: i64| format!("{url_prefix}{}", crate::date::ymd_string(d));
    let calendar = CalendarTruth {
        start: day(news.calendar.start),
        next: day(news.calendar.start + 1),
        url_prefix: url_prefix.clone(),
        max_fetches: 5,
    };
    let servers = vec![
        Server::Static(shop_pages),
        Server::News(news.pages, Box::new(news.calendar)),
        Server::Static(mirror_pages),
        Server::Noise(Box::new(noise_host)),
        Server::Static(reference_pages),
    ];
    let mut truth = VariedTruth {
        seed,
        seeds: bases.iter().map(|b| format!("{b}/")).collect(),
        hosts: ROLES
            .iter()
            .zip(bases)
            .zip(&styles)
            .map(|((&role, base), &style)| VariedHost {
                base: base.clone(),
                role,
                style,
            })
            .collect(),
        classes,
        products: product_paths,
        calendar,
        measured: Measured::default(),
        problems: Vec::new(),
    };
    let fetch = |url: &str| {
        let (i, base) = bases
            .iter()
            .enumerate()
            .find(|(_, b)| url.starts_with(b.as_str()))?;
        servers[i].page(&url[base.len()..])
    };
    let (measured, problems) = truth.check(&fetch);
    truth.measured = measured;
    truth.problems = problems;
    Ok((servers, truth))
}

fn is_product(path: &str) -> bool {
    path.starts_with("/product/") || path.starts_with("/item.php")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any seed builds a sound site, not only the crawler tests' three: the truth holds on the
    /// built pages. And a seed always builds the same site.
    #[test]
    fn seeds_build_sound_reproducible_sites() {
        let classes_json = |t: &VariedTruth| serde_json::to_string(&t.classes).expect("JSON");
        let mut first = None;
        for seed in 0..8 {
            let truth = VariedSites::truth_for(seed).expect("data sets readable");
            assert!(
                truth.problems.is_empty(),
                "seed {seed}: {:#?}",
                truth.problems
            );
            first.get_or_insert_with(|| classes_json(&truth));
        }
        let again = VariedSites::truth_for(0).expect("data sets readable");
        assert_eq!(first, Some(classes_json(&again)));
    }
}
