package dev.exactly.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.config.ExactlyConfig;
import dev.exactly.db.StoreTimeoutException;
import dev.exactly.db.StoreUnavailableException;
import dev.exactly.engine.DedupCache;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushRepository;
import dev.exactly.http.JsonBodyReader;
import dev.exactly.http.RequestProblems;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.ProblemMappers;
import dev.exactly.push.PushRequest;
import dev.exactly.push.PushResource;
import dev.exactly.queue.QueueOptionsInput;
import dev.exactly.queue.QueueRepository;
import dev.exactly.queue.QueueResource;
import dev.exactly.queue.QueueStatsRepository;
import dev.exactly.testing.TestDatabase;
import io.quarkus.hibernate.validator.runtime.jaxrs.ResteasyReactiveViolationException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * Property (fuzz) tests over the push and configure bodies, run by jqwik beside JUnit Jupiter:
 * whatever the body ({@link HostileBodies}), the answer is a 4xx problem that wrote nothing, or a
 * 200 with the correct verdicts (checked by {@link FuzzOracle} against the database before and
 * after) that wrote exactly the queued items; never a 5xx.
 *
 * <p>The resources are called in-process, each body bound and validated as the service does, with
 * the service's own problem mappers, on an engine
 * and repository over a real PostgreSQL (the shared test server, a database of their own);
 * {@link HostileInputHttpTest} sends such bodies over HTTP to the running application as well.
 */
class HostileInputPropertyTest {

    private static final ObjectMapper JSON = new ObjectMapper().findAndRegisterModules();
    private static final int TRIES = 300;

    private static Vertx vertx;
    private static Pool pool;
    private static String db;
    private static PushResource push;
    private static QueueResource configure;
    private static final ProblemMappers MAPPERS = new ProblemMappers(
            new dev.exactly.problem.DatabaseFailures(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()));
    private static final jakarta.validation.Validator VALIDATOR = jakarta.validation.Validation.byDefaultProvider().configure()
            .messageInterpolator(new org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator())
            .buildValidatorFactory().getValidator();
    private static final Map<String, AtomicLong> SEEN = new java.util.concurrent.ConcurrentSkipListMap<>();

    @BeforeContainer
    static void start() {
        vertx = Vertx.vertx();
        db = TestDatabase.createMigratedDatabase();
        pool = TestDatabase.pool(vertx, db, 4);
        pool.query("SELECT 1").executeAndAwait();
        push = new PushResource(new PushEngine(new PushRepository(pool), DedupCache.DISABLED), config(),
                new dev.exactly.wiring.PayloadMismatchMetrics(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()),
                dev.exactly.destination.Dispatcher.idle(), VALIDATOR);
        configure = new QueueResource(new QueueRepository(pool), new QueueStatsRepository(pool),
                new dev.exactly.duplicate.DuplicateCountRepository(pool), DedupCache.DISABLED);
    }

    @AfterContainer
    static void stop() {
        System.out.println("[fuzz] in-process bodies by outcome: " + SEEN);
        pool.closeAndAwait();
        vertx.closeAndAwait();
    }

    /** The service's limits (exactly.push.*) at their defaults; nothing else is read. */
    private static ExactlyConfig config() {
        Object limits = Proxy.newProxyInstance(ExactlyConfig.class.getClassLoader(), new Class<?>[] {ExactlyConfig.Push.class},
                (p, m, a) -> switch (m.getName()) {
                    case "maxItems" -> 1000;
                    case "maxBodyBytes" -> 6_291_456L;
                    default -> null;
                });
        return (ExactlyConfig) Proxy.newProxyInstance(ExactlyConfig.class.getClassLoader(), new Class<?>[] {ExactlyConfig.class},
                (p, m, a) -> "push".equals(m.getName()) ? limits : null);
    }

    private static Connection jdbc() throws Exception {
        return DriverManager.getConnection(TestDatabase.jdbcUrl(db), "postgres", "");
    }

    /** Calls a resource method and maps the outcome as the service does: the status and the entity. */
    private static Object[] call(Supplier<Uni<?>> resource) {
        Response r;
        try {
            return new Object[] {200, resource.get().await().atMost(Duration.ofSeconds(60))};
        } catch (ApiProblem p) {
            r = MAPPERS.apiProblem(p);
        } catch (ResteasyReactiveViolationException e) {
            r = new RequestProblems().violations(e);
        } catch (StoreTimeoutException e) {
            r = MAPPERS.timeout(e);
        } catch (StoreUnavailableException e) {
            r = MAPPERS.unavailable(e);
        } catch (WebApplicationException e) {
            r = MAPPERS.web(e, null); // no request: a runtime 404 would name no path
        } catch (Throwable t) {
            r = MAPPERS.unexpected(t);
        }
        return new Object[] {r.getStatus(), r.getEntity()};
    }

    /** Binds and validates a body as the service does before the resource method runs. */
    private static <T> T bind(Class<T> type, byte[] body) {
        T value = JsonBodyReader.read(type, body);
        java.util.Set<jakarta.validation.ConstraintViolation<T>> broken = VALIDATOR.validate(value);
        if (!broken.isEmpty()) {
            throw new ResteasyReactiveViolationException(broken);
        }
        return value;
    }

    private static void seen(String what, int status) {
        SEEN.computeIfAbsent(what + " " + (status / 100) + "xx", k -> new AtomicLong()).incrementAndGet();
    }

    @Provide
    Arbitrary<byte[]> pushBodies() {
        return Arbitraries.randomValue(HostileBodies::push);
    }

    @Provide
    Arbitrary<byte[]> configureBodies() {
        return Arbitraries.randomValue(HostileBodies::configure);
    }

    @Property(tries = TRIES)
    void aPushIsRefusedWithoutWritingOrAnsweredCorrectly(@ForAll("pushBodies") byte[] body) throws Exception {
        try (Connection c = jdbc()) {
            long[] before = FuzzOracle.footprint(c);
            Map<PushLedger.Key, List<UUID>> storedBefore = FuzzOracle.stored(c, null);
            Object[] out = call(() -> push.push(bind(PushRequest.class, body)));
            int status = (int) out[0];
            seen("push", status);
            long[] after = FuzzOracle.footprint(c);
            assertTrue(status < 500, () -> "a 5xx for a push body: " + out[1]);
            if (status == 200) {
                int[] queued = {0};
                JsonNode answer = JSON.valueToTree(out[1]);
                assertNull(FuzzOracle.checkPush(body, answer, storedBefore, FuzzOracle.stored(c, null), queued));
                assertEquals(before[0] + 3L * queued[0], after[0], "rows written beyond the queued items");
            } else {
                assertTrue(status >= 400, "status " + status);
                assertEquals("dev.exactly.problem.Problem", out[1].getClass().getName());
                assertArrayEquals(before, after, "a refused push wrote something");
            }
        }
    }

    @Property(tries = TRIES)
    void aConfigureIsRefusedWithoutWritingOrStoredExactly(@ForAll("configureBodies") byte[] body) throws Exception {
        try (Connection c = jdbc()) {
            long[] before = FuzzOracle.footprint(c);
            Object[] out = call(() -> configure.configure(bind(QueueOptionsInput.Configure.class, body)));
            int status = (int) out[0];
            seen("configure", status);
            long[] after = FuzzOracle.footprint(c);
            assertTrue(status < 500, () -> "a 5xx for a configure body: " + out[1]);
            if (status == 200) {
                assertNull(FuzzOracle.checkConfigure(body, JSON.valueToTree(out[1])));
                assertEquals(before[0], after[0], "configure wrote messages");
            } else {
                assertTrue(status >= 400, "status " + status);
                assertArrayEquals(before, after, "a refused configure wrote something");
            }
        }
    }
}
