//! The host model's view settles a prose path by its votes once the extractor judged it on two
//! pages (one verdict says little of the place; until then the path takes its shape's
//! verdict); a path of links by its first page's verdict.

use dedupcrawl_textprep::{ExtractedPage, HostContentModel, extract};

/// A page of the host: a title and prose at `<div class="body">`, and, on some pages, a notice
/// at `<div class="deprecated">` (the same shape, `main > div > p`).
fn page(title: &str, notice: bool) -> String {
    let notice = if notice {
        "<div class=\"deprecated\"><p>Deprecated since 1.8: these aliases are no longer \
         supported, use the definitions of the platform crate instead.</p></div>"
    } else {
        ""
    };
    format!(
        "<html><body><nav><a href=\"/\">Home</a></nav><main><h1>{title}</h1>{notice}\
         <div class=\"body\"><p>The {title} alias names the width the platform gives it, \
         read from the system headers when the library was built.</p></div></main>\
         </body></html>"
    )
}

fn notice_at(page: &ExtractedPage) -> usize {
    page.blocks
        .iter()
        .position(|block| block.text.starts_with("Deprecated"))
        .expect("the notice is a block")
}

/// The extractor's verdict as the pages below take it: everything but the nav, and the notice
/// as given.
fn verdict(page: &ExtractedPage, keep_notice: bool) -> Vec<bool> {
    page.blocks
        .iter()
        .map(|block| !block.in_chrome && (keep_notice || !block.text.starts_with("Deprecated")))
        .collect()
}

fn model_after(pages_dropping_the_notice: usize) -> HostContentModel {
    let mut model = HostContentModel::default();
    for n in 0..pages_dropping_the_notice {
        let with_notice = extract(&page(&format!("off{n}_t"), true));
        model.learn(&with_notice, &verdict(&with_notice, false));
    }
    for name in ["dev_t", "ino_t", "mode_t", "nlink_t"] {
        let plain = extract(&page(name, false));
        model.learn(&plain, &verdict(&plain, true));
    }
    model
}

#[test]
fn a_notice_dropped_on_one_page_is_kept_by_its_shape() {
    let later = extract(&page("time_t", true));
    let view = model_after(1).view(&later, &|block| !block.in_chrome);
    assert!(
        view[notice_at(&later)],
        "one page's verdict settled the notice's path as boilerplate"
    );
}

#[test]
fn a_notice_dropped_on_two_pages_is_dropped() {
    let later = extract(&page("time_t", true));
    let view = model_after(2).view(&later, &|block| !block.in_chrome);
    assert!(
        !view[notice_at(&later)],
        "two pages' verdicts did not count"
    );
    assert!(view.iter().any(|&keep| keep), "the prose is kept");
}

/// A page of a host whose content is a list of links (`<div class="refs">`), with a letter bar
/// (`<div class="letters">`, the same shape) on its index pages.
fn listing(title: &str, letters: bool) -> String {
    let letters = if letters {
        "<div class=\"letters\"><a href=\"a.html\">A</a> <a href=\"b.html\">B</a> \
         <a href=\"c.html\">C</a> <a href=\"d.html\">D</a> <a href=\"e.html\">E</a></div>"
    } else {
        ""
    };
    format!(
        "<html><body><main><h1>{title}</h1>{letters}<div class=\"refs\">\
         <a href=\"{title}/open.html\">{title} open</a> <a href=\"{title}/close.html\">{title} \
         close</a> <a href=\"{title}/read.html\">{title} read</a></div></main></body></html>"
    )
}

#[test]
fn a_link_bar_dropped_on_one_page_stays_dropped() {
    let is_bar = |text: &str| text.starts_with("A B");
    let mut model = HostContentModel::default();
    let index = extract(&listing("index", true));
    let verdict: Vec<bool> = index.blocks.iter().map(|b| !is_bar(&b.text)).collect();
    model.learn(&index, &verdict);
    for name in ["files", "sockets", "pipes", "timers"] {
        let plain = extract(&listing(name, false));
        model.learn(&plain, &vec![true; plain.blocks.len()]);
    }
    let later = extract(&listing("signals", true));
    let bar = later
        .blocks
        .iter()
        .position(|b| is_bar(&b.text))
        .expect("the letter bar is a block");
    let view = model.view(&later, &|block| !block.in_chrome);
    assert!(
        !view[bar],
        "a path of links took its shape's verdict after one page"
    );
}
