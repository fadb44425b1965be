-- Queue figures for operators (GET /api/v1/queues, GET /api/v1/queues/{queue}/stats and the
-- exactly_queue_* gauges). Read-only, no locks: each figure is as of the statement's snapshot.
-- Messages stored are counted from the partitions' watermarks, not by scanning messages:
-- offsets are dense, so a partition holds last_offset + 1 - data_start messages.

-- One page of queues by name after p_after (NULL = from the first), with their partition and
-- message counts; p_only names the one queue to read (NULL = any).
CREATE OR REPLACE FUNCTION exactly.queue_page(p_after text, p_only text, p_limit integer)
RETURNS TABLE (r_id bigint, r_name text, r_partitions bigint, r_messages bigint)
LANGUAGE plpgsql STABLE
-- planned with its values each call: which filters apply depends on which arguments are NULL, and
-- a generic plan finds one queue by name no faster than a page
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    -- PL/pgSQL rather than a parameterised SQL function, which Citus cannot plan once partitions is
    -- distributed (sql/citus/distribute.sql); the page of queues first, then the partitions of
    -- those queues alone, counted per queue where they are (on Citus, on each worker)
    RETURN QUERY
    WITH q AS MATERIALIZED (
        SELECT q.id, q.name
        FROM exactly.queues q
        WHERE (p_after IS NULL OR q.name > p_after) AND (p_only IS NULL OR q.name = p_only)
        ORDER BY q.name
        LIMIT p_limit
    ), s AS (
        SELECT p.queue_id, count(*) AS n, sum(p.last_offset + 1 - p.data_start) AS messages
        FROM exactly.partitions p
        WHERE p.queue_id IN (SELECT q.id FROM q)
        GROUP BY p.queue_id
    )
    SELECT q.id, q.name, COALESCE(s.n, 0), COALESCE(s.messages, 0)::bigint
    FROM q LEFT JOIN s ON s.queue_id = q.id
    ORDER BY q.name;
END
$$;

-- Per consumer group of a queue (every group that has a cursor on one of its partitions): the
-- messages not yet settled for that group (lag: from the group's cursor, or from the data
-- watermark where nothing was consumed, to the partition's last offset, less those settled
-- ahead of the cursor) and the creation time of the oldest of them (the message at each
-- partition's cursor; NULL when none is waiting).
CREATE OR REPLACE FUNCTION exactly.queue_group_lag(p_queue text)
RETURNS TABLE (r_group text, r_lag bigint, r_oldest timestamptz)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    -- PL/pgSQL, as queue_page. Every row a partition's reads join is of that partition (cursor,
    -- deliveries, the message at the cursor), so Citus runs the per-partition part on the workers
    -- and sums per group on the coordinator; the groups are one list for every partition.
    RETURN QUERY
    WITH g AS (
        SELECT DISTINCT c.consumer_group
        FROM exactly.consumer_cursors c
        JOIN exactly.partitions p ON p.id = c.partition_id
        JOIN exactly.queues q ON q.id = p.queue_id
        WHERE q.name = p_queue
    ), pg AS (
        SELECT g.consumer_group, p.id, p.last_offset,
               greatest(COALESCE(c.next_offset, 0), p.data_start) AS start
        FROM exactly.partitions p
        JOIN exactly.queues q ON q.id = p.queue_id
        CROSS JOIN g
        LEFT JOIN exactly.consumer_cursors c ON c.partition_id = p.id AND c.consumer_group = g.consumer_group
        WHERE q.name = p_queue
    )
    SELECT pg.consumer_group,
           sum(greatest(pg.last_offset + 1 - pg.start, 0) - s.settled)::bigint,
           min(m.created_at)
    FROM pg
    CROSS JOIN LATERAL (SELECT count(*) AS settled FROM exactly.deliveries d
                        WHERE d.partition_id = pg.id AND d.consumer_group = pg.consumer_group
                          AND d.settled AND d."offset" >= pg.start AND d."offset" <= pg.last_offset) s
    LEFT JOIN exactly.messages m ON m.partition_id = pg.id AND m."offset" = pg.start AND pg.start <= pg.last_offset
    GROUP BY pg.consumer_group
    ORDER BY pg.consumer_group;
END
$$;

-- Adds one instance's in-memory counts of the duplicates it answered (the three arrays are one
-- count each: queue name, the start of the minute they were answered in, how many) to
-- exactly.duplicate_counts, and returns how many buckets it wrote. Counts of a queue that does not
-- exist are dropped (cannot happen: a duplicate names a stored message). Rows are upserted in key
-- order, so concurrent flushes of several instances lock shared buckets in one order and cannot
-- deadlock. It writes only the unlogged table: no WAL but the commit record, and the commit does
-- not wait for a WAL flush (see sql/V19__duplicate_counts.sql).
CREATE OR REPLACE FUNCTION exactly.add_duplicates(p_queues text[], p_buckets timestamptz[], p_counts bigint[])
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    -- PL/pgSQL rather than a parameterised SQL function: Citus cannot plan the latter's generic
    -- statement once duplicate_counts is a reference table (sql/citus/distribute.sql)
    INSERT INTO exactly.duplicate_counts AS d (queue_id, bucket, duplicates)
    SELECT q.id, u.b, sum(u.n)
    FROM unnest(p_queues, p_buckets, p_counts) AS u(q, b, n)
    JOIN exactly.queues q ON q.name = u.q
    WHERE u.n > 0
    GROUP BY q.id, u.b
    ORDER BY q.id, u.b
    ON CONFLICT (queue_id, bucket) DO UPDATE SET duplicates = d.duplicates + EXCLUDED.duplicates;
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n;
END
$$;

-- The duplicates answered in queue p_queue over its deduplication window, as flushed so far: the
-- sum of its buckets that start within the window (a bucket that straddles the window's start is
-- left out, so nothing older than the window is counted). 0 when none; NULL when no such queue.
CREATE OR REPLACE FUNCTION exactly.queue_duplicates(p_queue text)
RETURNS TABLE (r_duplicates bigint, r_window integer)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_now timestamptz := clock_timestamp();
BEGIN
    RETURN QUERY
    SELECT COALESCE((SELECT sum(d.duplicates) FROM exactly.duplicate_counts d
                     WHERE d.queue_id = q.id
                       AND d.bucket >= v_now - make_interval(secs => q.dedup_window_seconds)), 0)::bigint,
           q.dedup_window_seconds
    FROM exactly.queues q
    WHERE q.name = p_queue;
END
$$;
