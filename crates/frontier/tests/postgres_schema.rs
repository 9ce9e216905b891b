//! The frontier's PostgreSQL schema on a real server: migrations apply (again and again), a
//! newer schema is refused clearly, and `FOR UPDATE SKIP LOCKED` hands one queued row to one
//! claimer only.

use crate::postgres_support;

use dedupcrawl_frontier::{FrontierError, connect_and_migrate};

#[tokio::test]
async fn migrations_apply_once_and_a_newer_schema_is_refused() {
    let url = postgres_support::fresh_database().await;
    let pool = connect_and_migrate(&url, 2).await.expect("first start");
    drop(
        connect_and_migrate(&url, 2)
            .await
            .expect("second start: nothing to do"),
    );
    for table in ["frontier_seen", "frontier_entry", "frontier_host"] {
        let exists: bool = sqlx::query_scalar("SELECT to_regclass($1) IS NOT NULL")
            .bind(table)
            .fetch_one(&pool)
            .await
            .unwrap();
        assert!(exists, "{table} is created");
    }
    // A migration this binary does not know: the schema is newer than the binary.
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (99991231000000, 'from the future', true, '\\x00', 0)",
    )
    .execute(&pool)
    .await
    .unwrap();
    let error = connect_and_migrate(&url, 2).await.unwrap_err();
    assert!(
        matches!(
            error,
            FrontierError::SchemaTooNew {
                version: 99991231000000
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("newer dedupcrawl"), "{error}");
}

#[tokio::test]
async fn skip_locked_hands_a_queued_row_to_one_claimer() {
    let url = postgres_support::fresh_database().await;
    let pool = connect_and_migrate(&url, 4).await.unwrap();
    for position in [1_i64, 2] {
        sqlx::query(
            "INSERT INTO frontier_entry (crawl, host, position, entry, state) \
             VALUES ('c', 'a.example', $1, '{}', 'queued')",
        )
        .bind(position)
        .execute(&pool)
        .await
        .unwrap();
    }
    let claim = "SELECT id FROM frontier_entry WHERE crawl = 'c' AND host = 'a.example' \
                 AND state = 'queued' ORDER BY position, id LIMIT 1 FOR UPDATE SKIP LOCKED";
    let mut first = pool.begin().await.unwrap();
    let mut second = pool.begin().await.unwrap();
    let a: Option<i64> = sqlx::query_scalar(claim)
        .fetch_optional(&mut *first)
        .await
        .unwrap();
    let b: Option<i64> = sqlx::query_scalar(claim)
        .fetch_optional(&mut *second)
        .await
        .unwrap();
    let mut third = pool.begin().await.unwrap();
    let c: Option<i64> = sqlx::query_scalar(claim)
        .fetch_optional(&mut *third)
        .await
        .unwrap();
    assert!(a.is_some() && b.is_some() && a != b, "{a:?} {b:?}");
    assert_eq!(
        c, None,
        "both rows are held: the third claimer gets none, without waiting"
    );
}
