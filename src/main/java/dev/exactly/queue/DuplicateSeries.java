package dev.exactly.queue;

import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * GET /api/v1/queues/{queue}/duplicates: the duplicates a queue answered, per hour.
 *
 * @param queue         queue name
 * @param windowSeconds its deduplication window
 * @param since         the start of the first hour asked for (UTC)
 * @param hours         each hour from {@code since} with at least one duplicate, in order
 */
@RegisterForReflection
public record DuplicateSeries(String queue, int windowSeconds, OffsetDateTime since, List<Hour> hours) {

    /**
     * One hour.
     *
     * @param hour       its start (UTC)
     * @param duplicates the pushes answered duplicate in it, as the instances have written them (a lower bound)
     */
    @RegisterForReflection
    @Schema(name = "DuplicateHour")
    public record Hour(OffsetDateTime hour, long duplicates) {
    }
}
