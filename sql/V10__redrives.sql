-- Exactly: redrive of dead letters (POST /api/v1/queues/{queue}/redrive).
--
-- One row per dead-letter copy that was redriven: the copy (its message id, and where it is in
-- its dead-letter queue) and the message the redrive stored in the origin queue and partition.
-- A dead-letter copy with a row here is never redriven again by a "redrive all" call, and a
-- redrive of it by id answers duplicate with the recorded message id. The copy itself stays in
-- its dead-letter queue, unchanged (other consumer groups may still read it).
--
-- No foreign key, like the hot tables of V1: a row names messages that retention may purge. A row
-- whose copy was purged is inert (every read joins the stored messages, from data_start up).
CREATE TABLE exactly.redrives (
    dead_letter_id    uuid        PRIMARY KEY,
    dlq_partition_id  bigint      NOT NULL,
    dlq_offset        bigint      NOT NULL,
    message_id        uuid        NOT NULL,
    origin_queue      text        NOT NULL,
    origin_partition  text        NOT NULL,
    redriven_at       timestamptz NOT NULL DEFAULT now()
);

-- "Redrive all" walks a dead-letter partition in offset order and skips the copies recorded here.
CREATE UNIQUE INDEX redrives_dlq_offset ON exactly.redrives (dlq_partition_id, dlq_offset);
