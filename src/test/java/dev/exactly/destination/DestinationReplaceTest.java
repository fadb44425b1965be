package dev.exactly.destination;

import static dev.exactly.destination.DestinationFixtures.await;
import static dev.exactly.destination.DestinationFixtures.create;
import static dev.exactly.destination.DestinationFixtures.deleteAll;
import static dev.exactly.destination.DestinationFixtures.fresh;
import static dev.exactly.destination.DestinationFixtures.push;
import static dev.exactly.destination.DestinationFixtures.receiverUrl;
import static dev.exactly.destination.DestinationFixtures.startReceiver;
import static dev.exactly.destination.DestinationFixtures.stopReceiver;
import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.net.httpserver.HttpServer;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Transaction;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A PUT that replaces a destination's settings reaches this instance's own workers with its
 * commit, not with a later read of the destinations: against the real PostgreSQL, with two
 * loopback receivers (the old URL and the new).
 */
@QuarkusTest
class DestinationReplaceTest {

    @Inject
    Pool pool;

    HttpServer before;
    HttpServer after;
    /** transactionIds each receiver got. */
    final Set<String> atBefore = ConcurrentHashMap.newKeySet();
    final Set<String> atAfter = ConcurrentHashMap.newKeySet();

    @BeforeEach
    void receivers() throws Exception {
        before = startReceiver(2, DestinationFixtures.answering(200,
                ex -> atBefore.add(ex.getRequestHeaders().getFirst("Exactly-Transaction-Id"))));
        after = startReceiver(2, DestinationFixtures.answering(200,
                ex -> atAfter.add(ex.getRequestHeaders().getFirst("Exactly-Transaction-Id"))));
    }

    @AfterEach
    void stop() {
        stopReceiver(before);
        stopReceiver(after);
        deleteAll(pool);
    }

    /**
     * The instance's timer is held up (its round waits on a lock of the dead letters' table, as a
     * slow database would hold it), so that no read of the destinations brings the new URL: a
     * message pushed once the PUT committed goes to the new URL only. The PUT's answer waits on the
     * lock too (its view reads the dead letters' count), so the lock is held for well under a
     * second, far below the sessions' lock_timeout (5 s).
     */
    @Test
    void aMessagePushedAfterAPutGoesToItsNewUrlOnly() throws Exception {
        String queue = fresh("replace");
        String name = "rp-" + queue;
        String path = "/api/v1/queues/" + queue + "/destinations/" + name;
        create(queue, name, "{\"url\":\"" + receiverUrl(before, "/hook") + "\"}");
        push(queue, "p", "t-0", "{}");
        await("the first message at the old URL", () -> atBefore.contains("t-0"));

        SqlConnection lock = pool.getConnectionAndAwait();
        Transaction tx = lock.beginAndAwait();
        CompletableFuture<Integer> put = null;
        try {
            lock.query("LOCK TABLE exactly.destination_dead_letters IN ACCESS EXCLUSIVE MODE").executeAndAwait();
            await("a timer round waiting on the lock", Duration.ofSeconds(10), () -> waitingOnTheLock() > 0);
            String newUrl = receiverUrl(after, "/hook");
            put = CompletableFuture.supplyAsync(() -> api().body("{\"url\":\"" + newUrl + "\"}").put(path).statusCode());
            await("the PUT committed", Duration.ofSeconds(10), () -> newUrl.equals(storedUrl(name)));
            push(queue, "p", "t-1", "{}");
            await("the second message sent", Duration.ofSeconds(10), () -> atBefore.contains("t-1") || atAfter.contains("t-1"));
            assertEquals(Set.of("t-0"), atBefore, "the old URL got a message pushed after the PUT");
            assertEquals(Set.of("t-1"), atAfter);
        } finally {
            tx.rollbackAndAwait();
            lock.closeAndAwait();
            if (put != null) {
                assertEquals(200, put.get(30, TimeUnit.SECONDS));
            }
        }
    }

    /** Statements of other sessions waiting for a lock on the dead letters' table. */
    private long waitingOnTheLock() {
        return pool.preparedQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                        + "AND query LIKE '%exactly.destination_dead_letters%' AND pid <> pg_backend_pid()")
                .executeAndAwait().iterator().next().getLong(0);
    }

    private String storedUrl(String name) {
        List<String> urls = new java.util.ArrayList<>();
        pool.preparedQuery("SELECT url FROM exactly.destinations WHERE name = $1").executeAndAwait(Tuple.of(name))
                .forEach(r -> urls.add(r.getString(0)));
        return urls.isEmpty() ? null : urls.get(0);
    }
}
