package dev.exactly.server;

import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness of the embedded PostgreSQL in {@code /q/health} (check "embedded-postgresql"):
 * {@code state} is {@code running} (UP), {@code restarting} (DOWN, with the attempt under way)
 * or {@code failed} (DOWN: every restart attempt failed and the service is stopping), with the
 * postmaster's PID, the restarts so far and the last failure. With a configured datasource there
 * is no embedded database and the check reports UP with {@code state: not-used}.
 */
@Readiness
@ApplicationScoped
public class EmbeddedDatabaseHealth implements HealthCheck {

    /** The check's name in /q/health. */
    static final String NAME = "embedded-postgresql";

    @Override
    public HealthCheckResponse call() {
        PostmasterWatch watch = PostmasterWatch.current();
        if (watch == null) {
            return HealthCheckResponse.named(NAME).up().withData("state", "not-used").build();
        }
        PostmasterWatch.Status s = watch.status();
        HealthCheckResponseBuilder b = HealthCheckResponse.named(NAME).status(s.state() == PostmasterWatch.State.RUNNING)
                .withData("state", s.state().name().toLowerCase())
                .withData("pid", s.pid())
                .withData("restarts", s.restarts())
                .withData("since", s.lastChange().toString());
        if (s.state() != PostmasterWatch.State.RUNNING) {
            b.withData("attempt", s.attempt() + " of " + s.maxAttempts());
        }
        if (s.lastFailure() != null) {
            b.withData("lastFailure", s.lastFailure());
        }
        return b.build();
    }
}
