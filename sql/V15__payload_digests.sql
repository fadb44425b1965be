-- Payload mismatch: the same idempotency key sent again with another payload.
--
-- 1. exactly.messages.payload_digest: the 16-byte XXH3-128 of the stored payload bytes (the
--    push API's JSON text as sent, a webhook's raw body), high 64 bits first, computed by the
--    service (dev.exactly.engine.PayloadDigest). A duplicate's answer compares it with the
--    incoming payload's digest: push_segment already reads the original's row (one primary-key
--    descent) to answer its message id, so the comparison costs no extra lookup. It lives with
--    the message's data, so once retention purged the data the answer is "unknown", as it is for
--    rows stored before this version (NULL). It detects accidental misuse of a key (a client
--    reusing a transactionId for other content), not a crafted collision: XXH3 is not a
--    cryptographic hash. No CHECK: adding one would scan the whole log, and every row is written
--    by exactly.push_segment alone (as for the hash column of txn_hashes).
ALTER TABLE exactly.messages ADD COLUMN payload_digest bytea;

-- 2. The queue option payloadMismatch: what a duplicate whose payload differs from the
--    original's gets. 'report' (the default): answered duplicate with payloadMatches false;
--    'reject': refused (HTTP 422 for that item), nothing written for it.
ALTER TABLE exactly.queues ADD COLUMN payload_mismatch text NOT NULL DEFAULT 'report'
    CHECK (payload_mismatch IN ('report', 'reject'));

-- 3. exactly.tasks.payload_digest: SHA-256 of the task's type and data bytes as sent, each
--    length-prefixed (dev.exactly.task.DedupeKeys#payloadDigest), so that an enqueue repeating a
--    task id with another type or data is answered duplicate with payloadMatches false. NULL for
--    tasks enqueued before this version (unknown).
--    Written by exactly.enqueue_task alone (no CHECK, which would scan the table).
ALTER TABLE exactly.tasks ADD COLUMN payload_digest bytea;
