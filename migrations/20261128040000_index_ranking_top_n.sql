-- index_decision_reads ranks the containment candidates with a top-N sort: the documents
-- posted under the most of the decision's samples are counted, the first p_posted of them
-- kept (ORDER BY ... LIMIT, a bounded heap) and only those numbered. The function of
-- 20261126233000_index_posting_lists.sql numbered every document posted under any of the
-- samples (a window over all of them, a full sort) before the LIMIT. Same rows: the order
-- (count descending, then id) is total, so the first p_posted and their ranks are the same.
--
-- Why: a page whose samples include a host's template shingles reads up to 16 full lists
-- (256 ids each), thousands of (sample, id) pairs and hundreds of documents to sort for 8
-- (benches/workers: the ranking is the largest statement inside the function).

CREATE OR REPLACE FUNCTION index_decision_reads(p_crawl text, p_crawl_key bigint,
                                                p_keys bigint[], p_exclusive boolean,
                                                p_payload_key bigint, p_token_key bigint,
                                                p_bands smallint[], p_bucket_keys bigint[],
                                                p_candidates integer, p_bucket_cap integer,
                                                p_samples bigint[], p_posted integer,
                                                p_posting_cap integer)
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
    WITH lists AS (
        SELECT x.sample, x.ids FROM unnest(p_samples) AS w(sample)
        CROSS JOIN LATERAL (SELECT l.sample, l.ids FROM index_posting_list l
                            WHERE l.crawl = p_crawl AND l.sample = w.sample OFFSET 0) AS x
    ), top AS (
        SELECT x.id, count(*) AS postings
        FROM lists l CROSS JOIN LATERAL unnest(l.ids) AS x(id)
        GROUP BY x.id ORDER BY count(*) DESC, x.id LIMIT p_posted
    ), most AS (
        SELECT t.id, row_number() OVER (ORDER BY t.postings DESC, t.id) AS rank FROM top t
    )
    SELECT 'r'::"char", m.rank, m.id, doc.record FROM most m
    LEFT JOIN LATERAL (SELECT d.record FROM index_document d
                       WHERE d.crawl = p_crawl AND d.id = m.id OFFSET 0) AS doc ON true
    UNION ALL
    SELECT 'S'::"char", l.sample, 0::int8, NULL::bytea FROM lists l
    WHERE cardinality(l.ids) >= p_posting_cap;
END
$$;
