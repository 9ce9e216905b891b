-- URL rules learned from duplicates (crates/crawler/src/url_rules.rs, PostgreSQL backend of
-- CrawlStateStore; crawl.url_rules): shared by the workers of a crawl, kept across restarts.

-- Per host, each rule with its status and evidence (JSON: the rule, candidate / active /
-- vetoed / retracted, the pairs that taught it, the counterexample, its application counts).
CREATE TABLE crawl_url_rules (
    crawl  text NOT NULL,
    host   text NOT NULL,
    rule   text NOT NULL,
    record text NOT NULL,
    PRIMARY KEY (crawl, host, rule)
);

-- Per host, named sets: `pages` (URLs archived as new: what rules may map onto) and
-- `skipped <rule>` (frontier entries, JSON, of the URLs not fetched because of the rule:
-- fetched again if it is retracted).
CREATE TABLE crawl_url_rule_sets (
    crawl text NOT NULL,
    host  text NOT NULL,
    name  text NOT NULL,
    item  text NOT NULL,
    PRIMARY KEY (crawl, host, name, item)
);
