-- Exactly: the duplicates answered per queue (GET /api/v1/queues/{queue}/stats, the
-- exactly_queue_duplicates gauge).
--
-- A duplicate answer writes nothing on its own path (the lock-free first look answers from a
-- read-only transaction). So each instance counts the duplicates it answered in memory, per queue
-- and minute, and adds its counts here from a separate transaction every few seconds
-- (exactly.add_duplicates, sql/R__stats.sql; the in-memory tally is dev.exactly.engine.DuplicateTally).
-- The stats sum a queue's buckets that start within its deduplication window; the maintenance job
-- deletes older ones (exactly.purge_duplicate_counts, sql/R__retention.sql).
--
-- UNLOGGED: its rows are not written to the WAL, so a flush writes no WAL record but its commit
-- record, and does not wait for a WAL flush: PostgreSQL commits a transaction asynchronously when
-- it wrote no WAL, even with an xid and synchronous_commit on (src/backend/access/transam/xact.c,
-- RecordTransactionCommit: "The transaction can end up not writing any WAL, even if it has an xid,
-- if it only wrote to temporary and/or unlogged tables"), nor for a synchronous standby. The price,
-- accepted for a figure that is a lower bound anyway: the table is emptied after a crash of the
-- database, and it is not on physical standbys (read the stats from the primary).
--
-- bucket is the start of the minute (UTC) in which the duplicates were answered, by the clock of
-- the instance that answered them. No foreign key, like the other hot tables.
CREATE UNLOGGED TABLE exactly.duplicate_counts (
    queue_id    bigint      NOT NULL,
    bucket      timestamptz NOT NULL,
    duplicates  bigint      NOT NULL CHECK (duplicates > 0),
    PRIMARY KEY (queue_id, bucket)
);
