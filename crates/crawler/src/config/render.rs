//! `crawl.render` and `[render]`: when a fetched page is rendered by headless Chromium
//! (`crates/render`), and how.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::{positive_seconds, seconds};
use crate::error::CrawlError;

/// When a fetched HTML page is rendered (`crawl.render`, per site `render`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RenderMode {
    /// Never: the page is what the server sent.
    #[default]
    Never,
    /// A page whose HTML has almost no text but loads scripts, on a host where rendering has
    /// added something ([`RenderSettings::auto_min_words`], [`RenderSettings::auto_probe_pages`]).
    Auto,
    /// Every HTML page.
    Always,
}

/// `[render]`: the browser and its bounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenderSettings {
    /// The browser's executable (Debian's `chromium` package).
    pub chromium: PathBuf,
    /// Most pages rendered at once (tabs of the one browser).
    pub max_pages: usize,
    /// Seconds a page gets from its first byte to its DOM; a page still busy then is taken as
    /// it is, a browser that does not answer is restarted and the page tried once more.
    pub deadline: f64,
    /// Seconds without a request after which a loaded page has settled.
    pub settle: f64,
    /// The browser's processes together above this many MiB resident: restarted before the
    /// next page.
    pub max_memory_mb: u64,
    /// `auto`: a page is rendered when its text outside page chrome has fewer words than this
    /// and it has a script.
    pub auto_min_words: usize,
    /// `auto`: once this many rendered pages of a host added nothing (fewer than
    /// `auto_min_words` more words and no new link), the host's pages are not rendered.
    pub auto_probe_pages: usize,
}

impl Default for RenderSettings {
    fn default() -> Self {
        RenderSettings {
            chromium: PathBuf::from("/usr/bin/chromium"),
            max_pages: 2,
            deadline: 15.0,
            settle: 0.5,
            max_memory_mb: 1024,
            auto_min_words: 20,
            auto_probe_pages: 3,
        }
    }
}

impl RenderSettings {
    /// The renderer's settings, checked.
    pub fn renderer_settings(&self) -> Result<dedupcrawl_render::RenderSettings, CrawlError> {
        if self.max_pages == 0 {
            return Err(CrawlError::ConfigValue(
                "render.max_pages = 0: at least one page must be rendered at a time".to_string(),
            ));
        }
        Ok(dedupcrawl_render::RenderSettings {
            chromium: self.chromium.clone(),
            max_pages: self.max_pages,
            deadline: positive_seconds("render.deadline", self.deadline)?,
            settle: seconds("render.settle", self.settle)?,
            max_memory_mb: self.max_memory_mb,
        })
    }
}
