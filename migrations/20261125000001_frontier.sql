-- The frontier of each crawl in PostgreSQL (crates/frontier, PostgreSQL backend of
-- FrontierStore). Several workers may share one crawl: every row names its crawl.

-- The seen-URL set: a 128-bit hash (xxh3) of each canonical URL ever offered.
CREATE TABLE frontier_seen (
    crawl   text  NOT NULL,
    url_key bytea NOT NULL,
    PRIMARY KEY (crawl, url_key)
);

-- Every URL not finished: queued in its host queue, leased to a worker, or waiting for a retry.
CREATE TABLE frontier_entry (
    id               bigserial PRIMARY KEY,
    crawl            text   NOT NULL,
    host             text   NOT NULL,
    -- Order in the host queue: the smallest position goes first (ties: the smaller id).
    position         bigint NOT NULL,
    -- The entry as JSON (url, depth, via, kind, redirect hops, failed tries).
    entry            text   NOT NULL,
    state            text   NOT NULL CHECK (state IN ('queued', 'leased', 'delayed')),
    -- delayed: when it rejoins the back of its host queue (Unix milliseconds).
    due_unix_ms      bigint,
    -- leased: the lease (fences every later write), its worker and when it expires.
    lease_id         bigint UNIQUE,
    lease_owner      text,
    lease_expires_at timestamptz
);
CREATE INDEX frontier_entry_queue ON frontier_entry (crawl, host, position, id) WHERE state = 'queued';
CREATE INDEX frontier_entry_delayed ON frontier_entry (crawl, due_unix_ms) WHERE state = 'delayed';
CREATE INDEX frontier_entry_leased ON frontier_entry (crawl, lease_owner) WHERE state = 'leased';
CREATE SEQUENCE frontier_lease_id;

-- Per-host delays above the configured minimum (robots Crawl-delay), kept across runs.
CREATE TABLE frontier_host (
    crawl    text   NOT NULL,
    host     text   NOT NULL,
    delay_ms bigint NOT NULL,
    PRIMARY KEY (crawl, host)
);
