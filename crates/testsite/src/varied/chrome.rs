//! A varied host's chrome, drawn from the seed: brand, a top menu of 10-60 links, sidebar
//! widgets with teaser text, a long footer of prose, a cookie banner, a newsletter box and
//! share buttons. The same on every page of the host (per-request widgets aside).

use super::corpus::Draw;
use super::page::{Extra, Teaser};
use super::style::{MarkupStyle, ObfuscatedNames};
use crate::text::fnv1a;

/// A sidebar box.
#[derive(Clone, Debug)]
pub(crate) enum Widget {
    Text {
        title: String,
        text: String,
    },
    Teasers {
        title: String,
        items: Vec<Teaser>,
    },
    Links {
        title: String,
        links: Vec<(String, String)>,
    },
}

/// Everything around a host's main column.
pub(crate) struct Chrome {
    pub(crate) style: MarkupStyle,
    pub(crate) names: ObfuscatedNames,
    pub(crate) brand: String,
    pub(crate) tagline: String,
    title_format: u64,
    pub(crate) menu: Vec<(String, String)>,
    pub(crate) widgets: Vec<Widget>,
    pub(crate) legal: Vec<String>,
    pub(crate) footer_links: Vec<(String, String)>,
    pub(crate) cookie: Option<String>,
    pub(crate) newsletter_title: String,
    newsletter: Option<String>,
    share: Option<bool>,
    /// Tables style: paragraphs as text and `<br><br>` instead of `<p>`.
    pub(crate) br_paragraphs: bool,
    pub(crate) year: u64,
    /// The `<html lang>` the host declares (English unless a host says otherwise, whatever
    /// language its text is in).
    pub(crate) lang: &'static str,
}

const MENU_LABELS: &[&str] = &[
    "Home",
    "News",
    "World",
    "Politics",
    "Business",
    "Tech",
    "Science",
    "Health",
    "Sport",
    "Culture",
    "Opinion",
    "Travel",
    "Food",
    "Style",
    "Books",
    "Music",
    "Film",
    "Podcasts",
    "Video",
    "Weather",
    "Events",
    "Jobs",
    "Property",
    "Motoring",
    "Education",
    "Environment",
    "Local",
    "Markets",
    "Startups",
    "Gadgets",
    "Reviews",
    "Deals",
    "Gift guide",
    "Puzzles",
    "About",
    "Contact",
    "Advertise",
    "Careers",
    "Help",
    "Shop",
    "Sale",
    "New in",
    "Brands",
    "Gardening",
    "Family",
    "Money",
    "Law",
    "History",
    "Photography",
    "Letters",
    "Archive",
    "Magazine",
    "Interviews",
    "Analysis",
    "Data",
    "Climate",
    "Energy",
    "Transport",
    "Housing",
    "Arts",
    "Theatre",
    "Obituaries",
    "Corrections",
    "Newsletters",
    "Subscribe",
];

const COOKIE_TEXTS: &[&str] = &[
    "We use cookies and similar technologies to keep this site working, to understand how it \
     is used and to personalise the advertising you see. You can change your choices at any \
     time from the privacy settings linked at the bottom of every page.",
    "This website stores small files on your device. Some are essential for it to work; \
     others help us count visits and improve what we publish. By continuing to browse you \
     agree to their use as described in our policy.",
    "Our partners and we process personal data such as your IP address and browsing \
     behaviour to measure audiences and show relevant offers. Select accept to consent, or \
     manage your preferences to refuse non-essential storage.",
    "Cookies help us deliver our services. Accepting them lets us remember your settings and \
     learn which articles are read the most, so we can write more of what matters to you.",
];

const NEWSLETTER_TITLES: &[&str] = &[
    "Get our newsletter",
    "Sign up for the weekly briefing",
    "Never miss a story",
    "Join our mailing list",
];

impl Chrome {
    /// A host's chrome in `style`, its menu pointing at `targets` (path, label).
    pub(crate) fn draw(
        style: MarkupStyle,
        brand: &str,
        targets: &[(String, String)],
        draw: &mut Draw,
    ) -> Chrome {
        let names = ObfuscatedNames::new(draw.rng());
        let rng = draw.rng();
        let menu_size = rng.range(10, 60) as usize;
        let mut menu: Vec<(String, String)> = targets.iter().take(menu_size).cloned().collect();
        let mut label = rng.range(0, MENU_LABELS.len() as u64) as usize;
        while menu.len() < menu_size {
            let href = targets[menu.len() % targets.len()].0.clone();
            menu.push((href, MENU_LABELS[label % MENU_LABELS.len()].to_string()));
            label += 1 + (rng.next_u64() % 3) as usize;
        }
        let title_format = rng.range(0, 4);
        let cookie = rng
            .chance(65)
            .then(|| COOKIE_TEXTS[(rng.next_u64() % COOKIE_TEXTS.len() as u64) as usize])
            .map(str::to_string);
        let newsletter_title = NEWSLETTER_TITLES
            [(rng.next_u64() % NEWSLETTER_TITLES.len() as u64) as usize]
            .to_string();
        let share = rng.chance(75).then(|| rng.chance(40));
        let has_newsletter = rng.chance(65);
        let br_paragraphs = style == MarkupStyle::Tables && rng.chance(50);
        let year = rng.range(2021, 2026);
        let about = rng.chance(70);
        let link_widget = rng.chance(60);
        let legal_words = rng.range(120, 320) as usize;

        let tagline = draw.title();
        let newsletter = has_newsletter.then(|| draw.snippet(18, 40));
        let mut widgets = Vec::new();
        if about {
            widgets.push(Widget::Text {
                title: format!("About {brand}"),
                text: draw.snippet(25, 60),
            });
        }
        if link_widget {
            widgets.push(Widget::Links {
                title: "Sections".into(),
                links: targets.to_vec(),
            });
        }
        let legal = draw.prose(legal_words);
        let footer_links = targets.iter().rev().take(12).cloned().collect();
        Chrome {
            style,
            names,
            brand: brand.to_string(),
            tagline,
            title_format,
            menu,
            widgets,
            legal,
            footer_links,
            cookie,
            newsletter_title,
            newsletter,
            share,
            br_paragraphs,
            year,
            lang: "en",
        }
    }

    /// Almost no chrome (print and AMP versions): the brand, `menu` and a copyright line.
    pub(crate) fn bare(
        style: MarkupStyle,
        brand: &str,
        menu: Vec<(String, String)>,
        rng: &mut crate::text::Rng,
    ) -> Chrome {
        Chrome {
            style,
            names: ObfuscatedNames::new(rng),
            brand: brand.to_string(),
            tagline: String::new(),
            title_format: 4,
            menu,
            widgets: Vec::new(),
            legal: Vec::new(),
            footer_links: Vec::new(),
            cookie: None,
            newsletter_title: String::new(),
            newsletter: None,
            share: None,
            br_paragraphs: false,
            year: 2026,
            lang: "en",
        }
    }

    /// The `<title>`: the page's title with the host's suffix.
    pub(crate) fn page_title(&self, title: &str) -> String {
        match self.title_format {
            0 => format!("{title} | {}", self.brand),
            1 => format!("{title} - {}", self.brand),
            2 => format!("{} :: {title}", self.brand),
            3 => format!("{title} \u{2013} {}", self.brand),
            _ => title.to_string(),
        }
    }

    /// A WordPress-like post number for a page.
    pub(crate) fn post_id(&self, title: &str) -> u64 {
        fnv1a(title.as_bytes()) % 9000 + 1000
    }

    /// The host's furniture above and below an article's text: share buttons, newsletter.
    pub(crate) fn article_extras(&self) -> (Vec<Extra>, Vec<Extra>) {
        let mut before = Vec::new();
        let mut after = Vec::new();
        match self.share {
            Some(true) => before.push(Extra::Share),
            Some(false) => after.push(Extra::Share),
            None => {}
        }
        if let Some(pitch) = &self.newsletter {
            after.push(Extra::Newsletter(pitch.clone()));
        }
        (before, after)
    }
}
