-- The highest offset of a partition that a push committed before its WAL flush wrote (NULL:
-- none; sql/R__push.sql, "Commit before the WAL flush"). Such a message can be read by another
-- transaction before it is durable. A destination's pop reads it to choose its commit: it waits
-- for its own flush (which makes what it read durable before delivery) only when it leased a
-- message at or below this offset, and otherwise commits without waiting (a lost pop only
-- delivers again, with the same id). Set in the same UPDATE that moves last_offset.
ALTER TABLE exactly.partitions ADD COLUMN early_to bigint;
