//! The mirror host, "Harbour Digest": reprints of the news host's articles in its own
//! template (other chrome, a reprint line, an advertisement paragraph inside the article
//! body), a third of them with an editor's note added and a third with a paragraph removed,
//! plus a few articles of its own so the host is not only copies.

use super::news::{NewsArticle, article_path};
use super::skeleton::{Chrome, esc, link_list, paragraphs};
use super::truth::{ClassTruth, CopyOf, PageClass};
use super::{HostPages, MIRRORED};
use crate::text::{Rng, headline, prose, prose_for};

const CHROME: Chrome = Chrome {
    brand: "Harbour Digest",
    nav: &[
        ("/", "Digest home"),
        ("/own/1", "Our reporting"),
        ("/", "Subscribe"),
    ],
    footer: "Harbour Digest reprints the best of the regional press with permission.",
};

const AD: &str = "Advertisement. Harbour Digest Premium brings you every reprint a day early, \
     without banners, with a weekly crossword and the tide tables for the whole estuary. \
     Your first month costs nothing and you can cancel whenever you like.";

const OWN_ARTICLES: usize = 3;

pub(crate) fn reprint_path(n: usize) -> String {
    format!("/reprint/{n}")
}

pub(crate) fn build(
    base: &str,
    news_base: &str,
    articles: &[NewsArticle],
) -> (HostPages, ClassTruth) {
    let mut pages = HostPages::new();
    let mut truth = ClassTruth::new(PageClass::Mirror);
    for (i, a) in articles.iter().take(MIRRORED).enumerate() {
        let n = i + 1;
        let original = format!("{news_base}{}", article_path(n));
        let mut body = a.paragraphs.clone();
        match n % 3 {
            1 => body.push(format!(
                "Editor's note: {}",
                prose_for(&format!("digest-note-{n}"), 35).join(" ")
            )),
            2 if body.len() > 3 => {
                body.remove(body.len() / 2);
            }
            _ => {}
        }
        let mut html_body = paragraphs(&body[..2.min(body.len())]);
        html_body.push_str(&format!("<p class=\"promo\">{AD}</p>\n"));
        html_body.push_str(&paragraphs(&body[2.min(body.len())..]));
        let main = format!(
            "<div class=\"reprint\"><h2>{}</h2>\n<p class=\"credit\">{} for The Lantern Courier, \
             <a href=\"{original}\">reprinted with permission</a></p>\n{html_body}</div>\n",
            esc(&a.title),
            esc(&a.author),
        );
        let path = reprint_path(n);
        pages.insert(path.clone(), CHROME.page(&a.title, &main, ""));
        truth.copies.push(CopyOf {
            copy: format!("{base}{path}"),
            original,
        });
    }
    let mut rng = Rng::new(9_110_421);
    let mut own = Vec::new();
    for k in 1..=OWN_ARTICLES {
        let title = headline(&mut rng);
        let main = format!(
            "<div class=\"reprint\"><h2>{}</h2>\n{}</div>\n",
            esc(&title),
            paragraphs(&prose(&mut rng, 380))
        );
        let path = format!("/own/{k}");
        pages.insert(path.clone(), CHROME.page(&title, &main, ""));
        truth.distinct.push(format!("{base}{path}"));
        own.push((path, title));
    }
    // The home lists only the mirror's own reporting: reprints are reached from originals.
    let home = format!(
        "<h2>Harbour Digest</h2>\n{}{}",
        paragraphs(&prose_for("digest-home", 50)),
        link_list(&own)
    );
    pages.insert("/".into(), CHROME.page("Digest home", &home, ""));
    truth.distinct.push(format!("{base}/"));
    (pages, truth)
}
