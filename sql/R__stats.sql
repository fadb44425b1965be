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

-- The console's overview: one page of queues by name after p_after (NULL = from the first) whose
-- name contains p_contains (NULL = any), each with its partition and message counts, its
-- dead-letter queue's name, the messages stored there and how many of them are not redriven yet,
-- and the duplicates answered over its window (as queue_duplicates). Per-group lag is read by
-- queue_group_lag for the page's queues.
CREATE OR REPLACE FUNCTION exactly.queue_overview(p_after text, p_contains text, p_limit integer)
RETURNS TABLE (r_name text, r_partitions bigint, r_messages bigint, r_dead_letter_queue text,
               r_dead_letters bigint, r_not_redriven bigint, r_duplicates bigint, r_window integer)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
DECLARE
    v_now timestamptz := clock_timestamp();
BEGIN
    -- PL/pgSQL, as queue_page: the page of queues first, then the rows of those queues alone
    RETURN QUERY
    WITH q AS MATERIALIZED (
        SELECT q.id, q.name, q.dedup_window_seconds, exactly.dead_letter_queue(q.name) AS dlq
        FROM exactly.queues q
        WHERE (p_after IS NULL OR q.name > p_after) AND (p_contains IS NULL OR strpos(q.name, p_contains) > 0)
        ORDER BY q.name
        LIMIT p_limit
    ), s AS (
        SELECT p.queue_id, count(*) AS n, sum(p.last_offset + 1 - p.data_start) AS messages
        FROM exactly.partitions p
        WHERE p.queue_id IN (SELECT q.id FROM q)
        GROUP BY p.queue_id
    ), dp AS (
        SELECT q.id AS origin, p.id, p.last_offset + 1 - p.data_start AS messages, p.data_start
        FROM q
        JOIN exactly.queues d ON d.name = q.dlq
        JOIN exactly.partitions p ON p.queue_id = d.id
    ), ds AS (
        SELECT dp.origin, sum(dp.messages) AS messages,
               sum(dp.messages - (SELECT count(*) FROM exactly.redrives r
                                  WHERE r.dlq_partition_id = dp.id AND r.dlq_offset >= dp.data_start)) AS pending
        FROM dp
        GROUP BY dp.origin
    ), dup AS (
        SELECT q.id, sum(c.duplicates) AS n
        FROM q JOIN exactly.duplicate_counts c
               ON c.queue_id = q.id AND c.bucket >= v_now - make_interval(secs => q.dedup_window_seconds)
        GROUP BY q.id
    )
    SELECT q.name, COALESCE(s.n, 0), COALESCE(s.messages, 0)::bigint, q.dlq,
           COALESCE(ds.messages, 0)::bigint, COALESCE(ds.pending, 0)::bigint, COALESCE(dup.n, 0)::bigint,
           q.dedup_window_seconds
    FROM q
    LEFT JOIN s ON s.queue_id = q.id
    LEFT JOIN ds ON ds.origin = q.id
    LEFT JOIN dup ON dup.id = q.id
    ORDER BY q.name;
END
$$;

-- The duplicates answered in queue p_queue per UTC hour from p_since on: the rolled-up hours
-- (exactly.duplicate_rollup, before the window) and the minute buckets still kept (within it),
-- summed per hour; hours with none are left out.
CREATE OR REPLACE FUNCTION exactly.queue_duplicate_series(p_queue text, p_since timestamptz)
RETURNS TABLE (r_hour timestamptz, r_duplicates bigint)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN QUERY
    SELECT h.hour, sum(h.n)::bigint
    FROM (SELECT date_trunc('hour', c.bucket, 'UTC') AS hour, c.duplicates AS n
          FROM exactly.duplicate_counts c JOIN exactly.queues q ON q.id = c.queue_id
          WHERE q.name = p_queue AND c.bucket >= date_trunc('hour', p_since, 'UTC')
          UNION ALL
          SELECT r.hour, r.duplicates
          FROM exactly.duplicate_rollup r JOIN exactly.queues q ON q.id = r.queue_id
          WHERE q.name = p_queue AND r.hour >= date_trunc('hour', p_since, 'UTC')) h
    GROUP BY h.hour
    ORDER BY h.hour;
END
$$;

-- The dead-letter copies of dead-letter queue p_dlq, read without a pop: by partition id and
-- offset after (p_after_pid, p_after_offset) (NULL = from the first), at most p_limit, each with
-- its dead-letter header (the origin), its payload's size, and the message it was redriven to.
CREATE OR REPLACE FUNCTION exactly.dead_letter_page(p_dlq text, p_after_pid bigint, p_after_offset bigint,
                                                    p_limit integer)
RETURNS TABLE (r_partition_id bigint, r_partition text, r_offset bigint, r_message_id uuid,
               r_created_at timestamptz, r_size integer, r_origin text, r_redriven_to uuid,
               r_redriven_at timestamptz)
LANGUAGE plpgsql STABLE
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
    RETURN QUERY
    WITH k AS (
        SELECT m.partition_id, m."offset"
        FROM exactly.partitions p
        JOIN exactly.queues q ON q.id = p.queue_id
        JOIN exactly.messages m ON m.partition_id = p.id AND m."offset" >= p.data_start
        WHERE q.name = p_dlq
          AND (p_after_pid IS NULL OR (m.partition_id, m."offset") > (p_after_pid, p_after_offset))
        ORDER BY m.partition_id, m."offset"
        LIMIT p_limit
    )
    SELECT m.partition_id, p.name, m."offset", m.message_id, m.created_at, octet_length(m.payload),
           (m.headers -> 'x-exactly-dead-letter')::text, r.message_id, r.redriven_at
    FROM k
    JOIN exactly.messages m ON m.partition_id = k.partition_id AND m."offset" = k."offset"
    JOIN exactly.partitions p ON p.id = m.partition_id
    LEFT JOIN exactly.redrives r ON r.dead_letter_id = m.message_id
    ORDER BY m.partition_id, m."offset";
END
$$;
