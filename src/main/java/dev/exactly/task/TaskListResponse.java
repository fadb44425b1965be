package dev.exactly.task;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * One page of GET /api/v1/tasks.
 *
 * @param tasks the tasks, in enqueue order (without lease ids)
 * @param next  the cursor to pass as {@code after} for the next page; absent on the last page
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TaskListResponse(List<TaskView> tasks, String next) {
}
