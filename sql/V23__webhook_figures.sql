-- Exactly: per webhook source and minute, what became of its deliveries (GET /api/v1/webhooks/sources,
-- the console's Webhook sources page). Kept in the database because a Lambda instance's meters die
-- with the instance.
--
-- One row per configured source and minute in which it saw a delivery: the application writes a row
-- only for the name of an enabled source (from the configuration, never from a request path that
-- names no such source), so an unauthenticated request creates no row that a configured source
-- would not have had anyway. The maintenance job deletes minutes older than the kept history (7
-- days) but a source's newest rows (exactly.purge_webhook_minutes, sql/R__webhook_figures.sql),
-- so a source has at most 7 * 1440 + 3 rows.
--
-- Each delivery outcome adds 1 by one upsert (exactly.count_webhook), from its own short
-- transaction after the delivery's own. UNLOGGED, as exactly.duplicate_counts (sql/V19): the upsert
-- writes no WAL and its commit does not wait for a WAL flush; the figures are emptied after a crash
-- of the database and are not on physical standbys (read them from the primary).
--
-- minute is the start of the minute (UTC) by the database's clock. accepted: stored as new messages;
-- duplicates: answered duplicate (nothing written); signature_failures: refused 401 (signature or
-- signed timestamp missing, wrong or stale); rejected: refused otherwise (400, 413, 422).
-- last_delivery_at: the last accepted or duplicate delivery in the minute; last_failure_at: the last
-- signature failure in it.
CREATE UNLOGGED TABLE exactly.webhook_minutes (
    source              text        NOT NULL,
    minute              timestamptz NOT NULL,
    accepted            bigint      NOT NULL DEFAULT 0,
    duplicates          bigint      NOT NULL DEFAULT 0,
    signature_failures  bigint      NOT NULL DEFAULT 0,
    rejected            bigint      NOT NULL DEFAULT 0,
    last_delivery_at    timestamptz,
    last_failure_at     timestamptz,
    PRIMARY KEY (source, minute)
);
