-- Push path: the exact deduplication verdict (layer 3) and offset allocation.
--
-- ONE settle algorithm, push_segment: it settles the items of one partition, given by its id
-- (the function reads and writes that partition's rows only, so a distributed database can run
-- it on the node holding the partition). It probes the partition's deduplication window for the
-- items' transaction hashes BEFORE it allocates offsets, so a duplicate writes nothing: no
-- allocator bump, no message row, no hash row, and no savepoint is needed.
--   * A segment whose every item is a hash already committed inside the window is answered
--     without any lock, read-only (no transaction id, no WAL, no commit to flush).
--   * Otherwise one statement locks the partition row, probes and stores.
-- push_bundle resolves (queue, partition) names, creates the missing ones, takes the partition
-- locks of a multi-partition bundle in ascending id order (the one global lock order), then
-- settles each segment with push_segment: all in one transaction, one round trip.

-- Creates the queues and partitions a bundle names that do not exist yet. Inserts run in
-- name order so that two bundles creating the same set cannot deadlock on each other.
CREATE OR REPLACE FUNCTION exactly.ensure_partitions(p_queues text[], p_partitions text[])
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO exactly.queues (name)
    SELECT DISTINCT q FROM unnest(p_queues) AS q
    WHERE NOT EXISTS (SELECT 1 FROM exactly.queues x WHERE x.name = q)
    ORDER BY q
    ON CONFLICT (name) DO NOTHING;

    INSERT INTO exactly.partitions (queue_id, name)
    SELECT DISTINCT q.id, s.p
    FROM unnest(p_queues, p_partitions) AS s(q, p)
    JOIN exactly.queues q ON q.name = s.q
    WHERE NOT EXISTS (SELECT 1 FROM exactly.partitions x WHERE x.queue_id = q.id AND x.name = s.p)
    ORDER BY q.id, s.p
    ON CONFLICT (queue_id, name) DO NOTHING;
END
$$;

-- Settles one segment (items of one partition) and returns one row per item, in item order.
--   p_pid:             the partition's id (partitions are never renamed, so a caller may keep it)
--   p_verified:        the caller vouches that none of p_hashes occurs at or below this offset;
--   p_verified_window: ... but only under a window of at most this many seconds: the watermark
--                      is honoured while the queue's current window is at most this one (a warm
--                      cache knows every hash of that window, hence of any smaller one). NULL or
--                      a smaller value: the whole window is probed, as with p_verified = -1. So a
--                      /configure that widens the window cannot be missed by a stale cache.
--   p_probe:           false for items whose transactionId is their own fresh message id.
--   p_locked:          true when the caller already holds the partition's row lock (a bundle):
--                      the lock-free first look would then save nothing, and is skipped.
--   p_spread:          the queue's spreadPartitions the caller routed the items with (0: the
--                      queue does not spread, items went to the partition they named). When it
--                      is not the queue's own value, nothing is written and SQLSTATE EXS01 is
--                      raised: the caller learns the value and routes again. NULL: no check (a
--                      dead-letter copy, keyed by its own new id, keeps its origin's partition).
--                      The value is read in the statement's snapshot; when it changes, the
--                      queue API updates every partition row of the queue (V14), so a push that
--                      waited for one of those row locks runs again with a snapshot that sees it.
--   p_digests:         per item, the 16-byte XXH3-128 of its payload bytes (V15), stored with the
--                      message; NULL (or a NULL element) stores none, and a later duplicate of it
--                      then cannot tell whether its payload matched.
-- Result: offset (new, or the original's for a duplicate), message_id (new, or the original's,
-- or the zero UUID when the original's data was purged), duplicate, the allocator watermark the
-- answer was settled against (prev_last_offset: new offsets start above it; a warm cache needs
-- it), the queue's window (0: no deduplication; hashes are still written), for a duplicate the
-- original's payload digest (original_digest: NULL when its data was purged or it was stored
-- without one), and whether the queue rejects a duplicate whose payload differs
-- (reject_mismatch: its payloadMismatch option is 'reject'). The caller compares the digests:
-- the store only decides duplicate or not, exactly as before; a payload never changes that.
--
-- Why a duplicate needs no lock: offsets are allocated under the partition's row lock, and a
-- writer's hashes become visible when it commits, before it releases the lock. So the hashes
-- any snapshot sees form a prefix of the partition's offsets, and the lowest visible offset of a
-- hash inside the window is its original, whatever commits afterwards (a concurrent writer
-- allocates above it). A segment whose every item is found that way is answered at once.
--
-- Why the locked statement is exact although its snapshot is taken before its lock: in READ
-- COMMITTED, FOR UPDATE returns the newest version of the row it waited for, while the rest of
-- the statement reads the snapshot. Their ctids are equal exactly when no writer committed to
-- the partition in between; then every hash at or below last_offset is visible to the probe.
-- Otherwise the statement writes and answers nothing, and runs again under the lock it now
-- holds, with a new snapshot. The probe's clock is read after the lock is granted, so a
-- retention step (which takes the same lock) never purged a hash this probe should see.
DROP FUNCTION IF EXISTS exactly.push_segment(bigint, bigint, integer, bytea[], boolean[], uuid[], text[], bytea[],
                                             text[], text[], text[]);
DROP FUNCTION IF EXISTS exactly.push_segment(bigint, bigint, integer, bytea[], boolean[], uuid[], text[], bytea[],
                                             text[], text[], text[], boolean);
DROP FUNCTION IF EXISTS exactly.push_segment(bigint, bigint, integer, bytea[], boolean[], uuid[], text[], bytea[],
                                             text[], text[], text[], boolean, integer);
DROP FUNCTION IF EXISTS exactly.push_segment(bigint, bigint, integer, bytea[], boolean[], uuid[], text[], bytea[],
                                             text[], text[], text[], boolean, integer, bytea[]);

-- Raises EXS01 for a push routed with a spreadPartitions that is not its queue's (see push_segment).
CREATE OR REPLACE FUNCTION exactly.spread_changed(p_pid bigint, p_spread integer, p_assumed integer)
RETURNS integer
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'exactly: the push was routed with spreadPartitions %, its queue has %', p_assumed, p_spread
        USING ERRCODE = 'EXS01', DETAIL = format('partition id %s', p_pid);
END
$$;

CREATE FUNCTION exactly.push_segment(
    p_pid               bigint,
    p_verified          bigint,
    p_verified_window   integer,
    p_hashes            bytea[],
    p_probe             boolean[],
    p_message_ids       uuid[],
    p_txn_ids           text[],
    p_payloads          bytea[],
    p_content_types     text[],
    p_headers           text[],
    p_trace_ids         text[],
    p_locked            boolean DEFAULT false,
    p_spread            integer DEFAULT 0,
    p_digests           bytea[] DEFAULT NULL)
RETURNS TABLE (item integer, "offset" bigint, message_id uuid, duplicate boolean, prev_last_offset bigint,
               dedup_window_seconds integer, original_digest bytea, reject_mismatch boolean)
LANGUAGE plpgsql
-- The probe must be one index descent per hash at any occupancy. Its plan must not hinge on
-- table statistics (a plan chosen while the table was small, then cached, would scan a full
-- window later), so scans other than index scans are ruled out for this function's queries.
-- Generic plans: planned once per connection, not on every call (custom plans for array
-- parameters were re-planned per call, which cost more than the work of a small segment).
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    -- the first attempt takes no lock when every item probes (and the caller holds none): it
    -- answers only if all are duplicates
    v_lock boolean := p_locked OR NOT (true = ALL (p_probe));
BEGIN
    FOR attempt IN 1..3 LOOP
        RETURN QUERY
        WITH snap AS MATERIALIZED (
            SELECT p.ctid AS cur, p.last_offset AS last, p.txns_start AS start,
                   CASE WHEN p_spread IS NULL OR q.spread_partitions = p_spread THEN q.dedup_window_seconds
                        ELSE exactly.spread_changed(p_pid, q.spread_partitions, p_spread) END AS win,
                   q.payload_mismatch = 'reject' AS rej
            FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id
            WHERE p.id = p_pid
        ), lk AS MATERIALIZED (
            -- the row lock serialises writers of this partition: nothing can commit into the
            -- probed span until this transaction ends, so probe-then-allocate is race-free
            SELECT p.ctid AS cur, p.last_offset AS last, p.txns_start AS start
            FROM exactly.partitions p
            WHERE v_lock AND p.id = p_pid
            FOR UPDATE
        ), bound AS MATERIALIZED (
            -- locked: only when the locked row is the version this snapshot reads (see above)
            SELECT s.win, s.rej, COALESCE(l.last, s.last) AS last,
                   GREATEST(CASE WHEN p_verified_window >= s.win THEN p_verified END,
                            COALESCE(l.start, s.start) - 1, -1) AS vfrom,
                   clock_timestamp() AS now
            FROM snap s LEFT JOIN lk l ON true
            WHERE NOT v_lock OR l.cur = s.cur
        ), src AS (
            SELECT i.ord, i.h, i.probe, i.mid, i.tx, i.pl, i.ct, i.hd, i.tr, i.dg, b.win, b.rej, b.last, b.vfrom, b.now
            FROM bound b
            -- (a NULL p_digests unnests as NULLs beside the other arrays)
            CROSS JOIN unnest(p_hashes, p_probe, p_message_ids, p_txn_ids, p_payloads, p_content_types, p_headers,
                              p_trace_ids, p_digests) WITH ORDINALITY AS i(h, probe, mid, tx, pl, ct, hd, tr, dg, ord)
        ), dup AS (
            -- One primary-key descent per probed hash; MIN offset = the original occurrence.
            -- (The primary key is the only index that can serve it: see V4.)
            SELECT s.ord, d.off
            FROM src s
            CROSS JOIN LATERAL (
                SELECT x."offset" AS off
                FROM exactly.txn_hashes x
                WHERE x.partition_id = p_pid
                  AND x.hash = s.h
                  AND x."offset" > s.vfrom
                  AND x.created_at >= s.now - make_interval(secs => s.win)
                ORDER BY x."offset"
                LIMIT 1
            ) d
            WHERE s.probe AND s.win > 0 AND s.last > s.vfrom
        ), answer AS (
            -- under the lock every segment is answered; without it, only an all-duplicate one
            SELECT 1 AS yes
            WHERE v_lock OR (SELECT count(*) FROM dup) = cardinality(p_hashes)
        ), fresh AS (
            SELECT s.*, s.last + row_number() OVER (ORDER BY s.ord) AS off
            FROM src s
            WHERE v_lock AND NOT EXISTS (SELECT 1 FROM dup d WHERE d.ord = s.ord)
        ), alloc AS (
            UPDATE exactly.partitions p SET last_offset = f.top
            FROM (SELECT max(f.off) AS top FROM fresh f) f
            WHERE p.id = p_pid AND f.top IS NOT NULL
        ), ins_hash AS (
            INSERT INTO exactly.txn_hashes (partition_id, hash, "offset", created_at)
            SELECT p_pid, f.h, f.off, f.now FROM fresh f
        ), ins_msg AS (
            INSERT INTO exactly.messages (partition_id, "offset", message_id, transaction_id, payload,
                                          content_type, headers, trace_id, created_at, payload_digest)
            SELECT p_pid, f.off, f.mid, f.tx, f.pl, f.ct, f.hd::jsonb, f.tr, f.now, f.dg FROM fresh f
        )
        SELECT s.ord::integer,
               COALESCE(f.off, d.off),
               CASE WHEN d.off IS NULL THEN s.mid
                    ELSE COALESCE(m.message_id, '00000000-0000-0000-0000-000000000000'::uuid) END,
               d.off IS NOT NULL,
               s.last,
               s.win,
               m.payload_digest,
               s.rej
        FROM src s
        CROSS JOIN answer
        LEFT JOIN dup d ON d.ord = s.ord
        LEFT JOIN fresh f ON f.ord = s.ord
        -- The original's id and payload digest: one primary-key lookup per duplicate. LATERAL with
        -- LIMIT (which the planner cannot flatten into a join) keeps it a parameterised index
        -- descent; a plain join read every message of the partition on each push, a cost growing
        -- with the partition.
        LEFT JOIN LATERAL (
            SELECT x.message_id, x.payload_digest FROM exactly.messages x
            WHERE d.off IS NOT NULL AND x.partition_id = p_pid AND x."offset" = d.off
            LIMIT 1
        ) m ON true
        ORDER BY s.ord;
        IF FOUND THEN
            RETURN;
        END IF;
        v_lock := true;
    END LOOP;
    -- under its lock with a snapshot taken after it, the row cannot have changed: it is missing
    IF NOT EXISTS (SELECT 1 FROM exactly.partitions p WHERE p.id = p_pid) THEN
        RAISE EXCEPTION 'exactly: partition % does not exist', p_pid USING ERRCODE = 'P0002';
    END IF;
    RAISE EXCEPTION 'exactly: partition % changed under its own row lock', p_pid;
END
$$;

-- Locks several partition rows for a bundle without holding any of them while waiting for a
-- busy one: otherwise a bundle that includes a stuck partition would hold its other partitions'
-- locks for up to lock_timeout, and a stuck partition would stall pushes to partitions it has
-- nothing to do with. Each try takes every lock with NOWAIT inside a subtransaction (kept by the
-- transaction when all succeed); when one is busy the subtransaction is rolled back, releasing
-- the locks it took, and the function waits for each partition in turn, holding none (each wait
-- is bounded by lock_timeout: 55P03 ends the push, which wrote nothing). After three contended
-- tries it waits in ascending id order, holding what it has, as a single lock statement would.
-- Locks the calling transaction already holds are kept throughout.
CREATE OR REPLACE FUNCTION exactly.lock_partitions(p_pids bigint[])
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_pid bigint;
BEGIN
    FOR attempt IN 1..3 LOOP
        BEGIN
            PERFORM 1 FROM exactly.partitions p WHERE p.id = ANY (p_pids) ORDER BY p.id FOR UPDATE NOWAIT;
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            NULL;
        END;
        FOREACH v_pid IN ARRAY (SELECT array_agg(x ORDER BY x) FROM unnest(p_pids) AS x) LOOP
            BEGIN
                PERFORM 1 FROM exactly.partitions p WHERE p.id = v_pid FOR UPDATE;
                RAISE EXCEPTION 'exactly: release' USING ERRCODE = 'EX001';
            EXCEPTION WHEN SQLSTATE 'EX001' THEN
                NULL;
            END;
        END LOOP;
    END LOOP;
    PERFORM 1 FROM exactly.partitions p WHERE p.id = ANY (p_pids) ORDER BY p.id FOR UPDATE;
END
$$;

-- Pushes a bundle: several segments, each (queue, partition), in one transaction.
-- Per segment: p_queues, p_partitions, p_verified, p_counts (items in the segment), and
-- p_verified_windows (NULL: none vouched), as push_segment's p_verified and p_verified_window,
-- and p_spreads (NULL: 0 for every segment), as push_segment's p_spread.
-- Per item, grouped by segment in segment order: the arrays of push_segment, p_digests included
-- (last, NULL: none stored).
-- Returns push_segment's rows tagged with the segment (1-based) and its partition id, ordered by
-- segment, then item. A multi-partition bundle takes all its partition locks first, in ascending
-- id order (lock_partitions); a single segment's lock is taken by push_segment.
DROP FUNCTION IF EXISTS exactly.push_bundle(text[], text[], bigint[], integer[], bytea[], boolean[], uuid[],
                                            text[], bytea[], text[], text[], text[]);
DROP FUNCTION IF EXISTS exactly.push_bundle(text[], text[], bigint[], integer[], bytea[], boolean[], uuid[],
                                            text[], bytea[], text[], text[], text[], integer[]);
DROP FUNCTION IF EXISTS exactly.push_bundle(text[], text[], bigint[], integer[], bytea[], boolean[], uuid[],
                                            text[], bytea[], text[], text[], text[], integer[], integer[]);
DROP FUNCTION IF EXISTS exactly.push_bundle(text[], text[], bigint[], integer[], bytea[], boolean[], uuid[],
                                            text[], bytea[], text[], text[], text[], integer[], integer[], bytea[]);
CREATE OR REPLACE FUNCTION exactly.push_bundle(
    p_queues        text[],
    p_partitions    text[],
    p_verified      bigint[],
    p_counts        integer[],
    p_hashes        bytea[],
    p_probe         boolean[],
    p_message_ids   uuid[],
    p_txn_ids       text[],
    p_payloads      bytea[],
    p_content_types text[],
    p_headers       text[],
    p_trace_ids     text[],
    p_verified_windows integer[] DEFAULT NULL,
    p_spreads       integer[] DEFAULT NULL,
    p_digests       bytea[] DEFAULT NULL)
RETURNS TABLE (segment integer, item integer, partition_id bigint, "offset" bigint, message_id uuid,
               duplicate boolean, prev_last_offset bigint, dedup_window_seconds integer, original_digest bytea,
               reject_mismatch boolean)
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_pids     bigint[];
    v_seg_of   integer[];
    v_missing  boolean;
    r          record;
BEGIN
    FOR attempt IN 1..2 LOOP
        SELECT array_agg(p.id ORDER BY s.seg), bool_or(p.id IS NULL)
        INTO v_pids, v_missing
        FROM unnest(p_queues, p_partitions) WITH ORDINALITY AS s(q, p, seg)
        LEFT JOIN exactly.queues q ON q.name = s.q
        LEFT JOIN exactly.partitions p ON p.queue_id = q.id AND p.name = s.p;
        EXIT WHEN NOT v_missing;
        PERFORM exactly.ensure_partitions(p_queues, p_partitions);
    END LOOP;

    -- Ascending partition id: the lock order shared with acks and retention. A bundle of
    -- several partitions does not hold the free ones while it waits for a busy one.
    IF cardinality(v_pids) > 1 THEN
        PERFORM exactly.lock_partitions(v_pids);
    END IF;

    IF cardinality(v_pids) = 1 THEN
        RETURN QUERY
        SELECT 1, x.item, v_pids[1], x."offset", x.message_id, x.duplicate, x.prev_last_offset, x.dedup_window_seconds,
               x.original_digest, x.reject_mismatch
        FROM exactly.push_segment(v_pids[1], p_verified[1], p_verified_windows[1], p_hashes, p_probe, p_message_ids,
                                  p_txn_ids, p_payloads, p_content_types, p_headers, p_trace_ids, false,
                                  COALESCE(p_spreads[1], 0), p_digests) AS x;
        RETURN;
    END IF;

    -- Each segment's items as arrays of their own, in one pass (slicing the bundle's arrays per
    -- segment would walk them from the start each time: quadratic in the bundle's size).
    -- the segment of every item, by position (a fixed-width array: one subscript per item)
    SELECT array_agg(s.seg::integer ORDER BY s.seg, k.item) INTO v_seg_of
    FROM unnest(p_counts) WITH ORDINALITY AS s(cnt, seg)
    CROSS JOIN LATERAL generate_series(1, s.cnt) AS k(item);

    FOR r IN
        SELECT v_seg_of[i.ord] AS seg,
               array_agg(i.h ORDER BY i.ord) AS h, array_agg(i.probe ORDER BY i.ord) AS probe,
               array_agg(i.mid ORDER BY i.ord) AS mid, array_agg(i.tx ORDER BY i.ord) AS tx,
               array_agg(i.pl ORDER BY i.ord) AS pl, array_agg(i.ct ORDER BY i.ord) AS ct,
               array_agg(i.hd ORDER BY i.ord) AS hd, array_agg(i.tr ORDER BY i.ord) AS tr,
               array_agg(i.dg ORDER BY i.ord) AS dg
        FROM unnest(p_hashes, p_probe, p_message_ids, p_txn_ids, p_payloads, p_content_types, p_headers, p_trace_ids,
                    p_digests)
             WITH ORDINALITY AS i(h, probe, mid, tx, pl, ct, hd, tr, dg, ord)
        GROUP BY 1
        ORDER BY 1
    LOOP
        RETURN QUERY
        SELECT r.seg, x.item, v_pids[r.seg], x."offset", x.message_id, x.duplicate, x.prev_last_offset,
               x.dedup_window_seconds, x.original_digest, x.reject_mismatch
        FROM exactly.push_segment(v_pids[r.seg], p_verified[r.seg], p_verified_windows[r.seg], r.h, r.probe, r.mid,
                                  r.tx, r.pl, r.ct, r.hd, r.tr, true, COALESCE(p_spreads[r.seg], 0), r.dg) AS x;
    END LOOP;
END
$$;
