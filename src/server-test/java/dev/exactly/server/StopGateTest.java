package dev.exactly.server;

import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import dev.exactly.testing.RawHttp;
import dev.exactly.testing.RouteCatalog;
import dev.exactly.testing.RouteCatalog.Route;
import dev.exactly.testing.RouterCapture;
import io.quarkus.runtime.ShutdownDelayInitiatedEvent;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Once a stop began (the event Quarkus fires as it begins, {@code quarkus.shutdown.delay-enabled}),
 * every route the application deployed ({@link RouteCatalog}: its JAX-RS resources and its Vert.x
 * routes, read from the application) answers 503 problem+json with Retry-After and
 * {@code Connection: close}, with the API key or without, and writes nothing: a push sent then is
 * new when sent again after. Only the health probes are still answered by their handler. The stop
 * under load, end to end, is {@code StopUnderPushesIT}.
 */
@QuarkusTest
class StopGateTest {

    @Inject
    BeanManager beans;

    @Inject
    StopGate gate;

    @Inject
    Event<ShutdownDelayInitiatedEvent> stopBegins;

    @Test
    void everyRouteIsRefusedOnceTheStopBeganAndNothingIsWritten() throws Exception {
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        String queue = "stop-gate-" + UUID.randomUUID().toString().substring(0, 8);
        String push = "{\"items\":[{\"queue\":\"" + queue + "\",\"partition\":\"p\",\"transactionId\":\"t1\",\"payload\":{}}]}";
        Set<Route> routes = new TreeSet<>(RouteCatalog.jaxRs(beans));
        routes.addAll(RouteCatalog.vertx(RouterCapture.router()));
        List<String> failures = new ArrayList<>();
        int refused = 0;
        assertFalse(gate.isClosed());
        try {
            stopBegins.fire(new ShutdownDelayInitiatedEvent());
            assertTrue(gate.isClosed());
            for (Route route : routes) {
                for (String method : route.methods()) {
                    String path = route.sample();
                    boolean probe = path.equals("/q/health") || path.startsWith("/q/health/");
                    for (boolean withKey : List.of(true, false)) {
                        byte[] body = Set.of("POST", "PUT", "PATCH").contains(method)
                                ? (path.equals("/api/v1/push") ? push : "{}").getBytes(StandardCharsets.UTF_8) : null;
                        Map<String, String> headers = withKey
                                ? Map.of("Authorization", "Bearer " + Api.TEST_API_KEY, "Content-Type", "application/json")
                                : Map.of("Content-Type", "application/json");
                        RawHttp.Answer a = RawHttp.send(port, method, path, headers, body);
                        String type = a.header("Content-Type");
                        boolean isRefusal = a.status() == 503 && type != null && type.startsWith("application/problem+json")
                                && a.body().contains("\"/problems/unavailable\"") && a.body().contains("stopping")
                                && "2".equals(a.header("Retry-After")) && "close".equalsIgnoreCase(a.header("Connection"));
                        if (probe && method.equals("GET") ? isRefusal : !isRefusal) {
                            failures.add(route + " " + method + (withKey ? " (key)" : " (no key)") + " -> " + a.status() + " "
                                    + type + " Retry-After " + a.header("Retry-After") + " Connection " + a.header("Connection")
                                    + " " + a.body());
                        }
                        refused += isRefusal ? 1 : 0;
                    }
                }
            }
        } finally {
            gate.reopen();
        }
        assertTrue(refused > 40, "requests refused: " + refused);
        assertEquals(List.of(), failures);
        // the push refused during the stop wrote nothing: sent now, it is new
        api().body(push).post("/api/v1/push").then().statusCode(200)
                .body("results[0].status", org.hamcrest.Matchers.equalTo("queued"));
    }
}
