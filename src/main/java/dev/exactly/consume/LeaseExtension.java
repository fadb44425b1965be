package dev.exactly.consume;

import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The body of a pop lease extension, {@code {"leaseId","leaseSeconds"?}} (the body a task extension
 * takes). A leaseSeconds over {@link PopRequest#MAX_LEASE_SECONDS} is refused, as a pop asking for it
 * is, never shortened: a consumer must not believe it holds a lease longer than it does.
 *
 * @param leaseId      the lease a pop handed out
 * @param leaseSeconds seconds from now, or null for the queue's leaseTime
 */
@RegisterForReflection
@Schema(ref = "ExtendRequest") // its schema, in META-INF/openapi.yaml
public record LeaseExtension(@NotNull(message = "is required") UUID leaseId,
                             @Min(value = 1, message = PopRequest.LEASE) @Max(value = PopRequest.MAX_LEASE_SECONDS,
                                     message = PopRequest.LEASE) Integer leaseSeconds) {
}
