//! A soft-404 host ([`Soft404Site`]): a heavy-template shop (the class shop's main-column
//! template under its own chrome) that answers `200` with a "page not found" page for any
//! unknown path. The not-found page has the whole template (chrome, ~1 000 words of delivery,
//! FAQ and review prose), echoes the requested path
//! in a long sentence, and shows the time and a request id. Its real pages (the listing, the
//! products with their own 30-80-word descriptions, an about page) link to missing paths;
//! the not-found page links to `/lost-and-found`, a real page no real page links to, so a
//! crawler that follows a soft 404's links fetches it.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::classes::shop::{description, product_main, template, template_html};
use crate::classes::skeleton::{Chrome, esc, link_list, paragraphs};
use crate::text::{Rng, product_name, prose_for};

/// Products of the soft-404 shop.
pub const SOFT_404_PRODUCTS: usize = 12;

const CHROME: Chrome = Chrome {
    brand: "Lamplight Goods",
    nav: &[("/", "Shop"), ("/about", "About us"), ("/", "Gift cards")],
    footer: "Lamplight Goods, lamps and wicks since long ago.",
};

/// The served shop: real pages by path, and the template the not-found page is built from.
struct Shop {
    pages: HashMap<String, String>,
    template: String,
    requested: Mutex<Vec<String>>,
}

impl Shop {
    /// The not-found page for `path`, as the shop renders it now.
    fn not_found(&self, path: &str) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let main = format!(
            "<h1>Page not found</h1>\n<p>Sorry, we looked everywhere for {} but there is no such \
             page in our shop; it may have moved, or the address may be mistyped, so please try \
             the catalogue or the search box instead.</p>\n<p>Generated {} (request id \
             {:x}{:08x}).</p>\n<p><a href=\"/lost-and-found\">Browse the lost and found \
             shelf</a></p>\n{}",
            esc(path),
            httpdate::fmt_http_date(SystemTime::now()),
            now.as_secs(),
            now.subsec_nanos(),
            self.template
        );
        CHROME.page("Page not found", &main, "")
    }
}

/// Where the soft-404 shop is and what a crawl of it must find.
#[derive(Debug, Clone)]
pub struct Soft404Truth {
    /// The shop's root.
    pub seed: String,
    /// Real pages: each must be archived, none may be a soft 404.
    pub real_pages: Vec<String>,
    /// Missing paths linked from real pages: each is answered `200` "not found" and must come
    /// out `soft_404`.
    pub soft_404s: Vec<String>,
    /// A real page linked only from the not-found page: must never be fetched.
    pub only_linked_from_soft_404: String,
}

/// The running soft-404 shop; dropping it stops it.
pub struct Soft404Site {
    truth: Soft404Truth,
    shop: Arc<Shop>,
    _shutdown: watch::Sender<()>,
}

impl Soft404Site {
    /// Binds a listener on 127.0.0.1 and serves the shop on the current tokio runtime.
    pub async fn start() -> io::Result<Soft404Site> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let base = format!("http://{}", listener.local_addr()?);
        let (shop, truth) = build(&base);
        let shop = Arc::new(shop);
        let (tx, mut rx) = watch::channel(());
        let app = Router::new().fallback(answer).with_state(Arc::clone(&shop));
        tokio::spawn(async move {
            let stopped = async move { while rx.changed().await.is_ok() {} };
            if let Err(e) = axum::serve(listener, app)
                .with_graceful_shutdown(stopped)
                .await
            {
                eprintln!("soft-404 host failed: {e}");
            }
        });
        Ok(Soft404Site {
            truth,
            shop,
            _shutdown: tx,
        })
    }

    pub fn truth(&self) -> &Soft404Truth {
        &self.truth
    }

    /// Every path requested so far, in arrival order.
    pub fn requested_paths(&self) -> Vec<String> {
        self.shop
            .requested
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

async fn answer(State(shop): State<Arc<Shop>>, req: Request) -> Response {
    let path = req.uri().path().to_string();
    shop.requested
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(path.clone());
    if path == "/robots.txt" {
        return (
            [(header::CONTENT_TYPE, "text/plain")],
            "User-agent: *\nDisallow:\n",
        )
            .into_response();
    }
    match shop.pages.get(&path) {
        Some(html) => Html(html.clone()).into_response(),
        // The soft 404: a full page, status 200.
        None => Html(shop.not_found(&path)).into_response(),
    }
}

/// The missing paths real pages link to: bare, `.html`, nested, and one whose words the
/// template uses too ("delivery", "returns").
const MISSING: [&str; 4] = [
    "/catalogue/old-lanterns.html",
    "/discontinued/wick-trimmer",
    "/delivery/returns-archive",
    "/product/999",
];

fn build(base: &str) -> (Shop, Soft404Truth) {
    let shop_template = template("soft404");
    let template = template_html(&shop_template);
    let mut rng = Rng::new(4_040_404);
    let mut pages = HashMap::new();
    let mut real_pages = Vec::new();
    let mut soft_404s: Vec<String> = MISSING.iter().map(|p| format!("{base}{p}")).collect();
    let mut listing = Vec::new();
    for n in 1..=SOFT_404_PRODUCTS {
        let name = format!("{} lamp", product_name(&mut rng));
        let description = description(&mut rng);
        let price = rng.range(900, 24_900);
        let path = format!("/product/{n}");
        // Odd products link to their (missing) review page.
        let reviews = if n % 2 == 1 {
            let reviews_path = format!("{path}/reviews");
            soft_404s.push(format!("{base}{reviews_path}"));
            format!("<p><a href=\"{reviews_path}\">All reviews of this lamp</a></p>\n")
        } else {
            String::new()
        };
        let main = format!(
            "{reviews}{}",
            product_main(&shop_template, &name, price, &description)
        );
        pages.insert(path.clone(), CHROME.page(&name, &main, ""));
        real_pages.push(format!("{base}{path}"));
        listing.push((path, name));
    }
    let mut missing_links = String::from("<ul class=\"old\">\n");
    for path in MISSING {
        let _ = writeln!(
            missing_links,
            "<li><a href=\"{path}\">Old link {path}</a></li>"
        );
    }
    missing_links.push_str("</ul>\n");
    let main = format!(
        "<h1>All lamps</h1>\n{}<h2>From our old catalogue</h2>\n{missing_links}",
        link_list(&listing)
    );
    pages.insert("/".into(), CHROME.page("All lamps", &main, ""));
    real_pages.push(format!("{base}/"));
    let about = format!(
        "<h1>About us</h1>\n{}{template}",
        paragraphs(&prose_for("soft404-about", 120))
    );
    pages.insert("/about".into(), CHROME.page("About us", &about, ""));
    real_pages.push(format!("{base}/about"));
    let lost = format!(
        "<h1>Lost and found</h1>\n{}",
        paragraphs(&prose_for("soft404-lost", 150))
    );
    pages.insert(
        "/lost-and-found".into(),
        CHROME.page("Lost and found", &lost, ""),
    );
    let shop = Shop {
        pages,
        template,
        requested: Mutex::new(Vec::new()),
    };
    let truth = Soft404Truth {
        seed: format!("{base}/"),
        real_pages,
        soft_404s,
        only_linked_from_soft_404: format!("{base}/lost-and-found"),
    };
    (shop, truth)
}
