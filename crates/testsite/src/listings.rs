//! A host whose pages share their words but not their links: a paged listing on a heavy
//! template (each page the same introduction, its items linked by titles that differ only in a
//! number, which is no token) and a calendar whose day pages differ only in their date and
//! their previous/next links. The listing's pages are near duplicates of its first page that
//! list other items, all of which a crawl must reach; the calendar's are near duplicates that
//! lead to more of themselves, which a crawl must stop following. A printable copy of the home
//! page links, as its one new target, to a copy of the listing's first page whose items are
//! other pages (an archive): a listing reached through a copy's stray link, whose items a crawl
//! must reach too.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};

use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::page_server::{PageSource, serve_all};
use crate::text::prose_for;

/// Pages of the listing.
pub const LISTING_PAGES: usize = 6;
/// Items on each page of the listing.
pub const ITEMS_PER_PAGE: usize = 8;

/// The listing and calendar host.
pub struct ListingSite {
    base: String,
    _shutdown: watch::Sender<()>,
}

struct Listings {
    /// The introduction every listing page and day page shows (a heavy template).
    intro: String,
    /// The home page's words.
    home_text: String,
}

fn paragraphs(key: &str, words: usize) -> String {
    prose_for(key, words)
        .iter()
        .map(|p| format!("<p>{p}</p>"))
        .collect()
}

impl Listings {
    /// The listing's page `page`, its items under `items` (`/item/` or `/archive/item/`).
    fn listing(&self, page: usize, items: &str) -> String {
        let items: String = (0..ITEMS_PER_PAGE)
            .map(|i| {
                let item = page * ITEMS_PER_PAGE + i;
                format!("<li><a href=\"{items}{item}\">Item {item}</a></li>")
            })
            .collect();
        let next = if page + 1 < LISTING_PAGES {
            format!("<a href=\"/list?page={}\">Next</a>", page + 1)
        } else {
            String::new()
        };
        page_html(
            "Catalogue",
            &format!(
                "<h1>Catalogue</h1>{}<ul>{items}</ul><p>{next}</p>",
                self.intro
            ),
        )
    }

    /// Item `item` of `collection` (`listing` or `archive`).
    fn item(&self, collection: &str, item: usize) -> String {
        page_html(
            &format!("Item {item}"),
            &format!(
                "<h1>Item {item}</h1>{}",
                paragraphs(&format!("{collection} item {item}"), 120)
            ),
        )
    }

    /// The home page, or its printable copy: the same words, whose one link of its own leads to
    /// the archive.
    fn home(&self, printable: bool) -> String {
        let own_link = if printable {
            "<a href=\"/archive/list\">The archive</a>"
        } else {
            "<a href=\"/?print=1\">The printable page</a>"
        };
        page_html(
            "Home",
            &format!(
                "<h1>Home</h1>{}<p><a href=\"/list?page=0\">The catalogue</a> and \
                 <a href=\"/day?d=1\">the events</a>.</p><p>{own_link}</p>",
                self.home_text
            ),
        )
    }

    fn day(&self, day: i64) -> String {
        page_html(
            "Events",
            &format!(
                "<h1>Events for day {day}</h1>{}<p><a href=\"/day?d={}\">Previous day</a> \
                 <a href=\"/day?d={}\">Next day</a></p>",
                self.intro,
                day - 1,
                day + 1
            ),
        )
    }
}

fn page_html(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><title>{title}</title></head><body>\
         <nav><a href=\"/\">Home</a> <a href=\"/list?page=0\">Catalogue</a> \
         <a href=\"/day?d=1\">Events</a></nav><main><article>{body}</article></main>\
         <footer><p>Listings fixture</p></footer></body></html>"
    )
}

impl PageSource for Listings {
    fn page(&self, path_and_query: &str) -> Option<String> {
        match path_and_query {
            "/" => return Some(self.home(false)),
            "/?print=1" => return Some(self.home(true)),
            "/archive/list" => return Some(self.listing(0, "/archive/item/")),
            _ => {}
        }
        if let Some(page) = path_and_query.strip_prefix("/list?page=") {
            let page: usize = page.parse().ok()?;
            return (page < LISTING_PAGES).then(|| self.listing(page, "/item/"));
        }
        if let Some(item) = path_and_query.strip_prefix("/item/") {
            let item: usize = item.parse().ok()?;
            return (item < LISTING_PAGES * ITEMS_PER_PAGE).then(|| self.item("listing", item));
        }
        if let Some(item) = path_and_query.strip_prefix("/archive/item/") {
            let item: usize = item.parse().ok()?;
            return (item < ITEMS_PER_PAGE).then(|| self.item("archive", item));
        }
        if let Some(day) = path_and_query.strip_prefix("/day?d=") {
            return Some(self.day(day.parse().ok()?));
        }
        None
    }
}

impl ListingSite {
    pub async fn start() -> io::Result<ListingSite> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let base = format!("http://{}", listener.local_addr()?);
        let source = Listings {
            intro: paragraphs("listing introduction", 300),
            home_text: paragraphs("listing home", 80),
        };
        let shutdown = serve_all(vec![listener], [source]);
        Ok(ListingSite {
            base,
            _shutdown: shutdown,
        })
    }

    /// The seed: the home page.
    pub fn seed(&self) -> String {
        format!("{}/", self.base)
    }

    /// Every item of the listing: what a crawl must archive.
    pub fn items(&self) -> Vec<String> {
        (0..LISTING_PAGES * ITEMS_PER_PAGE)
            .map(|item| format!("{}/item/{item}", self.base))
            .collect()
    }

    /// The archive's items: what a crawl must archive too, reached only through the printable
    /// home page (a copy) and the archive's list (a copy of the listing's first page).
    pub fn archive_items(&self) -> Vec<String> {
        (0..ITEMS_PER_PAGE)
            .map(|item| format!("{}/archive/item/{item}", self.base))
            .collect()
    }

    /// The printable copy of the home page and the archive's list, in the order a crawl
    /// reaches them.
    pub fn archive_path(&self) -> [String; 2] {
        [
            format!("{}/?print=1", self.base),
            format!("{}/archive/list", self.base),
        ]
    }

    /// The listing's pages.
    pub fn listing_pages(&self) -> Vec<String> {
        (0..LISTING_PAGES)
            .map(|page| format!("{}/list?page={page}", self.base))
            .collect()
    }

    /// The prefix of the calendar's day pages.
    pub fn calendar_prefix(&self) -> String {
        format!("{}/day?d=", self.base)
    }
}
