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

-- A destination worker's cycle in one statement (dev.exactly.destination.Dispatcher): acks the
-- batch it settled, then pops the group's next batch, as two statements would, in one
-- transaction. The ack: the messages p_message_ids of partition p_pid (p_queue, p_partition),
-- delivered under lease p_lease, completed (exactly.ack_batch, routed by p_pid; its answer is not
-- returned). The pop: exactly.pop of any partition of p_queue for p_group, without the queue's
-- retry limit (the destination counts its attempts itself), answered as exactly.pop answers; it
-- sees the ack, so it may lease p_pid again. Then the destination's figures (p_delivered,
-- p_failed, the latest error p_last_error at p_last_error_at, or NULL: kept as they are) and the
-- deletion of the attempts recorded for the acked offsets p_offsets, last, so that the figures'
-- one row per destination is locked for the shortest time. The transaction commits without
-- waiting for its WAL flush (the dispatcher's bookkeeping: a database crash repeats a delivery).
CREATE OR REPLACE FUNCTION exactly.destination_ack_and_pop(
    p_name          text,
    p_pid           bigint,
    p_queue         text,
    p_partition     text,
    p_group         text,
    p_lease         uuid,
    p_message_ids   uuid[],
    p_offsets       bigint[],
    p_delivered     bigint,
    p_failed        bigint,
    p_last_error    text,
    p_last_error_at timestamptz,
    p_batch         integer,
    p_lease_seconds integer,
    p_max_bytes     bigint)
RETURNS TABLE (partition_id bigint, partition_name text, "offset" bigint, message_id uuid, transaction_id text,
               payload bytea, content_type text, headers text, trace_id text, created_at timestamptz,
               attempts integer, lease_id uuid, lease_expires_at timestamptz)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    n integer := COALESCE(cardinality(p_message_ids), 0);
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    IF n > 0 THEN
        PERFORM 1 FROM exactly.ack_batch('{}', '{}', array_fill(p_queue, ARRAY[n]), array_fill(p_partition, ARRAY[n]),
                                         array_fill(p_group, ARRAY[n]), array_fill(p_lease, ARRAY[n]), p_message_ids,
                                         array_fill(NULL::bytea, ARRAY[n]), array_fill('completed'::text, ARRAY[n]),
                                         array_fill(NULL::text, ARRAY[n]), array_fill(NULL::uuid, ARRAY[n]),
                                         array_fill(NULL::bytea, ARRAY[n]), p_pid);
    END IF;
    RETURN QUERY SELECT * FROM exactly.pop(p_queue, NULL, p_group, p_batch, p_lease_seconds, p_max_bytes,
                                           '{}', '{}', NULL, true);
    IF cardinality(p_offsets) > 0 THEN
        DELETE FROM exactly.destination_attempts a
        WHERE a.destination = p_name AND a.partition_id = p_pid AND a."offset" = ANY(p_offsets);
    END IF;
    IF p_delivered <> 0 OR p_failed <> 0 OR p_last_error IS NOT NULL THEN
        UPDATE exactly.destination_state s
        SET delivered = s.delivered + p_delivered, failed_attempts = s.failed_attempts + p_failed,
            last_error = COALESCE(p_last_error, s.last_error),
            last_error_at = CASE WHEN p_last_error IS NULL THEN s.last_error_at ELSE p_last_error_at END
        WHERE s.name = p_name;
    END IF;
END
$$;
