//! Heavy-template shop: every product page's main column is ~1 000 words of shared policy,
//! FAQ and review prose in plain `<div>`/`<p>` around a 30-80-word description, so ~90-97 %
//! of a product's words are template. Every product is a distinct page.

use std::fmt::Write as _;

use super::skeleton::{Chrome, esc, link_list, paragraphs};
use super::truth::{ClassTruth, PageClass};
use super::{HostPages, PRODUCTS};
use crate::text::{Rng, product_name, prose, prose_for};

const CHROME: Chrome = Chrome {
    brand: "Tallow and Twine Supply",
    nav: &[
        ("/", "All products"),
        ("/", "Gift cards"),
        ("/", "Trade accounts"),
    ],
    footer: "Tallow and Twine Supply, makers of small useful things.",
};

/// The shared main-column text: what a shop repeats under every product.
pub(crate) struct Template {
    delivery: Vec<String>,
    faq: Vec<(String, String)>,
    reviews: Vec<String>,
}

/// The shop's template, its prose drawn from keys starting with `key` (another key: another
/// shop's template of the same shape).
pub(crate) fn template(key: &str) -> Template {
    let faq = (0..6)
        .map(|i| {
            let question = prose_for(&format!("{key}-faq-q{i}"), 10).join(" ");
            let answer = prose_for(&format!("{key}-faq-a{i}"), 40).join(" ");
            (question, answer)
        })
        .collect();
    Template {
        delivery: prose_for(&format!("{key}-delivery"), 250),
        faq,
        reviews: prose_for(&format!("{key}-reviews"), 250),
    }
}

pub(crate) fn product_main(
    t: &Template,
    name: &str,
    price_cents: u64,
    description: &str,
) -> String {
    let mut main = format!(
        "<h1>{}</h1>\n<p class=\"price\">&pound;{}.{:02}</p>\n<div class=\"description\"><p>{}</p></div>\n",
        esc(name),
        price_cents / 100,
        price_cents % 100,
        esc(description)
    );
    main.push_str(&template_html(t));
    main
}

/// The template's part of the main column (under the product's own header and description).
pub(crate) fn template_html(t: &Template) -> String {
    let mut main = String::new();
    let _ = write!(
        main,
        "<div class=\"info\"><h2>Delivery and returns</h2>\n{}</div>\n<div class=\"info\"><h2>Questions</h2>\n",
        paragraphs(&t.delivery)
    );
    for (q, a) in &t.faq {
        let _ = writeln!(main, "<div><h3>{}</h3><p>{}</p></div>", esc(q), esc(a));
    }
    let _ = write!(
        main,
        "</div>\n<div class=\"info\"><h2>What customers say</h2>\n{}</div>\n",
        paragraphs(&t.reviews)
    );
    main
}

pub(crate) fn build(base: &str) -> (HostPages, ClassTruth) {
    let t = template("shop");
    let mut rng = Rng::new(4_242_017);
    let mut pages = HostPages::new();
    let mut truth = ClassTruth::new(PageClass::HeavyTemplate);
    let mut listing = Vec::new();
    let mut names = std::collections::HashSet::new();
    for n in 1..=PRODUCTS {
        let mut name = product_name(&mut rng);
        while !names.insert(name.clone()) {
            name = product_name(&mut rng);
        }
        let description = description(&mut rng);
        let price = rng.range(900, 24_900);
        let path = format!("/product/{n}");
        let main = product_main(&t, &name, price, &description);
        pages.insert(path.clone(), CHROME.page(&name, &main, ""));
        truth.distinct.push(format!("{base}{path}"));
        listing.push((path, name));
    }
    let main = format!("<h1>All products</h1>\n{}", link_list(&listing));
    pages.insert("/".into(), CHROME.page("All products", &main, ""));
    truth.distinct.push(format!("{base}/"));
    (pages, truth)
}

/// 30-80 words of the product's own prose.
pub(crate) fn description(rng: &mut Rng) -> String {
    let target = rng.range(30, 80) as usize;
    let words: Vec<String> = prose(rng, target)
        .join(" ")
        .split_whitespace()
        .take(target)
        .map(str::to_string)
        .collect();
    let mut text = words.join(" ");
    if !text.ends_with(['.', '?', '!', '"']) {
        text.push('.');
    }
    text
}
