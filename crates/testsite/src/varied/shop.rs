//! The heavy-template shop: every product's main text is ~1,000 words of shared delivery,
//! FAQ, guarantee and review prose (real prose, drawn once per shop) around the product's
//! own 30-80-word description, a specifications table with its own values, its price and
//! SKU; 90-97 % of a product's words are template. The template stands before the
//! description on some hosts and after it on others. Products are listed by a home page, a
//! paged catalogue and category pages.

use super::chrome::{Chrome, Widget};
use super::corpus::{Draw, word_count};
use super::furniture::{info_pages, render_info_pages, teaser, unique_slug};
use super::page::{Block, Page};
use super::style::{MarkupStyle, render};
use super::{HostPages, HostTruth};
use crate::PageClass;
use crate::text::product_name;

const PER_PAGE: usize = 12;
const CATEGORIES: &[&str] = &["kitchen", "garden", "workshop", "travel", "desk", "outdoor"];
const MATERIALS: &[&str] = &[
    "oak",
    "walnut",
    "steel",
    "brass",
    "linen",
    "wool",
    "leather",
    "ceramic",
    "cork",
    "glass",
    "copper",
    "bamboo",
    "canvas",
    "slate",
    "felt",
    "aluminium",
];
const COLOURS: &[&str] = &[
    "natural", "black", "olive", "navy", "rust", "sand", "charcoal", "cream", "sage", "ochre",
    "plum", "teal",
];
const ORIGINS: &[&str] = &[
    "Portugal", "Japan", "Scotland", "Italy", "Sweden", "Vietnam", "Poland", "Mexico", "India",
    "Wales", "Denmark", "Kenya",
];
const CARE: &[&str] = &[
    "wipe clean",
    "hand wash only",
    "machine washable",
    "oil twice a year",
    "keep dry",
    "dishwasher safe",
];

/// Products of the shop.
pub(crate) fn build(
    style: MarkupStyle,
    draw: &mut Draw,
    products: usize,
    truth: &mut HostTruth,
) -> HostPages {
    let brand = format!("{} Supply Co.", draw.brand_word("Good"));
    let template_first = draw.rng().chance(50);
    let template = template(draw);
    let info = info_pages(draw, 4);
    let query_style = style == MarkupStyle::Tables;
    let category_count = draw.rng().range(3, 6) as usize;
    // The last catalogue page takes the remainder: a last page of two products, both in one
    // collection, would sit wholly inside that collection's page (seed 606), not be distinct.
    let catalogue_pages = (products / PER_PAGE).max(1);
    let catalogue = |p: usize| {
        if query_style {
            format!("/catalog.php?page={p}")
        } else {
            format!("/shop/page/{p}/")
        }
    };
    let category = |c: &str| {
        if query_style {
            format!("/catalog.php?cat={c}")
        } else {
            format!("/collections/{c}/")
        }
    };
    let mut targets: Vec<(String, String)> = vec![("/".into(), "Shop home".into())];
    for c in CATEGORIES.iter().take(category_count) {
        targets.push((category(c), super::news::capitalize(c)));
    }
    targets.push((catalogue(1), "All products".into()));
    targets.extend(info.iter().map(|(p, l, _)| (p.clone(), l.clone())));
    let mut chrome = Chrome::draw(style, &brand, &targets, draw);

    struct Product {
        path: String,
        name: String,
        description: String,
        category: usize,
    }
    let mut slugs = std::collections::HashSet::new();
    let mut names = std::collections::HashSet::new();
    let mut items = Vec::new();
    let mut pages = HostPages::new();
    let class = truth.class(PageClass::HeavyTemplate);
    for n in 1..=products {
        let rng = draw.rng();
        let mut name = product_name(rng);
        while !names.insert(name.clone()) {
            name = product_name(rng);
        }
        let sku = format!(
            "SKU {}{}-{:04}",
            (b'A' + (rng.next_u64() % 26) as u8) as char,
            (b'A' + (rng.next_u64() % 26) as u8) as char,
            rng.range(0, 9999)
        );
        let price = rng.range(500, 40_000);
        let specs = vec![
            ("Material".to_string(), pick(rng, MATERIALS).to_string()),
            ("Colour".to_string(), pick(rng, COLOURS).to_string()),
            (
                "Dimensions".to_string(),
                format!(
                    "{} x {} x {} cm",
                    rng.range(3, 90),
                    rng.range(3, 60),
                    rng.range(1, 40)
                ),
            ),
            (
                "Weight".to_string(),
                format!("{}.{} kg", rng.range(0, 12), rng.range(0, 9)),
            ),
            ("Made in".to_string(), pick(rng, ORIGINS).to_string()),
            ("Care".to_string(), pick(rng, CARE).to_string()),
        ];
        let category = (rng.next_u64() % category_count as u64) as usize;
        let target_words = rng.range(30, 80) as usize;
        let description = draw.snippet(target_words.saturating_sub(10).max(30), target_words);
        let slug = unique_slug(&name, &mut slugs);
        let path = if query_style {
            format!("/item.php?id={n}")
        } else {
            format!("/product/{slug}")
        };
        let mut own = vec![
            Block::Para(description.clone()),
            Block::Subhead("Specifications".into()),
            Block::Specs(specs),
        ];
        let mut page = Page::new(&name)
            .with(Block::Title(name.clone()))
            .with(Block::Meta(format!(
                "\u{a3}{}.{:02} \u{b7} {sku} \u{b7} In stock",
                price / 100,
                price % 100
            )));
        if template_first {
            page.main.extend(template.iter().cloned());
            page.main.append(&mut own);
        } else {
            page.main.append(&mut own);
            page.main.extend(template.iter().cloned());
        }
        pages.insert(path.clone(), render(&chrome, &page, &[]));
        class.distinct.push(path.clone());
        items.push(Product {
            path,
            name,
            description,
            category,
        });
    }
    let teaser_of = |p: &Product| {
        Block::Teaser(teaser(
            &p.path,
            &p.name,
            std::slice::from_ref(&p.description),
            14,
        ))
    };
    chrome.widgets.push(Widget::Teasers {
        title: "Bestsellers".into(),
        items: items
            .iter()
            .take(3)
            .map(|p| teaser(&p.path, &p.name, std::slice::from_ref(&p.description), 14))
            .collect(),
    });

    let hubs = truth.class(PageClass::Hubs);
    for p in 1..=catalogue_pages {
        let mut page = Page::new(&format!("All products, page {p}")).with(Block::Title(format!(
            "All products (page {p} of {catalogue_pages})"
        )));
        let take = if p == catalogue_pages {
            usize::MAX
        } else {
            PER_PAGE
        };
        for item in items.iter().skip((p - 1) * PER_PAGE).take(take) {
            page = page.with(teaser_of(item));
        }
        page = page.with(Block::Links(
            (1..=catalogue_pages)
                .map(|q| (catalogue(q), q.to_string()))
                .collect(),
        ));
        pages.insert(catalogue(p), render(&chrome, &page, &[]));
        hubs.distinct.push(catalogue(p));
    }
    for (c, name) in CATEGORIES.iter().take(category_count).enumerate() {
        let mut page = Page::new(&super::news::capitalize(name))
            .with(Block::Title(super::news::capitalize(name)))
            .with(Block::Para(draw.snippet(15, 35)));
        for item in items.iter().filter(|i| i.category == c) {
            page = page.with(teaser_of(item));
        }
        pages.insert(category(name), render(&chrome, &page, &[]));
        hubs.distinct.push(category(name));
    }
    let mut home = Page::new(&brand)
        .with(Block::Title(brand.clone()))
        .with(Block::Para(draw.snippet(25, 50)))
        .with(Block::Subhead("New this season".into()));
    for item in items.iter().rev().take(6) {
        home = home.with(teaser_of(item));
    }
    home = home.with(Block::Links(vec![(
        catalogue(1),
        "Browse the catalogue".into(),
    )]));
    pages.insert("/".into(), render(&chrome, &home, &[]));
    hubs.distinct.push("/".into());
    let info_class = truth.class(PageClass::HeavyTemplate);
    for path in render_info_pages(&chrome, &info, &mut pages) {
        info_class.distinct.push(path);
    }
    pages
}

fn pick<'a>(rng: &mut crate::text::Rng, items: &[&'a str]) -> &'a str {
    items[(rng.next_u64() % items.len() as u64) as usize]
}

/// The shop's shared main-column text: ~1,000 words of delivery, FAQ, guarantee and
/// reviews.
fn template(draw: &mut Draw) -> Vec<Block> {
    let mut blocks = vec![Block::Subhead("Delivery and returns".into())];
    let add = |blocks: &mut Vec<Block>, text: String| blocks.push(Block::Para(text));
    let words = |blocks: &[Block]| {
        blocks
            .iter()
            .map(|b| match b {
                Block::Para(text) => word_count(text),
                _ => 0,
            })
            .sum::<usize>()
    };
    for p in draw.prose(220) {
        add(&mut blocks, p);
    }
    blocks.push(Block::Subhead("Frequently asked questions".into()));
    for _ in 0..6 {
        let q = draw.title();
        blocks.push(Block::Subhead(if q.ends_with('?') {
            q
        } else {
            format!("{q}?")
        }));
        add(&mut blocks, draw.snippet(25, 50));
    }
    blocks.push(Block::Subhead("Our guarantee".into()));
    for p in draw.prose(150) {
        add(&mut blocks, p);
    }
    blocks.push(Block::Subhead("What customers say".into()));
    while words(&blocks) < 1000 {
        add(&mut blocks, draw.snippet(25, 70));
    }
    blocks
}
