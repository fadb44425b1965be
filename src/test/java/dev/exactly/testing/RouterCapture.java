package dev.exactly.testing;

import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Keeps the application's HTTP router as Quarkus hands it to observers at start-up (a test-only
 * bean: a Quarkus test application includes the test classes' beans), so that tests can list its
 * routes ({@link RouteCatalog#vertx}).
 */
@ApplicationScoped
public class RouterCapture {

    private static volatile Router router;

    void capture(@Observes Router r) {
        router = r;
    }

    /**
     * @return the router of the running test application
     * @throws IllegalStateException when no application has started in this JVM
     */
    public static Router router() {
        if (router == null) {
            throw new IllegalStateException("no Quarkus application has started in this JVM");
        }
        return router;
    }
}
