//! The worker's crawl-log checkpoint (`crawl_log_checkpoint`, `crawl_log_checkpoint_hosts`,
//! `crawl_logged`): read whole, written with the marks of the lines it counts.

use sqlx::Connection as _;

use super::{PostgresCrawlState, logged_key};
use crate::crawl_state::{CrawlLogCheckpoint, LoggedHost};
use crate::error::CrawlError;

impl PostgresCrawlState {
    pub(super) fn read_log_checkpoint(&self) -> Result<Option<CrawlLogCheckpoint>, CrawlError> {
        type Rows = (Option<(i32, i64, String)>, Vec<(String, String)>);
        let (meta, rows): Rows = self.call(
            "read the crawl-log checkpoint",
            move |mut conn, crawl, worker| async move {
                let meta = sqlx::query_as(
                    "SELECT round, log_offset, total FROM crawl_log_checkpoint \
                     WHERE crawl = $1 AND worker = $2",
                )
                .bind(&crawl)
                .bind(&worker)
                .fetch_optional(&mut *conn)
                .await?;
                let rows = sqlx::query_as(
                    "SELECT host, counts FROM crawl_log_host WHERE crawl = $1 AND worker = $2",
                )
                .bind(&crawl)
                .bind(&worker)
                .fetch_all(&mut *conn)
                .await?;
                Ok((meta, rows))
            },
        )?;
        let Some((round, offset, total)) = meta else {
            return Ok(None);
        };
        let damaged = |what: &str| {
            CrawlError::Worker(format!(
                "the crawl-log checkpoint of this worker in PostgreSQL is damaged ({what}); \
                 delete its rows of crawl_log_checkpoint and crawl_log_host to read the whole \
                 crawl log again"
            ))
        };
        let hosts = rows
            .into_iter()
            .map(|(host, counts)| {
                serde_json::from_str::<LoggedHost>(&counts)
                    .map(|row| (host, row))
                    .map_err(|e| damaged(&e.to_string()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Some(CrawlLogCheckpoint {
            offset: u64::try_from(offset).unwrap_or(0),
            round: u32::try_from(round).unwrap_or(0),
            total: serde_json::from_str(&total).map_err(|e| damaged(&e.to_string()))?,
            hosts,
        }))
    }

    pub(super) fn write_log_checkpoint(
        &self,
        checkpoint: &CrawlLogCheckpoint,
        logged: &[String],
    ) -> Result<(), CrawlError> {
        let marks = logged.to_vec();
        let (hosts, counts): (Vec<String>, Vec<String>) = checkpoint
            .hosts
            .iter()
            .map(|(host, row)| (host.clone(), serde_json::to_string(row).unwrap_or_default()))
            .unzip();
        let round = i32::try_from(checkpoint.round).unwrap_or(i32::MAX);
        let offset = i64::try_from(checkpoint.offset).unwrap_or(i64::MAX);
        let total = serde_json::to_string(&checkpoint.total).unwrap_or_default();
        // One transaction: the marks, the rows and the offset move together. Every statement
        // is an upsert (or a delete of another round's rows), so a run again after a lost
        // COMMIT answer writes the same.
        self.call(
            "record the crawl-log checkpoint",
            move |mut conn, crawl, worker| async move {
                let mut tx = conn.begin().await?;
                sqlx::query(
                    "INSERT INTO crawl_logged (crawl, worker, url) \
                     SELECT $1, $2, unnest($3::text[]) ON CONFLICT DO NOTHING",
                )
                .bind(&crawl)
                .bind(&worker)
                .bind(&marks)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "DELETE FROM crawl_log_host WHERE crawl = $1 AND worker = $2 AND EXISTS \
                     (SELECT 1 FROM crawl_log_checkpoint c WHERE c.crawl = $1 \
                      AND c.worker = $2 AND c.round <> $3)",
                )
                .bind(&crawl)
                .bind(&worker)
                .bind(round)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "INSERT INTO crawl_log_host (crawl, worker, host, counts) \
                     SELECT $1, $2, x.host, x.counts \
                     FROM unnest($3::text[], $4::text[]) AS x(host, counts) \
                     ON CONFLICT (crawl, worker, host) DO UPDATE SET counts = EXCLUDED.counts",
                )
                .bind(&crawl)
                .bind(&worker)
                .bind(&hosts)
                .bind(&counts)
                .execute(&mut *tx)
                .await?;
                sqlx::query(
                    "INSERT INTO crawl_log_checkpoint (crawl, worker, round, log_offset, total) \
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (crawl, worker) DO UPDATE SET \
                     round = EXCLUDED.round, log_offset = EXCLUDED.log_offset, \
                     total = EXCLUDED.total",
                )
                .bind(&crawl)
                .bind(&worker)
                .bind(round)
                .bind(offset)
                .bind(&total)
                .execute(&mut *tx)
                .await?;
                tx.commit().await
            },
        )?;
        if let Some(marks) = self.logged_marks().as_mut() {
            marks.extend(logged.iter().map(|url| logged_key(url)));
        }
        Ok(())
    }
}
