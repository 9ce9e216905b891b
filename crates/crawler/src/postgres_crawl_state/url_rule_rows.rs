//! The crawl's URL rules (`crawl_url_rules`: one JSON record per host and rule) and their sets
//! of URLs (`crawl_url_rule_sets`: each item once per host and set name).

use dedupcrawl_urlrules::RuleRecord;

use super::PostgresCrawlState;
use crate::error::CrawlError;

impl PostgresCrawlState {
    pub(super) fn read_url_rules(&self, host: &str) -> Result<Vec<RuleRecord>, CrawlError> {
        let host = host.to_string();
        let rows: Vec<String> = self.call(
            "read a host's URL rules",
            move |mut conn, crawl, _| async move {
                sqlx::query_scalar(
                    "SELECT record FROM crawl_url_rules WHERE crawl = $1 AND host = $2",
                )
                .bind(&crawl)
                .bind(&host)
                .fetch_all(&mut *conn)
                .await
            },
        )?;
        Ok(rows
            .iter()
            .filter_map(|text| serde_json::from_str(text).ok())
            .collect())
    }

    pub(super) fn write_url_rule(&self, host: &str, record: &RuleRecord) -> Result<(), CrawlError> {
        let (host, rule) = (host.to_string(), record.rule.key());
        let text = serde_json::to_string(record).unwrap_or_default();
        self.call("record a URL rule", move |mut conn, crawl, _| async move {
            sqlx::query(
                "INSERT INTO crawl_url_rules (crawl, host, rule, record) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (crawl, host, rule) DO UPDATE SET record = EXCLUDED.record",
            )
            .bind(&crawl)
            .bind(&host)
            .bind(&rule)
            .bind(&text)
            .execute(&mut *conn)
            .await
            .map(drop)
        })
    }

    pub(super) fn read_url_rule_set(
        &self,
        host: &str,
        set: &str,
    ) -> Result<Vec<String>, CrawlError> {
        let (host, set) = (host.to_string(), set.to_string());
        self.call(
            "read a URL rules' set",
            move |mut conn, crawl, _| async move {
                sqlx::query_scalar(
                "SELECT item FROM crawl_url_rule_sets WHERE crawl = $1 AND host = $2 AND name = $3",
            )
            .bind(&crawl)
            .bind(&host)
            .bind(&set)
            .fetch_all(&mut *conn)
            .await
            },
        )
    }

    pub(super) fn insert_into_url_rule_set(
        &self,
        host: &str,
        set: &str,
        item: &str,
    ) -> Result<(), CrawlError> {
        let (host, set, item) = (host.to_string(), set.to_string(), item.to_string());
        self.call(
            "add to a URL rules' set",
            move |mut conn, crawl, _| async move {
                sqlx::query(
                "INSERT INTO crawl_url_rule_sets (crawl, host, name, item) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(&crawl)
            .bind(&host)
            .bind(&set)
            .bind(&item)
            .execute(&mut *conn)
            .await
            .map(drop)
            },
        )
    }
}
