package dev.exactly.server;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.scheduler.Scheduler;
import io.quarkus.scheduler.Trigger;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The server shape's timers (src/server/java; the Lambda build has no scheduler): maintenance,
 * the queue gauges and the duplicate counts are each scheduled, the first run one interval after
 * start-up (the test settings put the duplicate counts at 1 h), so starting connects nothing.
 */
@QuarkusTest
class ServerTimersTest {

    @Inject
    Scheduler scheduler;

    @Test
    void maintenanceQueueGaugesAndDuplicateCountsAreScheduled() {
        assertTrue(scheduler.isRunning(), "the scheduler runs in the server shape");
        for (String job : new String[] {"exactly-maintenance", "exactly-queue-gauges", "exactly-duplicate-counts"}) {
            Trigger t = scheduler.getScheduledJob(job);
            assertNotNull(t, job + " is scheduled: " + scheduler.getScheduledJobs().stream().map(Trigger::getId).toList());
        }
        Instant next = scheduler.getScheduledJob("exactly-duplicate-counts").getNextFireTime();
        assertNotNull(next, "the duplicate counts have a next run");
        assertTrue(next.isAfter(Instant.now().plus(Duration.ofMinutes(30))),
                "the first write waits one interval (1 h in the test settings): " + next);
    }
}
