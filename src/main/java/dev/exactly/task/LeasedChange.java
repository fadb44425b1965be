package dev.exactly.task;

/**
 * The outcome of a change that a lease guards (complete, fail, delete).
 *
 * @param task     the task after the change, or as found when refused; null when no such task exists
 * @param refusal  null when the change was made, else why it was refused (the lease is not the
 *                 task's current one, has expired, or the task is not running)
 */
public record LeasedChange(StoredTask task, String refusal) {

    /** No task with that id in that queue. */
    public boolean notFound() {
        return task == null;
    }
}
