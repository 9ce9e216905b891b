//! Values stored as JSON, one row per crawl and key (a URL or a host): the tables, their key
//! and value columns, and the reads and upserts of [`PostgresCrawlState`].

use super::PostgresCrawlState;
use crate::error::CrawlError;

/// A table of one JSON value per URL (or site name) of a crawl.
pub(super) struct JsonPerUrl {
    read: &'static str,
    write: &'static str,
    reading: &'static str,
    writing: &'static str,
}

pub(super) const ARCHIVED: JsonPerUrl = JsonPerUrl {
    read: "SELECT record FROM crawl_archived WHERE crawl = $1 AND url = $2",
    write: "INSERT INTO crawl_archived (crawl, url, record) VALUES ($1, $2, $3) \
            ON CONFLICT (crawl, url) DO UPDATE SET record = EXCLUDED.record",
    reading: "read an archived URL",
    writing: "record an archived URL",
};

pub(super) const SCHEDULED_SITE: JsonPerUrl = JsonPerUrl {
    read: "SELECT state FROM schedule_sites WHERE crawl = $1 AND site = $2",
    write: "INSERT INTO schedule_sites (crawl, site, state) VALUES ($1, $2, $3) \
            ON CONFLICT (crawl, site) DO UPDATE SET state = EXCLUDED.state",
    reading: "read a scheduled site's state",
    writing: "record a scheduled site's state",
};

pub(super) const REVISIT: JsonPerUrl = JsonPerUrl {
    read: "SELECT state FROM crawl_revisit WHERE crawl = $1 AND url = $2",
    write: "INSERT INTO crawl_revisit (crawl, url, state) VALUES ($1, $2, $3) \
            ON CONFLICT (crawl, url) DO UPDATE SET state = EXCLUDED.state",
    reading: "read a revisit state",
    writing: "record a revisit state",
};

pub(super) const SOFT_404: JsonPerUrl = JsonPerUrl {
    read: "SELECT probe FROM crawl_soft_404 WHERE crawl = $1 AND host = $2",
    write: "INSERT INTO crawl_soft_404 (crawl, host, probe) VALUES ($1, $2, $3) \
            ON CONFLICT (crawl, host) DO UPDATE SET probe = EXCLUDED.probe",
    reading: "read a host's soft-404 probe",
    writing: "record a host's soft-404 probe",
};

impl PostgresCrawlState {
    /// The URL's value; like the embedded store, a value that does not parse is none.
    pub(super) fn read_json<T: serde::de::DeserializeOwned>(
        &self,
        table: &JsonPerUrl,
        url: &str,
    ) -> Result<Option<T>, CrawlError> {
        let (url, statement) = (url.to_string(), table.read);
        let text: Option<String> =
            self.call(table.reading, move |mut conn, crawl, _| async move {
                sqlx::query_scalar(statement)
                    .bind(&crawl)
                    .bind(&url)
                    .fetch_optional(&mut *conn)
                    .await
            })?;
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    }

    /// Every (key, value) row `statement` selects for the crawl; values that do not parse
    /// are left out.
    pub(super) fn read_all_json<T: serde::de::DeserializeOwned>(
        &self,
        action: &'static str,
        statement: &'static str,
    ) -> Result<Vec<(String, T)>, CrawlError> {
        let rows: Vec<(String, String)> =
            self.call(action, move |mut conn, crawl, _| async move {
                sqlx::query_as(statement)
                    .bind(&crawl)
                    .fetch_all(&mut *conn)
                    .await
            })?;
        Ok(rows
            .into_iter()
            .filter_map(|(key, text)| Some((key, serde_json::from_str(&text).ok()?)))
            .collect())
    }

    /// Stores (replaces) the URL's value.
    pub(super) fn write_json<T: serde::Serialize>(
        &self,
        table: &JsonPerUrl,
        url: &str,
        value: &T,
    ) -> Result<(), CrawlError> {
        let (url, statement) = (url.to_string(), table.write);
        let text = serde_json::to_string(value).unwrap_or_default();
        self.call(table.writing, move |mut conn, crawl, _| async move {
            sqlx::query(statement)
                .bind(&crawl)
                .bind(&url)
                .bind(&text)
                .execute(&mut *conn)
                .await
                .map(drop)
        })
    }
}
