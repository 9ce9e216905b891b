-- The first reads of a dedup decision in one round trip (crates/index, PostgreSQL backend):
-- the decision's advisory locks, then what the decision algorithm reads first, each part a
-- statement of its own with a fresh snapshot (so it sees every decision that held one of the
-- locks before). Replaces a lock statement and four to six reads, each a round trip under the
-- locks that other decisions of related documents wait for.
--
-- Locks: the crawl's (p_crawl_key) shared, then each of p_keys (sorted by the caller),
-- exclusive when p_exclusive (a check that inserts), shared otherwise.
--
-- Rows (kind, key, id, record):
--   'p', 't': the document indexed first under the payload digest key p_payload_key (kind
--        'p'), under the token digest key p_token_key ('t'), with its record;
--   'b': the first p_candidates distinct members of the LSH buckets (p_bands[i],
--        p_bucket_keys[i]), key = the first band they are in, with their records;
--   'B': key = a band whose bucket holds p_bucket_cap members or more (no id, no record);
--   'r': the p_posted documents posted under the most of p_samples (ties: the smaller id),
--        key = their rank from 1, with their records;
--   'S': key = a value of p_samples with p_posting_cap postings or more.
-- The 'B' and 'S' rows tell a decision that stores the document which buckets and postings
-- are full without counting them again.
CREATE FUNCTION index_decision_reads(p_crawl text, p_crawl_key bigint, p_keys bigint[],
                                     p_exclusive boolean, p_payload_key bigint,
                                     p_token_key bigint, p_bands smallint[],
                                     p_bucket_keys bigint[], p_candidates integer,
                                     p_bucket_cap integer, p_samples bigint[],
                                     p_posted integer, p_posting_cap integer)
RETURNS TABLE (kind "char", key bigint, id bigint, record bytea)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
    PERFORM pg_advisory_xact_lock_shared(p_crawl_key);
    IF p_exclusive THEN
        PERFORM pg_advisory_xact_lock(k) FROM unnest(p_keys) AS k;
    ELSE
        PERFORM pg_advisory_xact_lock_shared(k) FROM unnest(p_keys) AS k;
    END IF;
    RETURN QUERY
    WITH found AS (
        SELECT (SELECT g.id FROM index_digest g WHERE g.crawl = p_crawl AND g.kind = 'p'
                AND g.digest_key = p_payload_key) AS payload,
               (SELECT g.id FROM index_digest g WHERE g.crawl = p_crawl AND g.kind = 't'
                AND g.digest_key = p_token_key) AS tokens
    ), matches AS (
        SELECT 'p'::"char" AS kind, f.payload AS id FROM found f WHERE f.payload IS NOT NULL
        UNION ALL
        SELECT 't'::"char", f.tokens FROM found f WHERE f.tokens IS NOT NULL
    )
    SELECT m.kind, 0::int8, m.id, (SELECT d.record FROM index_document d
                                   WHERE d.crawl = p_crawl AND d.id = m.id)
    FROM matches m;
    RETURN QUERY
    WITH members AS (
        SELECT b.band, x.id FROM unnest(p_bands, p_bucket_keys) AS b(band, bucket_key)
        CROSS JOIN LATERAL (SELECT i.id FROM index_bucket i WHERE i.crawl = p_crawl
                            AND i.band = b.band AND i.bucket_key = b.bucket_key OFFSET 0) AS x
    ), chosen AS (
        SELECT m.id, min(m.band) AS band FROM members m GROUP BY m.id
        ORDER BY min(m.band), m.id LIMIT p_candidates
    )
    SELECT 'b'::"char", c.band::int8, c.id, doc.record FROM chosen c
    LEFT JOIN LATERAL (SELECT d.record FROM index_document d
                       WHERE d.crawl = p_crawl AND d.id = c.id OFFSET 0) AS doc ON true
    UNION ALL
    SELECT 'B'::"char", m.band::int8, 0::int8, NULL::bytea FROM members m
    GROUP BY m.band HAVING count(*) >= p_bucket_cap;
    IF p_samples IS NULL OR cardinality(p_samples) = 0 THEN
        RETURN;
    END IF;
    RETURN QUERY
    WITH postings AS (
        SELECT x.sample, x.id FROM unnest(p_samples) AS w(sample)
        CROSS JOIN LATERAL (SELECT p.sample, p.id FROM index_posting p WHERE p.crawl = p_crawl
                            AND p.sample = w.sample OFFSET 0) AS x
    ), most AS (
        SELECT p.id, row_number() OVER (ORDER BY count(*) DESC, p.id) AS rank
        FROM postings p GROUP BY p.id ORDER BY count(*) DESC, p.id LIMIT p_posted
    )
    SELECT 'r'::"char", m.rank, m.id, doc.record FROM most m
    LEFT JOIN LATERAL (SELECT d.record FROM index_document d
                       WHERE d.crawl = p_crawl AND d.id = m.id OFFSET 0) AS doc ON true
    UNION ALL
    SELECT 'S'::"char", p.sample, 0::int8, NULL::bytea FROM postings p
    GROUP BY p.sample HAVING count(*) >= p_posting_cap;
END
$$;
