-- Task queue: enqueue with exact deduplication, lease settlement and claiming.
-- Tables and indexes: sql/V3__tasks.sql. Every function here is one client statement, hence
-- one transaction in autocommit; none holds a lock across a client round trip.

-- The state a client sees: a queued task whose run_at lies ahead reads as "scheduled".
CREATE OR REPLACE FUNCTION exactly.task_state_label(p_state text, p_run_at timestamptz)
RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN p_state = 'queued' AND p_run_at > now() THEN 'scheduled' ELSE p_state END
$$;

-- Enqueues one task, or names the task it duplicates. The database decides: the INSERT's
-- ON CONFLICT DO NOTHING covers both unique indexes (queue, task_id) and the partial
-- (queue, dedupe_key) over pending states, and waits for a concurrent insert of the same
-- id or key to commit or roll back. On a conflict the winner is read; if it vanished in
-- between (completed, dead, deleted), the insert is tried again.
--   p_dedupe_key: 32-byte autoDedupe key, or NULL when autoDedupe is off.
--   p_run_at:     NULL = now.
--   p_payload_digest: 32-byte SHA-256 of the task's type and data as sent (V15), stored with it.
-- Result: the task id that stands for this request (the new one, or the existing one),
-- whether it is a duplicate, what matched ('id' or 'autoDedupe'; NULL when enqueued), and for
-- a duplicate by id whether the existing task's type and data equal this request's (its
-- payload digest; NULL when either digest is missing, i.e. unknown).
DROP FUNCTION IF EXISTS exactly.enqueue_task(text, text, text, bytea, bytea, integer, timestamptz, integer, integer);
DROP FUNCTION IF EXISTS exactly.enqueue_task(text, text, text, bytea, bytea, integer, timestamptz, integer, integer,
                                             bytea);
CREATE FUNCTION exactly.enqueue_task(
    p_queue               text,
    p_task_id             text,
    p_type                text,
    p_data                bytea,
    p_dedupe_key          bytea,
    p_priority            integer,
    p_run_at              timestamptz,
    p_max_retries         integer,
    p_retry_delay_seconds integer,
    p_payload_digest      bytea DEFAULT NULL)
RETURNS TABLE (r_task_id text, r_duplicate boolean, r_matched_on text, r_payload_matches boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_id       text;
    v_seq      bigint;
    v_state    text;
    v_expired  boolean;
    v_final    boolean;
    v_matches  boolean;
    -- the clock as a value: a distributed database (Citus) takes no stable function in a CASE
    -- or COALESCE of a write
    v_now      timestamptz := now();
BEGIN
    FOR round IN 1..100 LOOP
        INSERT INTO exactly.tasks AS t (queue, task_id, type, data, dedupe_key, priority, run_at,
                                        max_retries, retry_delay_seconds, payload_digest)
        VALUES (p_queue, p_task_id, p_type, p_data, p_dedupe_key, p_priority, COALESCE(p_run_at, v_now),
                p_max_retries, p_retry_delay_seconds, p_payload_digest)
        ON CONFLICT DO NOTHING
        RETURNING t.task_id INTO v_id;
        IF v_id IS NOT NULL THEN
            RETURN QUERY SELECT v_id, false, NULL::text, NULL::boolean;
            RETURN;
        END IF;

        -- Same id in this queue: an idempotent retry by id, whatever the task's state.
        SELECT t.task_id, t.payload_digest = p_payload_digest INTO v_id, v_matches
        FROM exactly.tasks t WHERE t.queue = p_queue AND t.task_id = p_task_id;
        IF v_id IS NOT NULL THEN
            RETURN QUERY SELECT v_id, true, 'id'::text, v_matches;
            RETURN;
        END IF;

        IF p_dedupe_key IS NOT NULL THEN
            SELECT t.seq, t.task_id, t.state,
                   t.state = 'running' AND t.lease_expires_at <= now(),
                   t.attempts > t.max_retries
            INTO v_seq, v_id, v_state, v_expired, v_final
            FROM exactly.tasks t
            WHERE t.queue = p_queue AND t.dedupe_key = p_dedupe_key
              AND t.state IN ('queued', 'running', 'retrying');
            IF v_id IS NOT NULL THEN
                IF v_expired AND v_final THEN
                    -- Its last delivery's lease has expired: it is dead, not pending. Settle it
                    -- (under its row lock, re-checked) and try again.
                    UPDATE exactly.tasks t
                    SET state = 'dead', lease_id = NULL, lease_expires_at = NULL,
                        last_error = 'lease expired', finished_at = now(), updated_at = now()
                    WHERE t.queue = p_queue AND t.seq = v_seq AND t.state = 'running' AND t.lease_expires_at <= now();
                    v_id := NULL;
                    CONTINUE;
                END IF;
                RETURN QUERY SELECT v_id, true, 'autoDedupe'::text, NULL::boolean;
                RETURN;
            END IF;
        END IF;
        -- The winner finished or was deleted after our insert met it: try again.
    END LOOP;
    RAISE EXCEPTION 'exactly.enqueue_task: no stable outcome for task % in queue % after 100 rounds',
        p_task_id, p_queue USING ERRCODE = '40001';
END
$$;

-- Settles the expired leases of a queue (at most p_max, oldest first, skipping rows another
-- transaction holds): a task with deliveries left becomes 'retrying' and is claimable at
-- once (its run_at is kept, so it keeps its place in the claim order); one whose last
-- delivery expired becomes 'dead'. Returns how many it settled.
CREATE OR REPLACE FUNCTION exactly.settle_expired_leases(p_queue text, p_max integer)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_n   integer;
    v_now timestamptz := now();  -- a value, not a call, inside the CASE (see enqueue_task)
BEGIN
    UPDATE exactly.tasks t
    SET state = CASE WHEN t.attempts > t.max_retries THEN 'dead' ELSE 'retrying' END,
        finished_at = CASE WHEN t.attempts > t.max_retries THEN v_now END,
        lease_id = NULL, lease_expires_at = NULL,
        last_error = 'lease expired', updated_at = now()
    WHERE t.queue = p_queue AND t.seq IN (
        SELECT x.seq FROM exactly.tasks x
        WHERE x.queue = p_queue AND x.state = 'running' AND x.lease_expires_at <= now()
        ORDER BY x.lease_expires_at
        LIMIT p_max
        FOR UPDATE SKIP LOCKED);
    GET DIAGNOSTICS v_n = ROW_COUNT;
    RETURN v_n;
END
$$;

-- Claims up to p_limit claimable tasks of a queue for one worker: first settles expired
-- leases, then locks candidates with FOR UPDATE SKIP LOCKED (a row another claimer holds is
-- skipped, never handed out twice), in the order priority DESC, run_at, seq (enqueue order),
-- and gives each a fresh lease of p_lease_seconds. attempts counts this delivery.
--   p_types: NULL = any type.
-- Returns the claimed rows in claim order.
-- Each claimed task's lease id is md5(a fresh random UUID of this call, the task's seq) read as
-- a UUID: unique per task and unguessable like gen_random_uuid(), but computed by an immutable
-- function, which a distributed database (Citus) takes in an UPDATE (a volatile one it refuses).
-- Its version and variant bits are set as RFC 9562 lays out a version 4 UUID (section 5.4: the
-- digest of a random value is as random), so a client that checks UUIDs takes it.
-- On Citus, the first migration of a new coordinator (before sql/citus/distribute.sql has
-- distributed the tables) warns that claim_tasks and fail_task have a dependency on table
-- exactly.tasks "that is not in Citus' metadata" and "will be created only locally": their result
-- type is that table's row, and the table is still a plain local one then. It is harmless:
-- distribute.sql distributes exactly.tasks and then these functions; migrations after it create
-- them on every node without the warning.
CREATE OR REPLACE FUNCTION exactly.claim_tasks(p_queue text, p_types text[], p_limit integer,
                                               p_lease_seconds integer)
RETURNS SETOF exactly.tasks
LANGUAGE plpgsql AS $$
DECLARE
    v_base text := gen_random_uuid()::text;
    v_now  timestamptz := now();
BEGIN
    PERFORM exactly.settle_expired_leases(p_queue, 1000);
    RETURN QUERY
    WITH picked AS (
        SELECT x.seq FROM exactly.tasks x
        WHERE x.queue = p_queue AND x.state IN ('queued', 'retrying') AND x.run_at <= now()
          AND (p_types IS NULL OR x.type = ANY (p_types))
        ORDER BY x.priority DESC, x.run_at, x.seq
        LIMIT p_limit
        FOR UPDATE SKIP LOCKED
    ), claimed AS (
        UPDATE exactly.tasks t
        SET state = 'running', attempts = t.attempts + 1,
            lease_id = overlay(overlay(md5(v_base || t.seq::text) PLACING '4' FROM 13)
                               PLACING substr('89ab', get_byte(decode(md5(v_base || t.seq::text), 'hex'), 8) % 4 + 1, 1)
                               FROM 17)::uuid,
            lease_expires_at = v_now + make_interval(secs => p_lease_seconds), updated_at = v_now
        FROM picked WHERE t.queue = p_queue AND t.seq = picked.seq
        RETURNING t.*
    )
    SELECT c.* FROM claimed c ORDER BY c.priority DESC, c.run_at, c.seq;
END
$$;

-- Deletes at most p_limit finished tasks (completed or dead) whose finished_at lies more than
-- their queue's retention in the past, oldest first, skipping rows another transaction holds.
-- One short transaction: no lock is held between steps.
--   p_default_seconds: the retention of a queue without an override; 0 = keep forever.
--   p_queues / p_seconds: per-queue overrides (same length; 0 = keep that queue's forever).
-- Returns how many it deleted; fewer than p_limit means nothing more is due right now.
-- The queues of the p_limit oldest due tasks are found first (a read), then each queue's due
-- tasks are deleted by a statement of its own, oldest queue first: on Citus (tasks distributed by
-- queue) each delete is one shard's, where a delete with SELECT ... FOR UPDATE across queues is
-- refused.
CREATE OR REPLACE FUNCTION exactly.purge_finished_tasks(p_default_seconds integer, p_queues text[],
                                                        p_seconds integer[], p_limit integer)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v_n        integer := 0;
    v_step     integer;
    v_shortest integer;
    v_now      timestamptz := now();
    v_queue    text;
BEGIN
    -- The shortest retention in force bounds the index walk; rows of queues kept longer are
    -- filtered out row by row.
    SELECT min(s) INTO v_shortest
    FROM unnest(array_append(COALESCE(p_seconds, '{}'::integer[]), p_default_seconds)) AS s
    WHERE s > 0;
    IF v_shortest IS NULL THEN
        RETURN 0;
    END IF;
    FOR v_queue IN
        SELECT d.queue FROM (
            SELECT x.queue, x.finished_at FROM exactly.tasks x
            LEFT JOIN unnest(p_queues, p_seconds) AS o(queue, seconds) ON o.queue = x.queue
            WHERE x.state IN ('completed', 'dead')
              AND x.finished_at < v_now - make_interval(secs => v_shortest)
              AND COALESCE(o.seconds, p_default_seconds) > 0
              AND x.finished_at < v_now - make_interval(secs => COALESCE(o.seconds, p_default_seconds))
            ORDER BY x.finished_at
            LIMIT p_limit) d
        GROUP BY d.queue
        ORDER BY min(d.finished_at)
    LOOP
        DELETE FROM exactly.tasks t
        WHERE t.queue = v_queue AND t.seq IN (
            SELECT x.seq FROM exactly.tasks x
            WHERE x.queue = v_queue AND x.state IN ('completed', 'dead')
              AND x.finished_at < v_now - make_interval(secs => COALESCE(
                      (SELECT o.seconds FROM unnest(p_queues, p_seconds) AS o(queue, seconds)
                       WHERE o.queue = v_queue LIMIT 1), p_default_seconds))
            ORDER BY x.finished_at
            LIMIT p_limit - v_n
            FOR UPDATE OF x SKIP LOCKED);
        GET DIAGNOSTICS v_step = ROW_COUNT;
        v_n := v_n + v_step;
        EXIT WHEN v_n >= p_limit;
    END LOOP;
    RETURN v_n;
END
$$;

-- Fails a running task under its lease (the lease guard: running, this lease, not expired): a
-- task with deliveries left becomes 'retrying', claimable again after its retry delay; one whose
-- last delivery failed becomes 'dead'. Returns the task's row after the change, or no row when
-- the lease does not hold. The lease is kept as the task's settled_lease, by which a retried
-- failure is told from a refused one (V20). (A function rather than a client statement so that the clock and the
-- retry time are values inside the CASEs: a distributed database (Citus) takes no stable
-- function there, such as timestamptz + interval, nor one given a column anywhere in an UPDATE;
-- its first argument, the queue, routes it.) A task's retry delay is set when it is enqueued and
-- never changes, so it is read before the UPDATE.
CREATE OR REPLACE FUNCTION exactly.fail_task(p_queue text, p_task_id text, p_lease uuid, p_error text)
RETURNS SETOF exactly.tasks
LANGUAGE plpgsql AS $$
DECLARE
    v_now      timestamptz := now();
    v_retry_at timestamptz;
BEGIN
    SELECT v_now + make_interval(secs => t.retry_delay_seconds) INTO v_retry_at
    FROM exactly.tasks t WHERE t.queue = p_queue AND t.task_id = p_task_id;
    RETURN QUERY
    UPDATE exactly.tasks t SET
        state = CASE WHEN t.attempts > t.max_retries THEN 'dead' ELSE 'retrying' END,
        run_at = CASE WHEN t.attempts > t.max_retries THEN t.run_at ELSE v_retry_at END,
        finished_at = CASE WHEN t.attempts > t.max_retries THEN v_now END,
        last_error = p_error, lease_id = NULL, lease_expires_at = NULL, settled_lease = p_lease, updated_at = v_now
    WHERE t.queue = p_queue AND t.task_id = p_task_id AND t.state = 'running'
      AND t.lease_id = p_lease AND t.lease_expires_at > v_now
    RETURNING t.*;
END
$$;
