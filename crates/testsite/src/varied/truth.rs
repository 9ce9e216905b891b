//! Ground truth of the varied hosts: per page class, which pages are distinct, which are
//! copies of which original and which are parts of which whole (the same [`ClassTruth`] as
//! the class hosts), plus the calendar trap and the figures the fixture measured on its own
//! served main text.

use serde::Serialize;

use super::style::MarkupStyle;
use crate::{ClassTruth, PageClass};

/// One host of a [`super::VariedSites`].
#[derive(Clone, Debug, Serialize)]
pub struct VariedHost {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// What the host serves: "shop", "news", "mirror", "noise", "reference".
    pub role: &'static str,
    pub style: MarkupStyle,
}

/// The endless calendar on the news host.
#[derive(Clone, Debug, Serialize)]
pub struct CalendarTruth {
    /// The day linked from the menu.
    pub start: String,
    /// The day after `start`.
    pub next: String,
    /// Every `url_prefix + YYYY-MM-DD` is a day page, forever in both directions.
    pub url_prefix: String,
    /// A crawler that drops duplicates' links fetches at most this many day pages: the
    /// start, its two neighbours, and two more for a host whose first pages are judged
    /// before its template is known.
    pub max_fetches: usize,
}

/// What the fixture measured on its own served main text (exact word-5-shingle Jaccard,
/// [`crate::similarity`]), for the report and the README.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Measured {
    /// Lowest and highest resemblance of a mirror copy to its original.
    pub mirror_resemblance: (f64, f64),
    /// Lowest and highest resemblance of a noisy copy to its original (two renderings).
    pub noise_copy_resemblance: (f64, f64),
    /// Lowest share of a part's shingles inside its whole.
    pub part_containment: f64,
    /// Lowest and highest share of a product's main-text tokens that are shop template.
    pub template_share: (f64, f64),
    /// The most alike pair of distinct pages (own text, host template left out).
    pub most_alike_distinct: (f64, String, String),
    /// The highest share of a distinct page's own text inside another distinct page.
    pub most_contained_distinct: (f64, String, String),
    /// Resemblance of two neighbouring calendar days.
    pub calendar_neighbours: f64,
}

/// The ground truth of a [`super::VariedSites`]; every URL absolute.
#[derive(Clone, Debug, Serialize)]
pub struct VariedTruth {
    pub seed: u64,
    /// The hosts' roots: crawl from these.
    pub seeds: Vec<String>,
    pub hosts: Vec<VariedHost>,
    /// One entry per [`PageClass`], in [`PageClass::ALL`] order.
    pub classes: Vec<ClassTruth>,
    /// The shop's product pages (heavy-template distinct pages).
    pub products: Vec<String>,
    pub calendar: CalendarTruth,
    pub measured: Measured,
    /// Where the built pages break their own truth (empty when the fixture is sound).
    pub problems: Vec<String>,
}

impl VariedTruth {
    pub fn class(&self, class: PageClass) -> &ClassTruth {
        self.classes
            .iter()
            .find(|c| c.class == class)
            .expect("every class has a truth")
    }

    /// Every page URL of the truth (calendar days aside).
    pub fn urls(&self) -> impl Iterator<Item = &str> {
        self.classes.iter().flat_map(ClassTruth::urls)
    }
}

/// One host's truth while it is built: paths relative to the host.
#[derive(Default)]
pub(crate) struct HostTruth {
    classes: Vec<ClassTruth>,
}

impl HostTruth {
    pub(crate) fn class(&mut self, class: PageClass) -> &mut ClassTruth {
        if let Some(i) = self.classes.iter().position(|c| c.class == class) {
            return &mut self.classes[i];
        }
        self.classes.push(ClassTruth::new(class));
        self.classes.last_mut().expect("just pushed")
    }

    /// Adds this host's truth to `classes` with absolute URLs under `base`.
    pub(crate) fn absolute_into(self, base: &str, classes: &mut [ClassTruth]) {
        let abs = |p: &str| {
            if p.starts_with("http") {
                p.to_string()
            } else {
                format!("{base}{p}")
            }
        };
        for c in self.classes {
            let into = classes
                .iter_mut()
                .find(|t| t.class == c.class)
                .expect("every class listed");
            into.distinct.extend(c.distinct.iter().map(|p| abs(p)));
            for mut copy in c.copies {
                copy.copy = abs(&copy.copy);
                copy.original = abs(&copy.original);
                into.copies.push(copy);
            }
            for mut part in c.parts {
                part.part = abs(&part.part);
                part.whole = abs(&part.whole);
                into.parts.push(part);
            }
        }
    }
}
