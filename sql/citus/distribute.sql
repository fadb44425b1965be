-- Exactly on Citus: distributes the schema that the migrations (sql/V*, sql/R__*) created.
--
-- Run on the Citus coordinator, in the database Exactly uses, after the migrations, and again
-- after every upgrade's migrations (it is idempotent: what is distributed already is left as it
-- is, and every function is distributed again, since a repeatable migration may have re-created
-- it). docs/citus.md, "Set-up":
--
--   psql "postgresql://USER@COORDINATOR:PORT/DATABASE" -v ON_ERROR_STOP=1 -f sql/citus/distribute.sql
--
-- Layout:
--   * reference tables (a copy on every node): queues, partition_names (name -> partition id),
--     redrives, destinations, destination_state, destination_dead_letters, webhook_minutes. Small, written
--     rarely (a new queue or partition, a redrive) or per delivered batch (destination figures).
--   * distributed by partition id, colocated with partitions (a partition's rows all live in one
--     shard group, on one node): partitions (by id), messages, txn_hashes, consumer_cursors,
--     deliveries (by partition_id).
--   * tasks, distributed by queue.
--   * flyway_schema_history stays a local table of the coordinator (migrations run there).
-- Functions whose first argument routes them run whole on the node that holds their rows when
-- a client calls them (Citus delegates the call): push_segment, pop_partition, ack_partition,
-- ack_completed, purge_partition by partition id; enqueue_task, claim_tasks, settle_expired_leases,
-- fail_task by queue.
-- Every other function of the schema is created on every node (so that a delegated function
-- can call it there) and runs where it is called.
-- The shard count is Citus' citus.shard_count (32 unless set for this session beforehand).

\set ON_ERROR_STOP on

DO $$
BEGIN
    IF to_regproc('pg_catalog.create_distributed_table') IS NULL THEN
        RAISE EXCEPTION 'this database has no Citus extension: run CREATE EXTENSION citus first (on the coordinator and every worker)';
    END IF;
    IF to_regclass('exactly.partition_names') IS NULL THEN
        RAISE EXCEPTION 'the exactly schema is not migrated to V17 or later: run the migrations first';
    END IF;
END
$$;

-- how a table is distributed now: 'reference', 'distributed', or NULL (not at all, or a Citus
-- local table, which Citus may have made of it because of a foreign key to a reference table)
SET client_min_messages = error;  -- pg_temp's function is local, as meant
CREATE FUNCTION pg_temp.citus_kind(p_table regclass) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT CASE WHEN d.partmethod = 'h' THEN 'distributed'
                WHEN d.partmethod = 'n' AND d.repmodel = 't' THEN 'reference' END
    FROM pg_dist_partition d WHERE d.logicalrelid = p_table
$$;
RESET client_min_messages;

-- one statement per table, each after the tables it refers to
SELECT create_reference_table('exactly.queues')
WHERE pg_temp.citus_kind('exactly.queues') IS DISTINCT FROM 'reference';
SELECT create_reference_table('exactly.partition_names')
WHERE pg_temp.citus_kind('exactly.partition_names') IS DISTINCT FROM 'reference';
SELECT create_reference_table('exactly.redrives')
WHERE pg_temp.citus_kind('exactly.redrives') IS DISTINCT FROM 'reference';
-- the duplicates answered per queue and minute (V19): small, written every few seconds per
-- instance, joined with queues by the stats and the maintenance purge; unlogged on every node
SELECT create_reference_table('exactly.duplicate_counts')
WHERE pg_temp.citus_kind('exactly.duplicate_counts') IS DISTINCT FROM 'reference';
-- destinations (V21): their definitions, figures and dead letters; small, written per delivered batch
SELECT create_reference_table('exactly.destinations')
WHERE pg_temp.citus_kind('exactly.destinations') IS DISTINCT FROM 'reference';
SELECT create_reference_table('exactly.destination_state')
WHERE pg_temp.citus_kind('exactly.destination_state') IS DISTINCT FROM 'reference';
SELECT create_reference_table('exactly.destination_dead_letters')
WHERE pg_temp.citus_kind('exactly.destination_dead_letters') IS DISTINCT FROM 'reference';
-- delivery drains of the Lambda shape (V25): a row per queue with destinations, and per parked partition
SELECT create_reference_table('exactly.delivery_drains')
WHERE pg_temp.citus_kind('exactly.delivery_drains') IS DISTINCT FROM 'reference';
SELECT create_reference_table('exactly.destination_parked')
WHERE pg_temp.citus_kind('exactly.destination_parked') IS DISTINCT FROM 'reference';
-- the attempts of messages a destination is retrying (V27): written per failed attempt
SELECT create_reference_table('exactly.destination_attempts')
WHERE pg_temp.citus_kind('exactly.destination_attempts') IS DISTINCT FROM 'reference';
-- the duplicates per queue and hour kept after the minutes are purged (V22): written by the
-- maintenance purge in the statement that deletes the minutes
SELECT create_reference_table('exactly.duplicate_rollup')
WHERE pg_temp.citus_kind('exactly.duplicate_rollup') IS DISTINCT FROM 'reference';

-- the webhook sources' figures per minute (V23): small, bounded per configured source, written once
-- per delivery outcome; unlogged on every node
SELECT create_reference_table('exactly.webhook_minutes')
WHERE pg_temp.citus_kind('exactly.webhook_minutes') IS DISTINCT FROM 'reference';

SELECT create_distributed_table('exactly.partitions', 'id')
WHERE pg_temp.citus_kind('exactly.partitions') IS DISTINCT FROM 'distributed';

SELECT create_distributed_table('exactly.messages', 'partition_id', colocate_with := 'exactly.partitions')
WHERE pg_temp.citus_kind('exactly.messages') IS DISTINCT FROM 'distributed';
SELECT create_distributed_table('exactly.txn_hashes', 'partition_id', colocate_with := 'exactly.partitions')
WHERE pg_temp.citus_kind('exactly.txn_hashes') IS DISTINCT FROM 'distributed';
SELECT create_distributed_table('exactly.consumer_cursors', 'partition_id', colocate_with := 'exactly.partitions')
WHERE pg_temp.citus_kind('exactly.consumer_cursors') IS DISTINCT FROM 'distributed';
SELECT create_distributed_table('exactly.deliveries', 'partition_id', colocate_with := 'exactly.partitions')
WHERE pg_temp.citus_kind('exactly.deliveries') IS DISTINCT FROM 'distributed';

SELECT create_distributed_table('exactly.tasks', 'queue')
WHERE pg_temp.citus_kind('exactly.tasks') IS DISTINCT FROM 'distributed';

-- Every function of the schema on every node; the routed ones with their distribution argument.
SELECT create_distributed_function(p.oid::regprocedure)
FROM pg_proc p
WHERE p.pronamespace = 'exactly'::regnamespace
  AND p.proname NOT IN ('push_segment', 'pop_partition', 'ack_partition', 'ack_completed', 'purge_partition',
                        'enqueue_task', 'claim_tasks', 'settle_expired_leases', 'fail_task');

SELECT create_distributed_function(p.oid::regprocedure, '$1', colocate_with := 'exactly.partitions')
FROM pg_proc p
WHERE p.pronamespace = 'exactly'::regnamespace
  AND p.proname IN ('push_segment', 'pop_partition', 'ack_partition', 'ack_completed', 'purge_partition');

SELECT create_distributed_function(p.oid::regprocedure, '$1', colocate_with := 'exactly.tasks')
FROM pg_proc p
WHERE p.pronamespace = 'exactly'::regnamespace
  AND p.proname IN ('enqueue_task', 'claim_tasks', 'settle_expired_leases', 'fail_task');

-- Custom plans for every function's statements: the migrations make some functions plan once per
-- connection (plan_cache_mode = force_generic_plan, cheaper on plain PostgreSQL), but Citus cannot
-- plan a generic statement that joins a distributed table with another ("could not create
-- distributed plan"); it plans each call with its values, and prunes to one shard by them. (A
-- function that plans each call already, plan_cache_mode = force_custom_plan, keeps it.)
-- And no JIT compilation for them: with sequential scans ruled out (enable_seqscan = off, see
-- sql/R__push.sql) their estimated costs pass jit_above_cost, and a statement planned per call
-- would be compiled per call (tens of milliseconds for a one-row lookup).
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure FROM pg_proc p
        WHERE p.pronamespace = 'exactly'::regnamespace
          AND EXISTS (SELECT 1 FROM unnest(p.proconfig) AS c WHERE c = 'plan_cache_mode=force_generic_plan')
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET plan_cache_mode = auto', f);
    END LOOP;
    FOR f IN
        SELECT p.oid::regprocedure FROM pg_proc p
        WHERE p.pronamespace = 'exactly'::regnamespace
          AND EXISTS (SELECT 1 FROM unnest(p.proconfig) AS c WHERE c LIKE 'enable_seqscan=%')
          AND NOT EXISTS (SELECT 1 FROM unnest(p.proconfig) AS c WHERE c = 'jit=off')
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET jit = off', f);
    END LOOP;
END
$$;

-- Sequential multi-shard statements in the consumption functions: an ack or a pop may create a
-- dead-letter queue (a row of the reference table queues) after reading several shards, and Citus
-- refuses to modify a reference table in a transaction that already ran a parallel multi-shard
-- statement ("cannot modify table ... because there was a parallel operation on a distributed
-- table"). Their single-partition forms (ack_partition, pop_partition) read one shard anyway.
DO $$
DECLARE
    f regprocedure;
BEGIN
    FOR f IN
        SELECT p.oid::regprocedure FROM pg_proc p
        WHERE p.pronamespace = 'exactly'::regnamespace AND p.proname IN ('ack_batch', 'pop', 'pop_due', 'pop_many')
    LOOP
        EXECUTE format('ALTER FUNCTION %s SET citus.multi_shard_modify_mode = sequential', f);
    END LOOP;
END
$$;

-- What is where, for the operator's log.
SELECT table_name, citus_table_type, distribution_column, colocation_id, shard_count
FROM citus_tables WHERE table_name::text LIKE 'exactly.%' ORDER BY 1;
