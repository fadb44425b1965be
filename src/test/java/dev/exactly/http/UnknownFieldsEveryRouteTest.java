package dev.exactly.http;

import static dev.exactly.testing.Api.api;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import dev.exactly.testing.RawHttp;
import dev.exactly.testing.RouteCatalog;
import dev.exactly.testing.RouteCatalog.Route;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Every API route that takes a body refuses a field it does not know, before it looks at anything
 * else: a JSON object with one unknown member, sent with the API key to each POST, PUT, PATCH and
 * DELETE route the application deployed ({@link RouteCatalog}, read from the application, no list kept
 * here), answers 400 problem+json. A route that ignored its body would answer 404 here (its path
 * parameters name nothing) or 2xx. Only the webhook receiver is left out: it takes a provider's
 * raw body by design (docs/webhooks.md). A DELETE so refused deletes nothing; one with no body, or
 * {@code {}}, deletes.
 */
@QuarkusTest
class UnknownFieldsEveryRouteTest {

    private static final byte[] UNKNOWN = "{\"zzNoSuchField\":1}".getBytes(StandardCharsets.UTF_8);

    @Inject
    BeanManager beans;

    @Test
    void everyRouteTakingABodyRefusesAnUnknownField() throws Exception {
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        List<String> failures = new ArrayList<>();
        int sent = 0;
        for (Route route : RouteCatalog.jaxRs(beans)) {
            if (!Set.of("POST", "PUT", "PATCH", "DELETE").contains(route.method()) || route.template().startsWith("/webhooks/")) {
                continue;
            }
            RawHttp.Answer a = RawHttp.send(port, route.method(), route.sample(),
                    Map.of("Authorization", "Bearer " + Api.TEST_API_KEY, "Content-Type", "application/json"), UNKNOWN);
            sent++;
            String type = a.header("Content-Type");
            if (a.status() != 400 || type == null || !type.startsWith("application/problem+json")) {
                failures.add(route + " -> " + a.status() + " " + type + " " + a.body());
            }
        }
        assertTrue(sent > 15, "routes sent: " + sent);
        assertEquals(List.of(), failures);
    }

    @Test
    void aDeleteWithAnUnknownFieldDeletesNothingAndOneWithNoFieldsDeletes() throws Exception {
        int port = ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String queue = "unknown-delete-" + suffix;
        String destinations = "/api/v1/queues/" + queue + "/destinations/";
        Map<String, String> headers = Map.of("Authorization", "Bearer " + Api.TEST_API_KEY, "Content-Type", "application/json");
        for (String name : List.of("d1-" + suffix, "d2-" + suffix, "d3-" + suffix)) {
            api().body("{\"url\":\"http://127.0.0.2:9/\"}").put(destinations + name).then().statusCode(201);
        }
        for (String id : List.of("t1", "t2", "t3")) {
            api().body("{\"queue\":\"" + queue + "\",\"id\":\"" + id + "\",\"type\":\"job\",\"data\":1}")
                    .post("/api/v1/tasks").then().statusCode(200);
        }

        RawHttp.Answer destination = RawHttp.send(port, "DELETE", destinations + "d1-" + suffix, headers, UNKNOWN);
        RawHttp.Answer task = RawHttp.send(port, "DELETE", "/api/v1/tasks/t1?queue=" + queue, headers, UNKNOWN);
        assertEquals(400, destination.status(), destination.body());
        assertTrue(destination.body().contains("zzNoSuchField"), destination.body());
        assertEquals(400, task.status(), task.body());
        assertTrue(task.body().contains("zzNoSuchField"), task.body());
        assertEquals(List.of("d1-" + suffix, "d2-" + suffix, "d3-" + suffix),
                api().get("/api/v1/queues/" + queue + "/destinations").then().statusCode(200).extract()
                        .jsonPath().getList("destinations.name"));
        api().queryParam("queue", queue).get("/api/v1/tasks/t1").then().statusCode(200);

        // no body at all, then {}: both delete
        assertEquals(204, RawHttp.send(port, "DELETE", destinations + "d1-" + suffix,
                Map.of("Authorization", "Bearer " + Api.TEST_API_KEY), null).status());
        assertEquals(204, RawHttp.send(port, "DELETE", destinations + "d2-" + suffix, headers,
                "{}".getBytes(StandardCharsets.UTF_8)).status());
        assertEquals(204, RawHttp.send(port, "DELETE", "/api/v1/tasks/t1?queue=" + queue,
                Map.of("Authorization", "Bearer " + Api.TEST_API_KEY), null).status());
        assertEquals(204, RawHttp.send(port, "DELETE", "/api/v1/tasks/t2?queue=" + queue, headers,
                "{}".getBytes(StandardCharsets.UTF_8)).status());
        assertEquals(List.of("d3-" + suffix), api().get("/api/v1/queues/" + queue + "/destinations").then()
                .statusCode(200).extract().jsonPath().getList("destinations.name"));
        api().queryParam("queue", queue).get("/api/v1/tasks/t1").then().statusCode(404);
        api().queryParam("queue", queue).get("/api/v1/tasks/t2").then().statusCode(404);
        api().queryParam("queue", queue).get("/api/v1/tasks/t3").then().statusCode(200);
        api().delete(destinations + "d3-" + suffix).then().statusCode(204);
    }
}
