package dev.exactly.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which limit a path gets, and the start-up check against the HTTP layer's own limit. */
class BodyLimitFilterTest {

    private static final RouteBodyLimit TASKS = new RouteBodyLimit() {
        private final Limit limit = Limit.of(8 << 20, "exactly.tasks.max-body-bytes");

        @Override
        public Limit limitFor(String path) {
            return path.startsWith("/api/v1/tasks") ? limit : null;
        }

        @Override
        public Limit largest() {
            return limit;
        }
    };

    @Test
    void aRouteGroupsLimitAppliesToItsPathsAndThePushLimitToTheRest() {
        BodyLimitFilter f = new BodyLimitFilter(6 << 20, List.of(TASKS), new ObjectMapper(), 16 << 20);
        assertEquals(8 << 20, f.limitFor("/api/v1/tasks/claim").maxBytes());
        assertEquals("exactly.tasks.max-body-bytes", f.limitFor("/api/v1/tasks").key());
        assertEquals(6 << 20, f.limitFor("/api/v1/push").maxBytes());
        assertEquals("exactly.push.max-body-bytes", f.limitFor("/api/v1/transaction").key());
        assertTrue(f.limitFor("/api/v1/push").problem().getMessage().contains("6291456 bytes (exactly.push.max-body-bytes)"),
                f.limitFor("/api/v1/push").problem().getMessage());
    }

    @Test
    void aLimitAboveTheHttpLayersOwnStopsTheStart() {
        new BodyLimitFilter(6 << 20, List.of(TASKS), new ObjectMapper(), 8 << 20).checkAgainstOuterLimit();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new BodyLimitFilter(6 << 20, List.of(TASKS), new ObjectMapper(), 7 << 20).checkAgainstOuterLimit());
        assertTrue(e.getMessage().startsWith("exactly.tasks.max-body-bytes (8388608 bytes) is above "
                + "quarkus.http.limits.max-body-size (7340032 bytes)"), e.getMessage());
        assertThrows(IllegalStateException.class,
                () -> new BodyLimitFilter(6 << 20, List.of(), new ObjectMapper(), 5 << 20).checkAgainstOuterLimit());
    }
}
