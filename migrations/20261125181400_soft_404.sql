-- Per host, what its soft-404 probes found (crates/crawler, PostgreSQL backend of
-- CrawlStateStore; crawl.soft_404_probes): the probe answers a page is compared with, so a
-- resumed crawl, another worker or a later round does not probe the host again.

-- Host -> its probe (JSON: when, the 200 HTML answers reduced to token hashes per block, what
-- each probe got).
CREATE TABLE crawl_soft_404 (
    crawl text NOT NULL,
    host  text NOT NULL,
    probe text NOT NULL,
    PRIMARY KEY (crawl, host)
);
