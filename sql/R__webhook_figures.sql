-- Webhook sources' figures per minute (exactly.webhook_minutes, sql/V23__webhook_figures.sql):
-- counting one delivery outcome, reading a source's sums, and the maintenance purge.

-- Adds one delivery outcome to source p_source's current minute (by the database's clock), in one
-- upsert. p_outcome: 'accepted', 'duplicate', 'signature' or 'rejected' (anything else raises).
CREATE OR REPLACE FUNCTION exactly.count_webhook(p_source text, p_outcome text)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    -- read once: a distributed database (Citus) refuses volatile functions inside a modification
    v_now timestamptz := now();
    v_a   integer := CASE WHEN p_outcome = 'accepted' THEN 1 ELSE 0 END;
    v_d   integer := CASE WHEN p_outcome = 'duplicate' THEN 1 ELSE 0 END;
    v_s   integer := CASE WHEN p_outcome = 'signature' THEN 1 ELSE 0 END;
    v_r   integer := CASE WHEN p_outcome = 'rejected' THEN 1 ELSE 0 END;
BEGIN
    IF v_a + v_d + v_s + v_r = 0 THEN
        RAISE EXCEPTION 'unknown webhook outcome: %', p_outcome;
    END IF;
    INSERT INTO exactly.webhook_minutes AS w (source, minute, accepted, duplicates, signature_failures, rejected,
                                              last_delivery_at, last_failure_at)
    VALUES (p_source, date_trunc('minute', v_now, 'UTC'), v_a, v_d, v_s, v_r,
            CASE WHEN v_a + v_d > 0 THEN v_now END, CASE WHEN v_s > 0 THEN v_now END)
    ON CONFLICT (source, minute) DO UPDATE SET
        accepted = w.accepted + EXCLUDED.accepted,
        duplicates = w.duplicates + EXCLUDED.duplicates,
        signature_failures = w.signature_failures + EXCLUDED.signature_failures,
        rejected = w.rejected + EXCLUDED.rejected,
        last_delivery_at = greatest(w.last_delivery_at, EXCLUDED.last_delivery_at),
        last_failure_at = greatest(w.last_failure_at, EXCLUDED.last_failure_at);
END
$$;

-- Per source of p_sources (with its queue at the same index of p_queues): the sums over the last
-- hour (the 60 minutes up to and including the current one) and the last 24 hours (1440 minutes),
-- the last accepted or duplicate delivery and the last signature failure (over every row kept), and
-- its queue's stored deduplication window (NULL when the queue does not exist yet).
CREATE OR REPLACE FUNCTION exactly.webhook_figures(p_sources text[], p_queues text[])
RETURNS TABLE (r_source text, r_window integer,
               r_hour_accepted bigint, r_hour_duplicates bigint, r_hour_signature bigint, r_hour_rejected bigint,
               r_day_accepted bigint, r_day_duplicates bigint, r_day_signature bigint, r_day_rejected bigint,
               r_last_delivery timestamptz, r_last_failure timestamptz)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_minute timestamptz := date_trunc('minute', now(), 'UTC');
    v_hour   timestamptz := v_minute - interval '59 minutes';
    v_day    timestamptz := v_minute - interval '1439 minutes';
BEGIN
    RETURN QUERY
    SELECT s.source,
           (SELECT q.dedup_window_seconds FROM exactly.queues q WHERE q.name = s.queue),
           COALESCE(sum(w.accepted) FILTER (WHERE w.minute >= v_hour), 0)::bigint,
           COALESCE(sum(w.duplicates) FILTER (WHERE w.minute >= v_hour), 0)::bigint,
           COALESCE(sum(w.signature_failures) FILTER (WHERE w.minute >= v_hour), 0)::bigint,
           COALESCE(sum(w.rejected) FILTER (WHERE w.minute >= v_hour), 0)::bigint,
           COALESCE(sum(w.accepted), 0)::bigint,
           COALESCE(sum(w.duplicates), 0)::bigint,
           COALESCE(sum(w.signature_failures), 0)::bigint,
           COALESCE(sum(w.rejected), 0)::bigint,
           (SELECT x.last_delivery_at FROM exactly.webhook_minutes x
            WHERE x.source = s.source AND x.last_delivery_at IS NOT NULL ORDER BY x.minute DESC LIMIT 1),
           (SELECT x.last_failure_at FROM exactly.webhook_minutes x
            WHERE x.source = s.source AND x.last_failure_at IS NOT NULL ORDER BY x.minute DESC LIMIT 1)
    FROM unnest(p_sources, p_queues) AS s(source, queue)
    LEFT JOIN exactly.webhook_minutes w ON w.source = s.source AND w.minute >= v_day
    GROUP BY s.source, s.queue
    ORDER BY s.source;
END
$$;

-- One source's figures per hour (UTC) from p_since on, the hours with none left out.
CREATE OR REPLACE FUNCTION exactly.webhook_series(p_source text, p_since timestamptz)
RETURNS TABLE (r_hour timestamptz, r_accepted bigint, r_duplicates bigint, r_signature bigint, r_rejected bigint)
LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN QUERY
    SELECT date_trunc('hour', w.minute, 'UTC'), sum(w.accepted)::bigint, sum(w.duplicates)::bigint,
           sum(w.signature_failures)::bigint, sum(w.rejected)::bigint
    FROM exactly.webhook_minutes w
    WHERE w.source = p_source AND w.minute >= date_trunc('hour', p_since, 'UTC')
    GROUP BY 1
    ORDER BY 1;
END
$$;

-- Deletes up to p_limit minutes older than the kept history (7 days), oldest first, but never a
-- source's newest row, nor its newest with a delivery, nor its newest with a signature failure (they
-- keep its last delivery and failure times): at most 7 * 1440 + 3 rows per source. Returns how
-- many it deleted; the maintenance job calls it until a step deletes fewer than p_limit.
CREATE OR REPLACE FUNCTION exactly.purge_webhook_minutes(p_limit integer)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    -- read once: a distributed database (Citus) refuses volatile functions inside a modification
    v_cut timestamptz := clock_timestamp() - interval '7 days';
    n     integer;
BEGIN
    WITH old AS (
        SELECT w.source, w.minute
        FROM exactly.webhook_minutes w
        WHERE w.minute < v_cut
          AND w.minute < (SELECT max(x.minute) FROM exactly.webhook_minutes x WHERE x.source = w.source)
          AND w.minute IS DISTINCT FROM (SELECT max(x.minute) FROM exactly.webhook_minutes x
                                         WHERE x.source = w.source AND x.last_delivery_at IS NOT NULL)
          AND w.minute IS DISTINCT FROM (SELECT max(x.minute) FROM exactly.webhook_minutes x
                                         WHERE x.source = w.source AND x.last_failure_at IS NOT NULL)
        ORDER BY w.minute
        LIMIT p_limit
    ), gone AS (
        DELETE FROM exactly.webhook_minutes w USING old
        WHERE w.source = old.source AND w.minute = old.minute
        RETURNING 1
    )
    SELECT count(*) INTO n FROM gone;
    RETURN n;
END
$$;
