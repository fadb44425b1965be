package dev.exactly.task;

import java.util.List;

/**
 * A worker's claim.
 *
 * @param queue        queue name
 * @param types        only tasks of these types, or null for any
 * @param limit        most tasks to hand out, at least 1
 * @param leaseSeconds lease of each claimed task, in seconds
 */
public record ClaimCommand(String queue, List<String> types, int limit, int leaseSeconds) {
}
