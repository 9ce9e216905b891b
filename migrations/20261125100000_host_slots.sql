-- Politeness across the workers of one crawl (crates/frontier, PostgreSQL backend): the
-- earliest start of a host's next request and its Retry-After pause, on the database's clock.
-- A worker leases a host's URL only with this row locked, so two workers never start requests
-- to one host closer than its delay.
CREATE TABLE frontier_host_slot (
    crawl         text        NOT NULL,
    host          text        NOT NULL,
    next_start_at timestamptz NOT NULL DEFAULT 'epoch',
    paused_until  timestamptz NOT NULL DEFAULT 'epoch',
    -- The worker whose run set the pause: it ends when that worker's store opens again, as a
    -- pause in one process's memory ends with the process.
    paused_by     text,
    PRIMARY KEY (crawl, host)
);
-- Leases of one host (its concurrency across workers).
CREATE INDEX frontier_entry_leased_host ON frontier_entry (crawl, host) WHERE state = 'leased';
