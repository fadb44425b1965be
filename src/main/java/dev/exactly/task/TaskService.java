package dev.exactly.task;

import dev.exactly.engine.MessageIds;
import dev.exactly.wiring.PayloadMismatchMetrics;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The task queue: enqueue with exact deduplication (client id per queue; autoDedupe key among
 * pending tasks), claims under leases, and the lease-guarded completion, failure and deletion.
 * PostgreSQL decides every race ({@link TaskRepository}); this class mints ids and explains refusals.
 */
@ApplicationScoped
public class TaskService {

    private final TaskRepository store;
    private final PayloadMismatchMetrics mismatches;

    /** Constructor injection. */
    public TaskService(TaskRepository store, PayloadMismatchMetrics mismatches) {
        this.store = store;
        this.mismatches = mismatches;
    }

    /**
     * Enqueues tasks in order, each on its own (a batch is not atomic: every task gets its own
     * verdict and is committed on its own). A task without an id gets a UUIDv7. A duplicate by id
     * whose type or data differs is counted ({@link PayloadMismatchMetrics}, entry task).
     *
     * @return one outcome per task, in order
     */
    public Uni<List<Enqueued>> enqueue(List<NewTask> tasks) {
        List<NewTask> withIds = new ArrayList<>(tasks.size());
        for (NewTask t : tasks) {
            withIds.add(t.taskId() != null ? t : t.withTaskId(MessageIds.next().toString()));
        }
        return store.enqueue(withIds).invoke(outcomes -> {
            for (Enqueued e : outcomes) {
                if (Boolean.FALSE.equals(e.payloadMatches())) {
                    mismatches.count(PayloadMismatchMetrics.Entry.TASK, false);
                }
            }
        });
    }

    /** Claims up to {@code c.limit()} tasks; empty when none is claimable. */
    public Uni<List<StoredTask>> claim(ClaimCommand c) {
        return store.claim(c);
    }

    /**
     * One page of a queue's tasks in enqueue order.
     *
     * @param label the state a client sees, or null for all
     * @param after the previous page's cursor, 0 for the first page
     */
    public Uni<TaskRepository.TaskPage> list(String queue, String label, long after, int limit) {
        return store.list(queue, label, after, limit);
    }

    /** @return the task, or null when none has that id in that queue */
    public Uni<StoredTask> find(String queue, String taskId) {
        return store.find(queue, taskId);
    }

    /**
     * Completes a task under its current, unexpired lease; otherwise changes nothing and says why.
     * A retry of a completion that went through (the task is completed, under this very lease, with
     * this very result) is answered as the first one was, with the task: a worker whose answer was
     * lost learns that its completion stands, not that its lease is gone. A completion under that
     * lease with another result is refused (409): it is not the same request.
     */
    public Uni<LeasedChange> complete(String queue, String taskId, UUID leaseId, byte[] result) {
        return store.complete(queue, taskId, leaseId, result)
                .flatMap(done -> done != null ? ok(done)
                        : refused(queue, taskId, leaseId, Settlement.COMPLETED, result));
    }

    /**
     * Fails a task under its current, unexpired lease: it is delivered again after its retry
     * delay, or is dead when this was its last delivery. Otherwise changes nothing and says why. A
     * retry of a failure that went through (the task was last settled under this very lease, and not
     * completed) is answered with the task as it now is.
     */
    public Uni<LeasedChange> fail(String queue, String taskId, UUID leaseId, String error) {
        return store.fail(queue, taskId, leaseId, error)
                .flatMap(done -> done != null ? ok(done) : refused(queue, taskId, leaseId, Settlement.FAILED, null));
    }

    /** How a guarded change settles a task, if it does. */
    private enum Settlement { NONE, COMPLETED, FAILED }

    /**
     * Extends a task's lease to end {@code seconds} from now, under its current, unexpired lease;
     * otherwise changes nothing and says why (an expired or taken-over lease cannot be revived).
     */
    public Uni<LeasedChange> extend(String queue, String taskId, UUID leaseId, int seconds) {
        return store.extend(queue, taskId, leaseId, seconds)
                .flatMap(done -> done != null ? ok(done) : refused(queue, taskId, leaseId, Settlement.NONE, null));
    }

    /**
     * Deletes a task. A running task whose lease is still held needs that lease; any other task
     * (queued, scheduled, retrying, completed, dead, or running on an expired lease) is deleted
     * without one.
     */
    public Uni<LeasedChange> delete(String queue, String taskId, UUID leaseId) {
        return store.delete(queue, taskId, leaseId)
                .flatMap(done -> done != null ? ok(done) : refused(queue, taskId, leaseId, Settlement.NONE, null));
    }

    private static Uni<LeasedChange> ok(StoredTask t) {
        return Uni.createFrom().item(new LeasedChange(t, null));
    }

    /**
     * Reads the task to explain why the guarded change did not apply (the read decides nothing),
     * or to recognise a retry of the same change that did apply: the task was last completed or
     * failed under this lease ({@link StoredTask#settledLease()}), the way this change settles it
     * (a completion with the same result).
     */
    private Uni<LeasedChange> refused(String queue, String taskId, UUID leaseId, Settlement settles, byte[] result) {
        return store.find(queue, taskId).map(t -> {
            if (t == null) {
                return new LeasedChange(null, null);
            }
            boolean completed = "completed".equals(t.state());
            boolean replay = leaseId != null && leaseId.equals(t.settledLease())
                    && (settles == Settlement.COMPLETED && completed && java.util.Arrays.equals(result, t.result())
                        || settles == Settlement.FAILED && !completed);
            return new LeasedChange(t, replay ? null : reason(t, leaseId));
        });
    }

    static String reason(StoredTask t, UUID leaseId) {
        if (!"running".equals(t.state())) {
            return "the task is " + t.label() + ", not running under a lease";
        }
        if (leaseId == null) {
            return "the task is running under a lease; pass its leaseId";
        }
        if (!leaseId.equals(t.leaseId())) {
            return "leaseId is not the task's current lease (one that expired before the task was claimed again, "
                    + "or one never granted)";
        }
        return "the lease expired at " + t.leaseExpiresAt();
    }
}
