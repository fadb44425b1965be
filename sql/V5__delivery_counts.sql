-- Delivery counts and dead-letter queue names that always fit.
--
-- 1. exactly.deliveries.attempts now counts the deliveries of a message to a consumer group
--    that have ended: each ack (completed, failed, retry, dlq) ends one, and so does a lease that
--    expired with the message delivered but not acked under it (charged by the next pop of the
--    partition, sql/R__consume.sql). A message being delivered is on delivery attempts + 1, the
--    number pop answers (as SQS's ApproximateReceiveCount counts receives). Rows written before
--    this version counted failed/retry acks only; for a message waiting for a retry that is the
--    same number (each failed ack ended a delivery), so the rows are kept as they are.
COMMENT ON COLUMN exactly.deliveries.attempts IS
    'deliveries of this message to the group that have ended (acked, or their lease expired unacked)';

-- 2. A queue's dead-letter queue is named by exactly.dead_letter_queue (sql/R__consume.sql):
--    "<queue>.dlq" when that fits the 255-character name rule, else the first 234 characters,
--    "-", 16 hex digits of the SHA-256 of the whole name, ".dlq" (255 characters). Before this
--    version a queue of 252 to 255 characters got "<queue>.dlq" of 256 to 259 characters, which
--    no API route accepts: such queues are renamed here to the name they now have (the same
--    expression as exactly.dead_letter_queue, spelt out because repeatable functions are created
--    after versioned migrations).
UPDATE exactly.queues q
SET name = left(o.origin, 234) || '-' || left(encode(sha256(convert_to(o.origin, 'UTF8')), 'hex'), 16) || '.dlq',
    updated_at = now()
FROM (SELECT x.id, left(x.name, length(x.name) - 4) AS origin
      FROM exactly.queues x
      WHERE length(x.name) > 255 AND x.name LIKE '%.dlq') o
WHERE q.id = o.id
  AND NOT EXISTS (SELECT 1 FROM exactly.queues y
                  WHERE y.name = left(o.origin, 234) || '-'
                                 || left(encode(sha256(convert_to(o.origin, 'UTF8')), 'hex'), 16) || '.dlq');
