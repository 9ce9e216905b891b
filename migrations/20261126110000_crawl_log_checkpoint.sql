-- How much of a worker's crawl log the crawl state holds, and what was counted there
-- (crates/crawler, PostgreSQL backend of CrawlStateStore: CrawlLogCheckpoint). A resumed
-- worker reads its crawl log from log_offset on only.

-- Per worker: the bytes of its crawl log counted, the round counted, the report's totals
-- (JSON, as in report.json).
CREATE TABLE crawl_log_checkpoint (
    crawl      text    NOT NULL,
    worker     text    NOT NULL,
    round      integer NOT NULL,
    log_offset bigint  NOT NULL,
    total      text    NOT NULL,
    PRIMARY KEY (crawl, worker)
);

-- Per worker and host: the host's report row and the pages counted against its budget (JSON),
-- over the same lines. Rows of an earlier round are deleted when a new round's checkpoint is
-- recorded.
CREATE TABLE crawl_log_host (
    crawl  text NOT NULL,
    worker text NOT NULL,
    host   text NOT NULL,
    counts text NOT NULL,
    PRIMARY KEY (crawl, worker, host)
);
