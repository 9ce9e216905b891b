-- Recrawl rounds in PostgreSQL (crates/crawler, PostgreSQL backend of CrawlStateStore): each
-- URL's revisit state and the crawl's current round, shared by every worker of the crawl.

-- Canonical URL -> its revisit state (JSON: round, validators, payload digest, index document,
-- current response record, interval, next due time, misses, gone, last similarity).
CREATE TABLE crawl_revisit (
    crawl text NOT NULL,
    url   text NOT NULL,
    state text NOT NULL,
    PRIMARY KEY (crawl, url)
);

-- The crawl's current round (JSON: number, start, seeded, finished, all).
CREATE TABLE crawl_round (
    crawl text PRIMARY KEY,
    state text NOT NULL
);
