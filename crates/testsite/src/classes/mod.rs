//! Five hosts, one per page class of issue 10, with their ground truth ([`ClassesTruth`]):
//!
//! * a heavy-template shop (`/product/1..`),
//! * a news host with pagination hubs (`/list/page/1..6`, the only way to its articles) and
//!   multi-part serials (`/story/N/part/K`, `/story/N/all`, parts fetched before the whole
//!   for odd N, after it for even N),
//! * a mirror republishing the news host's articles in its own template, with edits,
//! * a ticker whose pages change on every request, with copies under `/mobile/note/K`,
//! * a type reference whose pages differ only by identifiers (`/types/u128`, `/types/i128`).
//!
//! Prose comes from the crate's seeded generator (not from any docs a dedup is tuned on),
//! so every page but the ticker's is the same on every run.

mod identifiers;
mod mirror;
mod news;
mod noise;
pub(crate) mod shop;
pub(crate) mod skeleton;
mod stories;
mod truth;

use std::collections::HashMap;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};

use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::page_server::{PageSource, serve_all};

pub use truth::{ClassTruth, ClassesTruth, CopyOf, PageClass, PartOf};

/// Products of the heavy-template shop.
pub const PRODUCTS: usize = 55;
/// Hub pages, and articles listed on each.
pub const HUB_PAGES: usize = 6;
pub const PER_HUB: usize = 6;
/// News articles reprinted by the mirror.
pub const MIRRORED: usize = 24;
/// Multi-part serials, and parts per serial.
pub const STORIES: usize = 4;
pub const PARTS: usize = 3;
/// Ticker notes, and how many have a copy.
pub const NOTES: usize = 32;
pub const NOISY_COPIES: usize = 6;

/// A static host: path -> HTML.
pub(crate) type HostPages = HashMap<String, String>;

enum Host {
    Static(HostPages),
    Noise(noise::NoiseHost),
}

/// The running class hosts; dropping it stops them.
pub struct ClassesSite {
    truth: ClassesTruth,
    _shutdown: watch::Sender<()>,
}

impl ClassesSite {
    /// Binds five listeners on 127.0.0.1 and serves them on the current tokio runtime.
    pub async fn start() -> io::Result<ClassesSite> {
        let mut listeners = Vec::new();
        let mut bases = Vec::new();
        for _ in 0..5 {
            let l = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
            bases.push(format!("http://{}", l.local_addr()?));
            listeners.push(l);
        }
        let [shop_base, news_base, mirror_base, noise_base, types_base] =
            <[String; 5]>::try_from(bases).expect("five bases");

        let (shop_pages, shop_truth) = shop::build(&shop_base);
        let articles = news::articles();
        let (mut news_pages, hubs_truth) = news::build(&news_base, &articles, |n| {
            format!("{mirror_base}{}", mirror::reprint_path(n))
        });
        let (story_pages, stories_truth) = stories::build(&news_base);
        news_pages.extend(story_pages);
        let (mirror_pages, mirror_truth) = mirror::build(&mirror_base, &news_base, &articles);
        let noise_host = noise::NoiseHost::new();
        let noise_truth = noise_host.truth(&noise_base);
        let (types_pages, types_truth) = identifiers::build(&types_base);

        let truth = ClassesTruth {
            seeds: [
                &shop_base,
                &news_base,
                &mirror_base,
                &noise_base,
                &types_base,
            ]
            .iter()
            .map(|b| format!("{b}/"))
            .collect(),
            classes: vec![
                shop_truth,
                mirror_truth,
                stories_truth,
                noise_truth,
                types_truth,
                hubs_truth,
            ],
        };
        let hosts = [
            Host::Static(shop_pages),
            Host::Static(news_pages),
            Host::Static(mirror_pages),
            Host::Noise(noise_host),
            Host::Static(types_pages),
        ];
        Ok(ClassesSite {
            truth,
            _shutdown: serve_all(listeners, hosts),
        })
    }

    pub fn truth(&self) -> &ClassesTruth {
        &self.truth
    }
}

impl PageSource for Host {
    fn page(&self, path_and_query: &str) -> Option<String> {
        // The class hosts' pages have no query: a query names no other page.
        let path = path_and_query.split('?').next().unwrap_or(path_and_query);
        match self {
            Host::Static(pages) => pages.get(path).cloned(),
            Host::Noise(notes) => notes.render(path),
        }
    }
}
