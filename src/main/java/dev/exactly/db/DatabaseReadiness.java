package dev.exactly.db;

import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness of the database the service uses ({@code /q/health/ready}, check "database"): UP when
 * the reactive pool answers {@code SELECT 1} within {@code exactly.database.readiness-timeout-ms}
 * (800 ms), DOWN with the reason otherwise: the database refuses connections, is restarting, or
 * stalls (a stopped server, a network partition) and answers nothing; a probe with a short
 * timeout of its own sees DOWN, not a timeout. Like every database operation it borrows its
 * connection through {@link BorrowedConnections}, so a check that runs out abandons its
 * statement (cancelled on the server) and never waits for a connection once it has answered.
 * Replaces the reactive client's own check, which waits up to 20 s.
 */
@Readiness
@ApplicationScoped
public class DatabaseReadiness implements AsyncHealthCheck {

    /** The check's name in /q/health. */
    public static final String NAME = "database";

    private final Pool pool;
    private final long timeoutMs;

    /** Constructor injection. */
    public DatabaseReadiness(Pool pool, DatabaseSessionConfig config) {
        this.pool = pool;
        this.timeoutMs = config.readinessTimeoutMs();
    }

    @Override
    public Uni<HealthCheckResponse> call() {
        long deadline = System.nanoTime() + (timeoutMs + BorrowedConnections.ANSWER_RESERVE.toMillis()) * 1_000_000L;
        return RequestDeadline.within(deadline, () -> BorrowedConnections.query(pool, "SELECT 1"))
                .map(rows -> HealthCheckResponse.named(NAME).up().build())
                .onFailure().recoverWithItem(e -> HealthCheckResponse.named(NAME).down()
                        .withData("timeoutMs", timeoutMs)
                        .withData("reason", String.valueOf(DatabaseErrors.classify(e).getMessage())).build());
    }
}
