package dev.exactly.destination;

import dev.exactly.http.Checked;
import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.validation.constraints.Min;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.function.BiConsumer;

/**
 * The body of POST /api/v1/queues/{queue}/destinations/{name}/replay:
 * {@code {"fromOffset": n} | {"fromTime": "RFC 3339 date-time"}, "partition"?: name}. Exactly one of
 * fromOffset and fromTime.
 *
 * @param fromOffset the first offset to deliver again, in each partition (or in {@code partition} alone); 0 or more
 * @param fromTime   deliver again, in each partition, from its first message stored at or after this
 *                   instant: an RFC 3339 date-time with its offset ({@code 2026-12-05T10:00:00Z})
 * @param partition  the one partition to replay, or null for every partition of the queue
 */
@RegisterForReflection
@Checked
public record DestinationReplayRequest(@Min(value = 0, message = "must be an integer of 0 or more") Long fromOffset,
                                       String fromTime, String partition) implements Checked.Rules {

    private static final String TIME = "must be an RFC 3339 date-time with its offset, e.g. 2026-12-05T10:00:00Z";

    @Override
    public void check(BiConsumer<String, String> broken) {
        if (fromOffset != null && fromTime != null) {
            broken.accept("fromTime", "cannot be given with fromOffset");
        } else if (fromOffset == null && fromTime == null) {
            broken.accept("fromOffset", "is required, or fromTime");
        } else if (fromTime != null && instant() == null) {
            broken.accept("fromTime", TIME);
        }
        if (partition != null && partition.isEmpty()) {
            broken.accept("partition", "must not be empty");
        }
    }

    /** @return {@code fromTime} as an instant with its offset, or null when absent or not RFC 3339 */
    public OffsetDateTime instant() {
        if (fromTime == null) {
            return null;
        }
        try {
            // RFC 3339 date-time: ISO 8601 with a mandatory offset (Z or ±hh:mm); a space for the T is refused
            return OffsetDateTime.parse(fromTime, DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
