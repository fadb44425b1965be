-- Exactly: queues, partitions, the partitioned message log and its transaction-hash index.
--
-- Offsets are per partition, dense, starting at 0. partitions.last_offset is the allocator
-- watermark (-1 for an empty partition). txns_start is the purge watermark of the hash index:
-- hashes below it were purged, so a probe never looks below txns_start - 1. data_start is the
-- data watermark: messages below it were purged by retention.
--
-- The hot tables (messages, txn_hashes) carry no foreign keys: every write to them happens
-- inside exactly.push_segment under the partition's row lock, which already proves the
-- partition exists, and a foreign-key check per row would cost a lookup per pushed item.

CREATE TABLE exactly.queues (
    id                    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name                  text        NOT NULL UNIQUE,
    dedup_window_seconds  integer     NOT NULL DEFAULT 3600 CHECK (dedup_window_seconds >= 0),
    retention_seconds     integer     NOT NULL DEFAULT 0    CHECK (retention_seconds >= 0),
    lease_time            integer     NOT NULL DEFAULT 300  CHECK (lease_time > 0),
    retry_limit           integer     NOT NULL DEFAULT 3    CHECK (retry_limit >= 0),
    retry_delay           integer     NOT NULL DEFAULT 0    CHECK (retry_delay >= 0),
    created_at            timestamptz NOT NULL DEFAULT now(),
    updated_at            timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE exactly.partitions (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    queue_id     bigint      NOT NULL REFERENCES exactly.queues (id),
    name         text        NOT NULL,
    last_offset  bigint      NOT NULL DEFAULT -1,
    txns_start   bigint      NOT NULL DEFAULT 0,
    data_start   bigint      NOT NULL DEFAULT 0,
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (queue_id, name)
);

-- One row per stored message. payload holds the exact bytes that were pushed (JSON for the
-- push API; the raw request body for webhooks, content_type then names its media type).
CREATE TABLE exactly.messages (
    partition_id    bigint      NOT NULL,
    "offset"        bigint      NOT NULL,
    message_id      uuid        NOT NULL,
    transaction_id  text        NOT NULL,
    payload         bytea       NOT NULL,
    content_type    text,
    headers         jsonb,
    trace_id        text,
    created_at      timestamptz NOT NULL,
    PRIMARY KEY (partition_id, "offset")
);
CREATE UNIQUE INDEX messages_message_id ON exactly.messages (message_id);

-- One row per stored message: the 16-byte XXH3-128 hash of its transactionId (UTF-8).
-- Written whatever the deduplication window (acks resolve through it). The primary key is the
-- probe's access path: one index descent per incoming hash, whatever the window holds.
CREATE TABLE exactly.txn_hashes (
    partition_id  bigint      NOT NULL,
    hash          bytea       NOT NULL,
    "offset"      bigint      NOT NULL,
    created_at    timestamptz NOT NULL,
    PRIMARY KEY (partition_id, hash, "offset")
);
