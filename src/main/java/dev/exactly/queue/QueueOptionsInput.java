package dev.exactly.queue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.exactly.http.Checked;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.NotNull;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.BiConsumer;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * The options a configure or a patch sets, each optional; the bounds are {@link QueueOption}'s
 * (an unknown option is refused as an unknown field). Each value is read as JSON (absent: null), so
 * a null, a fraction or a number beyond an int is refused in words about the option itself. One
 * component per option, named as on the wire.
 *
 * @param dedupWindowSeconds {@link QueueOption#DEDUP_WINDOW_SECONDS}
 * @param retentionSeconds   {@link QueueOption#RETENTION_SECONDS}
 * @param leaseTime          {@link QueueOption#LEASE_TIME}
 * @param retryLimit         {@link QueueOption#RETRY_LIMIT}
 * @param retryDelay         {@link QueueOption#RETRY_DELAY}
 * @param spreadPartitions   {@link QueueOption#SPREAD_PARTITIONS}
 * @param payloadMismatch    {@link QueueOption#PAYLOAD_MISMATCH}: "report" or "reject"
 */
@RegisterForReflection
@Checked
public record QueueOptionsInput(JsonNode dedupWindowSeconds, JsonNode retentionSeconds, JsonNode leaseTime,
                                JsonNode retryLimit, JsonNode retryDelay, JsonNode spreadPartitions,
                                JsonNode payloadMismatch) implements Checked.Rules {

    @Override
    public void check(BiConsumer<String, String> broken) {
        JsonNode[] given = given();
        for (QueueOption o : QueueOption.values()) {
            String why = why(o, given[o.ordinal()]);
            if (why != null) {
                broken.accept(o.wire(), why);
            }
        }
    }

    /** Why an option's value is refused, or null when it is absent or valid. */
    private static String why(QueueOption o, JsonNode v) {
        if (v == null) {
            return null;
        } else if (o.named()) {
            return v.isTextual() && o.names().contains(v.textValue()) ? null
                    : "must be one of " + String.join(", ", o.names().stream().map(n -> '"' + n + '"').toList());
        } else if (!v.isIntegralNumber()) {
            return "must be an integer";
        } else if (!v.canConvertToInt()) {
            // beyond an int: the option's own range when it has one (spreadPartitions: 0, or 2 to 1024)
            String own = o.check(v.bigIntegerValue().signum() < 0 ? Integer.MIN_VALUE : Integer.MAX_VALUE);
            return own != null ? own : "must be an integer from " + o.min() + " to " + Integer.MAX_VALUE;
        }
        return o.check(v.intValue());
    }

    /** @return the options given, by option (a named option as its index) */
    public Map<QueueOption, Integer> values() {
        Map<QueueOption, Integer> out = new EnumMap<>(QueueOption.class);
        JsonNode[] given = given();
        for (QueueOption o : QueueOption.values()) {
            JsonNode v = given[o.ordinal()];
            if (v != null) {
                out.put(o, o.named() ? o.indexOf(v.textValue()) : v.intValue());
            }
        }
        return out;
    }

    /** The values in {@link QueueOption} order (a test keeps the components and the options in step). */
    private JsonNode[] given() {
        return new JsonNode[] {dedupWindowSeconds, retentionSeconds, leaseTime, retryLimit, retryDelay, spreadPartitions,
            payloadMismatch};
    }

    /**
     * The body of POST /api/v1/configure: {@code {"queue","options"}}, options required (a configure
     * without it would silently return every option to its default; {@code {}} says so on purpose).
     *
     * @param queue   the queue to create or replace the options of
     * @param options the options given; an omitted one returns to its default
     */
    @RegisterForReflection
    @Schema(ref = "ConfigureRequest") // its schema, in META-INF/openapi.yaml
    public record Configure(@NotNull(message = "is required and must be a string") @dev.exactly.naming.Name String queue,
                            @NotNull(message = "is required: an object of options (an empty one returns every option "
                                    + "to its default)") @jakarta.validation.Valid QueueOptionsInput options) {
    }

    /**
     * The body of PATCH /api/v1/queues/{queue}: {@code {"options"}}, required (without it nothing would change).
     *
     * @param options the options to merge in
     */
    @RegisterForReflection
    @Schema(ref = "PatchQueueRequest") // its schema, in META-INF/openapi.yaml
    public record Patch(@NotNull(message = "is required: an object of the options to change")
                        @jakarta.validation.Valid QueueOptionsInput options) {
    }
}
