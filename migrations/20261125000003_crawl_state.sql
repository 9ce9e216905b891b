-- The crawl engine's own progress in PostgreSQL (crates/crawler, PostgreSQL backend of
-- CrawlStateStore). Archived URLs and sitemaps read are shared by the workers of a crawl; the
-- crawl-log marks and the WARC checkpoint belong to one worker (its --out directory).

-- Canonical URL -> the WARC record written for it (JSON: type, record id, date, digest).
CREATE TABLE crawl_archived (
    crawl  text NOT NULL,
    url    text NOT NULL,
    record text NOT NULL,
    PRIMARY KEY (crawl, url)
);

-- URLs with a crawl-log line in a worker's log from an earlier run.
CREATE TABLE crawl_logged (
    crawl  text NOT NULL,
    worker text NOT NULL,
    url    text NOT NULL,
    PRIMARY KEY (crawl, worker, url)
);

-- Hosts whose sitemaps were read.
CREATE TABLE crawl_sitemaps_read (
    crawl text NOT NULL,
    host  text NOT NULL,
    PRIMARY KEY (crawl, host)
);

-- How far a worker's WARC files are known to the state (see ArchiveCheckpoint).
CREATE TABLE crawl_checkpoint (
    crawl       text   NOT NULL,
    worker      text   NOT NULL,
    file        text   NOT NULL,
    file_offset bigint NOT NULL,
    PRIMARY KEY (crawl, worker)
);
