package dev.exactly.redrive;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.UUID;

/**
 * What a redrive did with one dead-letter copy.
 *
 * @param deadLetterId the copy's message id in the dead-letter queue
 * @param status       "redriven" (stored again in its origin partition), "duplicate" (an earlier
 *                     redrive of this copy already stored it: nothing written) or "not-found" (no
 *                     such message in this dead-letter queue, or one with no dead-letter origin)
 * @param messageId    the redriven message's id in the origin partition (the earlier one for a
 *                     duplicate; the zero UUID when its data was purged since); absent for not-found
 * @param queue        the origin queue; absent for not-found
 * @param partition    the origin partition; absent for not-found
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record RedriveResult(UUID deadLetterId, String status, UUID messageId, String queue, String partition) {

    /** Stored again in the origin partition. */
    public static final String REDRIVEN = "redriven";
    /** Already redriven by an earlier call; nothing written. */
    public static final String DUPLICATE = "duplicate";
    /** Not a dead letter of this queue. */
    public static final String NOT_FOUND = "not-found";

    static RedriveResult notFound(UUID id) {
        return new RedriveResult(id, NOT_FOUND, null, null, null);
    }
}
