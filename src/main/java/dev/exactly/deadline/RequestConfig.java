package dev.exactly.deadline;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Requests' deadline, under the {@code exactly.request.} prefix (SmallRye Config). Checked at
 * start-up by {@link RequestDeadlineFilter}.
 */
@ConfigMapping(prefix = "exactly.request")
public interface RequestConfig {

    /**
     * {@code exactly.request.deadline-ms} (EXACTLY_REQUEST_DEADLINE_MS): every request is answered
     * within this many milliseconds of its arrival, whatever the database does. Database work still
     * under way shortly before (a statement, a commit, a wait for a connection) is abandoned and
     * cancelled on the server, and the request is answered 503 with Retry-After:
     * {@code /problems/unavailable} when no connection could be had, {@code /problems/database-timeout}
     * when the work was under way (its outcome is then unknown; a retry of the same request is
     * answered exactly). It must be below {@code quarkus.http.idle-timeout}, and leave room for the
     * longest long poll (a pop's waitMillis, at most 20 000) and 2 000 ms for its last attempt. Behind
     * API Gateway (30 s integration timeout) and Lambda, the function's timeout sits between it and
     * the gateway's (infra/terraform).
     */
    @WithDefault("25000")
    long deadlineMs();
}
