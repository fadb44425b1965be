-- Consumption: consumer groups read a partition in offset order under a lease (ordered,
-- at-least-once), ack each message, and failed messages are retried, then dead-lettered.
--
-- Lock order, the one global order shared with exactly.push_bundle and retention:
--   1. partition rows (exactly.partitions, SELECT ... FOR UPDATE) in ascending id;
--   2. then consumer cursor rows (exactly.consumer_cursors) in ascending (partition_id, consumer_group).
-- pop takes cursor rows with SKIP LOCKED, so it never waits for another consumer. It takes a
-- partition row (a dead-letter partition) only when it may have to dead-letter a message whose
-- deliveries are used up: before the cursor row, and waiting for it only while it holds no other
-- lock (else with SKIP LOCKED), so it never waits holding a lock and cannot close a cycle.
-- ack_batch takes the partition rows it may write to (dead-letter partitions,
-- plus a transaction's push partitions) before any cursor row. exactly.deliveries rows are only
-- read or written by the holder of their cursor row's lock. Retention takes one partition row and
-- no cursor row.
--
-- Every function here runs with sequential and bitmap scans off: their plans must not hinge on
-- table statistics (a plan cached while a table was small would scan it whole later); each
-- query has an index path (as for exactly.push_segment).
--
-- Deliveries: deliveries.attempts counts the deliveries of a message to a group that have ended,
-- by an ack (any status) or by the expiry of the lease that delivered it unacked (charged by the
-- next pop of the partition). Pop answers attempts + 1, the number of the delivery it makes (as
-- SQS's ApproximateReceiveCount does; a task's attempts counts claims the same way). A message is
-- delivered at most 1 + retry_limit times: the failed ack, or the expired lease, of its last
-- delivery dead-letters it.
--
-- Dead-letter queue: a message of queue Q, partition P goes to queue exactly.dead_letter_queue(Q),
-- "Q.dlq" when that fits the 255-character name rule, partition P (both
-- created on first use, with default options). The copy has the original payload, content type
-- and trace id; its transactionId is its own new message id; its headers are the original's
-- plus "x-exactly-dead-letter" (origin queue, partition, offset, messageId, transactionId,
-- consumerGroup, attempts, status, error, deadLetteredAt).

-- The dead-letter queue of queue p_queue: "<p_queue>.dlq" when that is at most 255 characters (the
-- name rule of every queue), else the first 234 characters of p_queue, "-", the first 16 hex
-- digits of the SHA-256 of p_queue (UTF-8) and ".dlq": 255 characters. So every queue's dead-letter
-- queue, a dead-letter queue's own included, is a valid name that every route accepts.
CREATE OR REPLACE FUNCTION exactly.dead_letter_queue(p_queue text)
RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT CASE WHEN length(p_queue) <= 251 THEN p_queue || '.dlq'
                ELSE left(p_queue, 234) || '-' || left(encode(sha256(convert_to(p_queue, 'UTF8')), 'hex'), 16) || '.dlq'
           END
$$;

-- Moves a group's cursor past every settled offset and past purged data (data_start), deletes
-- delivery rows below it, and returns the new next_offset. Caller holds the cursor row lock.
CREATE OR REPLACE FUNCTION exactly.advance_cursor(p_pid bigint, p_group text)
RETURNS bigint
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
DECLARE
    v_next  bigint;
    v_from  bigint;
    v_new   bigint;
BEGIN
    SELECT c.next_offset INTO v_next
    FROM exactly.consumer_cursors c WHERE c.partition_id = p_pid AND c.consumer_group = p_group;
    SELECT GREATEST(v_next, p.data_start) INTO v_from FROM exactly.partitions p WHERE p.id = p_pid;
    -- the first offset at or above v_from that is not settled (settled rows may follow an
    -- offset that waits for a retry; the cursor stops at that offset)
    SELECT min(s.x) INTO v_new
    FROM (SELECT v_from AS x
          UNION ALL
          SELECT d."offset" + 1 FROM exactly.deliveries d
          WHERE d.partition_id = p_pid AND d.consumer_group = p_group AND d."offset" >= v_from AND d.settled) s
    WHERE NOT EXISTS (SELECT 1 FROM exactly.deliveries d
                      WHERE d.partition_id = p_pid AND d.consumer_group = p_group
                        AND d."offset" = s.x AND d.settled);
    IF v_new > v_next THEN
        UPDATE exactly.consumer_cursors c SET next_offset = v_new
        WHERE c.partition_id = p_pid AND c.consumer_group = p_group;
        DELETE FROM exactly.deliveries d
        WHERE d.partition_id = p_pid AND d.consumer_group = p_group AND d."offset" < v_new;
    END IF;
    RETURN v_new;
END
$$;

-- exactly.pop_many (exactly.pop_due below is it for one partition, exactly.pop the same without
-- more_due): leases up to p_max_partitions partitions of p_queue to the caller for p_group, each
-- under its own lease, and returns up to p_batch messages of each, a partition's rows together
-- and in offset order, each with its partition's lease. Each partition is leased by the rules
-- below as a pop of one would lease it (its own byte budget, expired lease, retry delay); the
-- partitions come from one look at the candidates, which the caller's transaction keeps locked
-- until it ends, so two callers never lease the same partition. p_partition NULL: any partition of the queue that is not
-- leased (or whose lease expired), not waiting for a retry delay, and has undelivered messages,
-- least recently leased first. Nothing available (or no such queue): no rows.
--   p_lease_seconds: lease length; NULL takes the queue's lease_time.
--   p_max_bytes: byte budget of the answer; NULL for none. Messages are taken in offset order
--     while the running sum of their answer sizes stays within it, counted from column sizes
--     (octet_length of a bytea reads its TOAST pointer, not its data, so rows left out are never
--     read): a payload at its base64 length (4 * ceil(n / 3), which also bounds it inlined as
--     JSON), the kept headers as JSON text, the text fields at six times their bytes (JSON's
--     worst escape, \u00XX) and 1024 bytes for the other fields and their names. The first
--     message is returned even when it alone is over the budget, so a partition always drains.
--   p_dlq_ids / p_dlq_hashes: ids (UUIDv7) and hashes of their text for the dead-letter copies
--     this pop may write (see below); at most that many are written.
--   p_pid: NULL, or the id of the partition p_partition names (the caller learnt it): then only
--     that partition is looked at, and every read is of its own rows (exactly.pop_partition).
--   p_no_retry_limit: true for a group that counts its attempts and dead-letters on its own (a
--     destination's, dev.exactly.destination.Dispatcher): the queue's retry_limit does not apply,
--     so this pop dead-letters nothing into the queue's dead-letter queue (an expired lease still
--     ends a delivery of what it held, and attempts still grow).
--   p_max_partitions: the most partitions leased (NULL or below 1: one; one for p_pid).
-- more_due (the same on every row of a partition; the last row's answers for the whole call):
-- another partition was due besides those leased (among the first 16, or p_max_partitions + 1,
-- candidates looked at; it may be taken by another consumer by then). A caller may start another
-- consumer only then. Always false for p_pid. more_here: the row's partition had messages past
-- the last one leased when the pop looked (some may be settled already).
-- exactly.read_early (a setting local to the transaction) is 'true' once the pop leased a message
-- that a push committed before its WAL flush may have left unflushed (partitions.early_to, V29):
-- a caller that lets its own commit skip the flush (a destination's, ConsumeRepository) keeps the
-- flush then, so that nothing is delivered before it is durable.
-- Messages settled for the group are skipped; unsettled messages of an expired lease are
-- delivered again (at-least-once). attempts = the number of this delivery of the message to the
-- group (1 the first time).
-- An expired lease found here ends a delivery of each message it delivered and that was not
-- acked under it: its attempts grow by one. A message whose deliveries are used up (attempts >
-- retry_limit) is dead-lettered here, in offset order, before anything is delivered; when this
-- pop cannot (no dead-letter id left, or the dead-letter partition busy while this pop already
-- holds a lock) it delivers only the messages before it, and a later pop dead-letters it.
DROP FUNCTION IF EXISTS exactly.pop(text, text, text, integer, integer);
DROP FUNCTION IF EXISTS exactly.pop(text, text, text, integer, integer, bigint, uuid[], bytea[]);
DROP FUNCTION IF EXISTS exactly.pop(text, text, text, integer, integer, bigint, uuid[], bytea[], bigint);
CREATE OR REPLACE FUNCTION exactly.pop_many(
    p_queue            text,
    p_partition        text,
    p_group            text,
    p_batch            integer,
    p_lease_seconds    integer,
    p_max_bytes        bigint  DEFAULT NULL,
    p_dlq_ids          uuid[]  DEFAULT '{}',
    p_dlq_hashes       bytea[] DEFAULT '{}',
    p_pid              bigint  DEFAULT NULL,
    p_no_retry_limit   boolean DEFAULT false,
    p_max_partitions   integer DEFAULT 1)
RETURNS TABLE (partition_id bigint, partition_name text, "offset" bigint, message_id uuid, transaction_id text, payload bytea,
               content_type text, headers text, trace_id text, created_at timestamptz, attempts integer,
               lease_id uuid, lease_expires_at timestamptz, more_due boolean, more_here boolean)
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
#variable_conflict use_column
DECLARE
    v_qid      bigint;
    v_lease    integer;
    v_limit    integer;
    v_dlq_name text;
    v_now      timestamptz := clock_timestamp();
    v_cand     record;
    v_next     record;
    v_more     boolean;
    v_cands    refcursor;
    v_cur      exactly.consumer_cursors%ROWTYPE;
    v_data     bigint;
    v_start    bigint;
    v_stop     bigint;
    v_lease_id uuid;
    v_expires  timestamptz;
    v_rows     integer;
    v_locked   boolean := false;
    v_dlq_pid  bigint;
    v_used     integer := 0;
    v_ids      integer := COALESCE(cardinality(p_dlq_ids), 0);
    v_exp      record;
    v_copy     uuid;
    v_leased   integer := 0;
    v_want     integer := CASE WHEN p_pid IS NULL THEN GREATEST(COALESCE(p_max_partitions, 1), 1) ELSE 1 END;
    v_early    boolean := false;
    v_plain    boolean := to_regproc('pg_catalog.citus_version') IS NULL; -- on Citus nothing commits early
BEGIN
    SELECT q.id, q.lease_time, q.retry_limit INTO v_qid, v_lease, v_limit
    FROM exactly.queues q WHERE q.name = p_queue;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    v_lease := COALESCE(p_lease_seconds, v_lease);
    IF p_no_retry_limit THEN
        v_limit := NULL; -- no limit: steps 1 and 3 dead-letter nothing (and read no dead-letter queue name)
    ELSE
        v_dlq_name := exactly.dead_letter_queue(p_queue);
    END IF;

    -- candidates: the hinted partition alone (a query that reads its rows only), or any of the queue
    IF p_pid IS NOT NULL THEN
        OPEN v_cands FOR
        SELECT p.id AS pid, p.name AS pname, c.partition_id IS NULL AS missing, c.next_offset AS next_offset,
               c.lease_id AS lid, c.lease_from AS lo, c.lease_to AS hi, p.last_offset AS last
        FROM exactly.partitions p
        LEFT JOIN exactly.consumer_cursors c ON c.partition_id = p.id AND c.consumer_group = p_group
        WHERE p_pid IS NOT NULL AND p.id = p_pid AND p.queue_id = v_qid AND p.name = p_partition
          AND p.last_offset >= GREATEST(COALESCE(c.next_offset, 0), p.data_start)
          AND (c.partition_id IS NULL
               OR ((c.lease_id IS NULL OR c.lease_expires_at <= v_now) AND c.available_at <= v_now));
    ELSE
        OPEN v_cands FOR
        SELECT p.id AS pid, p.name AS pname, c.partition_id IS NULL AS missing, c.next_offset AS next_offset,
               c.lease_id AS lid, c.lease_from AS lo, c.lease_to AS hi, p.last_offset AS last
        FROM exactly.partitions p
        LEFT JOIN exactly.consumer_cursors c ON c.partition_id = p.id AND c.consumer_group = p_group
        WHERE p.queue_id = v_qid
          AND (p_partition IS NULL OR p.name = p_partition)
          AND p.last_offset >= GREATEST(COALESCE(c.next_offset, 0), p.data_start)
          AND (c.partition_id IS NULL
               OR ((c.lease_id IS NULL OR c.lease_expires_at <= v_now) AND c.available_at <= v_now))
        ORDER BY c.leased_at ASC NULLS FIRST, p.id
        LIMIT GREATEST(16, v_want + 1);
    END IF;
    -- one candidate ahead: whether another partition was due besides those leased (more_due)
    FETCH v_cands INTO v_next;
    v_more := FOUND;
    LOOP
        EXIT WHEN NOT v_more;
        v_cand := v_next;
        FETCH v_cands INTO v_next;
        v_more := FOUND;
        -- 1. May this pop dead-letter here? Predicted without locks (the lock order puts the
        --    dead-letter partition row before the cursor row): a message the expired lease
        --    delivered for the last time, or one whose deliveries are used up already.
        v_dlq_pid := NULL;
        IF v_limit IS NOT NULL AND NOT v_cand.missing AND v_ids > v_used AND (
               (v_cand.lid IS NOT NULL AND (v_limit = 0 OR EXISTS (
                    SELECT 1 FROM exactly.deliveries d
                    WHERE d.partition_id = v_cand.pid AND d.consumer_group = p_group
                      AND d."offset" BETWEEN v_cand.lo AND v_cand.hi
                      AND NOT d.settled AND d.attempts >= v_limit)))
            OR EXISTS (SELECT 1 FROM exactly.deliveries d
                       WHERE d.partition_id = v_cand.pid AND d.consumer_group = p_group
                         AND d."offset" >= v_cand.next_offset AND NOT d.settled AND d.attempts > v_limit)) THEN
            IF NOT v_locked THEN
                -- holding no lock, waiting for the partition row cannot close a cycle
                PERFORM exactly.ensure_partitions(ARRAY[v_dlq_name], ARRAY[v_cand.pname]);
                v_dlq_pid := exactly.partition_id(v_dlq_name, v_cand.pname);
                SELECT p.id INTO v_dlq_pid FROM exactly.partitions p WHERE p.id = v_dlq_pid FOR UPDATE;
                v_locked := true;
            ELSE
                v_dlq_pid := exactly.partition_id(v_dlq_name, v_cand.pname);
                SELECT p.id INTO v_dlq_pid FROM exactly.partitions p WHERE p.id = v_dlq_pid FOR UPDATE SKIP LOCKED;
            END IF;
        END IF;

        -- a destination's group ('destination:<name>', sql/V21__destinations.sql) gets a cursor only
        -- while the destination exists: a pop of a destination deleted meanwhile (its instance has not
        -- read the delete yet) must not start its group again from the partition's first offset
        IF v_cand.missing AND (left(p_group, 12) <> 'destination:'
                               OR EXISTS (SELECT 1 FROM exactly.destination_state s WHERE s.name = substr(p_group, 13))) THEN
            INSERT INTO exactly.consumer_cursors (partition_id, consumer_group) VALUES (v_cand.pid, p_group)
            ON CONFLICT DO NOTHING;
        END IF;
        -- another consumer busy with this cursor (leasing or acking) is skipped, never waited for
        v_cur := NULL;
        SELECT * INTO v_cur FROM exactly.consumer_cursors c
        WHERE c.partition_id = v_cand.pid AND c.consumer_group = p_group
          AND (c.lease_id IS NULL OR c.lease_expires_at <= v_now) AND c.available_at <= v_now
        FOR UPDATE SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;
        v_locked := true;

        -- 2. An expired lease: every message it delivered that was not acked under it has ended
        --    a delivery. The lease is gone (an ack under it is now a lease-mismatch).
        IF v_cur.lease_id IS NOT NULL THEN
            SELECT p.data_start INTO v_data FROM exactly.partitions p WHERE p.id = v_cand.pid;
            INSERT INTO exactly.deliveries AS d (partition_id, consumer_group, "offset", attempts, settled,
                                                 last_outcome, last_error)
            SELECT v_cand.pid, p_group, m."offset", 1, false, 'lease-expired', 'lease expired'
            FROM exactly.messages m
            LEFT JOIN exactly.deliveries x
                   ON x.partition_id = m.partition_id AND x.consumer_group = p_group AND x."offset" = m."offset"
            WHERE m.partition_id = v_cand.pid
              AND m."offset" BETWEEN GREATEST(v_cur.lease_from, v_data) AND v_cur.lease_to
              AND x.settled IS NOT TRUE AND x.acked_lease IS DISTINCT FROM v_cur.lease_id
            ON CONFLICT ON CONSTRAINT deliveries_pkey DO UPDATE
            SET attempts = d.attempts + 1, last_outcome = 'lease-expired', last_error = 'lease expired';
            UPDATE exactly.consumer_cursors c
            SET lease_id = NULL, lease_from = NULL, lease_to = NULL, lease_expires_at = NULL
            WHERE c.partition_id = v_cand.pid AND c.consumer_group = p_group;
        END IF;

        -- 3. Dead-letter the messages whose deliveries are used up, in offset order; stop
        --    delivering before the first one this pop cannot dead-letter.
        v_start := exactly.advance_cursor(v_cand.pid, p_group);
        v_stop := NULL;
        FOR v_exp IN
            SELECT d."offset" AS off, d.attempts AS att, d.last_outcome AS how, d.last_error AS err
            FROM exactly.deliveries d
            WHERE d.partition_id = v_cand.pid AND d.consumer_group = p_group AND d."offset" >= v_start
              AND NOT d.settled AND d.attempts > v_limit AND v_limit IS NOT NULL
            ORDER BY d."offset"
        LOOP
            IF v_dlq_pid IS NULL OR v_used >= v_ids THEN
                v_stop := v_exp.off;
                EXIT;
            END IF;
            v_used := v_used + 1;
            v_copy := exactly.dead_letter(v_cand.pid, v_exp.off, p_queue, v_cand.pname, p_group, v_exp.att,
                                          CASE WHEN v_exp.how = 'lease-expired' THEN 'lease-expired' ELSE 'failed' END,
                                          v_exp.err, p_dlq_ids[v_used], p_dlq_hashes[v_used]);
            UPDATE exactly.deliveries d
            SET settled = true, last_outcome = 'dead-lettered', dead_letter_id = v_copy
            WHERE d.partition_id = v_cand.pid AND d.consumer_group = p_group AND d."offset" = v_exp.off;
        END LOOP;
        IF v_used > 0 THEN
            v_start := exactly.advance_cursor(v_cand.pid, p_group);
        END IF;
        v_stop := COALESCE(v_stop, 9223372036854775807);

        -- 4. Lease the next messages, within the byte budget.
        v_lease_id := gen_random_uuid();
        v_expires := v_now + make_interval(secs => v_lease);
        RETURN QUERY
        WITH cand AS (
            SELECT m."offset" AS off, COALESCE(d.attempts, 0) AS att,
                   4 * ((octet_length(m.payload)::bigint + 2) / 3)
                   + COALESCE(octet_length(m.headers::text), 0)
                   + 6 * (octet_length(m.transaction_id) + COALESCE(octet_length(m.trace_id), 0)
                          + COALESCE(octet_length(m.content_type), 0))
                   + 1024 AS size
            FROM exactly.messages m
            LEFT JOIN exactly.deliveries d
                   ON d.partition_id = m.partition_id AND d.consumer_group = p_group AND d."offset" = m."offset"
            WHERE m.partition_id = v_cand.pid AND m."offset" >= v_start AND m."offset" < v_stop
              AND d.settled IS NOT TRUE
            ORDER BY m."offset"
            LIMIT p_batch
        ), sel AS (
            SELECT w.off, w.att
            FROM (SELECT c.off, c.att,
                         sum(c.size) OVER (ORDER BY c.off ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS total,
                         row_number() OVER (ORDER BY c.off) AS n
                  FROM cand c) w
            WHERE w.n = 1 OR p_max_bytes IS NULL OR w.total <= p_max_bytes
        ), upd AS (
            UPDATE exactly.consumer_cursors c
            SET lease_id = v_lease_id,
                lease_from = v_start,
                lease_to = (SELECT max(s.off) FROM sel s),
                lease_expires_at = v_expires,
                leased_at = v_now
            WHERE c.partition_id = v_cand.pid AND c.consumer_group = p_group AND EXISTS (SELECT 1 FROM sel)
        )
        SELECT v_cand.pid, v_cand.pname, m."offset", m.message_id, m.transaction_id, m.payload, m.content_type,
               m.headers::text, m.trace_id, m.created_at, s.att + 1, v_lease_id, v_expires, v_more,
               (SELECT max(x.off) FROM sel x) < v_cand.last
        FROM sel s
        JOIN exactly.messages m ON m.partition_id = v_cand.pid AND m."offset" = s.off
        ORDER BY s.off;
        GET DIAGNOSTICS v_rows = ROW_COUNT;
        IF v_rows > 0 THEN
            -- 5. Did it lease a message that a commit before its WAL flush wrote? Read after the
            --    lease, so this snapshot sees the partition row of every push whose messages the
            --    lease saw (early_to: sql/R__push.sql, "Commit before the WAL flush").
            IF v_plain AND NOT v_early AND EXISTS (SELECT 1 FROM exactly.partitions p
                                       WHERE p.id = v_cand.pid AND p.early_to >= v_start) THEN
                v_early := true;
                PERFORM set_config('exactly.read_early', 'true', true);
            END IF;
            v_leased := v_leased + 1;
            IF v_leased >= v_want THEN
                RETURN;
            END IF;
        END IF;
    END LOOP;
END
$$;

-- exactly.pop_many for one partition, as its answer has always been (for consumers' SQL callers, and
-- for an earlier version of the service, whose repeatable migration re-creates this function).
CREATE OR REPLACE FUNCTION exactly.pop_due(
    p_queue          text,
    p_partition      text,
    p_group          text,
    p_batch          integer,
    p_lease_seconds  integer,
    p_max_bytes      bigint  DEFAULT NULL,
    p_dlq_ids        uuid[]  DEFAULT '{}',
    p_dlq_hashes     bytea[] DEFAULT '{}',
    p_pid            bigint  DEFAULT NULL,
    p_no_retry_limit boolean DEFAULT false)
RETURNS TABLE (partition_id bigint, partition_name text, "offset" bigint, message_id uuid, transaction_id text, payload bytea,
               content_type text, headers text, trace_id text, created_at timestamptz, attempts integer,
               lease_id uuid, lease_expires_at timestamptz, more_due boolean, more_here boolean)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY SELECT d.partition_id, d.partition_name, d."offset", d.message_id, d.transaction_id, d.payload,
                        d.content_type, d.headers, d.trace_id, d.created_at, d.attempts, d.lease_id, d.lease_expires_at,
                        d.more_due, d.more_here
                 FROM exactly.pop_many(p_queue, p_partition, p_group, p_batch, p_lease_seconds, p_max_bytes,
                                       p_dlq_ids, p_dlq_hashes, p_pid, p_no_retry_limit, 1) d;
END
$$;

-- exactly.pop_due without more_due: the pop's answer as it was before more_due (for SQL callers,
-- and for an earlier version of the service, whose repeatable migration re-creates this function).
CREATE OR REPLACE FUNCTION exactly.pop(
    p_queue          text,
    p_partition      text,
    p_group          text,
    p_batch          integer,
    p_lease_seconds  integer,
    p_max_bytes      bigint  DEFAULT NULL,
    p_dlq_ids        uuid[]  DEFAULT '{}',
    p_dlq_hashes     bytea[] DEFAULT '{}',
    p_pid            bigint  DEFAULT NULL,
    p_no_retry_limit boolean DEFAULT false)
RETURNS TABLE (partition_id bigint, partition_name text, "offset" bigint, message_id uuid, transaction_id text, payload bytea,
               content_type text, headers text, trace_id text, created_at timestamptz, attempts integer,
               lease_id uuid, lease_expires_at timestamptz)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY SELECT d.partition_id, d.partition_name, d."offset", d.message_id, d.transaction_id, d.payload,
                        d.content_type, d.headers, d.trace_id, d.created_at, d.attempts, d.lease_id, d.lease_expires_at
                 FROM exactly.pop_many(p_queue, p_partition, p_group, p_batch, p_lease_seconds, p_max_bytes,
                                       p_dlq_ids, p_dlq_hashes, p_pid, p_no_retry_limit, 1) d;
END
$$;

-- A pop of one named partition whose id the caller learnt (a pop's or a push's answer names
-- it): exactly.pop_due limited to partition p_pid, which must be partition p_partition of p_queue
-- (else nothing is answered). Its first argument is the partition id so that on Citus
-- (sql/citus/distribute.sql) the call runs whole on the node holding the partition.
DROP FUNCTION IF EXISTS exactly.pop_partition(bigint, text, text, text, integer, integer, bigint, uuid[], bytea[]);
CREATE OR REPLACE FUNCTION exactly.pop_partition(
    p_pid            bigint,
    p_queue          text,
    p_partition      text,
    p_group          text,
    p_batch          integer,
    p_lease_seconds  integer,
    p_max_bytes      bigint,
    p_dlq_ids        uuid[],
    p_dlq_hashes     bytea[],
    p_no_retry_limit boolean DEFAULT false)
RETURNS TABLE (partition_id bigint, partition_name text, "offset" bigint, message_id uuid, transaction_id text,
               payload bytea, content_type text, headers text, trace_id text, created_at timestamptz,
               attempts integer, lease_id uuid, lease_expires_at timestamptz)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY SELECT d.partition_id, d.partition_name, d."offset", d.message_id, d.transaction_id, d.payload,
                        d.content_type, d.headers, d.trace_id, d.created_at, d.attempts, d.lease_id, d.lease_expires_at
                 FROM exactly.pop_many(p_queue, p_partition, p_group, p_batch, p_lease_seconds, p_max_bytes,
                                       p_dlq_ids, p_dlq_hashes, p_pid, p_no_retry_limit, 1) d;
END
$$;

-- The offset an ack by transactionId means, in partition p_pid for p_group: among the stored
-- hashes equal to p_hash (XXH3-128 of the transactionId), the lowest offset delivered under
-- p_lease (the group's current lease, or its last released one), else the lowest offset. NULL
-- when the hash is not stored (never pushed, or purged by retention).
-- Several offsets share a hash only when a transactionId was pushed again with the window at 0
-- or after it passed. The answer never depends on what was acked already: a repeated ack must
-- name the same message (a replay), never move on to the next one sharing the transactionId,
-- which would settle a message nobody processed. The others are acked by messageId, or by
-- transactionId once the first is settled and they come back under a later lease (at-least-once:
-- a redelivery, never a loss).
CREATE OR REPLACE FUNCTION exactly.resolve_offset(p_pid bigint, p_group text, p_lease uuid, p_hash bytea)
RETURNS bigint
LANGUAGE plpgsql STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
BEGIN
    RETURN (SELECT t."offset"
    FROM exactly.txn_hashes t
    LEFT JOIN exactly.consumer_cursors c ON c.partition_id = p_pid AND c.consumer_group = p_group
    WHERE t.partition_id = p_pid AND t.hash = p_hash
    ORDER BY CASE WHEN (c.lease_id = p_lease AND t."offset" BETWEEN c.lease_from AND c.lease_to)
                    OR (c.prev_lease_id = p_lease AND t."offset" BETWEEN c.prev_lease_from AND c.prev_lease_to)
                  THEN 0 ELSE 1 END,
             t."offset"
    LIMIT 1);
END
$$;

-- Copies message (p_pid, p_offset) into the dead-letter queue (dead_letter_queue(p_queue), p_partition)
-- with push_segment (no probe: the copy's transactionId is its own new id p_id, hash p_hash; the
-- copy keeps the original's payload digest).
-- The caller holds the dead-letter partition's row lock (ack_batch takes it first). Returns the
-- copy's message id, or NULL when the original's data was already purged by retention.
CREATE OR REPLACE FUNCTION exactly.dead_letter(
    p_pid bigint, p_offset bigint, p_queue text, p_partition text, p_group text, p_attempts integer,
    p_status text, p_error text, p_id uuid, p_hash bytea)
RETURNS uuid
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
DECLARE
    v_msg  exactly.messages%ROWTYPE;
    v_dlq  bigint;
    v_id   uuid;
BEGIN
    SELECT * INTO v_msg FROM exactly.messages m WHERE m.partition_id = p_pid AND m."offset" = p_offset;
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    v_dlq := exactly.partition_id(exactly.dead_letter_queue(p_queue), p_partition);
    IF v_dlq IS NULL THEN
        -- ack_batch predicted no dead-lettering for this item when it took its locks; see there
        -- why that cannot happen. Kept total rather than failing.
        PERFORM exactly.ensure_partitions(ARRAY[exactly.dead_letter_queue(p_queue)], ARRAY[p_partition]);
        v_dlq := exactly.partition_id(exactly.dead_letter_queue(p_queue), p_partition);
    END IF;
    SELECT r.message_id INTO v_id
    FROM exactly.push_segment(v_dlq, -1, 0, ARRAY[p_hash], ARRAY[false], ARRAY[p_id], ARRAY[p_id::text],
                              ARRAY[v_msg.payload], ARRAY[v_msg.content_type],
                              ARRAY[(COALESCE(v_msg.headers, '{}'::jsonb) || jsonb_build_object(
                                  'x-exactly-dead-letter', jsonb_build_object(
                                      'queue', p_queue, 'partition', p_partition, 'offset', p_offset,
                                      'messageId', v_msg.message_id, 'transactionId', v_msg.transaction_id,
                                      'consumerGroup', p_group, 'attempts', p_attempts, 'status', p_status,
                                      'error', p_error, 'deadLetteredAt', clock_timestamp())))::text],
                              ARRAY[v_msg.trace_id],
                              -- a copy is keyed by its own new id and kept in its origin's partition
                              -- name, whatever the dead-letter queue's spreadPartitions says
                              p_spread => NULL,
                              -- the copy carries the original's payload, so its digest too
                              p_digests => ARRAY[v_msg.payload_digest]) r;
    RETURN v_id;
END
$$;

-- The partition a key is routed to in a queue that spreads by key over p_n partitions:
-- 'spread-' || (the high 64 bits of its 16-byte transaction hash, big-endian, unsigned) mod p_n,
-- the rule of dev.exactly.engine.KeySpread (SpreadPartitionsTest checks that both agree).
CREATE OR REPLACE FUNCTION exactly.spread_partition(p_hash bytea, p_n integer)
RETURNS text
LANGUAGE sql
IMMUTABLE STRICT
AS $$
    SELECT 'spread-' || mod(('x' || encode(substring(p_hash FROM 1 FOR 8), 'hex'))::bit(64)::bigint::numeric
                            + CASE WHEN get_byte(p_hash, 0) >= 128 THEN 18446744073709551616 ELSE 0 END,
                            p_n)::text
$$;

-- The partition of an ack by transactionId that names none: on a queue that spreads by key, the
-- key's partition (where every message of that key is stored); otherwise the partition whose
-- cursor of the consumer group holds the lease the ack names, or held it last (a repeated ack
-- after its lease was released); otherwise 'Default'. Each lookup is one indexed statement.
CREATE OR REPLACE FUNCTION exactly.ack_partition_name(p_queue text, p_group text, p_lease uuid, p_hash bytea)
RETURNS text
LANGUAGE plpgsql
STABLE
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
DECLARE
    v_qid    bigint;
    v_spread integer;
    v_pid    bigint;
    v_name   text;
BEGIN
    SELECT q.id, q.spread_partitions INTO v_qid, v_spread FROM exactly.queues q WHERE q.name = p_queue;
    IF NOT FOUND THEN
        RETURN 'Default';
    END IF;
    IF v_spread > 0 THEN
        RETURN exactly.spread_partition(p_hash, v_spread);
    END IF;
    SELECT c.partition_id INTO v_pid FROM exactly.consumer_cursors c
    WHERE c.lease_id = p_lease AND c.consumer_group = p_group;
    IF v_pid IS NULL THEN
        SELECT c.partition_id INTO v_pid FROM exactly.consumer_cursors c
        WHERE c.prev_lease_id = p_lease AND c.consumer_group = p_group;
    END IF;
    IF v_pid IS NOT NULL THEN
        SELECT n.name INTO v_name FROM exactly.partition_names n WHERE n.id = v_pid AND n.queue_id = v_qid;
    END IF;
    RETURN COALESCE(v_name, 'Default');
END
$$;

-- Acks a batch of messages; one result row per item, in item order. Items are independent
-- (an item's error does not undo the others); a caller that needs all-or-nothing runs it in a
-- transaction and rolls back on any result other than 'acked'.
--   p_lock_queues/p_lock_partitions: further partitions to create if missing and lock with the
--     dead-letter partitions, before any cursor (a transaction's push partitions).
-- Per item: p_queues/p_partitions (NULL allowed for a messageId ack, then checked if given),
--   p_groups, p_leases, p_message_ids (ack by messageId) or p_hashes (ack by transactionId:
--   XXH3-128), p_statuses ('completed' | 'failed' | 'retry' | 'dlq'), p_errors, and p_dlq_ids /
--   p_dlq_hashes: the id (UUIDv7) and hash of its text a dead-letter copy would get.
-- Result: 'acked' (outcome 'completed', 'retry' = delivered again after the queue's retry_delay,
--   or 'dead-lettered'; replay = true when the same lease had already acked it; attempts = the
--   message's deliveries to the group so far, this one included), 'unresolved' (no stored
--   message: never pushed, or its data purged by retention, whether named by messageId or by a
--   transactionId whose hash is still kept) or 'lease-mismatch' (p_lease is not the
--   group's current or last released lease on the partition, or did not deliver that message).
-- p_pid: NULL, or the partition every item is in (the caller learnt its id; exactly.ack_partition):
--   messages and leases are then looked up in that partition only.
-- A lease whose every delivered message is acked (or purged by retention meanwhile; an
-- unresolved ack still finds its lease by id) is released: the cursor advances past the
-- settled prefix, and if a message waits for a retry the partition is not leasable for
-- retry_delay milliseconds.
DROP FUNCTION IF EXISTS exactly.ack_batch(text[], text[], text[], text[], text[], uuid[], uuid[], bytea[], text[],
                                          text[], uuid[], bytea[]);
CREATE OR REPLACE FUNCTION exactly.ack_batch(
    p_lock_queues      text[],
    p_lock_partitions  text[],
    p_queues           text[],
    p_partitions       text[],
    p_groups           text[],
    p_leases           uuid[],
    p_message_ids      uuid[],
    p_hashes           bytea[],
    p_statuses         text[],
    p_errors           text[],
    p_dlq_ids          uuid[],
    p_dlq_hashes       bytea[],
    p_pid              bigint DEFAULT NULL)
RETURNS TABLE (item integer, result text, queue text, partition text, "offset" bigint, message_id uuid,
               transaction_id text, outcome text, attempts integer, dead_letter_id uuid, replay boolean,
               detail text)
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
DECLARE
    n          integer := COALESCE(cardinality(p_statuses), 0);
    v_pid      bigint[] := '{}';
    v_cpid     bigint[] := '{}';
    v_off      bigint[] := '{}';
    v_qname    text[] := '{}';
    v_pname    text[] := '{}';
    v_limit    integer[] := '{}';
    v_lq       text[] := COALESCE(p_lock_queues, '{}');
    v_lp       text[] := COALESCE(p_lock_partitions, '{}');
    i          integer;
    r_pid      bigint;
    r_cpid     bigint;
    r_lo       bigint;
    r_off      bigint;
    r_q        text;
    r_p        text;
    r_limit    integer;
    r_att      integer;
    r_status   text;
    cur        exactly.consumer_cursors%ROWTYPE;
    del        exactly.deliveries%ROWTYPE;
    rel        record;
    pair       record;
    v_clock    timestamptz;
    v_name     text;
BEGIN
    -- 1. Resolve every item without locks, and predict which may need a dead-letter partition
    --    (status dlq, or failed/retry with no retry left), so that those partition rows are
    --    locked before any cursor row. The prediction reads attempts unlocked; it can only be
    --    wrong if another ack of the same offset changed attempts in between, which needs a
    --    lease that was current in between: then this item's lease is either the same (this
    --    item is answered as a replay) or no longer current (lease-mismatch). Either way it
    --    does not dead-letter.
    FOR i IN 1..n LOOP
        r_pid := NULL; r_off := NULL; r_q := NULL; r_p := NULL; r_limit := NULL; r_cpid := NULL;
        v_name := p_partitions[i];
        IF p_message_ids[i] IS NOT NULL THEN
            IF p_pid IS NULL THEN
                SELECT m.partition_id, m."offset" INTO r_pid, r_off
                FROM exactly.messages m WHERE m.message_id = p_message_ids[i];
            ELSE
                SELECT m.partition_id, m."offset" INTO r_pid, r_off
                FROM exactly.messages m WHERE m.message_id = p_message_ids[i] AND m.partition_id = p_pid;
            END IF;
            IF r_pid IS NOT NULL THEN
                SELECT q.name, p.name, q.retry_limit INTO r_q, r_p, r_limit
                FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id
                WHERE p.id = r_pid;
            END IF;
            IF r_pid IS NOT NULL AND ((p_queues[i] IS NOT NULL AND p_queues[i] <> r_q)
                                      OR (p_partitions[i] IS NOT NULL AND p_partitions[i] <> r_p)) THEN
                r_pid := NULL; r_off := NULL; r_q := NULL; r_p := NULL;
            END IF;
        ELSE
            -- no partition named: see exactly.ack_partition_name
            v_name := COALESCE(p_partitions[i],
                               exactly.ack_partition_name(p_queues[i], p_groups[i], p_leases[i], p_hashes[i]));
            SELECT p.id, q.name, p.name, q.retry_limit INTO r_pid, r_q, r_p, r_limit
            FROM exactly.queues q JOIN exactly.partition_names p ON p.queue_id = q.id
            WHERE q.name = p_queues[i] AND p.name = v_name;
            IF r_pid IS NOT NULL THEN
                r_off := exactly.resolve_offset(r_pid, p_groups[i], p_leases[i], p_hashes[i]);
                -- a hash outlives its message's data (kept for the window): an ack naming purged
                -- data is unresolved, as the same ack by messageId is
                IF r_off IS NOT NULL AND NOT EXISTS (SELECT 1 FROM exactly.messages m
                                                     WHERE m.partition_id = r_pid AND m."offset" = r_off) THEN
                    r_off := NULL;
                END IF;
            END IF;
        END IF;
        IF r_off IS NULL THEN
            r_pid := NULL;
            -- unresolved; its lease is still looked at (released if everything left is acked)
            IF p_pid IS NULL THEN
                SELECT c.partition_id INTO r_cpid FROM exactly.consumer_cursors c
                WHERE c.lease_id = p_leases[i] AND c.consumer_group = p_groups[i];
            ELSE
                SELECT c.partition_id INTO r_cpid FROM exactly.consumer_cursors c
                WHERE c.lease_id = p_leases[i] AND c.consumer_group = p_groups[i] AND c.partition_id = p_pid;
            END IF;
        ELSE
            r_cpid := r_pid;
        END IF;
        v_pid := v_pid || r_pid;
        v_cpid := v_cpid || r_cpid;
        v_off := v_off || r_off;
        v_qname := v_qname || COALESCE(r_q, p_queues[i]);
        v_pname := v_pname || COALESCE(r_p, v_name);
        v_limit := v_limit || r_limit;
        IF r_pid IS NOT NULL AND (p_statuses[i] = 'dlq' OR (p_statuses[i] IN ('failed', 'retry') AND
                COALESCE((SELECT d.attempts FROM exactly.deliveries d
                          WHERE d.partition_id = r_pid AND d.consumer_group = p_groups[i]
                            AND d."offset" = r_off), 0) + 1 > r_limit)) THEN
            v_lq := v_lq || exactly.dead_letter_queue(r_q);
            v_lp := v_lp || r_p;
        END IF;
    END LOOP;

    -- 2. Locks, in the global order: partition rows ascending, then cursor rows ascending. One
    --    row per statement (on Citus each is a single-shard statement).
    IF cardinality(v_lq) > 0 THEN
        PERFORM exactly.ensure_partitions(v_lq, v_lp);
        FOR rel IN
            SELECT DISTINCT n.id AS pid
            FROM unnest(v_lq, v_lp) AS u(q, p)
            JOIN exactly.queues q ON q.name = u.q
            JOIN exactly.partition_names n ON n.queue_id = q.id AND n.name = u.p
            ORDER BY n.id
        LOOP
            PERFORM 1 FROM exactly.partitions p WHERE p.id = rel.pid FOR UPDATE;
        END LOOP;
    END IF;
    FOR rel IN
        SELECT DISTINCT u.pid, u.g FROM unnest(v_cpid, p_groups) AS u(pid, g) WHERE u.pid IS NOT NULL ORDER BY 1, 2
    LOOP
        PERFORM 1 FROM exactly.consumer_cursors c
        WHERE c.partition_id = rel.pid AND c.consumer_group = rel.g
        FOR UPDATE;
    END LOOP;

    -- 3. Each item, in order, under the locks.
    FOR i IN 1..n LOOP
        item := i; result := 'acked'; queue := v_qname[i]; partition := v_pname[i];
        "offset" := NULL; message_id := NULL; transaction_id := NULL; outcome := NULL; attempts := NULL;
        dead_letter_id := NULL; replay := false; detail := NULL;
        r_pid := v_pid[i];
        r_off := v_off[i];
        IF r_pid IS NOT NULL AND p_message_ids[i] IS NULL THEN
            -- the lease may have moved since phase 1: resolve again under the cursor lock
            r_off := exactly.resolve_offset(r_pid, p_groups[i], p_leases[i], p_hashes[i]);
        END IF;
        IF r_pid IS NOT NULL AND r_off IS NOT NULL THEN
            -- retention may have purged the data since phase 1: then it is unresolved too
            SELECT m.message_id, m.transaction_id INTO message_id, transaction_id
            FROM exactly.messages m WHERE m.partition_id = r_pid AND m."offset" = r_off;
            IF NOT FOUND THEN
                r_off := NULL;
            END IF;
        END IF;
        IF r_pid IS NULL OR r_off IS NULL THEN
            result := 'unresolved';
            detail := CASE WHEN p_message_ids[i] IS NOT NULL
                THEN 'no stored message has this messageId (never pushed, or purged by retention)'
                ELSE 'no stored message has this transactionId in that queue partition (never pushed, or purged by retention)' END;
            RETURN NEXT;
            CONTINUE;
        END IF;
        "offset" := r_off;

        cur := NULL;
        SELECT * INTO cur FROM exactly.consumer_cursors c
        WHERE c.partition_id = r_pid AND c.consumer_group = p_groups[i];
        del := NULL;
        SELECT * INTO del FROM exactly.deliveries d
        WHERE d.partition_id = r_pid AND d.consumer_group = p_groups[i] AND d."offset" = r_off;

        IF cur.lease_id = p_leases[i] AND r_off BETWEEN cur.lease_from AND cur.lease_to
                AND del.acked_lease IS NOT DISTINCT FROM p_leases[i] AND del.acked_lease IS NOT NULL THEN
            -- this lease acked it already: a repeated ack, answered as the first one was
            outcome := del.last_outcome; attempts := del.attempts; dead_letter_id := del.dead_letter_id;
            replay := true;
        ELSIF cur.lease_id = p_leases[i] AND r_off BETWEEN cur.lease_from AND cur.lease_to
                AND del.settled IS NOT TRUE THEN
            r_status := p_statuses[i];
            -- this ack ends the message's current delivery (number attempts + 1)
            r_att := COALESCE(del.attempts, 0) + 1;
            attempts := r_att;
            IF r_status = 'completed' THEN
                outcome := 'completed';
            ELSIF r_status = 'dlq' OR r_att > v_limit[i] THEN
                outcome := 'dead-lettered';
                dead_letter_id := exactly.dead_letter(r_pid, r_off, v_qname[i], v_pname[i], p_groups[i], r_att,
                                                      r_status, p_errors[i], p_dlq_ids[i], p_dlq_hashes[i]);
            ELSE
                outcome := 'retry';
            END IF;
            INSERT INTO exactly.deliveries AS d (partition_id, consumer_group, "offset", attempts, settled,
                                                 acked_lease, last_outcome, last_error, dead_letter_id)
            VALUES (r_pid, p_groups[i], r_off, r_att, outcome <> 'retry', p_leases[i], outcome, p_errors[i],
                    dead_letter_id)
            ON CONFLICT ON CONSTRAINT deliveries_pkey DO UPDATE
            SET attempts = EXCLUDED.attempts, settled = EXCLUDED.settled, acked_lease = EXCLUDED.acked_lease,
                last_outcome = EXCLUDED.last_outcome, last_error = EXCLUDED.last_error,
                dead_letter_id = EXCLUDED.dead_letter_id;
        ELSIF cur.prev_lease_id = p_leases[i] AND r_off BETWEEN cur.prev_lease_from AND cur.prev_lease_to THEN
            -- the lease was released after everything it delivered was acked: a repeated ack
            outcome := COALESCE(CASE WHEN del.acked_lease = p_leases[i] THEN del.last_outcome END, 'settled');
            attempts := del.attempts; dead_letter_id := del.dead_letter_id;
            replay := true;
        ELSE
            result := 'lease-mismatch';
            detail := CASE
                WHEN cur.partition_id IS NULL OR cur.lease_id IS NULL
                    THEN format('consumer group "%s" holds no lease on this partition (it was released once everything '
                                || 'it delivered was acked, it expired and was taken over, or it was never granted to this '
                                || 'group: an ack without consumerGroup is the default group''s)', p_groups[i])
                WHEN cur.lease_id <> p_leases[i]
                    THEN format('leaseId is not consumer group "%s"''s current lease on this partition (it expired and was '
                                || 'taken over, or was never granted to this group)', p_groups[i])
                ELSE 'the message was not delivered under this lease' END;
        END IF;
        RETURN NEXT;
    END LOOP;

    -- 4. Release every lease whose range holds nothing undone: each offset from lease_from (or
    --    the data watermark, if retention purged the start of the range) to lease_to is settled
    --    or acked under the lease.
    FOR pair IN
        SELECT DISTINCT u.pid, u.g FROM unnest(v_cpid, p_groups) AS u(pid, g) WHERE u.pid IS NOT NULL ORDER BY 1, 2
    LOOP
        SELECT c.partition_id AS pid, c.consumer_group AS grp, c.lease_id AS lid, c.lease_from AS lo,
               c.lease_to AS hi, p.data_start AS data_start, q.retry_delay AS delay
        INTO rel
        FROM exactly.consumer_cursors c
        JOIN exactly.partitions p ON p.id = c.partition_id
        JOIN exactly.queues q ON q.id = p.queue_id
        WHERE c.partition_id = pair.pid AND c.consumer_group = pair.g AND c.lease_id IS NOT NULL;
        CONTINUE WHEN NOT FOUND;
        r_lo := GREATEST(rel.lo, rel.data_start);
        -- the retry time as a value: a distributed database (Citus) takes no volatile function in an
        -- UPDATE, nor a stable one (timestamptz + interval) in its CASE
        v_clock := clock_timestamp() + make_interval(secs => rel.delay / 1000.0);
        CONTINUE WHEN r_lo <= rel.hi AND
            (SELECT count(*) FROM exactly.deliveries d
             WHERE d.partition_id = rel.pid AND d.consumer_group = rel.grp AND d."offset" BETWEEN r_lo AND rel.hi
               AND (d.settled OR d.acked_lease = rel.lid)) < rel.hi - r_lo + 1;
        UPDATE exactly.consumer_cursors c
        SET prev_lease_id = c.lease_id, prev_lease_from = c.lease_from, prev_lease_to = c.lease_to,
            lease_id = NULL, lease_from = NULL, lease_to = NULL, lease_expires_at = NULL,
            available_at = CASE WHEN EXISTS (SELECT 1 FROM exactly.deliveries d
                                             WHERE d.partition_id = rel.pid AND d.consumer_group = rel.grp
                                               AND d.acked_lease = rel.lid AND NOT d.settled)
                                THEN v_clock
                                ELSE '-infinity' END
        WHERE c.partition_id = rel.pid AND c.consumer_group = rel.grp;
        PERFORM exactly.advance_cursor(rel.pid, rel.grp);
    END LOOP;
END
$$;

-- An ack batch whose items are all in one partition whose id the caller learnt: exactly.ack_batch
-- with p_pid (no further partitions to lock). Its first argument is the partition id so that on
-- Citus (sql/citus/distribute.sql) the call runs whole on the node holding the partition.
CREATE OR REPLACE FUNCTION exactly.ack_partition(
    p_pid              bigint,
    p_queues           text[],
    p_partitions       text[],
    p_groups           text[],
    p_leases           uuid[],
    p_message_ids      uuid[],
    p_hashes           bytea[],
    p_statuses         text[],
    p_errors           text[],
    p_dlq_ids          uuid[],
    p_dlq_hashes       bytea[])
RETURNS TABLE (item integer, result text, queue text, partition text, "offset" bigint, message_id uuid,
               transaction_id text, outcome text, attempts integer, dead_letter_id uuid, replay boolean,
               detail text)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY SELECT * FROM exactly.ack_batch('{}', '{}', p_queues, p_partitions, p_groups, p_leases, p_message_ids,
                                                 p_hashes, p_statuses, p_errors, p_dlq_ids, p_dlq_hashes, p_pid);
END
$$;

-- A destination's own completed batch (dev.exactly.destination.Dispatcher, every message of it
-- delivered): acks offsets p_offsets of partition p_pid for consumer group p_group under lease
-- p_lease, each with status 'completed' and no error, with the outcome exactly.ack_batch gives each
-- (an offset this lease acked already, one it did not deliver, or one whose data retention purged
-- is left as it is), without ack_batch's resolution of each item by messageId and its prediction
-- of dead-lettering: a completed ack dead-letters nothing, so only the cursor row is locked, and
-- each statement reads or writes that partition's rows alone. A lease that is not the cursor's
-- current one (it expired and another worker took the partition over, or it was released)
-- settles nothing, releases nothing and moves nothing. The lease is released as ack_batch releases
-- it: once every offset of its range (from the data watermark on) is settled or acked under it;
-- the cursor then advances past the settled offsets.
-- One row: acked, the offsets this call settled; released, whether it released the lease.
-- Its first argument is the partition id so that on Citus (sql/citus/distribute.sql) a call of
-- its own can run whole on the node holding the partition.
CREATE OR REPLACE FUNCTION exactly.ack_completed(
    p_pid     bigint,
    p_group   text,
    p_lease   uuid,
    p_offsets bigint[])
RETURNS TABLE (acked integer, released boolean)
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
DECLARE
    cur     exactly.consumer_cursors%ROWTYPE;
    v_lo    bigint;
    v_delay integer;
    v_clock timestamptz;
BEGIN
    acked := 0;
    released := false;
    SELECT * INTO cur FROM exactly.consumer_cursors c
    WHERE c.partition_id = p_pid AND c.consumer_group = p_group
    FOR UPDATE;
    IF NOT FOUND OR p_lease IS NULL OR cur.lease_id IS DISTINCT FROM p_lease THEN
        RETURN NEXT;
        RETURN;
    END IF;

    -- a batch acked whole, the common case: the cursor at the lease's first offset, every offset of
    -- the range acked and stored, and no delivery recorded for the group from there on. The steps
    -- below would settle each offset, release the lease and move the cursor past the range, which
    -- deletes those rows again; this writes the end state at once, in the cursor's row alone.
    IF cur.next_offset = cur.lease_from
       AND (SELECT count(DISTINCT o.off) = cur.lease_to - cur.lease_from + 1
                   AND min(o.off) = cur.lease_from AND max(o.off) = cur.lease_to
            FROM unnest(p_offsets) AS o(off))
       AND (SELECT count(*) FROM exactly.messages m
            WHERE m.partition_id = p_pid AND m."offset" BETWEEN cur.lease_from AND cur.lease_to)
           = cur.lease_to - cur.lease_from + 1
       AND NOT EXISTS (SELECT 1 FROM exactly.deliveries d
                       WHERE d.partition_id = p_pid AND d.consumer_group = p_group
                         AND d."offset" >= cur.lease_from) THEN
        UPDATE exactly.consumer_cursors c
        SET prev_lease_id = c.lease_id, prev_lease_from = c.lease_from, prev_lease_to = c.lease_to,
            lease_id = NULL, lease_from = NULL, lease_to = NULL, lease_expires_at = NULL,
            available_at = '-infinity', next_offset = cur.lease_to + 1
        WHERE c.partition_id = p_pid AND c.consumer_group = p_group;
        acked := cur.lease_to - cur.lease_from + 1;
        released := true;
        RETURN NEXT;
        RETURN;
    END IF;

    -- each offset of the lease's range, stored, neither acked under this lease nor settled
    INSERT INTO exactly.deliveries AS d (partition_id, consumer_group, "offset", attempts, settled, acked_lease,
                                         last_outcome, last_error, dead_letter_id)
    SELECT p_pid, p_group, u.off, COALESCE(x.attempts, 0) + 1, true, p_lease, 'completed', NULL, NULL
    FROM (SELECT DISTINCT o.off FROM unnest(p_offsets) AS o(off)) u
    JOIN exactly.messages m ON m.partition_id = p_pid AND m."offset" = u.off
    LEFT JOIN exactly.deliveries x
           ON x.partition_id = p_pid AND x.consumer_group = p_group AND x."offset" = u.off
    WHERE u.off BETWEEN cur.lease_from AND cur.lease_to
      AND x.settled IS NOT TRUE AND x.acked_lease IS DISTINCT FROM p_lease
    ON CONFLICT ON CONSTRAINT deliveries_pkey DO UPDATE
    SET attempts = EXCLUDED.attempts, settled = EXCLUDED.settled, acked_lease = EXCLUDED.acked_lease,
        last_outcome = EXCLUDED.last_outcome, last_error = EXCLUDED.last_error,
        dead_letter_id = EXCLUDED.dead_letter_id;
    GET DIAGNOSTICS acked = ROW_COUNT;

    -- release the lease when its range holds nothing undone (as ack_batch's step 4)
    SELECT GREATEST(cur.lease_from, p.data_start), q.retry_delay INTO v_lo, v_delay
    FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id
    WHERE p.id = p_pid;
    IF v_lo <= cur.lease_to AND
        (SELECT count(*) FROM exactly.deliveries d
         WHERE d.partition_id = p_pid AND d.consumer_group = p_group AND d."offset" BETWEEN v_lo AND cur.lease_to
           AND (d.settled OR d.acked_lease = p_lease)) < cur.lease_to - v_lo + 1 THEN
        RETURN NEXT;
        RETURN;
    END IF;
    -- the retry time as a value: a distributed database (Citus) takes no volatile function in an
    -- UPDATE, nor a stable one (timestamptz + interval) in its CASE
    v_clock := clock_timestamp() + make_interval(secs => v_delay / 1000.0);
    UPDATE exactly.consumer_cursors c
    SET prev_lease_id = c.lease_id, prev_lease_from = c.lease_from, prev_lease_to = c.lease_to,
        lease_id = NULL, lease_from = NULL, lease_to = NULL, lease_expires_at = NULL,
        available_at = CASE WHEN EXISTS (SELECT 1 FROM exactly.deliveries d
                                         WHERE d.partition_id = p_pid AND d.consumer_group = p_group
                                           AND d.acked_lease = p_lease AND NOT d.settled)
                            THEN v_clock
                            ELSE '-infinity' END
    WHERE c.partition_id = p_pid AND c.consumer_group = p_group;
    PERFORM exactly.advance_cursor(p_pid, p_group);
    released := true;
    RETURN NEXT;
END
$$;

-- Extends the pop lease p_lease (a consumer's heartbeat, as SQS's ChangeMessageVisibility): when a
-- consumer group's cursor still holds it and it has not expired, it now ends p_seconds from now
-- (NULL: the queue's lease_time), whatever it was before, and the row says so (extended = true).
-- An expired lease is not revived, even before another consumer took it over: the row then carries
-- extended = false and its old expiry, and nothing changes. No row when no cursor holds the lease:
-- it was taken over after it expired, released once everything it delivered was acked, or never
-- granted. An extension is not a delivery (attempts unchanged) and covers the same offsets.
-- Takes only the cursor row's lock (no partition row), so it fits the global lock order; it waits
-- for an ack or pop busy with that cursor, and a pop that meets the extended cursor skips it.
CREATE OR REPLACE FUNCTION exactly.extend_lease(p_lease uuid, p_seconds integer)
RETURNS TABLE (extended boolean, queue text, partition text, consumer_group text, lease_from bigint,
               lease_to bigint, lease_expires_at timestamptz)
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
AS $$
DECLARE
    v_pid   bigint;
    v_group text;
    v_queue text;
    v_name  text;
    v_time  integer;
    v_now   timestamptz;
BEGIN
    -- The cursor that holds the lease, unlocked (on Citus a read of every shard); then its row lock
    -- by key, and only once that is held the clock, so that a wait for an ack or pop counts as
    -- time passed. The new expiry is a value in the UPDATE: a distributed database (Citus) refuses
    -- a volatile function there, and a stable one of a column.
    SELECT c.partition_id, c.consumer_group INTO v_pid, v_group
    FROM exactly.consumer_cursors c
    WHERE c.lease_id = p_lease;
    IF NOT FOUND THEN
        RETURN;
    END IF;
    PERFORM 1 FROM exactly.consumer_cursors c
    WHERE c.partition_id = v_pid AND c.consumer_group = v_group
    FOR UPDATE;
    SELECT q.name, p.name, q.lease_time INTO v_queue, v_name, v_time
    FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id
    WHERE p.id = v_pid;
    v_now := clock_timestamp();
    RETURN QUERY
    UPDATE exactly.consumer_cursors c
    SET lease_expires_at = v_now + make_interval(secs => COALESCE(p_seconds, v_time))
    WHERE c.partition_id = v_pid AND c.consumer_group = v_group
      AND c.lease_id = p_lease AND c.lease_expires_at > v_now
    RETURNING true, v_queue, v_name, c.consumer_group, c.lease_from, c.lease_to, c.lease_expires_at;
    IF FOUND THEN
        RETURN;
    END IF;
    -- expired, or taken over while this call waited for the lock (then no row, as for any other
    -- lease no cursor holds)
    RETURN QUERY
    SELECT false, v_queue, v_name, c.consumer_group, c.lease_from, c.lease_to, c.lease_expires_at
    FROM exactly.consumer_cursors c
    WHERE c.partition_id = v_pid AND c.consumer_group = v_group AND c.lease_id = p_lease;
END
$$;
