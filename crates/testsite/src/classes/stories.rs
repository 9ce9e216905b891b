//! Multi-part serials on the news host: `/story/N/part/K` and `/story/N/all` (every part on
//! one page). Odd serials are read part by part, the last part linking to the whole, so the
//! parts are fetched first; even serials link the whole first, which links the parts.

use super::news::CHROME;
use super::skeleton::{esc, paragraphs};
use super::truth::{ClassTruth, PageClass, PartOf};
use super::{HostPages, PARTS, STORIES};
use crate::text::{Rng, headline, prose, prose_for};

pub(crate) fn build(base: &str) -> (HostPages, ClassTruth) {
    let mut pages = HostPages::new();
    let mut truth = ClassTruth::new(PageClass::MultiPart);
    let mut rng = Rng::new(5_151_515);
    for s in 1..=STORIES {
        let title = headline(&mut rng);
        let parts: Vec<Vec<String>> = (0..PARTS).map(|_| prose(&mut rng, 260)).collect();
        let parts_first = s % 2 == 1;
        let all_path = format!("/story/{s}/all");
        let part_path = |k: usize| format!("/story/{s}/part/{k}");

        let entry = if parts_first {
            format!("<a href=\"{}\">Begin with part 1</a>", part_path(1))
        } else {
            format!("<a href=\"{all_path}\">Read it on one page</a>")
        };
        let index = format!(
            "<h1>{}</h1>\n{}<p>{entry}</p>\n",
            esc(&title),
            paragraphs(&prose_for(&format!("serial-blurb-{s}"), 40))
        );
        pages.insert(format!("/story/{s}"), CHROME.page(&title, &index, ""));
        truth.distinct.push(format!("{base}/story/{s}"));

        for (i, body) in parts.iter().enumerate() {
            let k = i + 1;
            let next = if k < PARTS {
                format!("<a href=\"{}\">Next part</a>", part_path(k + 1))
            } else if parts_first {
                format!("<a href=\"{all_path}\">The whole serial on one page</a>")
            } else {
                String::new()
            };
            let main = format!(
                "<h1>{}, part {k} of {PARTS}</h1>\n{}",
                esc(&title),
                paragraphs(body)
            );
            let after = format!("<nav class=\"parts\"><p>{next}</p></nav>\n");
            pages.insert(part_path(k), CHROME.page(&title, &main, &after));
            truth.parts.push(PartOf {
                part: format!("{base}{}", part_path(k)),
                whole: format!("{base}{all_path}"),
                fetched_before_whole: parts_first,
            });
        }

        let mut main = format!("<h1>{}</h1>\n", esc(&title));
        for body in &parts {
            main.push_str(&paragraphs(body));
        }
        let after = if parts_first {
            String::new()
        } else {
            // Every part linked from the whole: a contained part's own links are not followed.
            let links: String = (1..=PARTS)
                .map(|k| format!("<a href=\"{}\">Part {k}</a> ", part_path(k)))
                .collect();
            format!("<nav class=\"parts\"><p>{links}</p></nav>\n")
        };
        pages.insert(all_path.clone(), CHROME.page(&title, &main, &after));
        truth.distinct.push(format!("{base}{all_path}"));
    }
    (pages, truth)
}
