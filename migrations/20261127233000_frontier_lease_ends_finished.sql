-- frontier_lease also ends leases the worker finished since its last call (crates/frontier,
-- PostgreSQL backend: `PostgresQueue::finish` keeps them in memory, see
-- crates/frontier/src/postgres_queue/finished_leases.rs): a finished URL was one DELETE, one
-- round trip a page on the engine's main loop; now it rides with the next lease call.
-- p_finished: lease ids of p_worker whose URLs are done; their rows go first, so the host's
-- live leases are counted without them. Otherwise the same function as in
-- 20261126100000_frontier_lease_function.sql (see there for its rows).
DROP FUNCTION frontier_lease(text, text, text, bigint, bigint, bigint, bigint, bigint[]);

CREATE FUNCTION frontier_lease(p_crawl text, p_worker text, p_host text, p_lease_ms bigint,
                               p_delay_ms bigint, p_per_host bigint, p_want bigint,
                               p_known bigint[], p_finished bigint[])
RETURNS TABLE (lease_id bigint, entry text, wait_ms bigint, more boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    v_wait bigint;
    v_leased bigint;
    v_taken bigint;
BEGIN
    IF cardinality(p_finished) > 0 THEN
        DELETE FROM frontier_entry e
            WHERE e.crawl = p_crawl AND e.lease_owner = p_worker AND e.state = 'leased'
              AND e.lease_id = ANY (p_finished);
    END IF;
    INSERT INTO frontier_host_slot AS slot (crawl, host) VALUES (p_crawl, p_host)
    ON CONFLICT (crawl, host) DO UPDATE SET crawl = slot.crawl
    RETURNING CAST(GREATEST(0, CEIL(1000 * EXTRACT(EPOCH FROM
        GREATEST(slot.next_start_at, slot.paused_until) - clock_timestamp()))) AS int8)
    INTO v_wait;
    IF p_known IS NOT NULL THEN
        RETURN QUERY SELECT e.lease_id, e.entry, 0::int8, true FROM frontier_entry e
            WHERE e.crawl = p_crawl AND e.host = p_host AND e.state = 'leased'
              AND e.lease_owner = p_worker AND e.lease_id <> ALL (p_known)
            ORDER BY e.lease_id;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    IF v_wait > 0 THEN
        RETURN QUERY SELECT NULL::int8, NULL::text, v_wait, true;
        RETURN;
    END IF;
    SELECT count(*) INTO v_leased FROM frontier_entry e
        WHERE e.crawl = p_crawl AND e.host = p_host AND e.state = 'leased'
          AND e.lease_expires_at > now();
    IF v_leased >= p_per_host THEN
        -- Its turn comes when a lease ends: ask again after one delay (at least 50 ms).
        RETURN QUERY SELECT NULL::int8, NULL::text, GREATEST(p_delay_ms, 50), true;
        RETURN;
    END IF;
    RETURN QUERY
    WITH claimed AS (
        SELECT c.id, nextval('frontier_lease_id') AS lease
        FROM (SELECT q.id FROM frontier_entry q
              WHERE q.crawl = p_crawl AND q.host = p_host AND q.state = 'queued'
              ORDER BY q.position, q.id
              LIMIT LEAST(p_want, p_per_host - v_leased) FOR UPDATE SKIP LOCKED) AS c
    ), leased AS (
        UPDATE frontier_entry AS e SET state = 'leased', lease_id = claimed.lease,
            lease_owner = p_worker,
            lease_expires_at = now() + p_lease_ms * interval '1 millisecond'
        FROM claimed WHERE e.id = claimed.id
        RETURNING e.lease_id, e.entry
    )
    SELECT l.lease_id, l.entry, 0::int8, true FROM leased l ORDER BY l.lease_id;
    GET DIAGNOSTICS v_taken = ROW_COUNT;
    IF v_taken = 0 THEN
        RETURN;
    END IF;
    UPDATE frontier_host_slot SET
        next_start_at = clock_timestamp() + p_delay_ms * interval '1 millisecond'
        WHERE crawl = p_crawl AND host = p_host;
    RETURN QUERY SELECT NULL::int8, NULL::text, 0::int8,
        EXISTS (SELECT 1 FROM frontier_entry q
                WHERE q.crawl = p_crawl AND q.host = p_host AND q.state = 'queued');
END
$$;
