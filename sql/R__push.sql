-- Push path: the exact deduplication verdict (layer 3) and offset allocation.
--
-- ONE settle algorithm, push_segment: it settles the items of one partition, given by its id
-- (the function reads and writes that partition's rows only, so a distributed database can run
-- it on the node holding the partition). It probes the partition's deduplication window for the
-- items' transaction hashes BEFORE it allocates offsets, so a duplicate writes nothing: no
-- allocator bump, no message row, no hash row, and no savepoint is needed.
--   * A segment whose every item is a hash already committed inside the window is answered
--     without any lock, read-only (no transaction id, no WAL, no commit to flush).
--   * Otherwise it locks the partition row, then probes and stores under the lock.
--   It has two forms of those same steps: set-based statements for a segment of several items,
--   and statements on one row for a single item (most pushes: one webhook delivery, one event),
--   whose plans cost the database much less per execution.
-- push_bundle resolves (queue, partition) names, creates the missing ones, takes the partition
-- locks of a multi-partition bundle in ascending id order (the one global lock order), then
-- settles the segments: all in one transaction, one round trip. On plain PostgreSQL a bundle of
-- several distinct partitions is settled by settle_bundle, the set-based form of the same steps
-- over many partitions at once (a fixed number of statements per bundle, not per segment); on
-- Citus, and for a bundle naming a partition twice, each segment by push_segment.
-- PushBundleFormsTest runs the same bundles through both and compares every answer.

-- Commit before the WAL flush, answer after it.
--
-- A writer of a partition holds the partition's row lock until its transaction ends, so a
-- synchronous commit would hold it through the commit's WAL flush, and the partition's writers
-- would flush one after another: a partition's throughput would be bounded by 1 / (work under
-- the lock + one flush). Instead, a push that the service sends on its own (p_release) commits
-- without waiting for the flush (synchronous_commit off for its transaction only), which
-- releases the lock as soon as its commit record is written; the service then answers only
-- after exactly.flush_wal() returned, a synchronous commit of a WAL record of its own that
-- flushes all WAL written before it (PostgreSQL's XLogFlush writes and syncs up to the insert
-- position, so concurrent callers share a flush). So every answer still comes after the rows it
-- reports are durable, while the next writer of the partition works under the lock during the
-- flush.
--
-- Offsets stay dense and in commit order after a crash: the next writer of a partition takes
-- the lock after this commit record was written, so its own commit record comes later in the
-- WAL, and recovery replays a prefix of the WAL.
--
-- What a snapshot may now see: a row committed but not yet flushed, whose producer has not been
-- answered yet. A duplicate's answer must not vouch for an original that a crash could still
-- lose, so every answer asks exactly.flush_needed() in the statement that computed it, after the
-- function returned: true when this transaction will commit early; false when it wrote or took
-- a partition's lock and commits synchronously (that commit flushes what it saw); when it only
-- read, true while the WAL is not flushed up to the position exactly.mark_seen recorded after
-- its look (everything that look's snapshot saw was written before that). The service then runs
-- exactly.flush_wal() before it answers. Which pushes release early is the caller's choice
-- (p_release): the stateless shape's always do; a server's fused flushes do only when asked to,
-- since one fused flush already carries every request that waited for the partition.
-- Readers that hand rows to someone else commit synchronously after they read, which flushes what
-- they saw: a consumer's pop always; a destination's pop only when it leased a message at or
-- below its partition's early_to, the highest offset an early commit wrote there (set by the
-- push beside last_offset; exactly.pop_many compares it in a statement after the lease, whose
-- later snapshot sees every push whose messages the lease saw).
--
-- On Citus every commit stays synchronous (a commit there is coordinated across nodes, and the
-- flush function would run on the wrong node): mark_write never releases early, flush_needed is
-- false and flush_wal does nothing.

-- Records that this transaction writes a push's rows: with p_release, on plain PostgreSQL and
-- unless the session already commits without waiting for the flush, the transaction will commit
-- before its WAL flush ('early'); otherwise its commit flushes ('sync').
CREATE OR REPLACE FUNCTION exactly.mark_write(p_release boolean)
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('exactly.wrote', true) = 'early' THEN
        RETURN;
    ELSIF p_release AND current_setting('synchronous_commit') <> 'off'
          AND to_regproc('pg_catalog.citus_version') IS NULL THEN
        PERFORM set_config('synchronous_commit', 'off', true), set_config('exactly.wrote', 'early', true);
    ELSE
        PERFORM set_config('exactly.wrote', 'sync', true);
    END IF;
END
$$;

-- Whether this transaction's writes commit before their WAL flush (mark_write chose 'early'). A
-- push records it on its partition row (partitions.early_to, V29) beside the new last offset,
-- through a variable (Citus refuses a non-immutable function in an UPDATE's CASE).
CREATE OR REPLACE FUNCTION exactly.writes_early()
RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT current_setting('exactly.wrote', true) IS NOT DISTINCT FROM 'early'
$$;

-- Records, after a statement that answered duplicates without a lock, the WAL insert position:
-- every commit that statement's snapshot saw was written before it.
CREATE OR REPLACE FUNCTION exactly.mark_seen()
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM set_config('exactly.seen_lsn', pg_current_wal_insert_lsn()::text, true);
END
$$;

-- Whether the caller must run exactly.flush_wal() before it answers what this transaction did
-- (evaluated after the push function returned, in the same statement): true when it wrote and
-- commits early; false when it wrote, or took a partition's lock, and commits synchronously (its
-- commit flushes everything it saw); when it only read, true while the WAL is not flushed up to
-- the position mark_seen recorded (WAL written after it, such as other callers' flushes, does not
-- count; without a mark, the current insert position).
CREATE OR REPLACE FUNCTION exactly.flush_needed()
RETURNS boolean
LANGUAGE sql AS $$
    SELECT CASE current_setting('exactly.wrote', true)
               WHEN 'early' THEN true
               WHEN 'sync' THEN false
               ELSE to_regproc('pg_catalog.citus_version') IS NULL
                    AND pg_current_wal_flush_lsn()
                        < COALESCE(NULLIF(current_setting('exactly.seen_lsn', true), '')::pg_lsn, pg_current_wal_insert_lsn())
           END
$$;

-- Flushes the WAL up to the current insert position: a transactional logical decoding message
-- (prefix 'exactly', empty content) gives the transaction an id and a WAL record, so its commit
-- waits for the flush as the session's synchronous_commit says (PostgreSQL commits a
-- transaction that wrote no WAL without a flush). Logical decoding consumers that ask for
-- messages see these; pgoutput sends none unless its "messages" option is on. Nothing on Citus.
CREATE OR REPLACE FUNCTION exactly.flush_wal()
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF to_regproc('pg_catalog.citus_version') IS NULL THEN
        PERFORM pg_logical_emit_message(true, 'exactly', '');
    END IF;
END
$$;

-- Creates the queues and partitions a bundle names that do not exist yet. Inserts run in
-- name order so that two bundles creating the same set cannot deadlock on each other. A
-- partition's name is claimed first (exactly.partition_names, the unique key; see V17), and only
-- the call that claimed it writes the partition row, with the id the name got.
CREATE OR REPLACE FUNCTION exactly.ensure_partitions(p_queues text[], p_partitions text[])
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    -- (anti-joins rather than NOT EXISTS: Citus plans no correlated subquery beside unnest)
    INSERT INTO exactly.queues (name)
    SELECT DISTINCT u.q FROM unnest(p_queues) AS u(q)
    LEFT JOIN exactly.queues x ON x.name = u.q
    WHERE x.id IS NULL
    ORDER BY u.q
    ON CONFLICT (name) DO NOTHING;

    FOR r IN
        INSERT INTO exactly.partition_names (queue_id, name)
        SELECT DISTINCT q.id, s.p
        FROM unnest(p_queues, p_partitions) AS s(q, p)
        JOIN exactly.queues q ON q.name = s.q
        LEFT JOIN exactly.partition_names x ON x.queue_id = q.id AND x.name = s.p
        WHERE x.id IS NULL
        ORDER BY q.id, s.p
        ON CONFLICT (queue_id, name) DO NOTHING
        RETURNING id, queue_id, name
    LOOP
        INSERT INTO exactly.partitions (id, queue_id, name) VALUES (r.id, r.queue_id, r.name);
    END LOOP;
END
$$;

-- The id of partition p_partition of queue p_queue, NULL when there is none: a read of
-- exactly.partition_names (a local read on any node of a Citus cluster).
-- (PL/pgSQL, not SQL: Citus plans no parameterised statement of a SQL function.)
CREATE OR REPLACE FUNCTION exactly.partition_id(p_queue text, p_partition text)
RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN (SELECT n.id FROM exactly.queues q JOIN exactly.partition_names n ON n.queue_id = q.id
            WHERE q.name = p_queue AND n.name = p_partition);
END
$$;

-- Settles one segment (items of one partition) and returns one row per item, in item order.
--   p_pid:             the partition's id (partitions are never renamed, so a caller may keep it).
--                      It is the function's distribution argument on Citus (sql/citus/distribute.sql):
--                      a call from a client is run whole on the node holding the partition.
--   p_verified:        the caller vouches that none of p_hashes occurs at or below this offset;
--   p_verified_window: ... but only under a window of at most this many seconds: the watermark
--                      is honoured while the queue's current window is at most this one (a warm
--                      cache knows every hash of that window, hence of any smaller one). NULL or
--                      a smaller value: the whole window is probed, as with p_verified = -1. So a
--                      /configure that widens the window cannot be missed by a stale cache.
--   p_probe:           false for items whose transactionId is their own fresh message id.
--   p_locked:          true when the caller already holds the partition's row lock (a bundle):
--                      the lock-free first look would then save nothing, and is skipped.
--                      It is skipped too when p_verified >= 0: a warm cache vouches only for a
--                      segment none of whose hashes it holds (it asks for the whole window,
--                      p_verified = -1, when it holds one: a retry through the same instance),
--                      so the look would almost never find one; the probe under the lock still
--                      decides (a duplicate stored by another instance above the watermark is
--                      found there, at the cost of the lock).
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
--   p_release:         true when the caller sends the push on its own and answers only after
--                      exactly.flush_wal() (see "Commit before the WAL flush" above): a write
--                      then commits without waiting for its flush. False (the default) inside a
--                      caller's transaction, which commits as its session says.
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
-- Why the probe under the lock is exact: the lock is its own statement, and every statement
-- after it reads a snapshot taken after the lock was granted (READ COMMITTED). Every earlier
-- holder of the lock committed before it released it, so every hash at or below last_offset is
-- visible to the probe, and nothing can commit into the partition until this transaction ends.
-- The queue's options (window, spreadPartitions, payloadMismatch) are read after the lock too, so
-- a spreadPartitions change (which updates the queue's partition rows, V14) committed while this
-- push waited for the lock is seen. The probe's clock is read after the lock is granted, so a
-- retention step (which takes the same lock) never purged a hash this probe should see.
--
-- Each statement reads and writes the rows of one partition only (and its queue's row), so on
-- Citus each is a single-shard statement that the node holding the partition runs locally (a
-- statement with data-modifying CTEs is planned there CTE by CTE, through intermediate results).
DROP FUNCTION IF EXISTS exactly.push_segment(bigint, bigint, integer, bytea[], boolean[], uuid[], text[], bytea[],
                                             text[], text[], text[]);
DROP FUNCTION IF EXISTS exactly.push_segment(bigint, bigint, integer, bytea[], boolean[], uuid[], text[], bytea[],
                                             text[], text[], text[], boolean);
DROP FUNCTION IF EXISTS exactly.push_segment(bigint, bigint, integer, bytea[], boolean[], uuid[], text[], bytea[],
                                             text[], text[], text[], boolean, integer);
DROP FUNCTION IF EXISTS exactly.push_segment(bigint, bigint, integer, bytea[], boolean[], uuid[], text[], bytea[],
                                             text[], text[], text[], boolean, integer, bytea[]);
DROP FUNCTION IF EXISTS exactly.push_segment(bigint, bigint, integer, bytea[], boolean[], uuid[], text[], bytea[],
                                             text[], text[], text[], boolean, integer, bytea[], boolean);

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
    p_digests           bytea[] DEFAULT NULL,
    p_release           boolean DEFAULT false)
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
    v_n      integer := cardinality(p_hashes);
    v_qid    bigint;
    v_last   bigint;
    v_start  bigint;
    v_win    integer;
    v_spread integer;
    v_rej    boolean;
    v_vfrom  bigint;
    v_now    timestamptz;
    -- per item: the original's offset (a duplicate), or NULL (fresh)
    v_dup    bigint[] := '{}';
    v_found  integer := 0;
    -- the one-item form (below)
    v_hash   bytea;
    v_off    bigint;
    v_mid    uuid;
    v_digest bytea;
    v_locked boolean := false;
    v_early  boolean; -- this transaction commits before its WAL flush (mark_write)
BEGIN
    -- The one-item form: the same steps as the set-based form below (the lock-free first look,
    -- the lock, the queue's options, the probe, the allocation, the answer) as statements on one
    -- row: the first look (with the original's id), the lock, the options with the probe, and
    -- the writes; the answer is a row of variables (RETURN NEXT). A set-based statement pays per
    -- execution for its plan (unnest, lateral joins, window functions), and a single item is most
    -- of what a push is (one webhook delivery, one event): this form costs about half the
    -- database's work per push, in as few statements as its steps allow.
    -- PushSegmentOneItemTest#theOneItemFormAnswersAsTheSetBasedForm runs both forms on the same pushes.
    IF v_n = 1 THEN
        v_hash := p_hashes[1];
        IF NOT p_locked AND p_probe[1] AND p_verified < 0 THEN
            -- The first look and the lock in one statement: the partition's row is locked only when
            -- no hash committed inside the window matches (a correlated NOT EXISTS on this
            -- statement's snapshot, before the lock). A fresh key, the usual kind, so pays one
            -- statement for both; a key found here takes no lock and writes nothing, and the
            -- statement after this one answers it. The probe under the lock below stays the
            -- authority: a hash committed after this snapshot is found there.
            SELECT p.last_offset, p.txns_start, p.queue_id INTO v_last, v_start, v_qid
            FROM exactly.partitions p
            WHERE p.id = p_pid
              AND NOT EXISTS (
                SELECT 1
                FROM exactly.queues q
                JOIN exactly.txn_hashes x ON x.partition_id = p_pid AND x.hash = v_hash
                WHERE q.id = p.queue_id AND q.dedup_window_seconds > 0
                  AND x."offset" > GREATEST(p.txns_start - 1, -1)
                  AND x.created_at >= clock_timestamp() - make_interval(secs => q.dedup_window_seconds))
            FOR UPDATE OF p;
            v_locked := FOUND;
            -- the key was found on this snapshot (or the partition does not exist): answer it
            IF NOT v_locked THEN
                SELECT d.off, p.last_offset, q.dedup_window_seconds, q.payload_mismatch = 'reject', m.message_id,
                       m.payload_digest
                INTO v_off, v_last, v_win, v_rej, v_mid, v_digest
                FROM exactly.partitions p
                JOIN exactly.queues q ON q.id = p.queue_id
                CROSS JOIN LATERAL (
                    SELECT x."offset" AS off
                    FROM exactly.txn_hashes x
                    WHERE x.partition_id = p_pid AND x.hash = v_hash
                      AND x."offset" > GREATEST(p.txns_start - 1, -1)
                      AND x.created_at >= clock_timestamp() - make_interval(secs => q.dedup_window_seconds)
                    ORDER BY x."offset"
                    LIMIT 1
                ) d
                -- the original's id and digest in the same statement (NULL when its data was purged)
                LEFT JOIN LATERAL (
                    SELECT x.message_id, x.payload_digest FROM exactly.messages x
                    WHERE x.partition_id = p_pid AND x."offset" = d.off
                    LIMIT 1
                ) m ON true
                WHERE p.id = p_pid AND q.dedup_window_seconds > 0 AND (p_spread IS NULL OR q.spread_partitions = p_spread);
                IF FOUND THEN
                    PERFORM exactly.mark_seen();
                    -- the answer row from variables (RETURN NEXT), not from a query of its own
                    item := 1;
                    "offset" := v_off;
                    message_id := COALESCE(v_mid, '00000000-0000-0000-0000-000000000000'::uuid);
                    duplicate := true;
                    prev_last_offset := v_last;
                    dedup_window_seconds := v_win;
                    original_digest := v_digest;
                    reject_mismatch := v_rej;
                    RETURN NEXT;
                    RETURN;
                END IF;
            END IF;
        END IF;
    -- 1. The lock-free first look, when every item probes and the caller holds no lock: one
    --    read-only statement, which answers only if all items are duplicates (and the push was
    --    routed with the queue's spreadPartitions; otherwise the locked path below refuses it).
    --    It is not tried when the first item's hash is not stored at all (one key descent): the
    --    look could not answer such a segment, and a segment of new keys, the usual kind, would
    --    otherwise probe every hash twice (here and under the lock).
    ELSIF NOT p_locked AND p_verified < 0 AND true = ALL (p_probe)
          AND EXISTS (SELECT 1 FROM exactly.txn_hashes x WHERE x.partition_id = p_pid AND x.hash = p_hashes[1]) THEN
        RETURN QUERY
        WITH snap AS MATERIALIZED (
            SELECT p.last_offset AS last, q.dedup_window_seconds AS win, q.payload_mismatch = 'reject' AS rej,
                   clock_timestamp() AS now,
                   GREATEST(CASE WHEN p_verified_window >= q.dedup_window_seconds THEN p_verified END,
                            p.txns_start - 1, -1) AS vfrom
            FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id
            WHERE p.id = p_pid AND (p_spread IS NULL OR q.spread_partitions = p_spread)
        ), dup AS MATERIALIZED (
            -- one primary-key descent per hash; MIN offset = the original (the primary key is the
            -- only index that can serve it: see V4)
            SELECT i.ord, d.off
            FROM snap s
            CROSS JOIN unnest(p_hashes) WITH ORDINALITY AS i(h, ord)
            CROSS JOIN LATERAL (
                SELECT x."offset" AS off
                FROM exactly.txn_hashes x
                WHERE x.partition_id = p_pid AND x.hash = i.h AND x."offset" > s.vfrom
                  AND x.created_at >= s.now - make_interval(secs => s.win)
                ORDER BY x."offset"
                LIMIT 1
            ) d
            WHERE s.win > 0 AND s.last > s.vfrom
        )
        SELECT d.ord::integer, d.off, COALESCE(m.message_id, '00000000-0000-0000-0000-000000000000'::uuid), true,
               s.last, s.win, m.payload_digest, s.rej
        FROM dup d
        CROSS JOIN snap s
        -- the original's id and payload digest: one primary-key lookup per duplicate (LATERAL with
        -- LIMIT, which the planner cannot flatten into a join, keeps it a parameterised index descent)
        LEFT JOIN LATERAL (
            SELECT x.message_id, x.payload_digest FROM exactly.messages x
            WHERE x.partition_id = p_pid AND x."offset" = d.off
            LIMIT 1
        ) m ON true
        WHERE (SELECT count(*) FROM dup) = v_n
        ORDER BY d.ord;
        IF FOUND THEN
            PERFORM exactly.mark_seen();
            RETURN;
        END IF;
    END IF;

    -- 2. The partition's row lock, a statement of its own: writers of this partition are
    --    serialised from here on. Then the queue's options, on a snapshot taken under the lock.
    IF NOT v_locked THEN
        SELECT p.last_offset, p.txns_start, p.queue_id INTO v_last, v_start, v_qid
        FROM exactly.partitions p
        WHERE p.id = p_pid
        FOR UPDATE;
        v_locked := FOUND;
    END IF;
    IF NOT v_locked THEN
        RAISE EXCEPTION 'exactly: partition % does not exist', p_pid USING ERRCODE = 'P0002';
    END IF;
    v_now := clock_timestamp();

    -- The one-item form: the queue's options and the probe in one statement (on the snapshot
    -- taken under the lock, the probe's clock read after the lock), then its rows in one
    -- statement or its duplicate's answer. Per statement the database pays a fixed cost (plan
    -- lookup, executor start and end, locks, a snapshot) that exceeds the work on one row, so
    -- the form runs as few as the steps allow.
    IF v_n = 1 THEN
        SELECT q.dedup_window_seconds, q.spread_partitions, q.payload_mismatch = 'reject', d.off, m.message_id,
               m.payload_digest
        INTO v_win, v_spread, v_rej, v_off, v_mid, v_digest
        FROM exactly.queues q
        LEFT JOIN LATERAL (
            SELECT x."offset" AS off
            FROM exactly.txn_hashes x
            WHERE p_probe[1] AND q.dedup_window_seconds > 0
              AND x.partition_id = p_pid AND x.hash = v_hash
              AND x."offset" > GREATEST(CASE WHEN p_verified_window >= q.dedup_window_seconds THEN p_verified END,
                                        v_start - 1, -1)
              AND x.created_at >= v_now - make_interval(secs => q.dedup_window_seconds)
            ORDER BY x."offset"
            LIMIT 1
        ) d ON true
        LEFT JOIN LATERAL (
            SELECT x.message_id, x.payload_digest FROM exactly.messages x
            WHERE x.partition_id = p_pid AND x."offset" = d.off
            LIMIT 1
        ) m ON true
        WHERE q.id = v_qid;
        IF p_spread IS NOT NULL AND v_spread <> p_spread THEN
            PERFORM exactly.spread_changed(p_pid, v_spread, p_spread);
        END IF;
        item := 1;
        prev_last_offset := v_last;
        dedup_window_seconds := v_win;
        reject_mismatch := v_rej;
        IF v_off IS NOT NULL THEN
            -- nothing written but the lock, whose WAL record makes the commit wait for its flush
            PERFORM exactly.mark_write(false);
            "offset" := v_off;
            message_id := COALESCE(v_mid, '00000000-0000-0000-0000-000000000000'::uuid);
            duplicate := true;
            original_digest := v_digest;
            RETURN NEXT;
            RETURN;
        END IF;
        PERFORM exactly.mark_write(p_release);
        v_early := exactly.writes_early();
        -- (data-modifying CTEs run once and to completion whether or not anything reads them)
        WITH h AS (
            INSERT INTO exactly.txn_hashes (partition_id, hash, "offset", created_at)
            VALUES (p_pid, v_hash, v_last + 1, v_now)
        ), m AS (
            INSERT INTO exactly.messages (partition_id, "offset", message_id, transaction_id, payload,
                                          content_type, headers, trace_id, created_at, payload_digest)
            VALUES (p_pid, v_last + 1, p_message_ids[1], p_txn_ids[1], p_payloads[1], p_content_types[1],
                    p_headers[1]::jsonb, p_trace_ids[1], v_now, p_digests[1])
        )
        UPDATE exactly.partitions p
        SET last_offset = v_last + 1,
            early_to = CASE WHEN v_early THEN v_last + 1 ELSE p.early_to END
        WHERE p.id = p_pid;
        "offset" := v_last + 1;
        message_id := p_message_ids[1];
        duplicate := false;
        original_digest := NULL;
        RETURN NEXT;
        RETURN;
    END IF;

    SELECT q.dedup_window_seconds, q.spread_partitions, q.payload_mismatch = 'reject' INTO v_win, v_spread, v_rej
    FROM exactly.queues q WHERE q.id = v_qid;
    IF p_spread IS NOT NULL AND v_spread <> p_spread THEN
        PERFORM exactly.spread_changed(p_pid, v_spread, p_spread);
    END IF;
    v_vfrom := GREATEST(CASE WHEN p_verified_window >= v_win THEN p_verified END, v_start - 1, -1);

    -- 3. The probe: per item the original's offset, or NULL.
    IF v_win > 0 AND v_last > v_vfrom AND true = ANY (p_probe) THEN
        -- (items by subscript over a streamed generate_series, as in step 4)
        SELECT array_agg(d.off ORDER BY i.k), count(d.off) INTO v_dup, v_found
        FROM (SELECT generate_series(1, v_n) AS k) i
        LEFT JOIN LATERAL (
            SELECT x."offset" AS off
            FROM exactly.txn_hashes x
            WHERE p_probe[i.k] AND x.partition_id = p_pid AND x.hash = p_hashes[i.k] AND x."offset" > v_vfrom
              AND x.created_at >= v_now - make_interval(secs => v_win)
            ORDER BY x."offset"
            LIMIT 1
        ) d ON true;
    END IF;

    -- 4. The fresh items, at dense offsets above the watermark, in item order.
    --    A segment without a duplicate, the usual kind, takes item k to offset v_last + k: its rows
    --    and its answer are read off the arrays by subscript (function parameters are expanded
    --    arrays in PL/pgSQL, so a subscript is a constant-time lookup), over generate_series as a
    --    set-returning function in a select list, which streams its rows. unnest in FROM would
    --    first copy every item's values into a tuplestore, and the dense offsets of a mixed segment
    --    need a window function: work under the partition's lock that such a segment does not need
    --    (bench/lockwork/instructions counts it: about a fifth of a 100-item push's work).
    IF v_found = 0 AND v_n > 0 THEN
        PERFORM exactly.mark_write(p_release);
        v_early := exactly.writes_early();
        INSERT INTO exactly.txn_hashes (partition_id, hash, "offset", created_at)
        SELECT p_pid, p_hashes[g.k], v_last + g.k, v_now
        FROM (SELECT generate_series(1, v_n) AS k) g;
        INSERT INTO exactly.messages (partition_id, "offset", message_id, transaction_id, payload,
                                      content_type, headers, trace_id, created_at, payload_digest)
        SELECT p_pid, v_last + g.k, p_message_ids[g.k], p_txn_ids[g.k], p_payloads[g.k], p_content_types[g.k],
               p_headers[g.k]::jsonb, p_trace_ids[g.k], v_now, p_digests[g.k]
        FROM (SELECT generate_series(1, v_n) AS k) g;
        UPDATE exactly.partitions p
        SET last_offset = v_last + v_n,
            early_to = CASE WHEN v_early THEN v_last + v_n ELSE p.early_to END
        WHERE p.id = p_pid;
        RETURN QUERY
        SELECT g.k, v_last + g.k, p_message_ids[g.k], false, v_last, v_win, NULL::bytea, v_rej
        FROM (SELECT generate_series(1, v_n) AS k) g;
        RETURN;
    ELSIF v_found < v_n THEN
        PERFORM exactly.mark_write(p_release);
        v_early := exactly.writes_early();
        INSERT INTO exactly.txn_hashes (partition_id, hash, "offset", created_at)
        SELECT p_pid, i.h, v_last + row_number() OVER (ORDER BY i.ord), v_now
        FROM unnest(p_hashes) WITH ORDINALITY AS i(h, ord)
        WHERE v_dup[i.ord] IS NULL;
        INSERT INTO exactly.messages (partition_id, "offset", message_id, transaction_id, payload,
                                      content_type, headers, trace_id, created_at, payload_digest)
        SELECT p_pid, v_last + row_number() OVER (ORDER BY i.ord), i.mid, i.tx, i.pl, i.ct, i.hd::jsonb, i.tr, v_now,
               i.dg
        -- (a NULL p_digests unnests as NULLs beside the other arrays)
        FROM unnest(p_message_ids, p_txn_ids, p_payloads, p_content_types, p_headers, p_trace_ids, p_digests)
             WITH ORDINALITY AS i(mid, tx, pl, ct, hd, tr, dg, ord)
        WHERE v_dup[i.ord] IS NULL;
        UPDATE exactly.partitions p
        SET last_offset = v_last + (v_n - v_found),
            early_to = CASE WHEN v_early THEN v_last + (v_n - v_found) ELSE p.early_to END
        WHERE p.id = p_pid;
    ELSE
        -- nothing written but the lock, whose WAL record makes the commit wait for its flush
        PERFORM exactly.mark_write(false);
    END IF;

    -- 5. The answer: per item its offset, its message id (the original's for a duplicate, or the
    --    zero UUID when the original's data was purged), its verdict, the original's digest.
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
-- One row per statement, in ascending id order: on Citus each is a single-shard statement
-- (a multi-shard SELECT ... FOR UPDATE is refused there), and the order is the global one.
CREATE OR REPLACE FUNCTION exactly.lock_partitions(p_pids bigint[])
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_pid    bigint;
    v_sorted bigint[] := (SELECT array_agg(DISTINCT x ORDER BY x) FROM unnest(p_pids) AS x);
BEGIN
    FOR attempt IN 1..3 LOOP
        BEGIN
            FOREACH v_pid IN ARRAY v_sorted LOOP
                PERFORM 1 FROM exactly.partitions p WHERE p.id = v_pid FOR UPDATE NOWAIT;
            END LOOP;
            RETURN;
        EXCEPTION WHEN lock_not_available THEN
            NULL;
        END;
        FOREACH v_pid IN ARRAY v_sorted LOOP
            BEGIN
                PERFORM 1 FROM exactly.partitions p WHERE p.id = v_pid FOR UPDATE;
                RAISE EXCEPTION 'exactly: release' USING ERRCODE = 'EX001';
            EXCEPTION WHEN SQLSTATE 'EX001' THEN
                NULL;
            END;
        END LOOP;
    END LOOP;
    FOREACH v_pid IN ARRAY v_sorted LOOP
        PERFORM 1 FROM exactly.partitions p WHERE p.id = v_pid FOR UPDATE;
    END LOOP;
END
$$;

-- Before a change of a queue's spreadPartitions (dev.exactly.queue.QueueRepository, whose
-- transaction holds the queue row FOR UPDATE): locks the queue's partition rows in ascending id
-- order (the global lock order), writes a new version of each (so a push that waited for one of
-- these locks reads the queue again after it and sees the new value: push_segment), and returns
-- per partition its name and whether it still holds a transaction hash (txns_start, the purge
-- watermark, at or below its last offset). One row per statement: on Citus each is one shard's
-- (a multi-shard SELECT ... FOR UPDATE is refused there).
CREATE OR REPLACE FUNCTION exactly.lock_queue_partitions(p_queue text)
RETURNS TABLE (name text, holds boolean)
LANGUAGE plpgsql AS $$
DECLARE
    v_pid bigint;
BEGIN
    FOR v_pid IN
        SELECT n.id FROM exactly.partition_names n JOIN exactly.queues q ON q.id = n.queue_id
        WHERE q.name = p_queue ORDER BY n.id
    LOOP
        RETURN QUERY
        UPDATE exactly.partitions p SET last_offset = p.last_offset WHERE p.id = v_pid
        RETURNING p.name, p.txns_start <= p.last_offset;
    END LOOP;
END
$$;

-- Settles the segments of a bundle whose partition row locks the caller holds (push_bundle, after
-- lock_partitions), several distinct partitions at once: the steps of push_segment's locked path
-- (the queue's options and the spread check, the probe, the allocation, the answer), each one
-- set-based statement over every item of the bundle, so a bundle costs a fixed number of
-- statements however many partitions it names (one push_segment call per segment costs about
-- three times as much for 100 one-item segments).
--   p_pids: per segment, distinct; p_verified, p_verified_windows, p_spreads (NULL: 0): per
--   segment, as push_segment's arguments; p_counts: items per segment; the per-item arrays are
--   grouped by segment in segment order, as push_bundle's.
-- Result: push_bundle's rows, ordered by segment, then item. Raises P0002 when a partition does
-- not exist and EXS01 (nothing written) when a segment was routed with another spreadPartitions
-- than its queue's. Plain PostgreSQL only: each statement reads and writes many partitions' rows.
-- Exactness under the locks is push_segment's argument (see above): every statement runs after
-- the locks were granted, on a snapshot that sees every earlier holder's commit.
DROP FUNCTION IF EXISTS exactly.settle_bundle(bigint[], bigint[], integer[], integer[], bytea[], boolean[], uuid[],
                                              text[], bytea[], text[], text[], text[], integer[], bytea[]);
CREATE OR REPLACE FUNCTION exactly.settle_bundle(
    p_pids              bigint[],
    p_verified          bigint[],
    p_verified_windows  integer[],
    p_counts            integer[],
    p_hashes            bytea[],
    p_probe             boolean[],
    p_message_ids       uuid[],
    p_txn_ids           text[],
    p_payloads          bytea[],
    p_content_types     text[],
    p_headers           text[],
    p_trace_ids         text[],
    p_spreads           integer[],
    p_digests           bytea[],
    p_release           boolean DEFAULT false)
RETURNS TABLE (segment integer, item integer, partition_id bigint, "offset" bigint, message_id uuid,
               duplicate boolean, prev_last_offset bigint, dedup_window_seconds integer, original_digest bytea,
               reject_mismatch boolean)
LANGUAGE plpgsql
SET enable_seqscan = off
SET enable_bitmapscan = off
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
    v_n      integer := cardinality(p_hashes);
    v_segs   integer := cardinality(p_pids);
    v_seg_of integer[];
    v_item_of integer[];
    v_last   bigint[];
    v_vfrom  bigint[];
    v_win    integer[];
    v_rej    boolean[];
    v_bad    integer;
    v_found  integer := 0;
    v_dup    bigint[] := '{}';
    v_off    bigint[];
    v_now    timestamptz;
    v_early  boolean; -- this transaction commits before its WAL flush (mark_write)
BEGIN
    -- each item's segment and its place in it
    SELECT array_agg(s.seg::integer ORDER BY s.seg, k.item), array_agg(k.item::integer ORDER BY s.seg, k.item)
    INTO v_seg_of, v_item_of
    FROM unnest(p_counts) WITH ORDINALITY AS s(cnt, seg)
    CROSS JOIN LATERAL generate_series(1, s.cnt) AS k(item);

    -- per segment, under the locks the caller holds: the watermark, the probe's lower bound, the
    -- queue's options; a segment routed with another spreadPartitions than its queue's refuses all
    SELECT array_agg(p.last_offset ORDER BY s.seg),
           array_agg(GREATEST(CASE WHEN p_verified_windows[s.seg] >= q.dedup_window_seconds THEN p_verified[s.seg] END,
                              p.txns_start - 1, -1) ORDER BY s.seg),
           array_agg(q.dedup_window_seconds ORDER BY s.seg),
           array_agg(q.payload_mismatch = 'reject' ORDER BY s.seg),
           min(s.seg) FILTER (WHERE q.spread_partitions <> COALESCE(p_spreads[s.seg], 0))
    INTO v_last, v_vfrom, v_win, v_rej, v_bad
    FROM unnest(p_pids) WITH ORDINALITY AS s(pid, seg)
    JOIN exactly.partitions p ON p.id = s.pid
    JOIN exactly.queues q ON q.id = p.queue_id;
    IF cardinality(v_last) IS DISTINCT FROM v_segs THEN
        RAISE EXCEPTION 'exactly: a partition of the bundle does not exist' USING ERRCODE = 'P0002';
    END IF;
    IF v_bad IS NOT NULL THEN
        PERFORM exactly.spread_changed(p_pids[v_bad], q.spread_partitions, COALESCE(p_spreads[v_bad], 0))
        FROM exactly.partitions p JOIN exactly.queues q ON q.id = p.queue_id WHERE p.id = p_pids[v_bad];
    END IF;
    v_now := clock_timestamp();

    -- the probe: per item the original's offset, or NULL
    IF true = ANY (p_probe) THEN
        SELECT array_agg(d.off ORDER BY i.ord), count(d.off) INTO v_dup, v_found
        FROM unnest(p_hashes, p_probe) WITH ORDINALITY AS i(h, probe, ord)
        LEFT JOIN LATERAL (
            SELECT x."offset" AS off
            FROM exactly.txn_hashes x
            WHERE i.probe AND v_win[v_seg_of[i.ord]] > 0 AND v_last[v_seg_of[i.ord]] > v_vfrom[v_seg_of[i.ord]]
              AND x.partition_id = p_pids[v_seg_of[i.ord]] AND x.hash = i.h
              AND x."offset" > v_vfrom[v_seg_of[i.ord]]
              AND x.created_at >= v_now - make_interval(secs => v_win[v_seg_of[i.ord]])
            ORDER BY x."offset"
            LIMIT 1
        ) d ON true;
    END IF;

    -- every item's offset: the original's, or the next dense one above its segment's watermark
    SELECT array_agg(a.off ORDER BY a.o) INTO v_off
    FROM (SELECT o, COALESCE(v_dup[o], v_last[v_seg_of[o]]
                 + count(*) FILTER (WHERE v_dup[o] IS NULL) OVER (PARTITION BY v_seg_of[o] ORDER BY o)) AS off
          FROM generate_series(1, v_n) AS o) a;

    IF v_found < v_n THEN
        PERFORM exactly.mark_write(p_release);
        v_early := exactly.writes_early();
        INSERT INTO exactly.txn_hashes (partition_id, hash, "offset", created_at)
        SELECT p_pids[v_seg_of[i.ord]], i.h, v_off[i.ord], v_now
        FROM unnest(p_hashes) WITH ORDINALITY AS i(h, ord)
        WHERE v_dup[i.ord] IS NULL;
        INSERT INTO exactly.messages (partition_id, "offset", message_id, transaction_id, payload,
                                      content_type, headers, trace_id, created_at, payload_digest)
        SELECT p_pids[v_seg_of[i.ord]], v_off[i.ord], i.mid, i.tx, i.pl, i.ct, i.hd::jsonb, i.tr, v_now, i.dg
        FROM unnest(p_message_ids, p_txn_ids, p_payloads, p_content_types, p_headers, p_trace_ids, p_digests)
             WITH ORDINALITY AS i(mid, tx, pl, ct, hd, tr, dg, ord)
        WHERE v_dup[i.ord] IS NULL;
        UPDATE exactly.partitions p
        SET last_offset = f.top, early_to = CASE WHEN v_early THEN f.top ELSE p.early_to END
        FROM (SELECT v_seg_of[o] AS seg, max(v_off[o]) AS top FROM generate_series(1, v_n) AS o
              WHERE v_dup[o] IS NULL GROUP BY 1) f
        WHERE p.id = p_pids[f.seg];
    ELSE
        PERFORM exactly.mark_write(false);
    END IF;

    RETURN QUERY
    SELECT v_seg_of[i.ord], v_item_of[i.ord], p_pids[v_seg_of[i.ord]], v_off[i.ord],
           CASE WHEN v_dup[i.ord] IS NULL THEN i.mid
                ELSE COALESCE(m.message_id, '00000000-0000-0000-0000-000000000000'::uuid) END,
           v_dup[i.ord] IS NOT NULL,
           v_last[v_seg_of[i.ord]],
           v_win[v_seg_of[i.ord]],
           m.payload_digest,
           v_rej[v_seg_of[i.ord]]
    FROM unnest(p_message_ids) WITH ORDINALITY AS i(mid, ord)
    LEFT JOIN LATERAL (
        SELECT x.message_id, x.payload_digest FROM exactly.messages x
        WHERE v_dup[i.ord] IS NOT NULL AND x.partition_id = p_pids[v_seg_of[i.ord]] AND x."offset" = v_dup[i.ord]
        LIMIT 1
    ) m ON true
    ORDER BY i.ord;
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
DROP FUNCTION IF EXISTS exactly.push_bundle(text[], text[], bigint[], integer[], bytea[], boolean[], uuid[],
                                            text[], bytea[], text[], text[], text[], integer[], integer[], bytea[], boolean);
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
    p_digests       bytea[] DEFAULT NULL,
    p_release       boolean DEFAULT false)
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
        -- one key lookup per segment, on both columns of partition_names' key: as a plain join,
        -- a plan made while the table looked empty matched the queue's id only and filtered the
        -- names, reading every partition of the queue for every segment (ProbePlanTest)
        LEFT JOIN LATERAL (
            SELECT n.id FROM exactly.queues q JOIN exactly.partition_names n ON n.queue_id = q.id
            WHERE q.name = s.q AND n.name = s.p
            LIMIT 1
        ) p ON true;
        EXIT WHEN NOT v_missing;
        PERFORM exactly.ensure_partitions(p_queues, p_partitions);
    END LOOP;

    -- Ascending partition id: the lock order shared with acks and retention. A bundle of
    -- several partitions does not hold the free ones while it waits for a busy one.
    IF cardinality(v_pids) > 1 THEN
        PERFORM exactly.lock_partitions(v_pids);
        -- distinct partitions on plain PostgreSQL: all segments at once (Citus runs a statement
        -- over many partitions' rows across nodes, and refuses its per-row lookups)
        IF to_regproc('pg_catalog.citus_version') IS NULL
           AND cardinality(v_pids) = (SELECT count(DISTINCT x) FROM unnest(v_pids) AS x) THEN
            RETURN QUERY
            SELECT * FROM exactly.settle_bundle(v_pids, p_verified, p_verified_windows, p_counts, p_hashes, p_probe,
                                                p_message_ids, p_txn_ids, p_payloads, p_content_types, p_headers,
                                                p_trace_ids, p_spreads, p_digests, p_release);
            RETURN;
        END IF;
    END IF;

    IF cardinality(v_pids) = 1 THEN
        RETURN QUERY
        SELECT 1, x.item, v_pids[1], x."offset", x.message_id, x.duplicate, x.prev_last_offset, x.dedup_window_seconds,
               x.original_digest, x.reject_mismatch
        FROM exactly.push_segment(v_pids[1], p_verified[1], p_verified_windows[1], p_hashes, p_probe, p_message_ids,
                                  p_txn_ids, p_payloads, p_content_types, p_headers, p_trace_ids, false,
                                  COALESCE(p_spreads[1], 0), p_digests, p_release) AS x;
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
                                  r.tx, r.pl, r.ct, r.hd, r.tr, true, COALESCE(p_spreads[r.seg], 0), r.dg,
                                  p_release) AS x;
    END LOOP;
END
$$;
