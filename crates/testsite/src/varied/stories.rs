//! Long reads on the news host: a story in [`PARTS`] parts (`/longreads/S/part-K/`) and all on
//! one page (`/longreads/S/all/`). Odd stories are entered at part 1, each part links the
//! next and the last links the whole (parts fetched first); even stories are entered at the
//! whole, which links every part (the whole fetched first).

use super::chrome::Chrome;
use super::corpus::Draw;
use super::furniture::{byline, date_text, teaser};
use super::page::{Block, Extra, Page};
use super::style::render;
use super::{HostPages, HostTruth, STORIES};
use crate::PageClass;
use crate::classes::PartOf;
use crate::text::person;

/// The long reads' listing.
pub(crate) const HUB: &str = "/longreads/";
pub(crate) const PARTS: usize = 3;

pub(crate) fn build(
    chrome: &Chrome,
    draw: &mut Draw,
    byline_format: u64,
    date_format: u64,
    pages: &mut HostPages,
    truth: &mut HostTruth,
) {
    let mut hub = Page::new("Long reads").with(Block::Title("Long reads".into()));
    for s in 1..=STORIES {
        let doc = draw.document(9, 700, 1400);
        let author = person(draw.rng());
        let days = crate::date::days_from_civil(2025, 3, 1) + draw.rng().range(0, 300) as i64;
        let meta = byline(byline_format, &author, &date_text(days, date_format));
        let base = format!("{HUB}{s}/");
        let all = format!("{base}all/");
        let part_path = |k: usize| format!("{base}part-{k}/");
        let parts_first = s % 2 == 1;
        let size = doc.paragraphs.len().div_ceil(PARTS);
        let parts: Vec<&[String]> = doc.paragraphs.chunks(size).collect();

        let entry = if parts_first {
            (part_path(1), "Start reading".to_string())
        } else {
            (all.clone(), "Read the whole story".to_string())
        };
        let index = Page::new(&doc.title)
            .with(Block::Title(doc.title.clone()))
            .with(Block::Para(draw.snippet(20, 40)))
            .with(Block::Links(vec![entry]));
        pages.insert(base.clone(), render(chrome, &index, &[]));
        hub = hub.with(Block::Teaser(teaser(
            &base,
            &doc.title,
            &doc.paragraphs,
            20,
        )));

        let class = truth.class(PageClass::MultiPart);
        class.distinct.push(base.clone());
        for (i, text) in parts.iter().enumerate() {
            let k = i + 1;
            let mut page = Page::new(&format!("{} (part {k})", doc.title))
                .with(Block::Title(format!(
                    "{}, part {k} of {}",
                    doc.title,
                    parts.len()
                )))
                .with(Block::Meta(meta.clone()))
                .paragraphs(text);
            let next = if k < parts.len() {
                Some((part_path(k + 1), "Next part".to_string()))
            } else if parts_first {
                Some((all.clone(), "The whole story on one page".to_string()))
            } else {
                None
            };
            page.after.extend(next.map(|n| Extra::Links(vec![n])));
            pages.insert(part_path(k), render(chrome, &page, &[]));
            class.parts.push(PartOf {
                part: part_path(k),
                whole: all.clone(),
                fetched_before_whole: parts_first,
            });
        }
        let mut whole = Page::new(&doc.title)
            .with(Block::Title(doc.title.clone()))
            .with(Block::Meta(meta.clone()));
        for (i, text) in parts.iter().enumerate() {
            whole = whole
                .with(Block::Subhead(format!("Part {}", i + 1)))
                .paragraphs(text);
        }
        if !parts_first {
            let links = (1..=parts.len())
                .map(|k| (part_path(k), format!("Part {k}")))
                .collect();
            whole.after.push(Extra::Links(links));
        }
        pages.insert(all.clone(), render(chrome, &whole, &[]));
        class.distinct.push(all);
    }
    pages.insert(HUB.into(), render(chrome, &hub, &[]));
    truth.class(PageClass::Hubs).distinct.push(HUB.into());
}
