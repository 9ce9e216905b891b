//! The fixture checks its own truth on the HTML it serves, with its own exact Jaccard
//! ([`crate::similarity`], not the crawler's code): distinct pages really differ, copies
//! really resemble their original, parts really sit inside their whole, the shop's template
//! really is heavy and calendar days really are alike.

use std::collections::{HashMap, HashSet};

use super::mirror::RESEMBLANCE;
use super::page::{MAIN_END, MAIN_START};
use super::truth::{Measured, VariedTruth};
use crate::PageClass;
use crate::similarity::{blocks_between, containment, jaccard, own_blocks, text_shingles, tokens};

/// Distinct pages share less than this of their own text's shingles.
const DISTINCT_BELOW: f64 = 0.5;
/// A distinct page's own text sits less than this much inside another's.
const CONTAINED_BELOW: f64 = 0.9;
/// A part sits at least this much inside its whole.
const PART_INSIDE: f64 = 0.9;
/// Copies of any kind resemble their original at least this much.
const COPY_AT_LEAST: f64 = 0.75;
/// The shop's template share of a product's main text.
const TEMPLATE_SHARE: std::ops::RangeInclusive<f64> = 0.90..=0.97;

impl VariedTruth {
    /// Measures the truth on the pages `fetch` serves (URL -> HTML): its figures, and where
    /// a page breaks the truth (none when the fixture is sound). The site does this when it
    /// is built; a test can do it again on what came over HTTP.
    pub fn check(&self, fetch: &dyn Fn(&str) -> Option<String>) -> (Measured, Vec<String>) {
        check(self, fetch)
    }
}

fn check(truth: &VariedTruth, fetch: &dyn Fn(&str) -> Option<String>) -> (Measured, Vec<String>) {
    let mut problems = Vec::new();
    let main = |url: &str, problems: &mut Vec<String>| -> Vec<String> {
        let Some(html) = fetch(url) else {
            problems.push(format!("{url}: not served"));
            return Vec::new();
        };
        blocks_between(&html, MAIN_START, MAIN_END).unwrap_or_else(|| {
            problems.push(format!("{url}: no marked main text"));
            Vec::new()
        })
    };
    let mut pages: HashMap<String, Vec<String>> = HashMap::new();
    for url in truth.urls() {
        let blocks = main(url, &mut problems);
        pages.insert(url.to_string(), blocks);
    }
    let mut seen = HashSet::new();
    for url in truth.urls() {
        if !seen.insert(url) {
            problems.push(format!("{url}: listed twice in the truth"));
        }
    }
    let full: HashMap<&str, HashSet<u64>> = pages
        .iter()
        .map(|(u, b)| (u.as_str(), text_shingles(b)))
        .collect();
    let own_text = own_blocks(&pages);
    let own: HashMap<&str, HashSet<u64>> = own_text
        .iter()
        .map(|(u, b)| (u.as_str(), text_shingles(b)))
        .collect();
    let mut m = Measured {
        mirror_resemblance: (1.0, 0.0),
        noise_copy_resemblance: (1.0, 0.0),
        part_containment: 1.0,
        template_share: (1.0, 0.0),
        ..Measured::default()
    };

    let distinct: Vec<&str> = truth
        .classes
        .iter()
        .flat_map(|c| c.distinct.iter().map(String::as_str))
        .collect();
    for (i, a) in distinct.iter().enumerate() {
        for b in &distinct[i + 1..] {
            let j = jaccard(&own[a], &own[b]);
            if j > m.most_alike_distinct.0 {
                m.most_alike_distinct = (j, a.to_string(), b.to_string());
            }
            if j >= DISTINCT_BELOW {
                problems.push(format!("distinct {a} and {b} alike: {j:.3}"));
            }
            for (x, y) in [(a, b), (b, a)] {
                let inside = containment(&own[x], &own[y]);
                if inside > m.most_contained_distinct.0 {
                    m.most_contained_distinct = (inside, x.to_string(), y.to_string());
                }
                if inside >= CONTAINED_BELOW {
                    problems.push(format!("distinct {x} inside {y}: {inside:.3}"));
                }
            }
        }
    }

    for class in &truth.classes {
        for c in &class.copies {
            let j = jaccard(&full[c.copy.as_str()], &full[c.original.as_str()]);
            let range = if class.class == PageClass::Mirror {
                &mut m.mirror_resemblance
            } else {
                &mut m.noise_copy_resemblance
            };
            *range = (range.0.min(j), range.1.max(j));
            let ok = if class.class == PageClass::Mirror {
                RESEMBLANCE.contains(&j)
            } else {
                j >= COPY_AT_LEAST
            };
            if !ok {
                problems.push(format!("copy {} of {}: {j:.3}", c.copy, c.original));
            }
        }
        for p in &class.parts {
            let inside = containment(&full[p.part.as_str()], &full[p.whole.as_str()]);
            m.part_containment = m.part_containment.min(inside);
            if inside < PART_INSIDE {
                problems.push(format!("part {} inside {}: {inside:.3}", p.part, p.whole));
            }
        }
    }
    // A second rendering of each noisy copy's original: the noise differs from the first.
    for c in &truth.class(PageClass::Noise).copies {
        let again = text_shingles(&main(&c.original, &mut problems));
        let j = jaccard(&full[c.copy.as_str()], &again);
        let range = &mut m.noise_copy_resemblance;
        *range = (range.0.min(j), range.1.max(j));
        if j < COPY_AT_LEAST {
            problems.push(format!(
                "copy {} of {} (re-rendered): {j:.3}",
                c.copy, c.original
            ));
        }
    }

    for url in &truth.products {
        let all: usize = pages[url].iter().map(|b| tokens(b).len()).sum();
        let mine: usize = own_text[url].iter().map(|b| tokens(b).len()).sum();
        let share = 1.0 - mine as f64 / all.max(1) as f64;
        m.template_share = (m.template_share.0.min(share), m.template_share.1.max(share));
        if !TEMPLATE_SHARE.contains(&share) {
            problems.push(format!("{url}: template share {share:.3}"));
        }
    }

    let days = (&truth.calendar.start, &truth.calendar.next);
    let a = text_shingles(&main(days.0, &mut problems));
    let b = text_shingles(&main(days.1, &mut problems));
    m.calendar_neighbours = jaccard(&a, &b);
    if m.calendar_neighbours < 0.9 {
        problems.push(format!(
            "calendar days {} and {} only {:.3} alike",
            days.0, days.1, m.calendar_neighbours
        ));
    }
    (m, problems)
}
