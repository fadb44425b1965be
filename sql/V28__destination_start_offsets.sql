-- Where a destination's consumer group starts in each partition that existed when the destination
-- was created: the first offset stored after its creation read the partition (what it delivers),
-- lowered by a replay that moves the cursor below it (what a replay sends again). A message below
-- it was never for the destination. NULL on other cursors: consumer groups that are not
-- destinations, a destination's cursor on a partition created later (read from its start), and
-- destinations created before this column, which the deliveries view still judges by their
-- destination_state.started_at. Offsets rather than that time, because a push that read the clock
-- before the destination was created can commit after it, in the destination's range.
ALTER TABLE exactly.consumer_cursors ADD COLUMN start_offset bigint;
