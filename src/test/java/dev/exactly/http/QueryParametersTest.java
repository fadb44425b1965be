package dev.exactly.http;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.QueryParam;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Query parameters are checked as strictly as bodies: on every endpoint (all of /api/v1 and
 * /webhooks), an unknown query parameter, a repeated one and an empty one are a 400 problem naming
 * it, and nothing is written. The endpoints are found by walking every resource class the build
 * compiled (each {@code @Path} class's HTTP methods), so a new endpoint is covered without editing
 * this test.
 */
@QuarkusTest
class QueryParametersTest {

    /**
     * One endpoint: its HTTP method, its URL (path parameters filled in), its query parameters, its
     * path template and the query parameters that carry {@link PageLimit}.
     */
    record Endpoint(String method, String url, List<String> query, String template, List<String> pageLimits) {
    }

    @Test
    void everyEndpointRefusesUnknownRepeatedAndEmptyQueryParameters() throws Exception {
        List<Endpoint> endpoints = endpoints();
        assertTrue(endpoints.size() >= 19, "found the endpoints: " + endpoints);
        assertTrue(endpoints.stream().anyMatch(e -> e.method().equals("DELETE") && e.query().contains("queue")), endpoints.toString());
        assertTrue(endpoints.stream().anyMatch(e -> e.url().startsWith("/webhooks/")), endpoints.toString());
        long writes = writes();
        for (Endpoint e : endpoints) {
            refused(send(e, "?bogus=1"), "bogus", e).body("errors[0].message", containsString("unknown query parameter"));
            refused(send(e, "?bogus"), "bogus", e);
            for (String q : e.query()) {
                refused(send(e, "?" + q + "=a&" + q + "=b"), q, e).body("errors[0].message", containsString("2 times"));
                refused(send(e, "?" + q + "="), q, e).body("errors[0].message", containsString("empty"));
                refused(send(e, "?" + q), q, e);
            }
        }
        assertEquals(writes, writes(), "nothing was written");
    }

    @Test
    void aMisspeltQueueDoesNotDeleteTheDefaultQueuesTask() {
        api().body("{\"id\":\"same-id\",\"type\":\"t\",\"data\":1}").post("/api/v1/tasks").then().statusCode(200);
        api().body("{\"queue\":\"billing\",\"id\":\"same-id\",\"type\":\"t\",\"data\":1}").post("/api/v1/tasks")
                .then().statusCode(200);
        api().delete("/api/v1/tasks/same-id?qeue=billing").then().statusCode(400)
                .contentType("application/problem+json").body("errors[0].field", equalTo("qeue"))
                .body("detail", containsString("qeue"));
        api().get("/api/v1/tasks/same-id").then().statusCode(200).body("queue", equalTo("default"));
        api().get("/api/v1/tasks/same-id?queue=billing").then().statusCode(200).body("queue", equalTo("billing"));
        api().delete("/api/v1/tasks/same-id?queue=billing").then().statusCode(204);
        api().delete("/api/v1/tasks/same-id").then().statusCode(204);
    }

    private static io.restassured.response.ValidatableResponse refused(Response r, String field, Endpoint e) {
        assertEquals(400, r.statusCode(), e + ": " + r.asString());
        return r.then().contentType("application/problem+json").body("type", equalTo("/problems/invalid-request"))
                .body("errors.field", hasItem(field));
    }

    private static Response send(Endpoint e, String query) {
        return api().body("{}").request(e.method(), e.url() + query);
    }

    private static long writes() {
        return Db.writeFootprint() + Db.number("SELECT count(*) FROM exactly.tasks");
    }

    /** Every HTTP method of every {@code @Path} class under target/classes. */
    static List<Endpoint> endpoints() throws IOException, ClassNotFoundException {
        java.nio.file.Path root = java.nio.file.Path.of("target", "classes");
        List<Endpoint> out = new ArrayList<>();
        try (Stream<java.nio.file.Path> files = java.nio.file.Files.walk(root.resolve("dev"))) {
            for (java.nio.file.Path f : files.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
                String name = root.relativize(f).toString().replace('/', '.').replaceAll("\\.class$", "");
                Class<?> c = Class.forName(name, false, Thread.currentThread().getContextClassLoader());
                Path base = c.getAnnotation(Path.class);
                if (base == null) {
                    continue;
                }
                for (Method m : c.getDeclaredMethods()) {
                    String verb = AllowedMethods.httpMethod(m);
                    if (verb == null) {
                        continue;
                    }
                    Path sub = m.getAnnotation(Path.class);
                    String template = (base.value() + (sub == null ? "" : "/" + sub.value())).replaceAll("/+", "/");
                    String url = template.replaceAll("\\{[^}]+}", "qp-test");
                    List<String> query = new ArrayList<>();
                    List<String> pageLimits = new ArrayList<>();
                    for (Annotation[] as : m.getParameterAnnotations()) {
                        for (Annotation a : as) {
                            if (a instanceof QueryParam q) {
                                query.add(q.value());
                                if (Stream.of(as).anyMatch(PageLimit.class::isInstance)) {
                                    pageLimits.add(q.value());
                                }
                            }
                        }
                    }
                    out.add(new Endpoint(verb, url, query, template, pageLimits));
                }
            }
        }
        return out;
    }
}
