package dev.exactly.http;

import static dev.exactly.testing.Api.api;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import dev.exactly.testing.ChunkedPost;
import dev.exactly.testing.Db;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * Answers the HTTP layer gives before any endpoint runs: a 405 carries Allow, a 406 speaks of media
 * types (not of the runtime's annotations), an oversized chunked body is a quiet 413 problem, the
 * meters are named as docs/operations.md names them, and no per-connection gauge is registered
 * twice.
 */
@QuarkusTest
class HttpProblemsTest {

    @Test
    void a405CarriesTheAllowHeaderOfItsPath() throws Exception {
        List<QueryParametersTest.Endpoint> endpoints = QueryParametersTest.endpoints();
        for (QueryParametersTest.Endpoint e : endpoints) {
            Set<String> allowed = new TreeSet<>(Set.of("OPTIONS"));
            // every method whose path template matches this path (a literal /tasks/claim also matches /tasks/{id})
            endpoints.stream().filter(x -> AllowedMethods.template(x.template()).matcher(e.url()).matches())
                    .forEach(x -> allowed.add(x.method()));
            if (allowed.contains("GET")) {
                allowed.add("HEAD");
            }
            String other = List.of("PUT", "DELETE", "PATCH", "GET", "POST").stream().filter(m -> !allowed.contains(m))
                    .findFirst().orElseThrow();
            Response r = api().body("{}").request(other, e.url());
            assertEquals(405, r.statusCode(), other + " " + e.url() + ": " + r.asString());
            assertEquals("application/problem+json", r.contentType());
            assertNotNull(r.header("Allow"), other + " " + e.url());
            assertEquals(allowed, methods(r.header("Allow")), other + " " + e.url());
        }
        api().body("{}").put("/api/v1/push").then().statusCode(405).header("Allow", equalTo("OPTIONS, POST"))
                .body("detail", containsString("PUT is not allowed"));
    }

    /**
     * Every method a route's path does not take, PATCH among them, is a 405 problem with the path's
     * Allow list, never a 404 (a new-user check read the routes table's 404 on PATCH
     * /api/v1/queues/{queue} as the answer to a method the path lacks: it is the answer for a queue
     * that does not exist); without a key an /api path is a 401 first, whatever the method.
     */
    @Test
    void everyMethodAPathDoesNotTakeIs405WithAllowAndWithoutAKey401() throws Exception {
        List<QueryParametersTest.Endpoint> endpoints = QueryParametersTest.endpoints();
        Set<String> urls = endpoints.stream().map(QueryParametersTest.Endpoint::url).collect(Collectors.toCollection(TreeSet::new));
        long writes = Db.writeFootprint();
        int checked = 0;
        for (String url : urls) {
            Set<String> allowed = new TreeSet<>(Set.of("OPTIONS"));
            endpoints.stream().filter(x -> AllowedMethods.template(x.template()).matcher(url).matches())
                    .forEach(x -> allowed.add(x.method()));
            if (allowed.contains("GET")) {
                allowed.add("HEAD");
            }
            for (String method : List.of("GET", "POST", "PUT", "PATCH", "DELETE")) {
                if (allowed.contains(method)) {
                    continue;
                }
                Response r = api().body("{}").request(method, url);
                assertEquals(405, r.statusCode(), method + " " + url + ": " + r.asString());
                assertEquals("application/problem+json", r.contentType(), method + " " + url);
                assertEquals(allowed, methods(r.header("Allow")), method + " " + url);
                assertEquals("/problems/method-not-allowed", r.jsonPath().getString("type"), method + " " + url);
                Response anonymous = Api.anonymous().body("{}").request(method, url);
                if (url.startsWith("/api/")) { // deny by default: nothing about the path before the key
                    assertEquals(401, anonymous.statusCode(), "no key: " + method + " " + url);
                    assertEquals(null, anonymous.header("Allow"), "no key: " + method + " " + url);
                } else { // a webhook is authenticated by its signature, which a method not taken never reaches
                    assertEquals(405, anonymous.statusCode(), "no key: " + method + " " + url);
                    assertEquals(allowed, methods(anonymous.header("Allow")), "no key: " + method + " " + url);
                }
                checked++;
            }
        }
        assertTrue(checked > 60, "checked " + checked + " answers");
        api().body("{}").patch("/api/v1/queues/orders/stats").then().statusCode(405).header("Allow", equalTo("GET, HEAD, OPTIONS"));
        api().body("{}").patch("/api/v1/queues/orders/destinations").then().statusCode(405);
        assertEquals(writes, Db.writeFootprint(), "a method not allowed wrote nothing");
    }

    @Test
    void optionsListsWhatThePathTakesAsA405Would() throws Exception {
        for (QueryParametersTest.Endpoint e : QueryParametersTest.endpoints()) {
            Response r = api().request("OPTIONS", e.url());
            assertTrue(r.statusCode() == 200 || r.statusCode() == 204, "OPTIONS " + e.url() + ": " + r.statusCode());
            Set<String> allowed = new TreeSet<>(Set.of("OPTIONS"));
            QueryParametersTest.endpoints().stream()
                    .filter(x -> AllowedMethods.template(x.template()).matcher(e.url()).matches())
                    .forEach(x -> allowed.add(x.method()));
            if (allowed.contains("GET")) {
                allowed.add("HEAD");
            }
            assertEquals(allowed, methods(r.header("Allow")), "OPTIONS " + e.url());
        }
        // a POST-only route takes no HEAD: OPTIONS must not offer one that then answers 405
        api().request("OPTIONS", "/api/v1/push").then().header("Allow", equalTo("OPTIONS, POST"));
        api().head("/api/v1/push").then().statusCode(405);
    }

    /**
     * OPTIONS on a path no route has is the 404 any other method gets (a new-user check: it was 200
     * with an Allow list), and every 404 has one title and names the path (the runtime's details
     * differed: "HTTP 404 Not Found", "Unable to find matching target resource method").
     */
    @Test
    void anUnknownPathIsTheSame404ProblemForEveryMethod() {
        for (String path : List.of("/api/v1/nosuch", "/api/v1/queues/orders/stats/deeper", "/webhooks/")) {
            for (String method : List.of("OPTIONS", "GET", "POST")) {
                Response r = api().body("{}").request(method, path);
                assertEquals(404, r.statusCode(), method + " " + path);
                assertEquals("application/problem+json", r.contentType(), method + " " + path);
                assertEquals(null, r.header("Allow"), method + " " + path);
                assertEquals("/problems/not-found", r.jsonPath().getString("type"), method + " " + path);
                assertEquals("Not found", r.jsonPath().getString("title"), method + " " + path);
                assertEquals("No route has the path " + path + ".", r.jsonPath().getString("detail"), method + " " + path);
            }
        }
        api().body("{}").put("/api/v1/push").then().body("title", equalTo("Method not allowed"));
    }

    /**
     * Answers no resource method gave (OPTIONS, 405, a method name of the client's own) are tagged
     * with the route's template and a known method, never with what the client sent (a new-user
     * check: each made a series of its own).
     */
    @Test
    void optionsAnd405AnswersAreTaggedWithTheRouteTemplate() {
        String queue = "tagged-" + java.util.UUID.randomUUID();
        String id = java.util.UUID.randomUUID().toString();
        api().request("OPTIONS", "/api/v1/queues/" + queue + "/stats").then().statusCode(200);
        api().delete("/api/v1/messages/" + id).then().statusCode(405);
        api().body("{}").request("BREW", "/api/v1/push").then().statusCode(405);
        String metrics = RestAssured.given().get("/q/metrics").then().statusCode(200).extract().asString();
        List<String> series = metrics.lines().filter(l -> l.startsWith("http_server_requests_seconds_count")).toList();
        for (String sent : List.of(queue, id, "BREW")) {
            assertFalse(series.stream().anyMatch(l -> l.contains(sent)), sent + " became a tag: " + series);
        }
        assertTrue(series.stream().anyMatch(l -> l.contains("method=\"OPTIONS\"") && l.contains("uri=\"/api/v1/queues/{queue}/stats\"")), series.toString());
        assertTrue(series.stream().anyMatch(l -> l.contains("method=\"DELETE\"") && l.contains("status=\"405\"")
                && l.contains("uri=\"/api/v1/messages/{messageId}\"")), series.toString());
        assertTrue(series.stream().anyMatch(l -> l.contains("method=\"OTHER\"") && l.contains("uri=\"/api/v1/push\"")), series.toString());
    }

    @Test
    void a406NamesWhatTheApiAnswersWith() {
        api().accept("application/xml").body("{\"items\":[{\"queue\":\"neg\",\"payload\":1}]}").post("/api/v1/push")
                .then().statusCode(406).contentType("application/problem+json")
                .body("detail", not(containsString("@Produces")))
                .body("detail", containsString("application/json"));
    }

    /** docs/http-api.md: bodies are read whatever their Content-Type says, as long as it is a media type at all. */
    @Test
    void aContentTypeThatIsNoMediaTypeIsA415ProblemAndWritesNothing() throws Exception {
        String q = "ctype-" + UUID.randomUUID();
        byte[] body = ("{\"items\":[{\"queue\":\"" + q + "\",\"payload\":1}]}").getBytes(StandardCharsets.UTF_8);
        ChunkedPost.Answer a = ChunkedPost.post("/api/v1/push", body,
                "Authorization", "Bearer " + Api.TEST_API_KEY, "Content-Type", "garbage");
        assertEquals(415, a.status(), a.text());
        assertEquals("application/problem+json", a.headers().get("content-type"), a.text());
        assertTrue(a.text().contains("\"type\":\"/problems/unsupported-media-type\""), a.text());
        // the title of the 415 a compressed body gets (RFC 9457: one title per type)
        assertTrue(a.text().contains("\"title\":\"Unsupported media type\""), a.text());
        assertEquals(0, Db.number("SELECT count(*) FROM exactly.queues WHERE name = '" + q + "'"));
        // any media type is read as JSON
        assertEquals(200, ChunkedPost.post("/api/v1/push", body,
                "Authorization", "Bearer " + Api.TEST_API_KEY, "Content-Type", "text/plain").status());
    }

    @Test
    void anOversizedChunkedBodyIsAQuiet413Problem() throws Exception {
        List<LogRecord> errors = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.SEVERE.intValue()) {
                    synchronized (errors) {
                        errors.add(r);
                    }
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        root.addHandler(capture);
        try {
            long limit = ConfigProvider.getConfig().getValue("exactly.push.max-body-bytes", Long.class);
            for (int i = 0; i < 3; i++) {
                String answer = ChunkedPost.filler("/api/v1/push", 17L * 1024 * 1024);
                assertTrue(answer.startsWith("HTTP/1.1 413"), answer);
                assertTrue(answer.toLowerCase().contains("content-type: application/problem+json"), answer);
                assertTrue(answer.contains("\"type\":\"/problems/payload-too-large\""), answer);
                assertTrue(answer.contains(Long.toString(limit)), answer);
            }
            // under the limit, a chunked body is read as usual
            String ok = ChunkedPost.body("/api/v1/push", "{\"items\":[{\"queue\":\"chunked\",\"payload\":{\"a\":1}}]}".getBytes(StandardCharsets.UTF_8));
            assertTrue(ok.startsWith("HTTP/1.1 200"), ok);
            assertTrue(ok.contains("\"status\":\"queued\""), ok);
            Thread.sleep(500);
        } finally {
            root.removeHandler(capture);
        }
        synchronized (errors) {
            assertEquals(List.of(), errors.stream().map(r -> r.getLoggerName() + ": " + r.getMessage()).toList());
        }
    }

    @Test
    void metersAreNamedAsTheDocsNameThemAndNoGaugeIsRegisteredTwice() throws Exception {
        api().body("{\"items\":[{\"queue\":\"meters\",\"transactionId\":\"m-1\",\"payload\":{}}]}").post("/api/v1/push")
                .then().statusCode(200);
        String metrics = RestAssured.given().get("/q/metrics").then().statusCode(200).extract().asString();
        Set<String> names = Arrays.stream(metrics.split("\n")).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .map(l -> l.split("[{ ]", 2)[0]).collect(Collectors.toCollection(TreeSet::new));
        assertTrue(names.contains("exactly_dedup_cache_bytes_per_hash"), names.toString());
        assertFalse(names.contains("exactly_dedup_cache_bytes_per_hash_bytes"), names.toString());
        for (String named : documentedMeters()) {
            assertTrue(names.contains(named), "docs/operations.md names " + named + "; served: " + names);
        }
        // registered once per connection under one name, so only the first connection's would count
        assertFalse(names.contains("postgresql_queue_size"), names.toString());
        assertFalse(names.contains("postgresql_current"), names.toString());
    }

    /**
     * The engine's meter names (cache, fusion, push, payload mismatch) of docs/operations.md's metrics
     * table, abbreviations ({@code `_resident_hashes`}) expanded with the first name of their cell.
     */
    private static List<String> documentedMeters() throws IOException {
        List<String> out = new ArrayList<>();
        boolean inTable = false;
        for (String line : Files.readAllLines(Path.of("docs", "operations.md"))) {
            if (line.startsWith("| meter |")) {
                inTable = true;
                continue;
            }
            if (!line.startsWith("|")) {
                inTable = false;
            }
            if (!inTable) {
                continue;
            }
            String first = line.split("\\|", 3)[1];
            String prefix = null;
            Matcher m = Pattern.compile("`(_?[a-z_]+)`").matcher(first);
            while (m.find()) {
                String n = m.group(1);
                if (n.startsWith("_")) {
                    assertNotNull(prefix, n);
                    n = prefix + n;
                } else {
                    prefix = n.substring(0, n.lastIndexOf('_', n.lastIndexOf('_') - 1));
                }
                if (n.matches("exactly_(dedup|push|fusion|payload)_.*")) {
                    out.add(n);
                }
            }
        }
        assertTrue(out.size() >= 10, out.toString());
        return out;
    }

    private static Set<String> methods(String allow) {
        assertNotNull(allow);
        return Arrays.stream(allow.split(",")).map(String::strip).collect(Collectors.toCollection(TreeSet::new));
    }
}
