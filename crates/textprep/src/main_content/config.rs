//! Settings of the main-content decision (`[dedup.text.main_content]`).

/// Settings of the main-content decision (config `[dedup.text.main_content]`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MainContentConfig {
    /// Pages of a host decided by the page-level extractor before the host's model is used, at
    /// most (see `warm_after_predicted_pages`).
    pub cold_start_pages: u32,
    /// The cold start ends early once the host's model, asked before it learns each cold-start
    /// page, predicted the extractor's verdict on this many pages in a row (0 = never early).
    /// The extractor costs ten to sixteen times our own extraction, and a crawl of a site list
    /// meets many small hosts: on a host with one regular template the model predicts the
    /// extractor from its second page on, and 20 cold pages would be most of such a host.
    pub warm_after_predicted_pages: u32,
    /// A page whose text at paths the model does not know (or knows as sometimes content,
    /// sometimes not) exceeds this share goes to the page-level extractor.
    pub max_unknown_share: f64,
    /// Every this many pages of a host, one goes to the extractor even when the model knows
    /// it, so a host whose template drifts is re-learnt (0 = never).
    pub recheck_every: u32,
    /// Hosts whose models are kept; the least recently used one goes first.
    pub max_hosts: usize,
    /// After the cold start, the share of a host's HTML bytes the extractor may see at most
    /// (departures and rechecks); past it a departing page is cut by the model, which keeps
    /// the blocks it does not know (outside page chrome). Counted in bytes, not pages: the
    /// extractor's cost grows with the page, and the pages that depart are often the largest.
    pub max_extractor_share: f64,
}

impl Default for MainContentConfig {
    fn default() -> Self {
        MainContentConfig {
            cold_start_pages: 20,
            warm_after_predicted_pages: 5,
            max_unknown_share: 0.1,
            recheck_every: 100,
            max_hosts: 10_000,
            max_extractor_share: 0.01,
        }
    }
}
