-- index_decision_reads returns the posting lists of the probed samples (kind 'l': key = the
-- sample, ids = its list) and the worker ranks the containment candidates itself (most lists
-- first, ties to the smaller id: crates/index/src/postgres_backend/read_ahead.rs), reading
-- their records with the decision's next read. Otherwise the same function as in
-- 20261126233000_index_posting_lists.sql (see 20261126100100_index_decision_reads.sql for its
-- rows).
--
-- Why: ranking in the server (unnest every list, count, sort) was the largest part of its CPU
-- for a decision: up to 16 lists of up to 256 ids each, ~0.5 ms a page of the ~3.3 ms the
-- server spent (benches/workers, FLOOR=1: storing and looking up a page's rows costs ~1.4). The
-- worker counts the same ids in a hash map for a fraction of that.
--
-- A list comes once for each time its sample is in p_samples (as the ranking counted it).
-- With p_posted = 0 (no ranking) only the full lists' samples come ('S' rows, as before).
DROP FUNCTION index_decision_reads(text, bigint, bigint[], boolean, bigint, bigint, smallint[],
                                   bigint[], integer, integer, bigint[], integer, integer);

CREATE FUNCTION index_decision_reads(p_crawl text, p_crawl_key bigint, p_keys bigint[],
                                     p_exclusive boolean, p_payload_key bigint,
                                     p_token_key bigint, p_bands smallint[],
                                     p_bucket_keys bigint[], p_candidates integer,
                                     p_bucket_cap integer, p_samples bigint[],
                                     p_posted integer, p_posting_cap integer)
RETURNS TABLE (kind "char", key bigint, id bigint, record bytea, ids bigint[])
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
                                   WHERE d.crawl = p_crawl AND d.id = m.id), NULL::int8[]
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
    SELECT 'b'::"char", c.band::int8, c.id, doc.record, NULL::int8[] FROM chosen c
    LEFT JOIN LATERAL (SELECT d.record FROM index_document d
                       WHERE d.crawl = p_crawl AND d.id = c.id OFFSET 0) AS doc ON true
    UNION ALL
    SELECT 'B'::"char", m.band::int8, 0::int8, NULL::bytea, NULL::int8[] FROM members m
    GROUP BY m.band HAVING count(*) >= p_bucket_cap;
    IF p_samples IS NULL OR cardinality(p_samples) = 0 THEN
        RETURN;
    END IF;
    IF p_posted > 0 THEN
        RETURN QUERY
        SELECT 'l'::"char", x.sample, 0::int8, NULL::bytea, x.ids
        FROM unnest(p_samples) AS w(sample)
        CROSS JOIN LATERAL (SELECT l.sample, l.ids FROM index_posting_list l
                            WHERE l.crawl = p_crawl AND l.sample = w.sample OFFSET 0) AS x;
    ELSE
        RETURN QUERY
        SELECT 'S'::"char", x.sample, 0::int8, NULL::bytea, NULL::int8[]
        FROM unnest(p_samples) AS w(sample)
        CROSS JOIN LATERAL (SELECT l.sample, l.ids FROM index_posting_list l
                            WHERE l.crawl = p_crawl AND l.sample = w.sample OFFSET 0) AS x
        WHERE cardinality(x.ids) >= p_posting_cap;
    END IF;
END
$$;

