-- Exactly: the task queue. Producers enqueue typed tasks with JSON data; workers
-- claim them under a lease and complete or fail them.
--
-- Lifecycle (state): queued (run_at in the future reads as "scheduled") -> running (claimed,
-- under a lease) -> completed | retrying (failed or lease expired, waits for run_at) -> ... ->
-- dead (no retries left). A deleted task's row is removed.
--
-- Two uniqueness rules, both decided by PostgreSQL (INSERT ... ON CONFLICT DO NOTHING in
-- exactly.enqueue_task, sql/R__tasks.sql), never by a check-then-insert:
--   * task_id is unique per queue while the row exists (an idempotent retry by id);
--   * dedupe_key (autoDedupe: SHA-256 over the type and the RFC 8785 canonical data, see
--     docs/tasks.md) is unique per queue among PENDING tasks only (queued, running,
--     retrying): once a task completes, is dead or is deleted, an identical task may enqueue.
--
-- attempts counts deliveries: every claim adds one. A task may be delivered
-- max_retries + 1 times; a failure or an expired lease on the last one makes it dead.

CREATE TABLE exactly.tasks (
    seq                  bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,  -- enqueue order
    queue                text        NOT NULL,
    task_id              text        NOT NULL,
    type                 text        NOT NULL,
    data                 bytea       NOT NULL,  -- the JSON value exactly as enqueued (UTF-8)
    dedupe_key           bytea       CHECK (dedupe_key IS NULL OR length(dedupe_key) = 32),
    state                text        NOT NULL DEFAULT 'queued'
                                     CHECK (state IN ('queued', 'running', 'retrying', 'completed', 'dead')),
    priority             integer     NOT NULL DEFAULT 0,  -- higher first
    run_at               timestamptz NOT NULL,            -- not claimable before
    max_retries          integer     NOT NULL CHECK (max_retries >= 0),
    retry_delay_seconds  integer     NOT NULL CHECK (retry_delay_seconds >= 0),
    attempts             integer     NOT NULL DEFAULT 0,
    lease_id             uuid,
    lease_expires_at     timestamptz,
    last_error           text,
    result               bytea,                 -- JSON given on completion, as sent
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    finished_at          timestamptz,           -- completed or dead
    CHECK ((state = 'running') = (lease_id IS NOT NULL)),
    CHECK ((lease_id IS NULL) = (lease_expires_at IS NULL))
);

CREATE UNIQUE INDEX tasks_queue_task_id ON exactly.tasks (queue, task_id);

-- autoDedupe: one pending task per (queue, key). Finished tasks leave the index.
CREATE UNIQUE INDEX tasks_pending_dedupe ON exactly.tasks (queue, dedupe_key)
    WHERE dedupe_key IS NOT NULL AND state IN ('queued', 'running', 'retrying');

-- The claim order: priority (higher first), then run_at, then enqueue order.
CREATE INDEX tasks_claimable ON exactly.tasks (queue, priority DESC, run_at, seq)
    WHERE state IN ('queued', 'retrying');

-- Leases to settle when they expire.
CREATE INDEX tasks_leases ON exactly.tasks (queue, lease_expires_at) WHERE state = 'running';
