//! The noisy host: notes of real prose whose HTML changes on every request (an "updated"
//! time and a view counter, a random advertisement inside the body, a random "trending" box
//! with teaser text, a comment form with a fresh CSRF token, a rotating quote in the
//! sidebar), and copies of some notes under other URLs, each with its own noise: an AMP
//! version (`/amp/…`, other markup), a print version (`/print/…`, no chrome) or a tracking
//! variant (`?ref=trending`). A copy is linked only from its original.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use super::chrome::{Chrome, Widget};
use super::corpus::Draw;
use super::furniture::{byline, date_text, info_pages, render_info_pages, teaser, token};
use super::page::{Block, Extra, Page};
use super::style::{MarkupStyle, render};
use super::{HostPages, HostTruth};
use crate::PageClass;
use crate::classes::CopyOf;
use crate::text::{Rng, person};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Version {
    Original,
    Amp,
    Print,
    Tracked,
}

struct Note {
    path: String,
    title: String,
    author: String,
    days: i64,
    paragraphs: Vec<String>,
    /// The other URLs of this note.
    copies: Vec<(Version, String)>,
}

/// The noisy host; [`NoiseHost::render`] draws fresh noise on every call.
pub(crate) struct NoiseHost {
    chrome: Chrome,
    amp: Chrome,
    print: Chrome,
    notes: Vec<Note>,
    routes: HashMap<String, (usize, Version)>,
    static_pages: HostPages,
    ads: Vec<String>,
    quotes: Vec<String>,
    byline_format: u64,
    date_format: u64,
    requests: AtomicU64,
}

pub(crate) fn build(
    style: MarkupStyle,
    draw: &mut Draw,
    note_count: usize,
    copy_count: usize,
    truth: &mut HostTruth,
) -> NoiseHost {
    let brand = format!("{} Today", draw.brand_word("Town"));
    let query_style = style == MarkupStyle::Tables;
    let info = info_pages(draw, 3);
    let mut targets: Vec<(String, String)> = vec![("/".into(), "Latest notes".into())];
    targets.extend(info.iter().map(|(p, l, _)| (p.clone(), l.clone())));
    let chrome = Chrome::draw(style, &brand, &targets, draw);
    let amp_style = if style == MarkupStyle::Semantic {
        MarkupStyle::DivSoup
    } else {
        MarkupStyle::Semantic
    };
    let amp = Chrome::bare(amp_style, &brand, targets.clone(), draw.rng());
    let print = Chrome::bare(style, &brand, Vec::new(), draw.rng());
    let byline_format = draw.rng().range(0, 3);
    let date_format = draw.rng().range(0, 3);

    let mut notes = Vec::new();
    let mut slugs = std::collections::HashSet::new();
    for n in 1..=note_count {
        let doc = draw.document(4, 330, 650);
        let path = if query_style {
            format!("/note.php?id={n}")
        } else {
            format!(
                "/notes/{}",
                super::furniture::unique_slug(&doc.title, &mut slugs)
            )
        };
        let days = crate::date::days_from_civil(2025, 9, 1) + 2 * n as i64;
        notes.push(Note {
            path,
            title: doc.title,
            author: person(draw.rng()),
            days,
            paragraphs: doc.paragraphs,
            copies: Vec::new(),
        });
    }
    let mut routes = HashMap::new();
    let class = truth.class(PageClass::Noise);
    for (k, note) in notes.iter_mut().enumerate() {
        routes.insert(note.path.clone(), (k, Version::Original));
        class.distinct.push(note.path.clone());
        if k >= copy_count {
            continue;
        }
        let version = [Version::Amp, Version::Print, Version::Tracked][k % 3];
        let path = match version {
            Version::Amp => format!("/amp{}", note.path),
            Version::Print => format!("/print{}", note.path),
            _ if query_style => format!("{}&ref=trending", note.path),
            _ => format!("{}?ref=trending", note.path),
        };
        routes.insert(path.clone(), (k, version));
        class.copies.push(CopyOf {
            copy: path.clone(),
            original: note.path.clone(),
        });
        note.copies.push((version, path));
    }
    let mut static_pages = HostPages::new();
    for path in render_info_pages(&chrome, &info, &mut static_pages) {
        class.distinct.push(path);
    }
    class.distinct.push("/".into());
    let ads = (0..6).map(|_| draw.snippet(15, 30)).collect();
    let quotes = (0..8).map(|_| draw.snippet(10, 25)).collect();
    NoiseHost {
        chrome,
        amp,
        print,
        notes,
        routes,
        static_pages,
        ads,
        quotes,
        byline_format,
        date_format,
        requests: AtomicU64::new(0),
    }
}

impl NoiseHost {
    /// The page at `path_and_query`, with fresh noise, or `None`.
    pub(crate) fn render(&self, path_and_query: &str) -> Option<String> {
        if let Some(page) = self.static_pages.get(path_and_query) {
            return Some(page.clone());
        }
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let served = self.requests.fetch_add(1, Ordering::Relaxed);
        let mut rng = Rng::new(served ^ now.as_nanos() as u64);
        let quote = Widget::Text {
            title: "Quote of the moment".into(),
            text: self.quotes[(rng.next_u64() % self.quotes.len() as u64) as usize].clone(),
        };
        let trending = self.trending(&mut rng);
        if path_and_query == "/" {
            let mut page = Page::new("Latest notes").with(Block::Title("Latest notes".into()));
            for n in &self.notes {
                page = page.with(Block::Teaser(teaser(&n.path, &n.title, &n.paragraphs, 18)));
            }
            page.after.push(trending);
            return Some(render(&self.chrome, &page, &[quote]));
        }
        let &(k, version) = self.routes.get(path_and_query)?;
        let note = &self.notes[k];
        let clock = now.as_secs() % 86_400;
        let mut page = Page::new(&note.title)
            .with(Block::Title(note.title.clone()))
            .with(Block::Meta(format!(
                "{} \u{b7} Updated {:02}:{:02}:{:02} \u{b7} {} views",
                byline(
                    self.byline_format,
                    &note.author,
                    &date_text(note.days, self.date_format)
                ),
                clock / 3600,
                clock / 60 % 60,
                clock % 60,
                1_000 + served * 13 + rng.range(0, 900)
            )));
        let ad_at = rng.range(1, 2) as usize;
        for (i, p) in note.paragraphs.iter().enumerate() {
            page.main.push(Block::Para(p.clone()));
            if i + 1 == ad_at {
                let ad = &self.ads[(rng.next_u64() % self.ads.len() as u64) as usize];
                page.main.push(Block::Ad(ad.clone()));
            }
        }
        let chrome = match version {
            Version::Amp => &self.amp,
            Version::Print => &self.print,
            _ => &self.chrome,
        };
        if version != Version::Print {
            let (before, after) = chrome.article_extras();
            page.before = before;
            page.after = after;
            page.after.push(trending);
            page.after.push(Extra::Comments {
                comments: Vec::new(),
                token: token(&mut rng),
            });
        }
        if version == Version::Original && !note.copies.is_empty() {
            let links = note
                .copies
                .iter()
                .map(|(v, path)| {
                    let label = match v {
                        Version::Amp => "Mobile (AMP) version",
                        Version::Print => "Print this note",
                        _ => "Link to this note",
                    };
                    (path.clone(), label.to_string())
                })
                .collect();
            page.after.push(Extra::Links(links));
        }
        let widgets = if version == Version::Original {
            vec![quote]
        } else {
            Vec::new()
        };
        Some(render(chrome, &page, &widgets))
    }

    /// Four random notes' teasers.
    fn trending(&self, rng: &mut Rng) -> Extra {
        let mut items = Vec::new();
        while items.len() < 4.min(self.notes.len()) {
            let n = &self.notes[(rng.next_u64() % self.notes.len() as u64) as usize];
            if !items.iter().any(|t: &super::page::Teaser| t.href == n.path) {
                items.push(teaser(&n.path, &n.title, &n.paragraphs, 20));
            }
        }
        Extra::Related {
            heading: "Trending now".into(),
            items,
        }
    }
}
