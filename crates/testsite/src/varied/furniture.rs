//! Pieces every varied host uses: authors with bios, bylines and dates in a host's own
//! format, readers' comments, slugs, teasers and the host's info pages (about, contact…).

use super::HostPages;
use super::chrome::Chrome;
use super::corpus::{Draw, cut};
use super::page::{Block, Comment, Page, Teaser};
use super::style::render;
use crate::date::civil_from_days;
use crate::text::{Rng, person};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

const WEEKDAYS: [&str; 7] = [
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
];

/// "Saturday, 14 March 2026" for a day number (days since 1970-01-01).
pub(crate) fn long_date(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    format!(
        "{}, {d} {} {y}",
        WEEKDAYS[days.rem_euclid(7) as usize],
        MONTHS[m as usize - 1]
    )
}

/// A date the way one host writes it (`format` 0-3).
pub(crate) fn date_text(days: i64, format: u64) -> String {
    let (y, m, d) = civil_from_days(days);
    let month = MONTHS[m as usize - 1];
    match format % 4 {
        0 => format!("{month} {d}, {y}"),
        1 => format!("{d} {month} {y}"),
        2 => format!("{y}-{m:02}-{d:02}"),
        _ => format!("{} {d} {}", &month[..3], y),
    }
}

/// A byline the way one host writes it (`format` 0-3).
pub(crate) fn byline(format: u64, author: &str, date: &str) -> String {
    match format % 4 {
        0 => format!("By {author} | {date}"),
        1 => format!("{date} \u{b7} {author}"),
        2 => format!("Posted on {date} by {author}"),
        _ => format!("Written by {author}. Published {date}."),
    }
}

/// A writer and the bio printed under their articles.
pub(crate) struct Author {
    pub(crate) name: String,
    pub(crate) bio: String,
}

pub(crate) fn authors(draw: &mut Draw, count: usize) -> Vec<Author> {
    (0..count)
        .map(|_| {
            let name = person(draw.rng());
            let bio = draw.snippet(20, 45);
            Author { name, bio }
        })
        .collect()
}

/// `count` readers' comments, each its own text.
pub(crate) fn comments(draw: &mut Draw, count: usize, days: i64, date_format: u64) -> Vec<Comment> {
    (0..count)
        .map(|i| Comment {
            name: person(draw.rng()),
            date: date_text(days + 1 + i as i64, date_format),
            text: draw.snippet(12, 45),
        })
        .collect()
}

/// A random token, as a CSRF field or a session would carry.
pub(crate) fn token(rng: &mut Rng) -> String {
    format!("{:016x}{:016x}", rng.next_u64(), rng.next_u64())
}

/// `why-cities-plant-trees` from a title (at most 8 words).
pub(crate) fn slug(title: &str) -> String {
    let words: Vec<String> = title
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(8)
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        "untitled".into()
    } else {
        words.join("-")
    }
}

/// Makes `slug` unique among `taken` by a number suffix.
pub(crate) fn unique_slug(title: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let base = slug(title);
    let mut s = base.clone();
    let mut n = 2;
    while !taken.insert(s.clone()) {
        s = format!("{base}-{n}");
        n += 1;
    }
    s
}

/// A teaser of a text: its title and its first `words` words.
pub(crate) fn teaser(href: &str, title: &str, paragraphs: &[String], words: usize) -> Teaser {
    let text = paragraphs.join(" ");
    Teaser {
        href: href.to_string(),
        title: title.to_string(),
        text: cut(&text, words.saturating_sub(8).max(1), words),
    }
}

/// The host's info pages (`/about`, `/contact`, …), each with its own prose; returns their
/// paths with labels, to put in the menu.
pub(crate) fn info_pages(draw: &mut Draw, count: usize) -> Vec<(String, String, Vec<String>)> {
    const INFO: [(&str, &str); 5] = [
        ("/about-us", "About us"),
        ("/contact", "Contact"),
        ("/privacy-policy", "Privacy"),
        ("/terms", "Terms of use"),
        ("/advertise", "Advertise with us"),
    ];
    INFO.iter()
        .take(count)
        .map(|(path, label)| {
            let words = draw.rng().range(60, 220) as usize;
            (path.to_string(), label.to_string(), draw.prose(words))
        })
        .collect()
}

/// Renders the info pages into `pages`; returns their paths.
pub(crate) fn render_info_pages(
    chrome: &Chrome,
    info: &[(String, String, Vec<String>)],
    pages: &mut HostPages,
) -> Vec<String> {
    info.iter()
        .map(|(path, label, paragraphs)| {
            let page = Page::new(label)
                .with(Block::Title(label.clone()))
                .paragraphs(paragraphs);
            pages.insert(path.clone(), render(chrome, &page, &[]));
            path.clone()
        })
        .collect()
}
