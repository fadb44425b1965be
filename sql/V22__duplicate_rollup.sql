-- Exactly: the duplicates answered per queue and hour, kept after the per-minute counts are purged
-- (GET /api/v1/queues/{queue}/duplicates, the console's chart).
--
-- exactly.duplicate_counts (sql/V19__duplicate_counts.sql) holds a queue's per-minute counts only
-- while they are inside its deduplication window, and is unlogged. When the maintenance job deletes
-- minute buckets older than the window (exactly.purge_duplicate_counts, sql/R__retention.sql), the
-- same statement adds them to this table, summed per UTC hour, so a chart reads the hours before the
-- window here and the minutes within it there: each minute is counted in exactly one of the two.
-- Logged, so the history survives a crash of the database; written once per maintenance run, never
-- on a push's path. Rows older than the kept history (35 days) are deleted by the same purge.
--
-- No foreign key, like exactly.duplicate_counts: the purge skips counts of a deleted queue.
CREATE TABLE exactly.duplicate_rollup (
    queue_id    bigint      NOT NULL,
    hour        timestamptz NOT NULL,
    duplicates  bigint      NOT NULL CHECK (duplicates > 0),
    PRIMARY KEY (queue_id, hour)
);
