package dev.exactly.task;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Data access for exactly.tasks (sql/V3__tasks.sql, functions in sql/R__tasks.sql): the one
 * place the task queue's SQL lives. Every statement runs in its own transaction (autocommit), so
 * no lock is held across a round trip; the lease checks are part of each UPDATE's or DELETE's
 * WHERE clause, so a change and its check are one atomic step.
 */
@ApplicationScoped
public class TaskRepository {

    /** The columns every read returns, for {@link #toTask(Row)}; t is the tasks row. */
    private static final String COLUMNS = "t.queue, t.task_id, t.type, t.data, t.dedupe_key, t.state, "
            + "exactly.task_state_label(t.state, t.run_at) AS label, t.priority, t.run_at, t.max_retries, "
            + "t.retry_delay_seconds, t.attempts, t.lease_id, t.lease_expires_at, "
            + "COALESCE(t.lease_expires_at <= now(), false) AS lease_expired, t.last_error, t.result, "
            + "t.created_at, t.updated_at, t.finished_at, t.settled_lease";

    private static final String ENQUEUE = "SELECT r_task_id, r_duplicate, r_matched_on, r_payload_matches "
            + "FROM exactly.enqueue_task(p_queue => $1, p_task_id => $2, p_type => $3, p_data => $4, p_dedupe_key => $5, "
            + "p_priority => $6, p_run_at => $7, p_max_retries => $8, p_retry_delay_seconds => $9, p_payload_digest => $10)";

    private static final String CLAIM = "SELECT " + COLUMNS + " FROM exactly.claim_tasks($1, $2, $3, $4) t "
            + "ORDER BY t.priority DESC, t.run_at, t.seq";

    private static final String FIND = "SELECT " + COLUMNS + " FROM exactly.tasks t WHERE t.queue = $1 AND t.task_id = $2";

    /** The lease guard: the task is running under this lease and it has not expired. */
    private static final String HELD = "t.queue = $1 AND t.task_id = $2 AND t.state = 'running' "
            + "AND t.lease_id = $3 AND t.lease_expires_at > now()";

    private static final String COMPLETE = returning("UPDATE exactly.tasks t SET state = 'completed', result = $4, "
            + "lease_id = NULL, lease_expires_at = NULL, settled_lease = $3, finished_at = now(), updated_at = now() "
            + "WHERE " + HELD);

    /** exactly.fail_task (sql/R__tasks.sql): the lease guard of {@link #HELD}, then retrying or dead. */
    private static final String FAIL = "SELECT " + COLUMNS + " FROM exactly.fail_task($1, $2, $3, $4) t";

    private static final String EXTEND = returning("UPDATE exactly.tasks t SET lease_expires_at = now() "
            + "+ make_interval(secs => $4), updated_at = now() WHERE " + HELD);

    /** A running task whose lease is still held can only be deleted with that lease. */
    private static final String DELETE = returning("DELETE FROM exactly.tasks t WHERE t.queue = $1 AND t.task_id = $2 "
            + "AND (t.state <> 'running' OR t.lease_expires_at <= now() OR t.lease_id = $3)");

    /**
     * One page of a queue's tasks in enqueue order after a cursor (the last row's seq); $2 the
     * state label to keep (null = all), $3 the stored state behind it.
     */
    private static final String LIST = "SELECT " + COLUMNS + ", t.seq FROM exactly.tasks t WHERE t.queue = $1 "
            + "AND ($2::text IS NULL OR (t.state = $3 AND exactly.task_state_label(t.state, t.run_at) = $2)) "
            + "AND t.seq > $4 ORDER BY t.seq LIMIT $5";

    private static final String PURGE_FINISHED = "SELECT exactly.purge_finished_tasks($1, $2, $3, $4)";

    /**
     * A write statement answering {@link #COLUMNS} of the rows it wrote: they are selected from its
     * RETURNING t.* (a distributed database, Citus, takes no stable function such as now() in a
     * write's CASE or COALESCE, RETURNING included, while a query over its result may have them).
     */
    private static String returning(String write) {
        return "WITH t AS (" + write + " RETURNING t.*) SELECT " + COLUMNS + " FROM t";
    }

    private final Pool pool;

    /** @param pool the connection pool of this instance */
    public TaskRepository(Pool pool) {
        this.pool = pool;
    }

    /**
     * Enqueues tasks through exactly.enqueue_task, one statement (one transaction) per task,
     * pipelined in order on one connection: a later task of the same batch sees the earlier
     * ones, and a batch never holds one task's locks while waiting for another's.
     *
     * @param tasks tasks with their ids set
     * @return one outcome per task, in order
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<List<Enqueued>> enqueue(List<NewTask> tasks) {
        if (tasks.isEmpty()) {
            return Uni.createFrom().item(List.of());
        }
        return BorrowedConnections.withConnection(pool, conn -> {
            List<Uni<Enqueued>> each = new ArrayList<>(tasks.size());
            for (NewTask t : tasks) {
                Tuple args = Tuple.tuple()
                        .addString(t.queue()).addString(t.taskId()).addString(t.type())
                        .addValue(Buffer.buffer(t.data()))
                        .addValue(t.dedupeKey() == null ? null : Buffer.buffer(t.dedupeKey()))
                        .addInteger(t.priority()).addOffsetDateTime(t.runAt())
                        .addInteger(t.maxRetries()).addInteger(t.retryDelaySeconds())
                        .addValue(Buffer.buffer(t.payloadDigest()));
                each.add(conn.preparedQuery(ENQUEUE).execute(args).map(rows -> {
                    Row r = rows.iterator().next();
                    return new Enqueued(t.queue(), r.getString(0), r.getBoolean(1), r.getString(2), r.getBoolean(3));
                }));
            }
            return Uni.join().all(each).andFailFast();
        }).onFailure().transform(DatabaseErrors.CLASSIFY);
    }

    /**
     * Claims tasks through exactly.claim_tasks (settles expired leases first, then FOR UPDATE
     * SKIP LOCKED in the order priority DESC, run_at, enqueue order).
     *
     * @return the claimed tasks with their fresh leases, in claim order; empty when none is claimable
     */
    public Uni<List<StoredTask>> claim(ClaimCommand c) {
        Tuple args = Tuple.tuple().addString(c.queue())
                .addArrayOfString(c.types() == null ? null : c.types().toArray(new String[0]))
                .addInteger(c.limit()).addInteger(c.leaseSeconds());
        return BorrowedConnections.execute(pool, CLAIM, args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(TaskRepository::toTasks);
    }

    /** @return the task, or null when none has that id in that queue */
    public Uni<StoredTask> find(String queue, String taskId) {
        return BorrowedConnections.execute(pool, FIND, Tuple.of(queue, taskId))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(TaskRepository::first);
    }

    /**
     * Completes a task if it is running under {@code leaseId} and the lease has not expired.
     *
     * @param result the result's JSON text, or null
     * @return the completed task, or null when the guard did not hold (nothing was changed)
     */
    public Uni<StoredTask> complete(String queue, String taskId, UUID leaseId, byte[] result) {
        Tuple args = Tuple.of(queue, taskId, leaseId).addValue(result == null ? null : Buffer.buffer(result));
        return BorrowedConnections.execute(pool, COMPLETE, args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(TaskRepository::first);
    }

    /**
     * Fails a task if it is running under {@code leaseId} and the lease has not expired: it waits
     * retry_delay_seconds and is delivered again, or is dead when that was its last delivery.
     *
     * @return the task after the failure, or null when the guard did not hold (nothing was changed)
     */
    public Uni<StoredTask> fail(String queue, String taskId, UUID leaseId, String error) {
        return BorrowedConnections.execute(pool, FAIL, Tuple.of(queue, taskId, leaseId, error))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(TaskRepository::first);
    }

    /**
     * Extends a lease (a worker's heartbeat): if the task is running under {@code leaseId} and the
     * lease has not expired, the lease now ends {@code seconds} from now.
     *
     * @return the task with its new expiry, or null when the guard did not hold (nothing was changed)
     */
    public Uni<StoredTask> extend(String queue, String taskId, UUID leaseId, int seconds) {
        return BorrowedConnections.execute(pool, EXTEND, Tuple.of(queue, taskId, leaseId, seconds))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(TaskRepository::first);
    }

    /**
     * Deletes a task unless it is running under a lease that is still held and is not {@code leaseId}.
     *
     * @param leaseId the caller's lease, or null
     * @return the deleted task, or null when nothing was deleted
     */
    public Uni<StoredTask> delete(String queue, String taskId, UUID leaseId) {
        return BorrowedConnections.execute(pool, DELETE, Tuple.of(queue, taskId, leaseId))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(TaskRepository::first);
    }

    /**
     * One page of a queue's tasks, in enqueue order.
     *
     * @param label the state a client sees (queued, scheduled, running, retrying, completed,
     *              dead), or null for every task
     * @param after the cursor: the seq of the previous page's last task (0 for the first page)
     * @param limit most tasks on the page
     * @return the page; {@code next} is the cursor of the following page, or null when this was the last
     */
    public Uni<TaskPage> list(String queue, String label, long after, int limit) {
        String stored = label == null ? null : "scheduled".equals(label) ? "queued" : label;
        Tuple args = Tuple.of(queue, label, stored, after, limit + 1);
        return BorrowedConnections.execute(pool, LIST, args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    List<StoredTask> tasks = new ArrayList<>(Math.min(rows.size(), limit));
                    long last = after;
                    for (Row r : rows) {
                        if (tasks.size() == limit) {
                            return new TaskPage(tasks, last);
                        }
                        tasks.add(toTask(r));
                        last = r.getLong("seq");
                    }
                    return new TaskPage(tasks, null);
                });
    }

    /**
     * A page of tasks and the cursor after it.
     *
     * @param tasks the tasks, in enqueue order
     * @param next  the seq to list after for the next page, or null when there is none
     */
    public record TaskPage(List<StoredTask> tasks, Long next) {
    }

    /**
     * Deletes one bounded step of finished tasks past their queue's retention, through
     * exactly.purge_finished_tasks (one short transaction).
     *
     * @param defaultSeconds retention of queues without an override (0 = forever)
     * @param overrides      per-queue retention in seconds (0 = forever)
     * @param limit          most tasks to delete
     * @return how many were deleted (fewer than {@code limit}: nothing more is due now)
     */
    public Uni<Integer> purgeFinished(int defaultSeconds, Map<String, Integer> overrides, int limit) {
        String[] queues = overrides.keySet().toArray(new String[0]);
        Integer[] seconds = new Integer[queues.length];
        for (int i = 0; i < queues.length; i++) {
            seconds[i] = overrides.get(queues[i]);
        }
        Tuple args = Tuple.tuple().addInteger(defaultSeconds).addArrayOfString(queues)
                .addArrayOfInteger(seconds).addInteger(limit);
        return BorrowedConnections.execute(pool, PURGE_FINISHED, args)
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> rows.iterator().next().getInteger(0));
    }

    private static StoredTask first(RowSet<Row> rows) {
        return rows.size() == 0 ? null : toTask(rows.iterator().next());
    }

    private static List<StoredTask> toTasks(RowSet<Row> rows) {
        List<StoredTask> out = new ArrayList<>(rows.size());
        for (Row r : rows) {
            out.add(toTask(r));
        }
        return out;
    }

    private static StoredTask toTask(Row r) {
        return new StoredTask(r.getString("queue"), r.getString("task_id"), r.getString("type"),
                bytes(r, "data"), bytes(r, "dedupe_key"), r.getString("state"), r.getString("label"),
                r.getInteger("priority"), r.getOffsetDateTime("run_at"), r.getInteger("max_retries"),
                r.getInteger("retry_delay_seconds"), r.getInteger("attempts"), r.getUUID("lease_id"),
                r.getOffsetDateTime("lease_expires_at"), r.getBoolean("lease_expired"), r.getString("last_error"),
                bytes(r, "result"), r.getOffsetDateTime("created_at"), r.getOffsetDateTime("updated_at"),
                r.getOffsetDateTime("finished_at"), r.getUUID("settled_lease"));
    }

    private static byte[] bytes(Row r, String column) {
        var b = r.getBuffer(column);
        return b == null ? null : b.getBytes();
    }
}
