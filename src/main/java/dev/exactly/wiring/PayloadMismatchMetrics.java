package dev.exactly.wiring;

import dev.exactly.engine.PushStatus;
import dev.exactly.engine.PushVerdict;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * Micrometer counter of idempotency keys repeated with another payload, outside
 * webhooks (which count theirs per source, {@code exactly_webhook_deliveries_payload_mismatch_total}):
 * {@code exactly_payload_mismatch_total} with the tags {@code entry} ({@code push},
 * {@code transaction}, {@code task}) and {@code outcome} ({@code reported}: answered duplicate with
 * payloadMatches false, or a transaction rolled back with 409; {@code rejected}: refused with 422
 * because the queue's payloadMismatch option is "reject"). Both tags take fixed values only, so
 * the counter has at most six series; every one is registered at start-up and starts at 0.
 * Thread-safe.
 */
@Startup
@ApplicationScoped
public class PayloadMismatchMetrics {

    /** Where the repeated key came in. */
    public enum Entry {
        /** POST /api/v1/push. */
        PUSH,
        /** POST /api/v1/transaction. */
        TRANSACTION,
        /** POST /api/v1/tasks and /api/v1/tasks/batch (a task id repeated with another type or data). */
        TASK
    }

    private final Counter[][] counters = new Counter[Entry.values().length][2];

    /** @param registry the application's registry */
    public PayloadMismatchMetrics(MeterRegistry registry) {
        for (Entry e : Entry.values()) {
            for (int rejected = 0; rejected < 2; rejected++) {
                counters[e.ordinal()][rejected] = Counter.builder("exactly.payload.mismatch")
                        .tag("entry", e.name().toLowerCase(java.util.Locale.ROOT))
                        .tag("outcome", rejected == 1 ? "rejected" : "reported")
                        .description("idempotency keys repeated with another payload (webhooks: "
                                + "exactly_webhook_deliveries_payload_mismatch_total)")
                        .register(registry);
            }
        }
    }

    /**
     * Counts one mismatch.
     *
     * @param entry    where it came in
     * @param rejected true when it was refused (422), false when it was reported
     */
    public void count(Entry entry, boolean rejected) {
        counters[entry.ordinal()][rejected ? 1 : 0].increment();
    }

    /**
     * Counts the mismatches among a request's verdicts: every item answered with payloadMatches
     * false, as rejected when its status is {@link PushStatus#REJECTED}.
     *
     * @param entry    where the request came in
     * @param verdicts its verdicts
     */
    public void count(Entry entry, List<PushVerdict> verdicts) {
        for (PushVerdict v : verdicts) {
            if (Boolean.FALSE.equals(v.payloadMatches())) {
                count(entry, v.status() == PushStatus.REJECTED);
            }
        }
    }
}
