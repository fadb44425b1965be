package dev.exactly.task;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * The answer to a claim.
 *
 * @param tasks the claimed tasks with their leases, in claim order; empty when none was claimable
 */
@RegisterForReflection
public record ClaimResponse(List<TaskView> tasks) {
}
