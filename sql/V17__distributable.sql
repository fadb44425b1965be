-- Exactly: a schema that a distributed PostgreSQL (Citus) can shard by partition, and that plain
-- PostgreSQL runs exactly as before. sql/citus/distribute.sql is the step that distributes it
-- on a Citus coordinator (docs/citus.md); this migration changes nothing that plain
-- PostgreSQL would behave differently with.
--
-- 1. Ids come from sequences, not identity columns. Citus refuses to distribute a table with an
--    identity column ("cannot complete operation on a table with identity column"); a bigint
--    column whose default is nextval() is distributed with its sequence (on a worker node the
--    sequence hands out a range of its own, so ids stay unique cluster-wide). The sequences
--    continue where the identities stopped; the ids written so far are kept.
ALTER TABLE exactly.queues ALTER COLUMN id DROP IDENTITY;
CREATE SEQUENCE exactly.queues_id_seq AS bigint OWNED BY exactly.queues.id;
DO $$ BEGIN PERFORM setval('exactly.queues_id_seq', COALESCE((SELECT max(id) FROM exactly.queues), 0) + 1, false); END $$;
ALTER TABLE exactly.queues ALTER COLUMN id SET DEFAULT nextval('exactly.queues_id_seq');

ALTER TABLE exactly.partitions ALTER COLUMN id DROP IDENTITY;
CREATE SEQUENCE exactly.partitions_id_seq AS bigint OWNED BY exactly.partitions.id;
DO $$ BEGIN PERFORM setval('exactly.partitions_id_seq', COALESCE((SELECT max(id) FROM exactly.partitions), 0) + 1, false); END $$;
ALTER TABLE exactly.partitions ALTER COLUMN id SET DEFAULT nextval('exactly.partitions_id_seq');

ALTER TABLE exactly.tasks ALTER COLUMN seq DROP IDENTITY;
CREATE SEQUENCE exactly.tasks_seq_seq AS bigint OWNED BY exactly.tasks.seq;
DO $$ BEGIN PERFORM setval('exactly.tasks_seq_seq', COALESCE((SELECT max(seq) FROM exactly.tasks), 0) + 1, false); END $$;
ALTER TABLE exactly.tasks ALTER COLUMN seq SET DEFAULT nextval('exactly.tasks_seq_seq');

-- 2. Every unique key holds the distribution column: a distributed table can only enforce
--    uniqueness within one shard.
--
--    Messages (distributed by partition_id): the unique index on message_id alone becomes one on
--    (message_id, partition_id). Its leading column still serves GET /api/v1/messages/{id} and
--    an ack by messageId, as one index descent per shard.
--
--    Why the message id does not carry its partition id (which would route that read to one
--    shard): the id is minted by the engine when a request arrives (dev.exactly.engine.
--    MessageIds, a UUIDv7), before the partition's id is known: the partition is named, and the
--    store resolves (or creates) it inside the push itself. The id is also, by default, the
--    message's transactionId, hashed by the engine before the push. Writing the partition id into
--    the UUID afterwards would change both; and a partition id is a bigint, so it would take most
--    of the 74 random bits that make a UUIDv7 unique. Ids minted before this version would carry
--    nothing either. So a read by id asks every shard (on plain PostgreSQL it is the same one
--    index descent as before); reads by id are not on the push path, and the push path never
--    reads by id.
--
--    Uniqueness of message_id across partitions now rests on the UUIDv7 itself (48 bits of
--    millisecond time, 74 random bits per id), as it already did on a distributed database.
CREATE UNIQUE INDEX messages_message_id_partition ON exactly.messages (message_id, partition_id);
DROP INDEX exactly.messages_message_id;

--    Tasks (distributed by queue): the primary key becomes (queue, seq). It replaces
--    tasks_queue_seq (the same columns), which served the listing in enqueue order.
ALTER TABLE exactly.tasks DROP CONSTRAINT tasks_pkey;
ALTER TABLE exactly.tasks ADD CONSTRAINT tasks_pkey PRIMARY KEY (queue, seq);
DROP INDEX exactly.tasks_queue_seq;

--    Redrives stays as it is: a small table written once per redriven dead letter, it becomes a
--    reference table on Citus (a copy on every node), which may keep any unique key.

-- 3. Partition names: the unique key (queue_id, name) of exactly.partitions does not hold its
--    distribution column (id), so it moves to a table of its own, exactly.partition_names, which
--    maps a queue's partition name to the partition's id. It is written once per partition (by
--    exactly.ensure_partitions, before the partition row, with the same id) and read on every
--    push, pop and ack that names a partition. On Citus it is a reference table: a copy on every
--    node, so resolving a name is a local read wherever the call runs, and the unique key is
--    enforced cluster-wide. partitions keeps its name column (reads show it) with a plain index.
CREATE TABLE exactly.partition_names (
    queue_id  bigint NOT NULL REFERENCES exactly.queues (id),
    name      text   NOT NULL,
    id        bigint NOT NULL DEFAULT nextval('exactly.partitions_id_seq') UNIQUE,
    PRIMARY KEY (queue_id, name)
);
INSERT INTO exactly.partition_names (queue_id, name, id) SELECT queue_id, name, id FROM exactly.partitions;
ALTER TABLE exactly.partitions DROP CONSTRAINT partitions_queue_id_name_key;
CREATE INDEX partitions_queue_name ON exactly.partitions (queue_id, name);
