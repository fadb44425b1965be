-- The lease under which a task was last completed or failed, so that a retried completion or
-- failure whose first attempt committed (its answer lost: a dropped connection, a request past its
-- deadline) is answered as the first one was, instead of as a lease conflict: the retry carries the
-- same lease, which the task no longer has but remembers here (sql/R__tasks.sql fail_task,
-- dev.exactly.task.TaskRepository's completion; dev.exactly.task.TaskService tells a replay).
ALTER TABLE exactly.tasks ADD COLUMN settled_lease uuid;
