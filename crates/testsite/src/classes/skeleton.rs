//! The page skeleton every class host fills in: its own chrome around a `<main>`.

use std::fmt::Write as _;

pub(crate) use crate::html::esc;

/// A host's chrome: brand, navigation links and footer text.
pub(crate) struct Chrome {
    pub(crate) brand: &'static str,
    pub(crate) nav: &'static [(&'static str, &'static str)],
    pub(crate) footer: &'static str,
}

impl Chrome {
    /// A whole page: `main` inside the chrome, `after_main` between `</main>` and the footer.
    pub(crate) fn page(&self, title: &str, main: &str, after_main: &str) -> String {
        let mut nav = String::new();
        for (href, label) in self.nav {
            let _ = write!(nav, "<li><a href=\"{href}\">{label}</a></li>");
        }
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <title>{title} - {brand}</title></head>\n<body>\n<header><p class=\"brand\">{brand}</p>\
             <nav><ul>{nav}</ul></nav></header>\n<main>\n{main}</main>\n{after_main}\
             <footer><p>{footer}</p></footer>\n</body></html>\n",
            title = esc(title),
            brand = self.brand,
            footer = self.footer,
        )
    }
}

/// `<p>` per paragraph.
pub(crate) fn paragraphs(paras: &[String]) -> String {
    crate::html::paragraphs(paras)
}

/// `<ul>` of links with their titles.
pub(crate) fn link_list(links: &[(String, String)]) -> String {
    let mut out = String::from("<ul>\n");
    for (href, title) in links {
        let _ = writeln!(out, "<li><a href=\"{href}\">{}</a></li>", esc(title));
    }
    out.push_str("</ul>\n");
    out
}
