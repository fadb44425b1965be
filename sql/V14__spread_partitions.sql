-- Hot queues spread by key: a queue may ask for its messages to be spread over
-- spread_partitions partitions by a hash of the idempotency key, so that N partitions commit in
-- parallel while the same key always lands in the same partition (the verdict stays exact).
-- 0 = off: an item goes to the partition it names (Default when none). The engine routes; the
-- store checks, in push_segment, that the count the engine routed with is the queue's own
-- (sql/R__push.sql), and the queue API allows a change only while no partition of the queue
-- holds a transaction hash (dev.exactly.queue.QueueRepository), so a key never moves while a
-- probe could still find it.
ALTER TABLE exactly.queues
    ADD COLUMN spread_partitions integer NOT NULL DEFAULT 0
        CHECK (spread_partitions = 0 OR spread_partitions BETWEEN 2 AND 1024);
