package dev.exactly.db;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * Runs a database operation again, once, when it failed because its pooled connection turned out
 * to be closed: an RDS Proxy or a firewall dropped an idle connection while a Lambda instance was
 * frozen, and the client learns it only on the next use. The operation must be safe to repeat:
 * a read, or a write whose transaction failed with the connection (it is rolled back), or an
 * idempotent write. Any other failure, and a second closed connection, pass through unchanged.
 */
public final class ConnectionRetry {

    /**
     * Pause before the second attempt: the failure can reach the caller before the pool has
     * handled the connection's close, and an immediate retry would borrow the same dead connection.
     */
    static final Duration PAUSE = Duration.ofMillis(20);

    private ConnectionRetry() {
    }

    /**
     * @param operation builds the operation; called once, and a second time after a closed connection,
     *                  both times with the caller's request deadline ({@link RequestDeadline}) current
     * @return the operation's result
     */
    public static <T> Uni<T> onceOnClosedConnection(Supplier<Uni<? extends T>> operation) {
        // the request's deadline, read now: the second attempt is built on another thread
        long deadline = RequestDeadline.current();
        return Uni.createFrom().<T>deferred(() -> RequestDeadline.within(deadline, operation))
                .onFailure(ConnectionRetry::isClosedConnection).retry().withBackOff(PAUSE).atMost(1);
    }

    /**
     * True when t (or a cause) says the connection was lost under the client: the same rule the
     * push store's exact retry uses, {@link DatabaseErrors#isConnectionLost(Throwable)}.
     */
    public static boolean isClosedConnection(Throwable t) {
        return DatabaseErrors.isConnectionLost(t);
    }
}
