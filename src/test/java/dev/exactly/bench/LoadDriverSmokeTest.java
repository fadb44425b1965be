package dev.exactly.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import dev.exactly.testing.Db;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.URL;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * CI smoke run of the benchmark's HTTP load driver (bench/): 60 requests (bounded by count, at
 * most 60 s) against the test application, asserting only that it ran, counted, and that its
 * counts agree with the service's answers and with what was stored. No timing assertion: speed
 * is for bench/run.
 */
@QuarkusTest
class LoadDriverSmokeTest {

    @TestHTTPResource("/")
    URL base;

    @Test
    void theDriverPushesCountsAndSeesDuplicates() throws Exception {
        Workload w = Workload.of("bench-smoke", 10, 3, 0.3);
        LoadResult r = HttpLoad.run(new HttpLoad.Options(URI.create(base.toString()), Api.TEST_API_KEY, 4,
                Duration.ZERO, Duration.ofSeconds(60), 60), w);

        assertNull(r.firstError(), "the driver saw a failure");
        assertEquals(0, r.errors());
        assertEquals(60, r.requests(), "answered requests: " + r);
        assertEquals(10 * r.requests(), r.items(), "items counted per answered request");
        assertTrue(r.duplicates() > 0, "30% of the items repeat answered ids, yet none was a duplicate: " + r);
        assertTrue(r.duplicates() < r.items());
        assertTrue(r.p50Ms() > 0 && r.p50Ms() <= r.p99Ms() && r.p99Ms() <= r.maxMs(), "latency percentiles out of order");
        // every item the driver counted as new was stored (answers after the period are stored too)
        long stored = Db.number("SELECT count(*) FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id "
                + "JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = 'bench-smoke'");
        assertTrue(stored >= r.items() - r.duplicates(), "stored " + stored + " < counted new " + (r.items() - r.duplicates()));
    }
}
