-- The dedup index of each crawl in PostgreSQL (crates/index, PostgreSQL backend of DedupIndex).
-- Several workers may share one crawl: every row names its crawl. A check-and-insert holds a
-- transaction-scoped advisory lock per crawl, so the decision sees every earlier insert.

-- Per crawl: the index format and signature settings (a mismatch is refused), the next
-- document id (ids are dense and never reused) and how many originals are indexed.
CREATE TABLE index_meta (
    crawl      text   PRIMARY KEY,
    format     text   NOT NULL,
    signature  text   NOT NULL,
    next_id    bigint NOT NULL,
    originals  bigint NOT NULL
);

-- Every document record (originals and cluster members), in the record encoding of
-- crates/index/src/record.rs. A removed document's row is deleted.
CREATE TABLE index_document (
    crawl    text    NOT NULL,
    id       bigint  NOT NULL,
    original boolean NOT NULL,
    record   bytea   NOT NULL,
    PRIMARY KEY (crawl, id)
);

-- LSH buckets: per band and bucket key (low 32 bits of the band hash), the members in id
-- (= insertion) order, at most MAX_BUCKET_MEMBERS.
CREATE TABLE index_bucket (
    crawl      text     NOT NULL,
    band       smallint NOT NULL,
    bucket_key bigint   NOT NULL,
    id         bigint   NOT NULL,
    PRIMARY KEY (crawl, band, bucket_key, id)
);

-- Containment postings of originals: sampled shingle value -> documents, at most
-- MAX_POSTINGS_PER_SAMPLE per value.
CREATE TABLE index_posting (
    crawl  text   NOT NULL,
    sample bigint NOT NULL,
    id     bigint NOT NULL,
    PRIMARY KEY (crawl, sample, id)
);

-- Exact digests: 64 bits of the payload SHA-1 (kind 'p') or of the token digest ('t') -> the
-- first document indexed under them.
CREATE TABLE index_digest (
    crawl      text   NOT NULL,
    kind       "char" NOT NULL CHECK (kind IN ('p', 't')),
    digest_key bigint NOT NULL,
    id         bigint NOT NULL,
    PRIMARY KEY (crawl, kind, digest_key)
);

-- Template learning: on how many originals of a host each block fingerprint was seen, and how
-- many originals each host has (both saturating at block_counts::COUNT_CAP).
CREATE TABLE index_block_count (
    crawl       text    NOT NULL,
    host        text    NOT NULL,
    fingerprint bigint  NOT NULL,
    pages       integer NOT NULL,
    PRIMARY KEY (crawl, host, fingerprint)
);
CREATE TABLE index_host (
    crawl text    NOT NULL,
    host  text    NOT NULL,
    pages integer NOT NULL,
    PRIMARY KEY (crawl, host)
);
