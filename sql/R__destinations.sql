-- Destinations defined through the API (exactly.destinations, sql/V21__destinations.sql and
-- sql/V24__destination_types.sql).

-- Creates destination p_name on queue p_queue, or replaces its settings when it already belongs to
-- that queue. One row: created is true for a new destination, false for a replaced one; no row
-- when the name belongs to a destination of another queue (nothing changes then). The AWS fields
-- (p_queue_url ... p_endpoint) are null for an http destination, p_url for the others. p_ordered
-- false: the messages of a leased batch are sent at once (sql/V26__destination_ordered.sql).
DROP FUNCTION IF EXISTS exactly.put_destination(text, text, text, text, text, integer, integer, integer, integer,
                                                text, text, text, text, text, text);
CREATE OR REPLACE FUNCTION exactly.put_destination(
    p_name text, p_queue text, p_type text, p_url text, p_signing_secret text,
    p_timeout_ms integer, p_max_attempts integer, p_backoff_ms integer, p_backoff_cap_ms integer,
    p_queue_url text, p_event_bus text, p_source text, p_detail_type text, p_region text, p_endpoint text,
    p_ordered boolean)
RETURNS TABLE (created boolean)
LANGUAGE sql AS $$
    INSERT INTO exactly.destinations AS d (name, queue, type, url, signing_secret, timeout_ms, max_attempts,
                                           backoff_ms, backoff_cap_ms, queue_url, event_bus, source, detail_type,
                                           region, endpoint, ordered)
    VALUES (p_name, p_queue, p_type, p_url, p_signing_secret, p_timeout_ms, p_max_attempts,
            p_backoff_ms, p_backoff_cap_ms, p_queue_url, p_event_bus, p_source, p_detail_type, p_region, p_endpoint,
            p_ordered)
    ON CONFLICT (name) DO UPDATE SET
        type = EXCLUDED.type, url = EXCLUDED.url, signing_secret = EXCLUDED.signing_secret,
        timeout_ms = EXCLUDED.timeout_ms, max_attempts = EXCLUDED.max_attempts,
        backoff_ms = EXCLUDED.backoff_ms, backoff_cap_ms = EXCLUDED.backoff_cap_ms,
        queue_url = EXCLUDED.queue_url, event_bus = EXCLUDED.event_bus, source = EXCLUDED.source,
        detail_type = EXCLUDED.detail_type, region = EXCLUDED.region, endpoint = EXCLUDED.endpoint,
        ordered = EXCLUDED.ordered
        WHERE d.queue = EXCLUDED.queue
    RETURNING (xmax = 0)
$$;

-- Before a replay (dev.exactly.destination.DestinationReplays): locks the group's cursor rows of
-- the queue's partitions (of partition p_partition alone when it is not null) in ascending
-- partition id, the lock order of sql/R__consume.sql; a partition without the group's cursor has
-- none to lock. One row per statement: on Citus each is one shard's (a multi-shard
-- SELECT ... FOR UPDATE is refused there).
CREATE OR REPLACE FUNCTION exactly.lock_group_cursors(p_queue text, p_group text, p_partition text)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_pid bigint;
BEGIN
    FOR v_pid IN
        SELECT n.id FROM exactly.partition_names n JOIN exactly.queues q ON q.id = n.queue_id
        WHERE q.name = p_queue AND (p_partition IS NULL OR n.name = p_partition) ORDER BY n.id
    LOOP
        PERFORM 1 FROM exactly.consumer_cursors c WHERE c.partition_id = v_pid AND c.consumer_group = p_group
        FOR UPDATE;
    END LOOP;
END
$$;
