-- Retention: purges one partition's old message data and transaction hashes in a bounded step,
-- under the partition's row lock, and advances its watermarks.
--
-- Policy (the queue's options):
--   * message data is kept retention_seconds (0 = forever). The data watermark data_start
--     advances over the prefix of messages created before now - retention_seconds.
--   * a transaction hash is kept while its message data is kept, and at least
--     dedup_window_seconds: it is purged only once its offset is below data_start AND it was
--     created before now - dedup_window_seconds. So acks by transactionId resolve as long as the
--     data is there, and a hash inside the deduplication window is never purged. The purge
--     watermark txns_start advances over that prefix; the probe never looks below it.
--
-- Why the row lock makes the window edge exact: push_segment probes with clock_timestamp()
-- taken under the same lock. A purge step that held the lock at time T removed only hashes
-- created before T - window; any later probe runs at T' > T and looks only at hashes created at
-- or after T' - window > T - window. So no probe ever misses a hash that was inside its window.
-- A step locks exactly one partition row and touches only that partition's rows, so it never
-- blocks pushes to (or consumption of) other partitions, and holding a single lock it cannot
-- take part in a lock-order cycle.
--
-- Retention does not wait for consumers: a consumer group's cursor below data_start simply
-- moves up to it on its next pop.

-- Purges up to p_limit messages and up to p_limit hashes of partition p_pid in one step.
-- Returns what it purged, the new watermarks, and more = true when a limit was reached (call
-- again). No row when the partition does not exist.
CREATE OR REPLACE FUNCTION exactly.purge_partition(p_pid bigint, p_limit integer)
RETURNS TABLE (purged_messages integer, purged_hashes integer, data_watermark bigint, txns_watermark bigint,
               more boolean)
LANGUAGE plpgsql
-- index scans only, whatever the statistics (see sql/R__consume.sql)
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
DECLARE
    v_last      bigint;
    v_qid       bigint;
    v_data      bigint;
    v_txns      bigint;
    v_ret       integer;
    v_win       integer;
    v_now       timestamptz;
    v_new_data  bigint;
    v_new_txns  bigint;
    v_msgs      integer := 0;
    v_hashes    integer := 0;
BEGIN
    -- the row lock alone first (on Citus a single-shard statement), then the queue's options
    SELECT p.last_offset, p.data_start, p.txns_start, p.queue_id
    INTO v_last, v_data, v_txns, v_qid
    FROM exactly.partitions p
    WHERE p.id = p_pid
    FOR UPDATE;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    SELECT q.retention_seconds, q.dedup_window_seconds INTO v_ret, v_win FROM exactly.queues q WHERE q.id = v_qid;
    v_now := clock_timestamp();

    -- Data: the prefix of messages created before now - retention.
    v_new_data := v_data;
    IF v_ret > 0 AND v_data <= v_last THEN
        SELECT CASE WHEN count(*) = 0 THEN v_data
                    ELSE COALESCE(min(s.off) FILTER (WHERE s.at >= v_now - make_interval(secs => v_ret)),
                                  max(s.off) + 1) END
        INTO v_new_data
        FROM (SELECT m."offset" AS off, m.created_at AS at
              FROM exactly.messages m
              WHERE m.partition_id = p_pid AND m."offset" >= v_data
              ORDER BY m."offset"
              LIMIT p_limit) s;
        IF v_new_data > v_data THEN
            DELETE FROM exactly.messages m
            WHERE m.partition_id = p_pid AND m."offset" >= v_data AND m."offset" < v_new_data;
            GET DIAGNOSTICS v_msgs = ROW_COUNT;
        END IF;
    END IF;

    -- Hashes: the prefix below data_start whose hashes were created before now - window.
    v_new_txns := v_txns;
    IF v_txns < v_new_data THEN
        SELECT CASE WHEN count(*) = 0 THEN v_new_data
                    ELSE COALESCE(min(s.off) FILTER (WHERE v_win > 0
                                                       AND s.at >= v_now - make_interval(secs => v_win)),
                                  CASE WHEN count(*) < p_limit THEN v_new_data ELSE max(s.off) + 1 END) END
        INTO v_new_txns
        FROM (SELECT t."offset" AS off, t.created_at AS at
              FROM exactly.txn_hashes t
              WHERE t.partition_id = p_pid AND t."offset" >= v_txns AND t."offset" < v_new_data
                AND t."offset" >= 0 -- states txn_hashes_offset's predicate (V4)
              ORDER BY t."offset"
              LIMIT p_limit) s;
        IF v_new_txns > v_txns THEN
            DELETE FROM exactly.txn_hashes t
            WHERE t.partition_id = p_pid AND t."offset" >= v_txns AND t."offset" < v_new_txns
              AND t."offset" >= 0;
            GET DIAGNOSTICS v_hashes = ROW_COUNT;
        END IF;
    END IF;

    IF v_new_data <> v_data OR v_new_txns <> v_txns THEN
        UPDATE exactly.partitions p SET data_start = v_new_data, txns_start = v_new_txns WHERE p.id = p_pid;
    END IF;

    purged_messages := v_msgs;
    purged_hashes := v_hashes;
    data_watermark := v_new_data;
    txns_watermark := v_new_txns;
    more := v_msgs >= p_limit OR v_hashes >= p_limit;
    RETURN NEXT;
END
$$;

-- Deletes up to p_limit buckets of exactly.duplicate_counts that no stats read any more: those
-- that start before their queue's deduplication window (and those of a queue that is gone), oldest
-- first, in one short statement that adds the deleted counts of a queue still there to
-- exactly.duplicate_rollup, per UTC hour (sql/V22__duplicate_rollup.sql): a minute leaves one table
-- as it enters the other. Then deletes the rollup's hours older than the kept history (35 days).
-- Returns how many minute buckets it deleted; the maintenance job calls it until a step deletes
-- fewer than p_limit. No partition lock.
CREATE OR REPLACE FUNCTION exactly.purge_duplicate_counts(p_limit integer)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    -- read once: a distributed database (Citus) refuses volatile functions inside a modification
    v_now timestamptz := clock_timestamp();
    n     integer;
BEGIN
    WITH old AS (
        SELECT d.queue_id, d.bucket, q.id IS NOT NULL AS kept
        FROM exactly.duplicate_counts d
        LEFT JOIN exactly.queues q ON q.id = d.queue_id
        WHERE q.id IS NULL OR d.bucket < v_now - make_interval(secs => q.dedup_window_seconds)
        ORDER BY d.bucket
        LIMIT p_limit
    ), gone AS (
        DELETE FROM exactly.duplicate_counts d USING old
        WHERE d.queue_id = old.queue_id AND d.bucket = old.bucket
        RETURNING d.queue_id, d.bucket, d.duplicates, old.kept
    ), rolled AS (
        INSERT INTO exactly.duplicate_rollup AS r (queue_id, hour, duplicates)
        SELECT g.queue_id, date_trunc('hour', g.bucket, 'UTC'), sum(g.duplicates)
        FROM gone g
        WHERE g.kept
        GROUP BY 1, 2
        ORDER BY 1, 2
        ON CONFLICT (queue_id, hour) DO UPDATE SET duplicates = r.duplicates + EXCLUDED.duplicates
    )
    SELECT count(*) INTO n FROM gone;
    DELETE FROM exactly.duplicate_rollup r WHERE r.hour < v_now - interval '35 days';
    RETURN n;
END
$$;
