-- Consumption and retention: consumer groups' cursors and leases, per-message delivery state,
-- and the offset index the retention purge walks.
--
-- A consumer group reads each partition in offset order. Its cursor row (consumer_cursors)
-- says which offsets are settled (every offset below next_offset) and who holds the lease on
-- the partition: one consumer of a group at a time (ordered, at-least-once). deliveries keeps
-- the state of offsets at or above the cursor that were acked: settled (completed or
-- dead-lettered) or waiting for a retry, with their attempt count. Rows below the cursor are
-- deleted as it advances.
--
-- Like the hot tables of V1 these carry no foreign keys, on purpose: a foreign key to
-- exactly.partitions would take a KEY SHARE lock on the partition row for every cursor insert,
-- which waits behind a push's FOR UPDATE and would put a partition lock AFTER a cursor lock,
-- against the one global lock order (partition rows in ascending id first, then cursor rows in
-- ascending (partition_id, consumer_group); see sql/R__consume.sql).

CREATE TABLE exactly.consumer_cursors (
    partition_id      bigint      NOT NULL,
    consumer_group    text        NOT NULL,
    -- every offset below is settled for this group (acked completed, or dead-lettered)
    next_offset       bigint      NOT NULL DEFAULT 0,
    -- not leasable before this instant (a failed ack's retry delay)
    available_at      timestamptz NOT NULL DEFAULT '-infinity',
    -- the live (or expired, not yet replaced) lease: its id, the offsets it covers
    -- (lease_from..lease_to, inclusive: every unsettled one was delivered), when it expires.
    -- It is released once every offset of its range that is still stored is settled or acked
    -- under it.
    lease_id          uuid,
    lease_from        bigint,
    lease_to          bigint,
    lease_expires_at  timestamptz,
    leased_at         timestamptz,
    -- the last lease released by acking everything it delivered: acks repeated under it are
    -- answered as replays (idempotent retries of an ack request)
    prev_lease_id     uuid,
    prev_lease_from   bigint,
    prev_lease_to     bigint,
    PRIMARY KEY (partition_id, consumer_group)
);

CREATE TABLE exactly.deliveries (
    partition_id    bigint  NOT NULL,
    consumer_group  text    NOT NULL,
    "offset"        bigint  NOT NULL,
    -- failed/retry acks so far
    attempts        integer NOT NULL DEFAULT 0,
    -- completed or dead-lettered: never delivered to this group again
    settled         boolean NOT NULL DEFAULT false,
    -- the lease under which it was last acked, and what that ack did
    acked_lease     uuid,
    last_outcome    text,
    last_error      text,
    dead_letter_id  uuid,
    PRIMARY KEY (partition_id, consumer_group, "offset")
);

-- An ack whose message cannot be resolved (its data purged while it was leased) still finds
-- its lease, so that a lease over purged messages is released rather than left to expire.
CREATE INDEX consumer_cursors_lease ON exactly.consumer_cursors (lease_id) WHERE lease_id IS NOT NULL;

-- Retention purges transaction hashes by offset range, from the purge watermark txns_start up.
-- The primary key (partition_id, hash, "offset") cannot serve that walk.
CREATE INDEX txn_hashes_offset ON exactly.txn_hashes (partition_id, "offset");
