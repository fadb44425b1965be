package dev.exactly.destination;

import static dev.exactly.consume.ConsumeFixtures.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A destination's lastError is its most recent failure, whatever order the workers' figures
 * arrive in: workers of several partitions (or of one unordered batch) each write their own, and
 * an earlier failure written after a later one leaves the later one in place (it replaced it:
 * lastErrorAt went backwards).
 */
@QuarkusTest
class DestinationLastErrorTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Inject
    Pool pool;

    @Inject
    DestinationRepository repository;

    @Test
    void anEarlierFailureWrittenLaterLeavesTheLatestInPlace() {
        String name = DestinationFixtures.fresh("lasterr");
        sql(pool, "INSERT INTO exactly.destination_state (name, queue) VALUES ($1, 'q-lasterr')", name);
        try {
            OffsetDateTime later = OffsetDateTime.of(2026, 12, 7, 4, 31, 39, 538_000_000, ZoneOffset.UTC);
            OffsetDateTime earlier = later.minusNanos(598_000_000);
            repository.addFigures(name, 0, 1, "answered HTTP 503 (later)", later).await().atMost(WAIT);
            repository.addFigures(name, 1, 1, "answered HTTP 503 (earlier)", earlier).await().atMost(WAIT);
            Row r = sql(pool, "SELECT delivered, failed_attempts, last_error, last_error_at FROM exactly.destination_state "
                    + "WHERE name = $1", name).iterator().next();
            assertEquals(1, r.getLong("delivered"));
            assertEquals(2, r.getLong("failed_attempts"));
            assertEquals("answered HTTP 503 (later)", r.getString("last_error"));
            assertEquals(later.toInstant(), r.getOffsetDateTime("last_error_at").toInstant());
            // a later failure still replaces it
            repository.addFigures(name, 0, 1, "answered HTTP 500", later.plusSeconds(1)).await().atMost(WAIT);
            List<String> errors = new java.util.ArrayList<>();
            sql(pool, "SELECT last_error FROM exactly.destination_state WHERE name = $1", name).forEach(x -> errors.add(x.getString(0)));
            assertEquals(List.of("answered HTTP 500"), errors);
        } finally {
            sql(pool, "DELETE FROM exactly.destination_state WHERE name = $1", name);
        }
    }
}
