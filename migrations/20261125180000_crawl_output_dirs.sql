-- Each worker's output directory (its --out, absolute, as the worker saw it), so that readers
-- of a crawl (`dedupcrawl export --store … --crawl …`, `clusters`) find every worker's WARC
-- files and crawl log without being told the directories.
CREATE TABLE crawl_output_dir (
    crawl   text NOT NULL,
    worker  text NOT NULL,
    out_dir text NOT NULL,
    PRIMARY KEY (crawl, worker)
);
