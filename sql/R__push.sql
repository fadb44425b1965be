-- Push path: the exact deduplication verdict (layer 3) and offset allocation.
--
-- push_segment probes one partition's deduplication window for a segment of transaction
-- hashes BEFORE it allocates offsets, under the partition's row lock, so a duplicate writes
-- nothing: no allocator bump, no message row, no hash row, and no savepoint is needed.
-- push_bundle resolves (queue, partition) names, creates the missing ones, takes every
-- partition lock in ascending id order (the one global lock order) and settles all its segments
-- with push_segment's rules in one set-based statement, so a request touching several
-- partitions costs one round trip and a fixed number of statements.

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

-- Pushes one segment (items of one partition) and returns one row per item, in item order.
--   p_verified: the caller vouches that none of p_hashes occurs at or below this offset;
--               -1 means it cannot vouch and the whole window is probed.
--   p_window:   deduplication window in seconds; 0 turns the probe off (hashes are still written).
--   p_probe:    false for items whose transactionId is their own fresh message id.
-- Result: offset (new, or the original's for a duplicate), message_id (new, or the original's,
-- or the zero UUID when the original's data was purged), duplicate, and the allocator
-- watermark found under the lock (prev_last_offset), which a warm cache needs.
CREATE OR REPLACE FUNCTION exactly.push_segment(
    p_pid           bigint,
    p_verified      bigint,
    p_window        integer,
    p_hashes        bytea[],
    p_probe         boolean[],
    p_message_ids   uuid[],
    p_txn_ids       text[],
    p_payloads      bytea[],
    p_content_types text[],
    p_headers       text[],
    p_trace_ids     text[])
RETURNS TABLE (item integer, "offset" bigint, message_id uuid, duplicate boolean, prev_last_offset bigint)
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
    v_last        bigint;
    v_txns_start  bigint;
    v_now         timestamptz;
    v_from        bigint;
    v_dup_idx     bigint[];
    v_dup_off     bigint[];
    v_fresh       integer;
BEGIN
    -- The row lock serialises writers of this partition: nothing can commit into the probed
    -- span until we commit, so probe-then-allocate is race-free.
    SELECT p.last_offset, p.txns_start INTO v_last, v_txns_start
    FROM exactly.partitions p WHERE p.id = p_pid
    FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'exactly: partition % does not exist', p_pid USING ERRCODE = 'P0002';
    END IF;

    v_now := clock_timestamp();

    IF p_window > 0 THEN
        v_from := GREATEST(COALESCE(p_verified, -1), v_txns_start - 1);
        IF v_last > v_from THEN
            -- One primary-key descent per probed hash; MIN offset = the original occurrence.
            -- (The primary key is the only index that can serve it: see V4.)
            SELECT array_agg(i.ord ORDER BY i.ord), array_agg(d.off ORDER BY i.ord)
            INTO v_dup_idx, v_dup_off
            FROM unnest(p_hashes, p_probe) WITH ORDINALITY AS i(h, probe, ord)
            CROSS JOIN LATERAL (
                SELECT t."offset" AS off
                FROM exactly.txn_hashes t
                WHERE t.partition_id = p_pid
                  AND t.hash = i.h
                  AND t."offset" > v_from
                  AND t.created_at >= v_now - make_interval(secs => p_window)
                ORDER BY t."offset"
                LIMIT 1
            ) d
            WHERE i.probe;
        END IF;
    END IF;

    v_fresh := cardinality(p_hashes) - COALESCE(cardinality(v_dup_idx), 0);
    IF v_fresh > 0 THEN
        UPDATE exactly.partitions SET last_offset = v_last + v_fresh WHERE id = p_pid;
    END IF;

    RETURN QUERY
    WITH src AS (
        SELECT i.ord, i.h, i.mid, i.tx, i.pl, i.ct, i.hd, i.tr, d.off AS dup_off
        FROM unnest(p_hashes, p_message_ids, p_txn_ids, p_payloads, p_content_types, p_headers, p_trace_ids)
             WITH ORDINALITY AS i(h, mid, tx, pl, ct, hd, tr, ord)
        LEFT JOIN unnest(v_dup_idx, v_dup_off) AS d(idx, off) ON d.idx = i.ord
    ), fresh AS (
        SELECT s.*, v_last + row_number() OVER (ORDER BY s.ord) AS off
        FROM src s WHERE s.dup_off IS NULL
    ), ins_hash AS (
        INSERT INTO exactly.txn_hashes (partition_id, hash, "offset", created_at)
        SELECT p_pid, f.h, f.off, v_now FROM fresh f
    ), ins_msg AS (
        INSERT INTO exactly.messages (partition_id, "offset", message_id, transaction_id, payload,
                                      content_type, headers, trace_id, created_at)
        SELECT p_pid, f.off, f.mid, f.tx, f.pl, f.ct, f.hd::jsonb, f.tr, v_now FROM fresh f
    )
    SELECT s.ord::integer,
           COALESCE(f.off, s.dup_off),
           CASE WHEN s.dup_off IS NULL THEN s.mid
                ELSE COALESCE(m.message_id, '00000000-0000-0000-0000-000000000000'::uuid) END,
           s.dup_off IS NOT NULL,
           v_last
    FROM src s
    LEFT JOIN fresh f ON f.ord = s.ord
    -- The original's id: one primary-key lookup per duplicate. LATERAL with LIMIT (which the
    -- planner cannot flatten into a join) keeps it a parameterised index descent; a plain join
    -- read every message of the partition on each push, a cost growing with the partition.
    LEFT JOIN LATERAL (
        SELECT x.message_id FROM exactly.messages x
        WHERE s.dup_off IS NOT NULL AND x.partition_id = p_pid AND x."offset" = s.dup_off
        LIMIT 1
    ) m ON true
    ORDER BY s.ord;
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

-- Pushes a bundle: several segments, each (queue, partition), in one statement.
-- Per segment: p_queues, p_partitions, p_verified, p_counts (items in the segment), and
-- p_verified_windows: the window (seconds) each p_verified was vouched under by a warm cache. A
-- watermark is honoured only while the queue's current window is at most the vouched one (the
-- cache knows every hash of that window, hence of any smaller one); otherwise, and when
-- p_verified_windows is NULL, the segment probes its whole window (p_verified = -1). So a
-- /configure that widens the window can never be missed by a cache that has not seen it yet.
-- Per item, grouped by segment in segment order: the arrays of push_segment.
-- Returns push_segment's rows tagged with the segment (1-based) and its partition id and window,
-- ordered by segment, then item.
--
-- All segments are settled set-based, by a fixed number of statements whatever the number of
-- segments: take every partition lock (ascending id), read the watermarks, then ONE statement
-- probes every probing item (one primary-key descent each, before any write), allocates dense
-- offsets per partition, advances the allocators and stores the non-duplicates. That is exactly
-- what push_segment does per segment; a loop of push_segment calls cost ~0.1-0.3 ms of fixed
-- overhead per segment, which dominated bundles spread over many partitions. A bundle naming
-- one partition in two segments (the engine never sends one) takes the segment-by-segment path.
DROP FUNCTION IF EXISTS exactly.push_bundle(text[], text[], bigint[], integer[], bytea[], boolean[], uuid[],
                                            text[], bytea[], text[], text[], text[]);
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
    p_verified_windows integer[] DEFAULT NULL)
RETURNS TABLE (segment integer, item integer, partition_id bigint, "offset" bigint, message_id uuid,
               duplicate boolean, prev_last_offset bigint, dedup_window_seconds integer)
LANGUAGE plpgsql
-- As for push_segment: index scans only, plans made once per connection.
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_pids     bigint[];
    v_windows  integer[];
    v_missing  boolean;
    v_last     bigint[];
    v_from     bigint[];
    v_now      timestamptz;
    v_seg      integer;
    v_lo       integer := 1;
    v_hi       integer;
BEGIN
    FOR attempt IN 1..2 LOOP
        SELECT array_agg(p.id ORDER BY s.seg), array_agg(q.dedup_window_seconds ORDER BY s.seg),
               bool_or(p.id IS NULL)
        INTO v_pids, v_windows, v_missing
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
    ELSE
        PERFORM 1 FROM exactly.partitions p WHERE p.id = ANY (v_pids) ORDER BY p.id FOR UPDATE;
    END IF;

    IF cardinality(v_pids) > (SELECT count(DISTINCT x) FROM unnest(v_pids) AS x) THEN
        FOR v_seg IN 1..cardinality(p_queues) LOOP
            v_hi := v_lo + p_counts[v_seg] - 1;
            RETURN QUERY
            SELECT v_seg, r.item, v_pids[v_seg], r."offset", r.message_id, r.duplicate,
                   r.prev_last_offset, v_windows[v_seg]
            FROM exactly.push_segment(v_pids[v_seg],
                                      CASE WHEN p_verified_windows[v_seg] >= v_windows[v_seg]
                                           THEN p_verified[v_seg] ELSE -1 END,
                                      v_windows[v_seg],
                                      p_hashes[v_lo:v_hi], p_probe[v_lo:v_hi], p_message_ids[v_lo:v_hi],
                                      p_txn_ids[v_lo:v_hi], p_payloads[v_lo:v_hi],
                                      p_content_types[v_lo:v_hi], p_headers[v_lo:v_hi],
                                      p_trace_ids[v_lo:v_hi]) AS r;
            v_lo := v_hi + 1;
        END LOOP;
        RETURN;
    END IF;

    -- Per segment, under the locks: the allocator watermark and the probe's lower bound (the
    -- honoured p_verified, or the purge watermark txns_start - 1, whichever is higher).
    SELECT array_agg(p.last_offset ORDER BY s.seg),
           array_agg(GREATEST(COALESCE(CASE WHEN p_verified_windows[s.seg] >= v_windows[s.seg]
                                            THEN p_verified[s.seg] END, -1),
                              p.txns_start - 1) ORDER BY s.seg)
    INTO v_last, v_from
    FROM unnest(v_pids) WITH ORDINALITY AS s(pid, seg)
    JOIN exactly.partitions p ON p.id = s.pid;

    v_now := clock_timestamp();

    -- One statement: every data-modifying part sees the snapshot taken before any of them writes,
    -- so the probe (dup) reads only what was committed before this bundle.
    RETURN QUERY
    WITH seg AS (
        SELECT s.seg::integer AS seg, s.pid, s.win, s.last, s.vfrom, s.cnt
        FROM unnest(v_pids, v_windows, v_last, v_from, p_counts)
             WITH ORDINALITY AS s(pid, win, last, vfrom, cnt, seg)
    ), pos AS (
        SELECT g.seg, g.pid, g.win, g.last, g.vfrom, k.item::integer AS item,
               row_number() OVER (ORDER BY g.seg, k.item) AS ord
        FROM seg g CROSS JOIN LATERAL generate_series(1, g.cnt) AS k(item)
    ), itm AS (
        SELECT p.seg, p.item, p.pid, p.win, p.last, p.vfrom, i.*
        FROM unnest(p_hashes, p_probe, p_message_ids, p_txn_ids, p_payloads, p_content_types, p_headers,
                    p_trace_ids) WITH ORDINALITY AS i(h, probe, mid, tx, pl, ct, hd, tr, ord)
        JOIN pos p ON p.ord = i.ord
    ), dup AS (
        -- One primary-key descent per probed hash; MIN offset = the original occurrence.
        -- (The primary key is the only index that can serve it: see V4.)
        SELECT t.ord, d.off
        FROM itm t
        CROSS JOIN LATERAL (
            SELECT x."offset" AS off
            FROM exactly.txn_hashes x
            WHERE x.partition_id = t.pid
              AND x.hash = t.h
              AND x."offset" > t.vfrom
              AND x.created_at >= v_now - make_interval(secs => t.win)
            ORDER BY x."offset"
            LIMIT 1
        ) d
        WHERE t.probe AND t.win > 0 AND t.last > t.vfrom
    ), fresh AS (
        SELECT t.*, t.last + row_number() OVER (PARTITION BY t.seg ORDER BY t.ord) AS off
        FROM itm t
        WHERE NOT EXISTS (SELECT 1 FROM dup d WHERE d.ord = t.ord)
    ), alloc AS (
        UPDATE exactly.partitions p SET last_offset = f.top
        FROM (SELECT f.pid, max(f.off) AS top FROM fresh f GROUP BY f.pid) f
        WHERE p.id = f.pid
    ), ins_hash AS (
        INSERT INTO exactly.txn_hashes (partition_id, hash, "offset", created_at)
        SELECT f.pid, f.h, f.off, v_now FROM fresh f
    ), ins_msg AS (
        INSERT INTO exactly.messages (partition_id, "offset", message_id, transaction_id, payload,
                                      content_type, headers, trace_id, created_at)
        SELECT f.pid, f.off, f.mid, f.tx, f.pl, f.ct, f.hd::jsonb, f.tr, v_now FROM fresh f
    )
    SELECT t.seg, t.item, t.pid, COALESCE(f.off, d.off),
           CASE WHEN d.off IS NULL THEN t.mid
                ELSE COALESCE(m.message_id, '00000000-0000-0000-0000-000000000000'::uuid) END,
           d.off IS NOT NULL, t.last, t.win
    FROM itm t
    LEFT JOIN dup d ON d.ord = t.ord
    LEFT JOIN fresh f ON f.ord = t.ord
    -- the original's id: one primary-key lookup per duplicate (see push_segment)
    LEFT JOIN LATERAL (
        SELECT x.message_id FROM exactly.messages x
        WHERE d.off IS NOT NULL AND x.partition_id = t.pid AND x."offset" = d.off
        LIMIT 1
    ) m ON true
    ORDER BY t.seg, t.item;
END
$$;
