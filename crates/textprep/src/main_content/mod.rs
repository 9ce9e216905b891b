//! Which blocks of a page are its main content.
//!
//! Two deciders share one answer format, a mask over [`ExtractedPage::blocks`]:
//! * [`PageExtractor`]: the page on its own. It runs rs-trafilatura (chosen by measurement on
//!   WCXB and the ScrapingHub benchmark, see `benches/extraction`) and marks each of our
//!   blocks whose words the extractor kept. Mapping its verdict back onto our blocks (instead
//!   of using its text) keeps one kind of text for every page, whoever decided it.
//! * [`HostContentModel`]: what the extractor's verdicts on a host's first pages teach about
//!   *where* that host keeps its content ([`TextBlock::path`]). Later pages of the host are cut
//!   by that model for the cost of a hash lookup per block; a page with too much text at paths
//!   the model does not know, or knows as mixed, goes back to the extractor.
//!
//! [`MainContent`] ties them together per host and is what the dedup pipeline, `extract` and
//! `export --view main` call.
//!
//! ```
//! use dedupcrawl_textprep::{MainContent, MainContentConfig, extract};
//!
//! let html = r#"<html><body><nav><a href="/">Home</a> <a href="/about">About us</a></nav>
//! <article><h1>Roses in winter</h1><p>Roses need little care in winter: cut them back,
//! cover the roots with mulch and wait for the spring, when the first shoots come.</p>
//! <p>Water them only when the soil is dry, and never when frost is forecast for the night.</p>
//! </article><footer>Copyright 2026 The Garden Site. All rights reserved.</footer></body></html>"#;
//! let page = extract(html);
//! let main = MainContent::new(MainContentConfig::default());
//! let decided = main.decide("example.org", html, Some("https://example.org/roses"), &page);
//! let kept: Vec<&str> = page.blocks.iter().zip(&decided.mask)
//!     .filter(|(_, keep)| **keep).map(|(b, _)| b.text.as_str()).collect();
//! assert!(kept.iter().any(|t| t.starts_with("Roses need little care")));
//! assert!(!kept.contains(&"Home"));
//! ```

mod config;
mod content_mask;
mod host_content_model;
mod host_models;
mod kept_text;
mod page_extractor;

pub use config::MainContentConfig;
pub use content_mask::{ContentMask, ContentSource};
pub use host_content_model::HostContentModel;
pub use host_models::{ExtractorUse, MainContent};
pub use page_extractor::{MAX_MISNESTED_FORMATTING, PageExtractor, decide_alone};
