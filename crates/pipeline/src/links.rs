//! A page's link targets as the dedup keeps them: path and query, so a duplicate's targets can
//! be compared with its original's (the crawler's duplicate-links rule).

use dedupcrawl_textprep::{LinkKind, PreparedPage};

use crate::DedupStage;

impl DedupStage {
    /// The keys of the page's distinct link targets outside its chrome (`nav`, `header`,
    /// `footer`…), sorted ([`link_target_key`](Self::link_target_key) of each).
    pub fn content_link_targets(&self, name: &str, host: &str, page: &PreparedPage) -> Vec<u32> {
        let base = link_base(name, host);
        let blocks = &page.extracted.blocks;
        // Each distinct href is resolved once (a page repeats most of its targets).
        let mut distinct = rustc_hash::FxHashSet::default();
        let mut keys: Vec<u32> = page
            .extracted
            .links
            .iter()
            .filter(|link| link.kind == LinkKind::Anchor)
            .filter(|link| {
                blocks
                    .get(link.block as usize)
                    .is_some_and(|block| !block.in_chrome)
            })
            .filter(|link| distinct.insert(link.href.as_str()))
            .filter_map(|link| Self::link_target_key(&base, &link.href))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// The key of a link's target as the index keeps a page's targets: a hash of the target's
    /// path and query (resolved against `base`, [`link_base`]), so the same target is one key
    /// whatever the page's depth, and a mirror on another host that links to the same paths
    /// has the same keys. `None` for links to nowhere.
    pub fn link_target_key(base: &Option<url::Url>, href: &str) -> Option<u32> {
        let target = link_target(base, href)?;
        Some(
            (xxhash_rust::xxh3::xxh3_64_with_seed(target.as_bytes(), LINK_TARGET_SEED) >> 32)
                as u32,
        )
    }
}

/// Hash seed of link target keys.
const LINK_TARGET_SEED: u64 = 0x6c69_6e6b;

/// What a page's relative links resolve against: its URL, or for a file of a site on disk
/// (`host` is the site's directory) its path inside the site, so that copies of a site in two
/// directories give the same targets.
pub fn link_base(name: &str, host: &str) -> Option<url::Url> {
    if name.contains("://") {
        return url::Url::parse(name).ok();
    }
    let inside = name.strip_prefix(host).unwrap_or(name);
    let root = url::Url::parse("file:///").ok()?;
    root.join(&inside.replace('\\', "/")).ok()
}

/// A link's target as compared: path and query of `href` resolved against `base`, without
/// scheme, host or fragment. `None` for links to nowhere (`#top`, `javascript:`, `mailto:`)
/// and for hrefs that do not resolve.
fn link_target(base: &Option<url::Url>, href: &str) -> Option<String> {
    let href = href.trim();
    let href = href.split('#').next().unwrap_or("");
    let lower = href.get(..11).unwrap_or(href).to_ascii_lowercase();
    if href.is_empty()
        || lower.starts_with("javascript:")
        || lower.starts_with("mailto:")
        || lower.starts_with("tel:")
        || lower.starts_with("data:")
    {
        return None;
    }
    let target = match base {
        Some(base) => base.join(href).ok()?,
        None => url::Url::parse("file:///").ok()?.join(href).ok()?,
    };
    if !matches!(target.scheme(), "http" | "https" | "file") {
        return None;
    }
    Some(match target.query() {
        Some(query) => format!("{}?{query}", target.path()),
        None => target.path().to_string(),
    })
}
