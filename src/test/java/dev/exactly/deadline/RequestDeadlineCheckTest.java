package dev.exactly.deadline;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The start-up check of exactly.request.deadline-ms: below the HTTP idle timeout, room for the
 * longest long poll (20 s) and its last attempt (2 s), and a message that names the key.
 */
class RequestDeadlineCheckTest {

    private static final Duration IDLE = Duration.ofSeconds(60);

    @Test
    void theDefaultAndTheShortestPass() {
        assertDoesNotThrow(() -> RequestDeadlineFilter.check(25_000, IDLE));
        assertDoesNotThrow(() -> RequestDeadlineFilter.check(22_000, IDLE));
    }

    @Test
    void aDeadlineAtOrAboveTheIdleTimeoutIsRefused() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> RequestDeadlineFilter.check(60_000, IDLE));
        assertTrue(e.getMessage().contains("exactly.request.deadline-ms") && e.getMessage().contains("quarkus.http.idle-timeout"),
                e.getMessage());
    }

    @Test
    void aDeadlineWithoutRoomForTheLongestLongPollIsRefused() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> RequestDeadlineFilter.check(21_999, IDLE));
        assertTrue(e.getMessage().contains("exactly.request.deadline-ms") && e.getMessage().contains("22000"),
                e.getMessage());
        assertThrows(IllegalStateException.class, () -> RequestDeadlineFilter.check(0, IDLE));
    }
}
