-- Redrive of dead letters: a dead-letter copy (see sql/R__consume.sql) is pushed again, through
-- the push engine, to the queue and partition named in its "x-exactly-dead-letter" header, under
-- the idempotency key 'redrive:' || <the copy's message id>. That key is new to the origin
-- partition, so the redriven message is never taken for a duplicate of the original (whose own
-- transactionId is likely still inside the partition's deduplication window); a retried redrive of
-- the same copy probes the same key and is answered duplicate. exactly.redrives records each
-- redriven copy (sql/V10__redrives.sql) so that "redrive all" moves on past it.

-- The dead-letter copies to redrive from dead-letter queue p_dlq: those named in p_ids (any order;
-- an id not stored in p_dlq is left out), or when p_ids is NULL the first p_limit copies not yet
-- redriven that carry a dead-letter header, by partition id and offset, no more payload bytes
-- than p_max_bytes (the first one always). Per copy: where it is, its origin (NULL when it carries no
-- dead-letter header, or one without queue and partition), the message id it was already redriven
-- to (NULL if never), and what the redriven message is pushed with: the copy's payload, content
-- type, trace id and its headers plus "x-exactly-redrive" (deadLetterId, deadLetterQueue,
-- deadLetterPartition, deadLetterOffset, messageId and transactionId of the original, redrivenAt,
-- count = the original's own redrive count + 1).
CREATE OR REPLACE FUNCTION exactly.redrive_candidates(p_dlq text, p_ids uuid[], p_limit integer, p_max_bytes bigint)
RETURNS TABLE (r_dead_letter_id uuid, r_dlq_partition_id bigint, r_dlq_partition text, r_dlq_offset bigint,
               r_origin_queue text, r_origin_partition text, r_redriven_to uuid,
               r_payload bytea, r_content_type text, r_headers text, r_trace_id text)
LANGUAGE plpgsql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
BEGIN
    -- PL/pgSQL rather than a parameterised SQL function, which Citus cannot plan once messages is
    -- distributed (sql/citus/distribute.sql). "All" takes the first p_limit copies by key and size
    -- alone (head), counts the byte budget over them (picked: the same copies as counting over
    -- every copy, in the same order) and reads the payloads of the picked ones only: on Citus each
    -- worker sends its own first p_limit keys, not the whole queue with its payloads.
    RETURN QUERY
    WITH p AS (
        SELECT p.id, p.name, p.data_start
        FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id
        WHERE q.name = p_dlq
    ), head AS (
        SELECT m.partition_id, m."offset", octet_length(m.payload) AS size
        FROM p JOIN exactly.messages m ON m.partition_id = p.id AND m."offset" >= p.data_start
        WHERE p_ids IS NULL AND m.headers ? 'x-exactly-dead-letter'
          AND NOT EXISTS (SELECT 1 FROM exactly.redrives r
                          WHERE r.dlq_partition_id = m.partition_id AND r.dlq_offset = m."offset")
        ORDER BY m.partition_id, m."offset"
        LIMIT p_limit
    ), picked AS (
        SELECT a.partition_id, a."offset"
        FROM (SELECT f.partition_id, f."offset", row_number() OVER w AS n, sum(f.size) OVER w AS bytes
              FROM head f
              WINDOW w AS (ORDER BY f.partition_id, f."offset")) a
        -- within the byte budget of one push; the first copy always
        WHERE a.n = 1 OR a.bytes <= p_max_bytes
    ), m AS (
        SELECT m.partition_id, m."offset", m.message_id, m.payload, m.content_type, m.headers, m.trace_id,
               p.name AS pname
        FROM exactly.messages m JOIN p ON p.id = m.partition_id
        WHERE p_ids IS NOT NULL AND m.message_id = ANY (p_ids)
        UNION ALL
        SELECT m.partition_id, m."offset", m.message_id, m.payload, m.content_type, m.headers, m.trace_id,
               p.name AS pname
        FROM picked k
        JOIN exactly.messages m ON m.partition_id = k.partition_id AND m."offset" = k."offset"
        JOIN p ON p.id = m.partition_id
    )
    SELECT m.message_id, m.partition_id, m.pname, m."offset",
           m.headers -> 'x-exactly-dead-letter' ->> 'queue',
           m.headers -> 'x-exactly-dead-letter' ->> 'partition',
           r.message_id,
           m.payload, m.content_type,
           (COALESCE(m.headers, '{}'::jsonb) || jsonb_build_object('x-exactly-redrive', jsonb_build_object(
               'deadLetterId', m.message_id, 'deadLetterQueue', p_dlq, 'deadLetterPartition', m.pname,
               'deadLetterOffset', m."offset",
               'messageId', m.headers -> 'x-exactly-dead-letter' -> 'messageId',
               'transactionId', m.headers -> 'x-exactly-dead-letter' -> 'transactionId',
               'redrivenAt', clock_timestamp(),
               'count', COALESCE((m.headers -> 'x-exactly-redrive' ->> 'count')::integer, 0) + 1)))::text,
           m.trace_id
    FROM m LEFT JOIN exactly.redrives r ON r.dead_letter_id = m.message_id
    ORDER BY m.partition_id, m."offset";
END
$$;

-- Records redriven copies (each once: a copy already recorded keeps its first record) and returns
-- how many copies of p_dlq remain not redriven.
CREATE OR REPLACE FUNCTION exactly.record_redrives(
    p_dlq text, p_dead_letter_ids uuid[], p_dlq_partition_ids bigint[], p_dlq_offsets bigint[],
    p_message_ids uuid[], p_queues text[], p_partitions text[])
RETURNS bigint
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
DECLARE
    v_remaining bigint;
BEGIN
    INSERT INTO exactly.redrives (dead_letter_id, dlq_partition_id, dlq_offset, message_id, origin_queue,
                                  origin_partition)
    SELECT * FROM unnest(p_dead_letter_ids, p_dlq_partition_ids, p_dlq_offsets, p_message_ids, p_queues,
                         p_partitions)
    ON CONFLICT DO NOTHING;
    SELECT COALESCE(sum(p.last_offset + 1 - p.data_start
                        - (SELECT count(*) FROM exactly.redrives r
                           WHERE r.dlq_partition_id = p.id AND r.dlq_offset >= p.data_start)), 0)::bigint
    INTO v_remaining
    FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id
    WHERE q.name = p_dlq;
    RETURN v_remaining;
END
$$;
