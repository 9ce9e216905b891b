//! `dedupcrawl repair OUT`: a new embedded state built from what the crawl log and the WARC
//! files hold, the old one kept aside (`OUT/state.before-repair-TIME/`). The crawl log gives
//! the URLs decided (seen, logged, their revisit states) and the round; the WARC files give
//! the archived records and the dedup index (every archived page checked in again, as a
//! resume does for records its state lost); the links of the archived pages not decided yet
//! go back to the frontier. Running the crawl again then continues where it was.

use std::collections::HashMap;
use std::path::PathBuf;

use chrono::Utc;
use dedupcrawl_archive::{CdxjWriter, RecordType, WarcReader};
use dedupcrawl_frontier::{CanonicalUrl, CanonicalizationRules, FrontierEntry};
use dedupcrawl_pipeline::DedupStage;

use crate::config::{CrawlConfig, ResolvedSite, StoreLocation};
use crate::crawl_log::{Decision, HOST_GIVEN_UP_NOTE, LogLine};
use crate::crawl_state::{CrawlStateStore, RevisitState, RoundState};
use crate::error::CrawlError;
use crate::output_paths::{OutputPaths, warc_files};
use crate::stores::CrawlStores;

/// What [`repair_state`] did.
#[derive(Debug, Default)]
pub struct StateRepair {
    /// Where the state found was moved (`None`: there was none).
    pub moved_aside: Option<PathBuf>,
    /// The round the state continues.
    pub round: u32,
    /// URLs with a crawl-log line (seen, not fetched again).
    pub urls_logged: usize,
    /// WARC records read back (archived records, the dedup index).
    pub records_read: u64,
    /// Links of archived pages without a crawl-log line, queued to be fetched.
    pub links_queued: usize,
    /// Damaged WARC bytes moved to `OUT/damaged/`.
    pub damaged_bytes_moved: u64,
}

/// Rebuilds the embedded state of the crawl `config` describes (its saved `crawl.toml`).
pub fn repair_state(config: &CrawlConfig) -> Result<StateRepair, CrawlError> {
    config.validate()?;
    if !matches!(config.store.location()?, StoreLocation::Embedded) {
        return Err(CrawlError::ConfigValue(
            "repair rebuilds an embedded state (OUT/state/); a PostgreSQL crawl's state is in \
             its database"
                .into(),
        ));
    }
    let paths = OutputPaths::new(&config.crawl.out);
    let mut repair = StateRepair {
        moved_aside: move_state_aside(&paths)?,
        ..StateRepair::default()
    };
    std::fs::create_dir_all(&paths.state)
        .map_err(|e| CrawlError::io("create directory", &paths.state, e))?;
    let (_, figures) = crate::lost_pages::mend_archive(&paths)?;
    repair.damaged_bytes_moved = figures.damaged_bytes_moved;
    let sites = config.sites()?;
    let settings = config.index_dedup_settings(&sites);
    let stores = CrawlStores::open_embedded(
        &paths.state,
        config.politeness(&sites)?,
        settings.index_config(),
    )?;
    let stage = DedupStage::new(stores.index, settings);
    let state = stores.crawl_state.as_ref();
    let lines = crate::archive_integrity::lenient_log_lines(&paths.crawl_log);
    repair.round = lines
        .iter()
        .map(|line| line.round)
        .max()
        .unwrap_or(1)
        .max(1);
    state.set_round(&RoundState {
        number: repair.round,
        started: Utc::now(),
        seeded: true,
        finished: false,
        all: false,
    })?;
    let mut cdxj = CdxjWriter::open_append(&paths.cdxj_unsorted)?;
    let scan =
        crate::resume::reconcile_archive(&paths.warc_dir, state, &mut cdxj, &stage, repair.round)?;
    cdxj.flush()?;
    repair.records_read = scan.records_read;
    let last_lines = record_log_lines(state, config, &lines)?;
    repair.urls_logged = last_lines.len();
    let seen: Vec<CanonicalUrl> = last_lines
        .keys()
        .filter_map(|url| CanonicalUrl::parse(url, None, &CanonicalizationRules::none()).ok())
        .collect();
    stores.frontier.mark_all_seen(&seen)?;
    let links = links_of_archived_pages(&paths, &stage, &sites, config, &last_lines)?;
    repair.links_queued = links.len();
    let seeds = sites
        .iter()
        .flat_map(|site| site.seeds.iter().cloned().map(FrontierEntry::seed));
    stores.frontier.offer_all(seeds.chain(links).collect())?;
    stage.index().flush()?;
    stores.frontier.flush()?;
    state.flush()?;
    Ok(repair)
}

/// Renames `OUT/state/` to `OUT/state.before-repair-TIME/` (nothing is deleted).
fn move_state_aside(paths: &OutputPaths) -> Result<Option<PathBuf>, CrawlError> {
    if !paths.state.exists() {
        return Ok(None);
    }
    crate::read_only_state::refuse_if_in_use(&paths.state)?;
    let aside = paths.root.join(format!(
        "state.before-repair-{}",
        Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
    ));
    std::fs::rename(&paths.state, &aside)
        .map_err(|e| CrawlError::io("move the old state aside to", &aside, e))?;
    Ok(Some(aside))
}

/// Marks every crawl-log line logged and records a revisit state for each fetched URL (its
/// last line); returns each URL's last line.
fn record_log_lines(
    state: &dyn CrawlStateStore,
    config: &CrawlConfig,
    lines: &[LogLine],
) -> Result<HashMap<String, LogLine>, CrawlError> {
    let mut last: HashMap<String, LogLine> = HashMap::new();
    for line in lines {
        // A given-up host's seed lines are not final: the URL is still to fetch.
        if line.note.as_deref() == Some(HOST_GIVEN_UP_NOTE) {
            continue;
        }
        state.mark_logged(&crate::revisit::log_key(line.round, &line.url))?;
        last.insert(line.url.clone(), line.clone());
    }
    for (url, line) in &last {
        if line.status.is_none() {
            continue;
        }
        let revisit = RevisitState {
            round: line.round,
            depth: line.depth,
            etag: None,
            last_modified: None,
            payload_digest: line.content_digest.clone(),
            // The index's document ids are new: a later round compares a changed page with
            // nothing (it is archived as changed, without its change similarity).
            document: None,
            record: state.archived_record(url)?,
            interval_secs: config.recrawl.initial_interval,
            next_due: Utc::now(),
            misses: 0,
            gone: line.decision == Decision::Gone,
            last_similarity: None,
        };
        state.record_revisit_state(url, &revisit)?;
    }
    Ok(last)
}

/// The in-scope links of the archived HTML pages (the same extraction as the crawl's) that
/// have no crawl-log line: the frontier the lost state held, as far as the archive shows it.
fn links_of_archived_pages(
    paths: &OutputPaths,
    stage: &DedupStage,
    sites: &[ResolvedSite],
    config: &CrawlConfig,
    logged: &HashMap<String, LogLine>,
) -> Result<Vec<FrontierEntry>, CrawlError> {
    let rules = config.canonicalization.rules();
    let mut queued = std::collections::HashSet::new();
    let mut entries = Vec::new();
    for path in warc_files(&paths.warc_dir)? {
        for record in WarcReader::open(&path)?.flatten() {
            if record.record_type() != RecordType::Response {
                continue;
            }
            let (Some(target), Ok(response)) = (record.target_uri(), record.http_response()) else {
                continue;
            };
            let content_type = response.header("content-type");
            let is_html = content_type.is_some_and(|v| {
                let v = String::from_utf8_lossy(v).to_ascii_lowercase();
                v.contains("text/html") || v.contains("application/xhtml")
            });
            let Ok(page_url) = CanonicalUrl::parse(target, None, &CanonicalizationRules::none())
            else {
                continue;
            };
            if !is_html || !(200..300).contains(&response.status) {
                continue;
            }
            let text = dedupcrawl_fetch::decode_bytes(response.payload, content_type, true).text;
            let page = stage.prepare(target, page_url.host(), &text);
            let base = page
                .extracted
                .base_href
                .as_deref()
                .and_then(|href| page_url.url().join(href).ok())
                .unwrap_or_else(|| page_url.url().clone());
            let depth = logged.get(target).map_or(0, |line| line.depth) + 1;
            for link in page.extracted.links.iter().filter(|link| !link.nofollow) {
                let Ok(url) = CanonicalUrl::parse(&link.href, Some(&base), &rules) else {
                    continue;
                };
                let in_scope = sites
                    .iter()
                    .any(|site| site.scope.check(&url, depth).is_in_scope());
                if in_scope && !logged.contains_key(url.as_str()) && queued.insert(url.clone()) {
                    entries.push(FrontierEntry::link(url, depth, target));
                }
            }
        }
    }
    Ok(entries)
}
