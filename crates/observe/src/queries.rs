//! Questions the dashboard asks about a crawl's files (clusters, `why`, recrawl changes).
//!
//! The answers come from code that reads the crawl log and WARC files, which lives with the
//! commands that print the same answers (`clusters`, `why`, `changes`); the binary hands the
//! dashboard an implementation of [`CrawlQueries`] so this crate needs none of that code and
//! the JSON stays the commands' own.

/// One page of the clusters browser: `page` counts from 0, `search` (may be empty) keeps the
/// clusters with a URL containing it.
#[derive(Clone, Debug, Default)]
pub struct ClusterQuery {
    pub page: usize,
    pub search: String,
}

/// Why a query got no answer.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    /// The thing asked about is not in the crawl (HTTP 404).
    #[error("{0}")]
    NotFound(String),
    /// Reading the crawl failed (HTTP 500).
    #[error("{0}")]
    Failed(String),
}

/// Answers about one crawl on disk, as JSON. Called on a blocking thread: implementations may
/// read files.
pub trait CrawlQueries: Send + Sync {
    /// A page of duplicate clusters, as `clusters OUT` groups them.
    fn clusters(&self, query: &ClusterQuery) -> Result<serde_json::Value, QueryError>;
    /// What `why OUT URL --json` prints.
    fn why(&self, url: &str) -> Result<serde_json::Value, QueryError>;
    /// The latest round's changes, as `changes OUT` lists them.
    fn changes(&self) -> Result<serde_json::Value, QueryError>;
}
