-- Delivery in the Lambda shape (exactly.delivery_drains, exactly.destination_parked,
-- sql/V25__delivery_drains.sql): which stores ask for a drain, a running drain's mark, and the
-- partitions a drain left parked under their lease. The clock is read once per call into a
-- variable: a distributed database (Citus) refuses volatile functions inside a modification.

-- The queues among p_queues that have a destination (p_configured: those the configuration gives
-- one; else one defined through the API) and whose drain was not asked for within the last
-- p_debounce_ms milliseconds; they are marked as asked for now. A fresh mark is only read, never
-- locked. A stale mark is taken by an UPDATE whose condition is checked again on the row a
-- concurrent store may have just marked, so of two stores only one takes it; a queue without a
-- mark gets one by an INSERT, and of two stores only one inserts it (ON CONFLICT DO NOTHING).
-- Two statements, not one INSERT ... ON CONFLICT DO UPDATE WHERE: Citus sends that statement's
-- conflict condition to the workers without the values of its parameters, and the workers refuse it.
CREATE OR REPLACE FUNCTION exactly.ask_drains(p_queues text[], p_configured text[], p_debounce_ms integer)
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    v_now    timestamptz := clock_timestamp();
    v_cutoff timestamptz := v_now - make_interval(secs => p_debounce_ms / 1000.0);
BEGIN
    RETURN QUERY
    UPDATE exactly.delivery_drains r SET invoked_at = v_now
     WHERE r.queue = ANY (p_queues) AND r.invoked_at <= v_cutoff
       AND (r.queue = ANY (p_configured) OR EXISTS (SELECT 1 FROM exactly.destinations d WHERE d.queue = r.queue))
    RETURNING r.queue;
    RETURN QUERY
    INSERT INTO exactly.delivery_drains AS r (queue, invoked_at)
    SELECT q, v_now FROM unnest(p_queues) q
     WHERE (q = ANY (p_configured) OR EXISTS (SELECT 1 FROM exactly.destinations d WHERE d.queue = q))
       AND NOT EXISTS (SELECT 1 FROM exactly.delivery_drains x WHERE x.queue = q)
    ON CONFLICT (queue) DO NOTHING
    RETURNING r.queue;
END
$$;

-- A drain of p_queues runs: stores in them ask for no other one for the debounce period from now.
CREATE OR REPLACE FUNCTION exactly.touch_drains(p_queues text[])
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_now timestamptz := clock_timestamp();
BEGIN
    UPDATE exactly.delivery_drains SET invoked_at = v_now WHERE queue = ANY (p_queues);
END
$$;

-- Records a partition a drain leaves under its lease: its next attempt is due in p_due_ms.
CREATE OR REPLACE FUNCTION exactly.park_partition(p_destination text, p_partition_id bigint, p_lease_id uuid,
                                                  p_next_offset bigint, p_attempt integer, p_due_ms bigint)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_due timestamptz := clock_timestamp() + make_interval(secs => p_due_ms / 1000.0);
BEGIN
    INSERT INTO exactly.destination_parked (destination, partition_id, lease_id, next_offset, attempt, due_at)
    VALUES (p_destination, p_partition_id, p_lease_id, p_next_offset, p_attempt, v_due)
    ON CONFLICT (destination, partition_id) DO UPDATE SET lease_id = EXCLUDED.lease_id,
        next_offset = EXCLUDED.next_offset, attempt = EXCLUDED.attempt, due_at = EXCLUDED.due_at,
        claimed_until = NULL;
END
$$;

-- Holds the destination's parked partition that is due first for p_seconds; no row when none is due.
CREATE OR REPLACE FUNCTION exactly.claim_parked(p_destination text, p_seconds integer)
RETURNS TABLE (partition_id bigint, lease_id uuid, next_offset bigint, attempt integer)
LANGUAGE plpgsql AS $$
DECLARE
    v_now   timestamptz := clock_timestamp();
    v_until timestamptz := v_now + make_interval(secs => p_seconds);
BEGIN
    -- the one row is picked in a materialized CTE, evaluated once: as a subquery joined to the UPDATE, a
    -- nested loop could run it again for each row of the table, and each run, skipping the rows just
    -- claimed, claim another
    RETURN QUERY
    WITH c AS MATERIALIZED (
        SELECT x.partition_id FROM exactly.destination_parked x
         WHERE x.destination = p_destination AND x.due_at <= v_now
           AND (x.claimed_until IS NULL OR x.claimed_until < v_now)
         ORDER BY x.due_at LIMIT 1 FOR UPDATE SKIP LOCKED)
    UPDATE exactly.destination_parked p SET claimed_until = v_until
      FROM c
     WHERE p.destination = p_destination AND p.partition_id = c.partition_id
    RETURNING p.partition_id, p.lease_id, p.next_offset, p.attempt;
END
$$;
