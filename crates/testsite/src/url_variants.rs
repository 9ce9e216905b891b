//! A host of URL variants ([`UrlVariantsSite`]) for the URL rules learned from duplicates:
//! pages served under a second URL with the same bytes, one class per kind of rule, and
//! counterexample classes whose duplicates would teach a rule that their distinct pages must
//! veto.
//!
//! * Variant classes, [`VARIANT_ITEMS`] items each, every original listed before every
//!   variant on the class's index: a tracking parameter (`/news/N?ref=front`), a print view
//!   (`/print/story/N`), an AMP view (`/guide/N/amp`), a session id in the path
//!   (`/sid-…/shop/item/N`), a case variant (`/docs/topic-N` of `/Docs/Topic-N`), a trailing
//!   slash (`/ref/N/`), a directory index (`/manual/chN/index.html`), one item under two
//!   prefixes (`/core/arch/x86_64/…` of `/core/arch/x86/…`).
//! * Counterexample classes, each with enough duplicate pairs to teach a rule, a pair of
//!   distinct pages it would map onto each other, and distinct pages after the pairs that a
//!   rule applied without its veto would skip: pagination (`?page=1` is the list, `?page=2`
//!   is not), ids (unknown ids answer one "no such item" page), sort orders (one-item lists
//!   look alike in every order), language prefixes (untranslated pages are the same under
//!   `/de/` and `/en/`).
//! * A drift class (`/idx/drift`): `/mix/N?view=full` is `/mix/N` for the first
//!   [`DRIFT_SAME`] items and a longer, distinct page after, so a rule learned at the start
//!   turns wrong in the middle of the crawl.
//!
//! Item pages have no links: what a crawl reaches from a class index is that class alone.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::html::{esc, paragraphs};
use crate::text::prose_for;

/// Items of each variant class (each served under its URL and a variant URL).
pub const VARIANT_ITEMS: usize = 40;

/// Items of the drift class.
pub const DRIFT_ITEMS: usize = 30;

/// Drift items whose variant is the same page; the variants after them are distinct.
pub const DRIFT_SAME: usize = 12;

/// Words of an item page's text.
const ITEM_WORDS: usize = 120;

/// One variant class: its name, the rule it teaches, and the original and variant paths of
/// item `n`.
struct VariantClass {
    name: &'static str,
    rule: &'static str,
    original: fn(usize) -> String,
    variant: fn(usize) -> String,
}

/// A session id for item `n`: a letter and a digit, then hex.
fn session(n: usize) -> String {
    format!(
        "a9{:010x}",
        (n as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 24
    )
}

const VARIANT_CLASSES: [VariantClass; 8] = [
    VariantClass {
        name: "tracking",
        rule: "drop-param ref",
        original: |n| format!("/news/{n}"),
        variant: |n| format!("/news/{n}?ref=front"),
    },
    VariantClass {
        name: "print",
        rule: "segment print",
        original: |n| format!("/story/{n}"),
        variant: |n| format!("/print/story/{n}"),
    },
    VariantClass {
        name: "amp",
        rule: "segment amp",
        original: |n| format!("/guide/{n}"),
        variant: |n| format!("/guide/{n}/amp"),
    },
    VariantClass {
        name: "session",
        rule: "segment token sid-*",
        original: |n| format!("/shop/item/{n}"),
        variant: |n| format!("/sid-{}/shop/item/{n}", session(n)),
    },
    VariantClass {
        name: "case",
        rule: "case",
        original: |n| format!("/Docs/Topic-{n}"),
        variant: |n| format!("/docs/topic-{n}"),
    },
    VariantClass {
        name: "slash",
        rule: "trailing-slash",
        original: |n| format!("/ref/{n}"),
        variant: |n| format!("/ref/{n}/"),
    },
    VariantClass {
        name: "index",
        rule: "directory-index index.html",
        original: |n| format!("/manual/ch{n}/"),
        variant: |n| format!("/manual/ch{n}/index.html"),
    },
    VariantClass {
        name: "prefix",
        rule: "substitute /core/arch/{x86_64 -> x86}/",
        original: |n| format!("/core/arch/x86/fn.f{n}.html"),
        variant: |n| format!("/core/arch/x86_64/fn.f{n}.html"),
    },
];

/// A URL served with the same bytes as another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variant {
    /// Its class (`tracking`, `print`, ...).
    pub class: &'static str,
    /// The variant URL.
    pub url: String,
    /// The URL it has the content of, listed before it.
    pub original: String,
}

/// Where the host is and what a crawl of it must find.
#[derive(Debug, Clone, Default)]
pub struct UrlVariantsTruth {
    /// The root: it links to every class index.
    pub seed: String,
    /// The drift class's index alone.
    pub drift_seed: String,
    /// Every page with content of its own (indexes included): each must be archived.
    pub distinct: Vec<String>,
    /// The variant classes' variants.
    pub variants: Vec<Variant>,
    /// The rule each variant class teaches (keys as the crawl log's `rule` field has them).
    pub rules: Vec<&'static str>,
    /// Every URL of the counterexample classes: none may be a `url_duplicate`.
    pub counterexamples: Vec<String>,
    /// The drift class's variants, in order: the first [`DRIFT_SAME`] are the same page as
    /// their item, the others distinct.
    pub drift_variants: Vec<String>,
}

/// The served pages (path and query → HTML) and every request received.
struct Pages {
    pages: HashMap<String, String>,
    requested: Mutex<Vec<String>>,
}

/// The running host; dropping it stops it.
pub struct UrlVariantsSite {
    truth: UrlVariantsTruth,
    pages: Arc<Pages>,
    _shutdown: watch::Sender<()>,
}

impl UrlVariantsSite {
    /// Binds a listener on 127.0.0.1 and serves the host on the current tokio runtime.
    pub async fn start() -> io::Result<UrlVariantsSite> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let base = format!("http://{}", listener.local_addr()?);
        let mut builder = Builder::new(&base);
        builder.build();
        let Builder { pages, truth, .. } = builder;
        let pages = Arc::new(Pages {
            pages,
            requested: Mutex::new(Vec::new()),
        });
        let (tx, mut rx) = watch::channel(());
        let app = Router::new()
            .fallback(answer)
            .with_state(Arc::clone(&pages));
        tokio::spawn(async move {
            let stopped = async move { while rx.changed().await.is_ok() {} };
            if let Err(e) = axum::serve(listener, app)
                .with_graceful_shutdown(stopped)
                .await
            {
                eprintln!("URL variants host failed: {e}");
            }
        });
        Ok(UrlVariantsSite {
            truth,
            pages,
            _shutdown: tx,
        })
    }

    pub fn truth(&self) -> &UrlVariantsTruth {
        &self.truth
    }

    /// How many requests each URL (absolute) got so far.
    pub fn requests(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        let requested = self
            .pages
            .requested
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for path in requested.iter() {
            *counts
                .entry(format!("{}{path}", self.truth.seed.trim_end_matches('/')))
                .or_default() += 1;
        }
        counts
    }
}

async fn answer(State(pages): State<Arc<Pages>>, req: Request) -> Response {
    let uri = req.uri();
    let path = uri
        .path_and_query()
        .map_or(uri.path(), |p| p.as_str())
        .to_string();
    pages
        .requested
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
    match pages.pages.get(&path) {
        Some(html) => Html(html.clone()).into_response(),
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}

/// An item page: its title and its own prose.
fn item_page(title: &str, key: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\
         </head><body><main><h1>{t}</h1>\n{}</main></body></html>\n",
        paragraphs(&prose_for(key, ITEM_WORDS)),
        t = esc(title)
    )
}

/// An index page linking to `paths` in order.
fn index_page(title: &str, paths: &[String]) -> String {
    let mut links = String::new();
    for path in paths {
        let _ = writeln!(
            links,
            "<li><a href=\"{}\">{}</a></li>",
            esc(path),
            esc(path)
        );
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{t}</title>\
         </head><body><main><h1>{t}</h1>\n<p>Every page of the {t} section.</p>\n<ul>\n{links}\
         </ul></main></body></html>\n",
        t = esc(title)
    )
}

/// Builds the pages and the truth.
struct Builder {
    base: String,
    pages: HashMap<String, String>,
    truth: UrlVariantsTruth,
    /// Class index paths, for the root.
    indexes: Vec<String>,
}

impl Builder {
    fn new(base: &str) -> Builder {
        Builder {
            base: base.to_string(),
            pages: HashMap::new(),
            truth: UrlVariantsTruth {
                seed: format!("{base}/"),
                drift_seed: format!("{base}/idx/drift"),
                ..UrlVariantsTruth::default()
            },
            indexes: Vec::new(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A page with content of its own.
    fn distinct(&mut self, path: &str, html: String) {
        self.truth.distinct.push(self.url(path));
        self.pages.insert(path.to_string(), html);
    }

    /// `path` serves the bytes of `original`.
    fn same_as(&mut self, path: &str, original: &str) {
        let html = self.pages.get(original).cloned().unwrap_or_default();
        self.pages.insert(path.to_string(), html);
    }

    /// A class index linking to `paths`.
    fn index(&mut self, class: &str, paths: &[String]) {
        let path = format!("/idx/{class}");
        self.distinct(&path, index_page(&format!("{class} section"), paths));
        self.indexes.push(path);
    }

    fn build(&mut self) {
        for class in &VARIANT_CLASSES {
            self.variant_class(class);
        }
        self.pagination();
        self.ids();
        self.sort_orders();
        self.languages();
        self.drift();
        let indexes = self.indexes.clone();
        self.distinct("/", index_page("URL variants", &indexes));
    }

    fn variant_class(&mut self, class: &VariantClass) {
        let mut listed = Vec::new();
        for n in 0..VARIANT_ITEMS {
            let original = (class.original)(n);
            let title = format!("{} item {n}", class.name);
            self.distinct(
                &original,
                item_page(&title, &format!("variants-{}-{n}", class.name)),
            );
            listed.push(original);
        }
        for n in 0..VARIANT_ITEMS {
            let (original, variant) = ((class.original)(n), (class.variant)(n));
            self.same_as(&variant, &original);
            self.truth.variants.push(Variant {
                class: class.name,
                url: self.url(&variant),
                original: self.url(&original),
            });
            listed.push(variant);
        }
        self.truth.rules.push(class.rule);
        self.index(class.name, &listed);
    }

    /// Counterexample pages: `same` serve the bytes of their partner (its own page first).
    fn counterexample(&mut self, path: &str, html: Option<String>, same: Option<&str>) {
        self.truth.counterexamples.push(self.url(path));
        match (html, same) {
            (Some(html), _) => self.distinct(path, html),
            (None, Some(original)) => self.same_as(path, original),
            (None, None) => {}
        }
    }

    /// `/list/C` is `/list/C?page=1`; `/list/C?page=2` is another page.
    fn pagination(&mut self) {
        let mut listed = Vec::new();
        for c in 0..8 {
            let (list, two, one) = (
                format!("/list/{c}"),
                format!("/list/{c}?page=2"),
                format!("/list/{c}?page=1"),
            );
            self.counterexample(
                &list,
                Some(item_page(&format!("list {c}"), &format!("list-{c}-1"))),
                None,
            );
            self.counterexample(
                &two,
                Some(item_page(
                    &format!("list {c}, page 2"),
                    &format!("list-{c}-2"),
                )),
                None,
            );
            self.counterexample(&one, None, Some(&list));
            listed.extend([list, two, one]);
        }
        self.index("pagination", &listed);
    }

    /// Known ids are items; unknown ids answer one "no such item" page.
    fn ids(&mut self) {
        let mut listed = Vec::new();
        let known = |b: &mut Builder, n: usize, listed: &mut Vec<String>| {
            let path = format!("/item?id={n}");
            b.counterexample(
                &path,
                Some(item_page(&format!("item {n}"), &format!("id-item-{n}"))),
                None,
            );
            listed.push(path);
        };
        (1..=4).for_each(|n| known(self, n, &mut listed));
        let missing = "/item?id=101".to_string();
        self.counterexample(
            &missing,
            Some(item_page("no such item", "id-missing")),
            None,
        );
        listed.push(missing.clone());
        for n in 102..=107 {
            let path = format!("/item?id={n}");
            self.counterexample(&path, None, Some(&missing));
            listed.push(path);
        }
        (5..=8).for_each(|n| known(self, n, &mut listed));
        self.index("ids", &listed);
    }

    /// Big categories show other items in each order; one-item categories the same.
    fn sort_orders(&mut self) {
        let mut listed = Vec::new();
        let big = |b: &mut Builder, k: usize, listed: &mut Vec<String>| {
            for order in ["price", "name"] {
                let path = format!("/cat/big{k}?sort={order}");
                let html = item_page(
                    &format!("category big {k} by {order}"),
                    &format!("sort-big-{k}-{order}"),
                );
                b.counterexample(&path, Some(html), None);
                listed.push(path);
            }
        };
        (0..2).for_each(|k| big(self, k, &mut listed));
        for k in 0..6 {
            let (price, name) = (
                format!("/cat/one{k}?sort=price"),
                format!("/cat/one{k}?sort=name"),
            );
            self.counterexample(
                &price,
                Some(item_page(
                    &format!("category one {k}"),
                    &format!("sort-one-{k}"),
                )),
                None,
            );
            self.counterexample(&name, None, Some(&price));
            listed.extend([price, name]);
        }
        (2..4).for_each(|k| big(self, k, &mut listed));
        self.index("sort", &listed);
    }

    /// Translated pages differ under `/de/` and `/en/`; untranslated ones are the same.
    fn languages(&mut self) {
        let mut listed = Vec::new();
        let translated = |b: &mut Builder, n: usize, listed: &mut Vec<String>| {
            for lang in ["de", "en"] {
                let path = format!("/{lang}/t{n}");
                let html = item_page(&format!("page {n} ({lang})"), &format!("lang-{lang}-{n}"));
                b.counterexample(&path, Some(html), None);
                listed.push(path);
            }
        };
        (0..2).for_each(|n| translated(self, n, &mut listed));
        for n in 0..6 {
            let (de, en) = (format!("/de/u{n}"), format!("/en/u{n}"));
            self.counterexample(
                &de,
                Some(item_page(
                    &format!("untranslated {n}"),
                    &format!("lang-u-{n}"),
                )),
                None,
            );
            self.counterexample(&en, None, Some(&de));
            listed.extend([de, en]);
        }
        (2..5).for_each(|n| translated(self, n, &mut listed));
        self.index("languages", &listed);
    }

    /// `/mix/N?view=full` is `/mix/N` for the first [`DRIFT_SAME`] items, then distinct.
    fn drift(&mut self) {
        let mut listed = Vec::new();
        for n in 0..DRIFT_ITEMS {
            let path = format!("/mix/{n}");
            self.distinct(&path, item_page(&format!("mix {n}"), &format!("drift-{n}")));
            listed.push(path);
        }
        for n in 0..DRIFT_ITEMS {
            let (item, full) = (format!("/mix/{n}"), format!("/mix/{n}?view=full"));
            if n < DRIFT_SAME {
                self.same_as(&full, &item);
            } else {
                let html = item_page(&format!("mix {n}, full view"), &format!("drift-full-{n}"));
                self.distinct(&full, html);
            }
            self.truth.drift_variants.push(self.url(&full));
            listed.push(full);
        }
        self.index("drift", &listed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_serve_their_original_and_counterexamples_are_distinct_where_said() {
        let mut builder = Builder::new("http://h");
        builder.build();
        let path = |url: &str| url.trim_start_matches("http://h").to_string();
        for variant in &builder.truth.variants {
            assert_eq!(
                builder.pages.get(&path(&variant.url)),
                builder.pages.get(&path(&variant.original)),
                "{}",
                variant.url
            );
        }
        let distinct: std::collections::HashSet<&String> = builder
            .truth
            .distinct
            .iter()
            .map(|u| builder.pages.get(&path(u)).unwrap())
            .collect();
        assert_eq!(
            distinct.len(),
            builder.truth.distinct.len(),
            "distinct pages differ"
        );
        assert_eq!(
            builder.truth.variants.len(),
            VARIANT_CLASSES.len() * VARIANT_ITEMS
        );
        assert_eq!(
            builder.pages.get("/list/3?page=1"),
            builder.pages.get("/list/3")
        );
        assert_ne!(
            builder.pages.get("/list/3?page=2"),
            builder.pages.get("/list/3")
        );
        assert_eq!(
            builder.pages.get("/mix/3?view=full"),
            builder.pages.get("/mix/3")
        );
        assert_ne!(
            builder.pages.get("/mix/20?view=full"),
            builder.pages.get("/mix/20")
        );
    }
}
