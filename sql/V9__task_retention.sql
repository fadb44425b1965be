-- Exactly: finished tasks go away, and tasks can be listed by state.
--
-- Completed and dead tasks are purged once they have been finished for longer than their
-- queue's task retention (exactly.tasks.retention-seconds, per queue under
-- exactly.tasks.queues."<queue>".retention-seconds): exactly.purge_finished_tasks in
-- sql/R__tasks.sql deletes them oldest first, in bounded steps, from the maintenance job.
-- Until it is purged, a finished task keeps its id taken (an enqueue of that id answers
-- duplicate); afterwards the id is free again, as after a DELETE.

-- The purge walk: finished tasks by the time they finished.
CREATE INDEX tasks_finished ON exactly.tasks (finished_at) WHERE state IN ('completed', 'dead');

-- The listing: one queue's tasks in enqueue order (keyset pages on seq), all of them or those
-- of one state.
CREATE INDEX tasks_queue_seq ON exactly.tasks (queue, seq);
CREATE INDEX tasks_queue_state_seq ON exactly.tasks (queue, state, seq);
