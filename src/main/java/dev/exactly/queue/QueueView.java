package dev.exactly.queue;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

/**
 * A queue on the wire.
 *
 * @param queue     queue name
 * @param options   every option with its value (a number, or a name for payloadMismatch)
 * @param createdAt creation time
 * @param updatedAt last options change
 * @param reset     (configure only) options that the full replace returned to their default and
 *                  whose value that changed
 * @param defaulted (configure only) every option the request omitted, now at its default
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record QueueView(String queue, Map<String, Object> options, OffsetDateTime createdAt,
                        OffsetDateTime updatedAt, List<Reset> reset, List<String> defaulted) {

    /**
     * An option a full replace changed back to its default.
     *
     * @param option wire name
     * @param from   the value before (a number, or a name for a named option)
     * @param to     the default it now has
     */
    @RegisterForReflection
    public record Reset(String option, Object from, Object to) {
    }

    static QueueView of(QueueRepository.StoredQueue q) {
        return new QueueView(q.name(), q.options().toWire(), q.createdAt(), q.updatedAt(), null, null);
    }
}
