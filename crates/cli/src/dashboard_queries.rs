//! The dashboard's questions about a crawl on disk, answered by the code of the commands that
//! print the same things: `clusters` (paged and searched here), `why --json` and `changes`.

use std::path::PathBuf;

use crate::crawl_outputs::CrawlOutputs;
use dedupcrawl_crawler::{OutputPaths, read_crawl_log};
use dedupcrawl_observe::{ClusterQuery, CrawlQueries, QueryError};

use crate::changes::{change_counts, changes_in_round};
use crate::clusters::{Cluster, clusters_from_logs};

/// Clusters shown on one page of the browser.
pub const CLUSTERS_PER_PAGE: usize = 20;

/// Answers from the crawl log and WARC files of one output directory; read again on every
/// question, so a running crawl's answers grow with it.
pub struct CrawlOnDisk {
    out: PathBuf,
}

impl CrawlOnDisk {
    pub fn new(out: PathBuf) -> CrawlOnDisk {
        CrawlOnDisk { out }
    }
}

fn failed(error: impl std::fmt::Display) -> QueryError {
    QueryError::Failed(format!("{error:#}"))
}

/// Whether a cluster names a URL containing `search` (case-insensitive).
fn cluster_matches(cluster: &Cluster, search: &str) -> bool {
    let search = search.to_lowercase();
    std::iter::once(&cluster.representative)
        .chain(cluster.members.iter().map(|member| &member.url))
        .chain(&cluster.contains)
        .any(|url| url.to_lowercase().contains(&search))
}

impl CrawlQueries for CrawlOnDisk {
    fn clusters(&self, query: &ClusterQuery) -> Result<serde_json::Value, QueryError> {
        let outputs = CrawlOutputs::new(vec![self.out.clone()]).map_err(failed)?;
        let all = clusters_from_logs(&outputs, None).map_err(failed)?;
        let total_clusters = all.len();
        let search = query.search.trim();
        let matching: Vec<Cluster> = all
            .into_iter()
            .filter(|cluster| search.is_empty() || cluster_matches(cluster, search))
            .collect();
        let pages = matching.len().div_ceil(CLUSTERS_PER_PAGE).max(1);
        let page = query.page.min(pages - 1);
        let shown: Vec<&Cluster> = matching
            .iter()
            .skip(page * CLUSTERS_PER_PAGE)
            .take(CLUSTERS_PER_PAGE)
            .collect();
        Ok(serde_json::json!({
            "total_clusters": total_clusters,
            "matching": matching.len(),
            "page": page,
            "pages": pages,
            "per_page": CLUSTERS_PER_PAGE,
            "clusters": shown,
        }))
    }

    fn why(&self, url: &str) -> Result<serde_json::Value, QueryError> {
        let why = crate::why::explain(&self.out, url)
            .map_err(|error| QueryError::NotFound(format!("{error:#}")))?;
        serde_json::to_value(&why).map_err(failed)
    }

    fn changes(&self) -> Result<serde_json::Value, QueryError> {
        let lines = read_crawl_log(&OutputPaths::new(&self.out).crawl_log).map_err(failed)?;
        let (round, changes) = changes_in_round(&lines, None);
        Ok(serde_json::json!({
            "round": round,
            "counts": change_counts(&changes),
            "changes": changes,
        }))
    }
}
