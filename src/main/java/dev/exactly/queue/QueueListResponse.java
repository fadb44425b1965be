package dev.exactly.queue;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * One page of GET /api/v1/queues.
 *
 * @param queues the queues in name order
 * @param next   the cursor to pass as {@code after} for the next page; absent on the last page
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record QueueListResponse(List<Entry> queues, String next) {

    /**
     * A queue in the listing.
     *
     * @param queue      queue name
     * @param options    every option with its value (a number, or a name for payloadMismatch)
     * @param partitions partitions it has
     * @param messages   messages it stores (kept data)
     * @param createdAt  creation time
     * @param updatedAt  last options change
     */
    @RegisterForReflection
    @Schema(name = "QueueListEntry")
    public record Entry(String queue, Map<String, Object> options, long partitions, long messages,
                        OffsetDateTime createdAt, OffsetDateTime updatedAt) {

        static Entry of(QueueStatsRepository.QueueSize s) {
            return new Entry(s.queue().name(), s.queue().options().toWire(), s.partitions(), s.messages(),
                    s.queue().createdAt(), s.queue().updatedAt());
        }
    }
}
