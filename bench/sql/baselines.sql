-- Benchmark-only schema "bench": the baselines Exactly's push path is measured against, and the
-- helpers that pre-fill a deduplication window. NOT part of the product's migrations (sql/):
-- the benchmark suite installs it into its own benchmark database only.
--
-- Every *_bundle function takes exactly the arguments of exactly.push_bundle (sql/R__push.sql)
-- and returns the same columns, so one client drives all of them the same way. They resolve
-- and lock partitions through exactly.queues / exactly.partitions (same names, same ascending
-- lock order) and store into tables of their own:
--   (a) naive_bundle: INSERT ... ON CONFLICT DO NOTHING on a unique (partition, hash) index,
--       one savepoint (a plpgsql exception block = a subtransaction) per segment. No window:
--       a unique index keeps every hash forever. Offsets are allocated per item up front
--       (a duplicate leaves a gap), which is cheaper than Exactly's dense offsets.
--   (b) scan_bundle: the reference's probe: one row of concatenated 16-byte hashes per stored
--       segment, unnested and joined against the incoming hashes over the whole window
--       (p_verified = -1 is what the caller sends).
--   (c) plain_bundle: offsets and message rows only, no hashes, no deduplication: the floor.

DROP SCHEMA IF EXISTS bench CASCADE;
CREATE SCHEMA bench;

CREATE TABLE bench.naive_hashes (
    partition_id bigint NOT NULL,
    hash         bytea  NOT NULL,
    "offset"     bigint NOT NULL,
    message_id   uuid   NOT NULL,
    PRIMARY KEY (partition_id, hash)
);
CREATE TABLE bench.naive_messages (LIKE exactly.messages INCLUDING ALL);

CREATE TABLE bench.ref_txns (
    partition_id bigint      NOT NULL,
    base_offset  bigint      NOT NULL,
    end_offset   bigint      NOT NULL,
    created_at   timestamptz NOT NULL,
    hashes       bytea       NOT NULL,
    PRIMARY KEY (partition_id, base_offset)
);
CREATE TABLE bench.ref_messages (LIKE exactly.messages INCLUDING ALL);

CREATE TABLE bench.plain_messages (LIKE exactly.messages INCLUDING ALL);

-- The reference's log_unnest_hashes: a blob of 16-byte hashes as (idx from 0, hash) rows.
CREATE FUNCTION bench.unnest_hashes(p_blob bytea)
RETURNS TABLE (idx integer, h bytea)
LANGUAGE sql IMMUTABLE AS $$
    SELECT i - 1, substring(p_blob FROM (i - 1) * 16 + 1 FOR 16)
    FROM generate_series(1, length(p_blob) / 16) AS i
$$;

-- Partition ids and windows of a bundle's segments, creating missing queues/partitions the way
-- exactly.push_bundle does; then every partition row is locked in ascending id order.
CREATE FUNCTION bench.resolve_and_lock(p_queues text[], p_partitions text[],
                                       OUT pids bigint[], OUT windows integer[])
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_missing boolean;
BEGIN
    FOR attempt IN 1..2 LOOP
        SELECT array_agg(p.id ORDER BY s.seg), array_agg(q.dedup_window_seconds ORDER BY s.seg),
               bool_or(p.id IS NULL)
        INTO pids, windows, v_missing
        FROM unnest(p_queues, p_partitions) WITH ORDINALITY AS s(q, p, seg)
        LEFT JOIN exactly.queues q ON q.name = s.q
        LEFT JOIN exactly.partitions p ON p.queue_id = q.id AND p.name = s.p;
        EXIT WHEN NOT v_missing;
        PERFORM exactly.ensure_partitions(p_queues, p_partitions);
    END LOOP;
    PERFORM 1 FROM exactly.partitions p WHERE p.id = ANY (pids) ORDER BY p.id FOR UPDATE;
END
$$;

-- (a) one segment of the naive design.
CREATE FUNCTION bench.naive_segment(p_pid bigint, p_hashes bytea[], p_message_ids uuid[], p_txn_ids text[],
                                    p_payloads bytea[], p_content_types text[], p_headers text[],
                                    p_trace_ids text[])
RETURNS TABLE (item integer, "offset" bigint, message_id uuid, duplicate boolean, prev_last_offset bigint)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_last bigint;
    v_now  timestamptz := clock_timestamp();
BEGIN
    SELECT p.last_offset INTO v_last FROM exactly.partitions p WHERE p.id = p_pid FOR UPDATE;
    UPDATE exactly.partitions SET last_offset = v_last + cardinality(p_hashes) WHERE id = p_pid;
    RETURN QUERY
    WITH src AS (
        SELECT i.ord, i.h, i.mid, i.tx, i.pl, i.ct, i.hd, i.tr, v_last + i.ord AS off
        FROM unnest(p_hashes, p_message_ids, p_txn_ids, p_payloads, p_content_types, p_headers, p_trace_ids)
             WITH ORDINALITY AS i(h, mid, tx, pl, ct, hd, tr, ord)
    ), ins AS (
        INSERT INTO bench.naive_hashes (partition_id, hash, "offset", message_id)
        SELECT p_pid, s.h, s.off, s.mid FROM src s
        ON CONFLICT DO NOTHING
        RETURNING hash
    ), msg AS (
        INSERT INTO bench.naive_messages (partition_id, "offset", message_id, transaction_id, payload,
                                          content_type, headers, trace_id, created_at)
        SELECT p_pid, s.off, s.mid, s.tx, s.pl, s.ct, s.hd::jsonb, s.tr, v_now
        FROM src s JOIN ins ON ins.hash = s.h
    )
    SELECT s.ord::integer,
           CASE WHEN ins.hash IS NULL THEN o."offset" ELSE s.off END,
           CASE WHEN ins.hash IS NULL THEN o.message_id ELSE s.mid END,
           ins.hash IS NULL,
           v_last
    FROM src s
    LEFT JOIN ins ON ins.hash = s.h
    LEFT JOIN LATERAL (
        SELECT x."offset", x.message_id FROM bench.naive_hashes x
        WHERE ins.hash IS NULL AND x.partition_id = p_pid AND x.hash = s.h
        LIMIT 1
    ) o ON true
    ORDER BY s.ord;
END
$$;

-- (a) the naive bundle: one savepoint per segment, so a failing segment would not undo the others.
CREATE FUNCTION bench.naive_bundle(
    p_queues text[], p_partitions text[], p_verified bigint[], p_counts integer[], p_hashes bytea[],
    p_probe boolean[], p_message_ids uuid[], p_txn_ids text[], p_payloads bytea[], p_content_types text[],
    p_headers text[], p_trace_ids text[])
RETURNS TABLE (segment integer, item integer, partition_id bigint, "offset" bigint, message_id uuid,
               duplicate boolean, prev_last_offset bigint, dedup_window_seconds integer)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    r     record;
    v_lo  integer := 1;
    v_hi  integer;
BEGIN
    SELECT * INTO r FROM bench.resolve_and_lock(p_queues, p_partitions);
    FOR v_seg IN 1..cardinality(p_queues) LOOP
        v_hi := v_lo + p_counts[v_seg] - 1;
        BEGIN
            RETURN QUERY
            SELECT v_seg, x.item, r.pids[v_seg], x."offset", x.message_id, x.duplicate, x.prev_last_offset,
                   r.windows[v_seg]
            FROM bench.naive_segment(r.pids[v_seg], p_hashes[v_lo:v_hi], p_message_ids[v_lo:v_hi],
                                     p_txn_ids[v_lo:v_hi], p_payloads[v_lo:v_hi], p_content_types[v_lo:v_hi],
                                     p_headers[v_lo:v_hi], p_trace_ids[v_lo:v_hi]) AS x;
        EXCEPTION WHEN unique_violation THEN
            RAISE NOTICE 'bench: segment % rolled back', v_seg;
        END;
        v_lo := v_hi + 1;
    END LOOP;
END
$$;

-- (b) one segment of the reference's window-scan design.
CREATE FUNCTION bench.scan_segment(p_pid bigint, p_verified bigint, p_window integer, p_hashes bytea[],
                                   p_message_ids uuid[], p_txn_ids text[], p_payloads bytea[],
                                   p_content_types text[], p_headers text[], p_trace_ids text[])
RETURNS TABLE (item integer, "offset" bigint, message_id uuid, duplicate boolean, prev_last_offset bigint)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_last       bigint;
    v_txns_start bigint;
    v_now        timestamptz;
    v_from       bigint;
    v_blob       bytea;
    v_dup_idx    bigint[];
    v_dup_off    bigint[];
    v_fresh      integer;
BEGIN
    SELECT p.last_offset, p.txns_start INTO v_last, v_txns_start
    FROM exactly.partitions p WHERE p.id = p_pid FOR UPDATE;
    v_now := clock_timestamp();
    IF p_window > 0 THEN
        v_from := GREATEST(COALESCE(p_verified, -1), v_txns_start - 1);
        IF v_last > v_from THEN
            SELECT string_agg(h, ''::bytea ORDER BY o) INTO v_blob
            FROM unnest(p_hashes) WITH ORDINALITY AS u(h, o);
            SELECT array_agg(d.idx + 1 ORDER BY d.idx), array_agg(d.off ORDER BY d.idx)
            INTO v_dup_idx, v_dup_off
            FROM (
                SELECT ih.idx AS idx, MIN(t.base_offset + th.idx) AS off
                FROM bench.ref_txns t
                CROSS JOIN LATERAL bench.unnest_hashes(t.hashes) th
                JOIN bench.unnest_hashes(v_blob) ih ON ih.h = th.h
                WHERE t.partition_id = p_pid
                  AND t.end_offset > v_from
                  AND t.created_at >= v_now - make_interval(secs => p_window)
                GROUP BY ih.idx
            ) d;
        END IF;
    END IF;

    v_fresh := cardinality(p_hashes) - COALESCE(cardinality(v_dup_idx), 0);
    IF v_fresh > 0 THEN
        UPDATE exactly.partitions SET last_offset = v_last + v_fresh WHERE id = p_pid;
        INSERT INTO bench.ref_txns (partition_id, base_offset, end_offset, created_at, hashes)
        SELECT p_pid, v_last + 1, v_last + v_fresh, v_now, string_agg(u.h, ''::bytea ORDER BY u.o)
        FROM unnest(p_hashes) WITH ORDINALITY AS u(h, o)
        WHERE v_dup_idx IS NULL OR NOT (u.o = ANY (v_dup_idx));
    END IF;

    RETURN QUERY
    WITH src AS (
        SELECT i.ord, i.mid, i.tx, i.pl, i.ct, i.hd, i.tr, d.off AS dup_off
        FROM unnest(p_message_ids, p_txn_ids, p_payloads, p_content_types, p_headers, p_trace_ids)
             WITH ORDINALITY AS i(mid, tx, pl, ct, hd, tr, ord)
        LEFT JOIN unnest(v_dup_idx, v_dup_off) AS d(idx, off) ON d.idx = i.ord
    ), fresh AS (
        SELECT s.*, v_last + row_number() OVER (ORDER BY s.ord) AS off
        FROM src s WHERE s.dup_off IS NULL
    ), ins_msg AS (
        INSERT INTO bench.ref_messages (partition_id, "offset", message_id, transaction_id, payload,
                                        content_type, headers, trace_id, created_at)
        SELECT p_pid, f.off, f.mid, f.tx, f.pl, f.ct, f.hd::jsonb, f.tr, v_now FROM fresh f
    )
    SELECT s.ord::integer, COALESCE(f.off, s.dup_off),
           CASE WHEN s.dup_off IS NULL THEN s.mid
                ELSE COALESCE(m.message_id, '00000000-0000-0000-0000-000000000000'::uuid) END,
           s.dup_off IS NOT NULL, v_last
    FROM src s
    LEFT JOIN fresh f ON f.ord = s.ord
    LEFT JOIN LATERAL (
        SELECT x.message_id FROM bench.ref_messages x
        WHERE s.dup_off IS NOT NULL AND x.partition_id = p_pid AND x."offset" = s.dup_off
        LIMIT 1
    ) m ON true
    ORDER BY s.ord;
END
$$;

-- (b) the reference's bundle: no savepoints (a duplicate writes nothing), probe by window scan.
CREATE FUNCTION bench.scan_bundle(
    p_queues text[], p_partitions text[], p_verified bigint[], p_counts integer[], p_hashes bytea[],
    p_probe boolean[], p_message_ids uuid[], p_txn_ids text[], p_payloads bytea[], p_content_types text[],
    p_headers text[], p_trace_ids text[])
RETURNS TABLE (segment integer, item integer, partition_id bigint, "offset" bigint, message_id uuid,
               duplicate boolean, prev_last_offset bigint, dedup_window_seconds integer)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    r     record;
    v_lo  integer := 1;
    v_hi  integer;
BEGIN
    SELECT * INTO r FROM bench.resolve_and_lock(p_queues, p_partitions);
    FOR v_seg IN 1..cardinality(p_queues) LOOP
        v_hi := v_lo + p_counts[v_seg] - 1;
        RETURN QUERY
        SELECT v_seg, x.item, r.pids[v_seg], x."offset", x.message_id, x.duplicate, x.prev_last_offset,
               r.windows[v_seg]
        FROM bench.scan_segment(r.pids[v_seg], p_verified[v_seg], r.windows[v_seg], p_hashes[v_lo:v_hi],
                                p_message_ids[v_lo:v_hi], p_txn_ids[v_lo:v_hi], p_payloads[v_lo:v_hi],
                                p_content_types[v_lo:v_hi], p_headers[v_lo:v_hi], p_trace_ids[v_lo:v_hi]) AS x;
        v_lo := v_hi + 1;
    END LOOP;
END
$$;

-- (c) one segment with no deduplication: allocate offsets, store the messages.
CREATE FUNCTION bench.plain_segment(p_pid bigint, p_message_ids uuid[], p_txn_ids text[], p_payloads bytea[],
                                    p_content_types text[], p_headers text[], p_trace_ids text[])
RETURNS TABLE (item integer, "offset" bigint, message_id uuid, duplicate boolean, prev_last_offset bigint)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    v_last bigint;
    v_now  timestamptz := clock_timestamp();
BEGIN
    SELECT p.last_offset INTO v_last FROM exactly.partitions p WHERE p.id = p_pid FOR UPDATE;
    UPDATE exactly.partitions SET last_offset = v_last + cardinality(p_message_ids) WHERE id = p_pid;
    RETURN QUERY
    WITH src AS (
        SELECT i.ord, i.mid, i.tx, i.pl, i.ct, i.hd, i.tr, v_last + i.ord AS off
        FROM unnest(p_message_ids, p_txn_ids, p_payloads, p_content_types, p_headers, p_trace_ids)
             WITH ORDINALITY AS i(mid, tx, pl, ct, hd, tr, ord)
    ), msg AS (
        INSERT INTO bench.plain_messages (partition_id, "offset", message_id, transaction_id, payload,
                                          content_type, headers, trace_id, created_at)
        SELECT p_pid, s.off, s.mid, s.tx, s.pl, s.ct, s.hd::jsonb, s.tr, v_now FROM src s
    )
    SELECT s.ord::integer, s.off, s.mid, false, v_last FROM src s ORDER BY s.ord;
END
$$;

-- (c) the floor: same bundle shape, no deduplication at all.
CREATE FUNCTION bench.plain_bundle(
    p_queues text[], p_partitions text[], p_verified bigint[], p_counts integer[], p_hashes bytea[],
    p_probe boolean[], p_message_ids uuid[], p_txn_ids text[], p_payloads bytea[], p_content_types text[],
    p_headers text[], p_trace_ids text[])
RETURNS TABLE (segment integer, item integer, partition_id bigint, "offset" bigint, message_id uuid,
               duplicate boolean, prev_last_offset bigint, dedup_window_seconds integer)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    r     record;
    v_lo  integer := 1;
    v_hi  integer;
BEGIN
    SELECT * INTO r FROM bench.resolve_and_lock(p_queues, p_partitions);
    FOR v_seg IN 1..cardinality(p_queues) LOOP
        v_hi := v_lo + p_counts[v_seg] - 1;
        RETURN QUERY
        SELECT v_seg, x.item, r.pids[v_seg], x."offset", x.message_id, x.duplicate, x.prev_last_offset,
               r.windows[v_seg]
        FROM bench.plain_segment(r.pids[v_seg], p_message_ids[v_lo:v_hi], p_txn_ids[v_lo:v_hi],
                                 p_payloads[v_lo:v_hi], p_content_types[v_lo:v_hi], p_headers[v_lo:v_hi],
                                 p_trace_ids[v_lo:v_hi]) AS x;
        v_lo := v_hi + 1;
    END LOOP;
END
$$;

-- Pre-fills one partition's window with p_count random in-window hashes (created a minute ago),
-- for Exactly (p_design 'exactly': exactly.txn_hashes + exactly.messages) or the reference
-- ('scan': bench.ref_txns blobs of 100 hashes). Advances the partition's allocator past them.
-- Returns the partition id.
CREATE FUNCTION bench.prefill(p_queue text, p_partition text, p_count integer, p_design text)
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    v_pid  bigint;
    v_at   timestamptz := now() - interval '60 seconds';
BEGIN
    PERFORM exactly.ensure_partitions(ARRAY[p_queue], ARRAY[p_partition]);
    SELECT p.id INTO v_pid FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id
    WHERE q.name = p_queue AND p.name = p_partition FOR UPDATE;
    IF p_design = 'exactly' THEN
        INSERT INTO exactly.txn_hashes (partition_id, hash, "offset", created_at)
        SELECT v_pid, decode(md5(p_queue || ':' || i), 'hex'), i, v_at FROM generate_series(0, p_count - 1) i;
        INSERT INTO exactly.messages (partition_id, "offset", message_id, transaction_id, payload, created_at)
        SELECT v_pid, i, md5(p_queue || '/' || i)::uuid, 'pre-' || i, '\x7b7d'::bytea, v_at
        FROM generate_series(0, p_count - 1) i;
    ELSIF p_design = 'scan' THEN
        INSERT INTO bench.ref_txns (partition_id, base_offset, end_offset, created_at, hashes)
        SELECT v_pid, b * 100, b * 100 + 99, v_at,
               (SELECT string_agg(decode(md5(p_queue || ':' || i), 'hex'), ''::bytea ORDER BY i)
                FROM generate_series(b * 100, b * 100 + 99) i)
        FROM generate_series(0, p_count / 100 - 1) b;
    ELSE
        RAISE EXCEPTION 'bench.prefill: unknown design %', p_design;
    END IF;
    UPDATE exactly.partitions SET last_offset = p_count - 1 WHERE id = v_pid;
    RETURN v_pid;
END
$$;
