package dev.exactly.task;

import dev.exactly.http.RouteBodyLimit;
import jakarta.enterprise.context.ApplicationScoped;

/** The task routes' body limit: {@code exactly.tasks.max-body-bytes} for everything under /api/v1/tasks. */
@ApplicationScoped
public class TaskBodyLimit implements RouteBodyLimit {

    private final Limit limit;

    /** Constructor injection. */
    public TaskBodyLimit(TaskConfig config) {
        this.limit = Limit.of(config.maxBodyBytes(), "exactly.tasks.max-body-bytes");
    }

    @Override
    public Limit limitFor(String path) {
        return path.startsWith(TaskResource.PATH)
                && (path.length() == TaskResource.PATH.length() || path.charAt(TaskResource.PATH.length()) == '/')
                ? limit : null;
    }

    @Override
    public Limit largest() {
        return limit;
    }
}
