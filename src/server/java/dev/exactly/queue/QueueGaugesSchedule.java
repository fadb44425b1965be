package dev.exactly.queue;

import io.quarkus.scheduler.Scheduled;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Refreshes the queue gauges ({@link QueueGauges}) every {@code exactly.metrics.every}, the first
 * time one interval after start-up, while {@code exactly.metrics.queues} names a queue; never two
 * refreshes at once. The server shape's only (src/server/java): the Lambda build has no scheduler.
 */
@ApplicationScoped
public class QueueGaugesSchedule {

    private final QueueGauges gauges;

    /** Constructor injection. */
    public QueueGaugesSchedule(QueueGauges gauges) {
        this.gauges = gauges;
    }

    /** One timed refresh (nothing when no queue is named); a failure is logged, never thrown. */
    @Scheduled(identity = "exactly-queue-gauges", every = "${exactly.metrics.every}",
            delayed = "${exactly.metrics.every}", concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    Uni<Void> run() {
        return gauges.namesQueues() ? gauges.refreshQuietly() : Uni.createFrom().voidItem();
    }
}
