-- The state of `dedupcrawl schedule` in PostgreSQL (crates/crawler, PostgreSQL backend of
-- CrawlStateStore), keyed by the schedule's own crawl name (its store.crawl; each site's rounds
-- run as the crawl "{crawl}.{site}") and the [[site]] name.

-- Site name -> its schedule state (JSON: next due time, rounds finished, last start, last end,
-- last exit status).
CREATE TABLE schedule_sites (
    crawl text NOT NULL,
    site  text NOT NULL,
    state text NOT NULL,
    PRIMARY KEY (crawl, site)
);
