-- bench/lockwork: push_segment's set-based path (the one a 100-item segment of new keys takes:
-- the first look's gate, the lock, the queue's options, the probe, the hash rows, the message
-- rows, the watermark, the answer) with the clock read between its steps, the readings kept per
-- call in public.lw_steps (written last, after the steps it times; t[8] is the reading right after
-- the lock was granted). bench/lockwork/steps runs it from one client, where no step waits for
-- another push, and from eight.
CREATE UNLOGGED TABLE IF NOT EXISTS public.lw_steps (t timestamptz[]);
CREATE OR REPLACE FUNCTION exactly.push_segment_timed(
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
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_n      integer := cardinality(p_hashes);
    v_qid    bigint;
    v_last   bigint;
    v_start  bigint;
    v_win    integer;
    v_spread integer;
    v_rej    boolean;
    v_vfrom  bigint;
    v_now    timestamptz;
    v_dup    bigint[] := '{}';
    v_found  integer := 0;
    v_t      timestamptz[];
BEGIN
    v_t[0] := clock_timestamp();
    -- the lock-free first look's gate, as push_segment (one descent; a new key is not found)
    IF NOT p_locked AND p_verified < 0 AND true = ALL (p_probe)
       AND EXISTS (SELECT 1 FROM exactly.txn_hashes x WHERE x.partition_id = p_pid AND x.hash = p_hashes[1]) THEN
        RAISE EXCEPTION 'bench: the timed variant answers no duplicate';
    END IF;

    v_t[1] := clock_timestamp();
    SELECT p.last_offset, p.txns_start, p.queue_id INTO v_last, v_start, v_qid
    FROM exactly.partitions p WHERE p.id = p_pid FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'exactly: partition % does not exist', p_pid USING ERRCODE = 'P0002';
    END IF;
    v_now := clock_timestamp();
    v_t[8] := v_now;

    SELECT q.dedup_window_seconds, q.spread_partitions, q.payload_mismatch = 'reject' INTO v_win, v_spread, v_rej
    FROM exactly.queues q WHERE q.id = v_qid;
    IF p_spread IS NOT NULL AND v_spread <> p_spread THEN
        PERFORM exactly.spread_changed(p_pid, v_spread, p_spread);
    END IF;
    v_t[2] := clock_timestamp();
    v_vfrom := GREATEST(CASE WHEN p_verified_window >= v_win THEN p_verified END, v_start - 1, -1);

    IF v_win > 0 AND v_last > v_vfrom AND true = ANY (p_probe) THEN
        SELECT array_agg(d.off ORDER BY i.ord), count(d.off) INTO v_dup, v_found
        FROM unnest(p_hashes, p_probe) WITH ORDINALITY AS i(h, probe, ord)
        LEFT JOIN LATERAL (
            SELECT x."offset" AS off
            FROM exactly.txn_hashes x
            WHERE i.probe AND x.partition_id = p_pid AND x.hash = i.h AND x."offset" > v_vfrom
              AND x.created_at >= v_now - make_interval(secs => v_win)
            ORDER BY x."offset"
            LIMIT 1
        ) d ON true;
    END IF;

    v_t[3] := clock_timestamp();
    IF v_found < v_n THEN
        INSERT INTO exactly.txn_hashes (partition_id, hash, "offset", created_at)
        SELECT p_pid, i.h, v_last + row_number() OVER (ORDER BY i.ord), v_now
        FROM unnest(p_hashes) WITH ORDINALITY AS i(h, ord)
        WHERE v_dup[i.ord] IS NULL;
        v_t[4] := clock_timestamp();
        INSERT INTO exactly.messages (partition_id, "offset", message_id, transaction_id, payload,
                                      content_type, headers, trace_id, created_at, payload_digest)
        SELECT p_pid, v_last + row_number() OVER (ORDER BY i.ord), i.mid, i.tx, i.pl, i.ct, i.hd::jsonb, i.tr, v_now,
               i.dg
        FROM unnest(p_message_ids, p_txn_ids, p_payloads, p_content_types, p_headers, p_trace_ids, p_digests)
             WITH ORDINALITY AS i(mid, tx, pl, ct, hd, tr, dg, ord)
        WHERE v_dup[i.ord] IS NULL;
        v_t[5] := clock_timestamp();
        UPDATE exactly.partitions p SET last_offset = v_last + (v_n - v_found) WHERE p.id = p_pid;
    END IF;
    v_t[6] := clock_timestamp();

    RETURN QUERY
    SELECT i.ord::integer,
           COALESCE(v_dup[i.ord], v_last + count(*) FILTER (WHERE v_dup[i.ord] IS NULL) OVER (ORDER BY i.ord)),
           CASE WHEN v_dup[i.ord] IS NULL THEN i.mid
                ELSE COALESCE(m.message_id, '00000000-0000-0000-0000-000000000000'::uuid) END,
           v_dup[i.ord] IS NOT NULL,
           v_last,
           v_win,
           m.payload_digest,
           v_rej
    FROM unnest(p_message_ids) WITH ORDINALITY AS i(mid, ord)
    LEFT JOIN LATERAL (
        SELECT x.message_id, x.payload_digest FROM exactly.messages x
        WHERE v_dup[i.ord] IS NOT NULL AND x.partition_id = p_pid AND x."offset" = v_dup[i.ord]
        LIMIT 1
    ) m ON true
    ORDER BY i.ord;
    v_t[7] := clock_timestamp();
    INSERT INTO public.lw_steps VALUES (v_t);
END
$$;
