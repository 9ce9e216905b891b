//! A host whose navigation only scripts know: a book whose table of contents a script file
//! writes into every page (`innerHTML`, mdBook's pattern: chapters beside the script,
//! sections in a folder below it, each page loading the script by a relative path), and an
//! app page whose pages an inline script lists. Beside them, strings that name no page and
//! must cost no fetch: images, styles, API paths, words, a URL built at run time, a commented
//! out page, a regular expression with quotes, and a script kept in a folder of its own whose
//! bare page names mean pages at the root (rustdoc's pattern), plus a library on another host
//! and a script that only decorates. Every URL such a string would resolve to answers `404`.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};

use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::page_server::{PageSource, serve_all};
use crate::text::prose_for;

/// Chapters of the book (beside its script).
const CHAPTERS: usize = 10;
/// Sections (in the book's `part/` folder).
const SECTIONS: usize = 4;
/// Pages of the app named by its inline script.
const APP_PAGES: usize = 3;

/// The script-navigation host.
pub struct ScriptNavigationSite {
    base: String,
    _shutdown: watch::Sender<()>,
}

struct ScriptNavigation;

fn page(title: &str, head: &str, key: &str) -> String {
    let text: String = prose_for(key, 160)
        .iter()
        .map(|p| format!("<p>{p}</p>"))
        .collect();
    format!(
        "<!doctype html><html lang=\"en\"><head><title>{title}</title>{head}</head><body>\
         <nav><a href=\"/\">Home</a><div id=\"toc\"></div></nav>\
         <main><h1>{title}</h1>{text}</main></body></html>"
    )
}

/// The book's table of contents, as its script writes it.
fn toc_script() -> String {
    let mut items = String::new();
    for chapter in 1..=CHAPTERS {
        items.push_str(&format!(
            "<li><a href=\\\"chapter-{chapter}.html\\\">Chapter {chapter}</a></li>"
        ));
    }
    for section in 1..=SECTIONS {
        items.push_str(&format!(
            "<li><a href='part/section-{section}.html'>Section {section}</a></li>"
        ));
    }
    format!(
        "// The table of contents, written into each page.\n\
         // An old chapter: \"retired-chapter.html\"\n\
         class BookToc extends HTMLElement {{\n\
           connectedCallback() {{\n\
             this.innerHTML = \"<ol>{items}</ol>\";\n\
             const icon = 'images/chapter.png', style = \"theme/book.css\";\n\
             const api = \"api/search\", label = 'chapter';\n\
             const pattern = /\"quoted-in-regex.html\"/g;\n\
             const built = `${{root}}/built-at-run-time.html`;\n\
             for (const link of this.querySelectorAll('a')) {{ link.href = root + link.getAttribute('href'); }}\n\
           }}\n\
         }}\n\
         customElements.define('book-toc', BookToc);\n"
    )
}

/// A script in a folder of its own: its bare page names mean pages at the site's root.
const STATIC_SCRIPT: &str = "const help = rootPath + 'help.html', settings = rootPath + \"settings.html\";\n\
     document.body.classList.add('ready');\n";

/// A script that only decorates.
const DECORATION_SCRIPT: &str =
    "document.querySelectorAll('p').forEach(p => p.classList.add('fade-in'));\n";

impl ScriptNavigation {
    fn home(&self) -> String {
        let links = "<p><a href=\"/book/index.html\">The book</a> and \
                     <a href=\"/app/\">the app</a>.</p>";
        page("Home", "", "script home").replace("</main>", &format!("{links}</main>"))
    }

    fn book_page(&self, title: &str, script: &str, key: &str) -> String {
        let head = format!(
            "<script src=\"{script}\"></script><script src=\"/static/site.js\"></script>\
             <script src=\"/static/decorate.js\" defer></script>\
             <script src=\"http://cdn.invalid/library.js\"></script>"
        );
        page(title, &head, key)
    }

    fn app(&self) -> String {
        let names: Vec<String> = (1..=APP_PAGES)
            .map(|n| format!("'/app/view-{n}.html'"))
            .collect();
        let head = format!(
            "<script>const views = [{}]; const loading = \"Loading…\";\n\
             function open(i) {{ location.href = views[i]; }}</script>\
             <script type=\"application/ld+json\">{{\"@type\": \"WebSite\"}}</script>",
            names.join(", ")
        );
        page("App", &head, "script app")
    }
}

impl PageSource for ScriptNavigation {
    fn file(&self, path_and_query: &str) -> Option<(&'static str, String)> {
        let script = match path_and_query {
            "/book/toc.js" => toc_script(),
            "/static/site.js" => STATIC_SCRIPT.to_string(),
            "/static/decorate.js" => DECORATION_SCRIPT.to_string(),
            _ => return None,
        };
        Some(("text/javascript; charset=utf-8", script))
    }

    fn page(&self, path_and_query: &str) -> Option<String> {
        let number = |prefix: &str, most: usize| {
            path_and_query
                .strip_prefix(prefix)?
                .strip_suffix(".html")?
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=most).contains(n))
        };
        if path_and_query == "/" {
            return Some(self.home());
        }
        if path_and_query == "/book/index.html" {
            return Some(self.book_page("The book", "toc.js", "script book"));
        }
        if let Some(chapter) = number("/book/chapter-", CHAPTERS) {
            let title = format!("Chapter {chapter}");
            return Some(self.book_page(&title, "toc.js", &format!("script chapter {chapter}")));
        }
        if let Some(section) = number("/book/part/section-", SECTIONS) {
            let title = format!("Section {section}");
            return Some(self.book_page(&title, "../toc.js", &format!("script section {section}")));
        }
        if path_and_query == "/app/" {
            return Some(self.app());
        }
        if let Some(view) = number("/app/view-", APP_PAGES) {
            return Some(page(
                &format!("View {view}"),
                "",
                &format!("script view {view}"),
            ));
        }
        None
    }
}

impl ScriptNavigationSite {
    pub async fn start() -> io::Result<ScriptNavigationSite> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let base = format!("http://{}", listener.local_addr()?);
        let shutdown = serve_all(vec![listener], [ScriptNavigation]);
        Ok(ScriptNavigationSite {
            base,
            _shutdown: shutdown,
        })
    }

    /// The seed: the home page.
    pub fn seed(&self) -> String {
        format!("{}/", self.base)
    }

    /// The pages only scripts link to: what a crawl must archive.
    pub fn script_only_pages(&self) -> Vec<String> {
        let chapters = (1..=CHAPTERS).map(|n| format!("{}/book/chapter-{n}.html", self.base));
        let sections = (1..=SECTIONS).map(|n| format!("{}/book/part/section-{n}.html", self.base));
        let views = (1..=APP_PAGES).map(|n| format!("{}/app/view-{n}.html", self.base));
        chapters.chain(sections).chain(views).collect()
    }

    /// The script files the pages load from this host.
    pub fn script_files(&self) -> Vec<String> {
        ["/book/toc.js", "/static/site.js", "/static/decorate.js"]
            .iter()
            .map(|path| format!("{}{path}", self.base))
            .collect()
    }
}
