package dev.exactly.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.testing.Api;
import dev.exactly.testing.AppDatabase;
import dev.exactly.testing.LogCapture;
import dev.exactly.testing.RawHttp;
import dev.exactly.testing.RouteCatalog;
import dev.exactly.testing.RouteCatalog.Route;
import dev.exactly.testing.RouterCapture;
import dev.exactly.testing.TableRows;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.logging.Level;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logmanager.ExtLogRecord;
import org.junit.jupiter.api.Test;

/**
 * No spelling of a path skips the API key (server shape). The routes come from the running
 * application: the JAX-RS resources it deployed and every Vert.x route of its router
 * ({@link RouteCatalog}); only the deliberately public ones are named here. Each route gets each
 * spelling of its path ({@link RouteCatalog#spellings}: matrix parameters, percent-encoded
 * letters and slashes, doubled slashes, dot segments, a trailing slash, other letter cases)
 * without a key, sent byte for byte. A protected route must answer every spelling 401
 * problem+json; no spelling of any route may write a row, log a warning, or make a metric series
 * of its own.
 */
@QuarkusTest
class RouteSpellingsTest {

    /** A body that the push endpoint would store, sent to every route that takes a body. */
    public static final String PUSH = "{\"items\":[{\"queue\":\"spelling\",\"transactionId\":\"bypass-1\",\"payload\":{\"pwned\":true}}]}";

    /** The uri tags a refused or unrouted request may carry, besides a route's own template. */
    static final Set<String> BOUNDED_URI_TAGS = Set.of("/REFUSED_EARLY", "NOT_FOUND", "UNKNOWN", "REDIRECTION", "root");

    /** The health checks a probe calls (not /q/health/group/{name}: each name asked for makes a registry). */
    static final Set<String> HEALTH = Set.of("/q/health", "/q/health/live", "/q/health/ready", "/q/health/started", "/q/health/well");

    @Inject
    BeanManager beans;

    /**
     * The routes that are deliberately public in the server shape: webhook receivers (signed by
     * their providers), health, metrics, the OpenAPI document, and the console's page shell
     * (static files, the redirect of /console to /console/, and the browser libraries under
     * /webjars; none holds data).
     */
    static boolean isPublic(Route r) {
        String t = r.template();
        return (t.equals("/webhooks/{source}") && "POST".equals(r.method()))
                || HEALTH.contains(t)
                || t.equals("/q/metrics") || t.startsWith("/q/metrics/")
                || t.equals("/q/openapi") || t.startsWith("/q/openapi.")
                || t.equals("/console") && "GET".equals(r.method())
                || t.equals("/webjars/*");
    }

    static Set<Route> routes(BeanManager beans) {
        Set<Route> routes = new TreeSet<>(RouteCatalog.jaxRs(beans));
        routes.addAll(RouteCatalog.vertx(RouterCapture.router()));
        return routes;
    }

    static int port() {
        return ConfigProvider.getConfig().getValue("quarkus.http.test-port", Integer.class);
    }

    @Test
    void theCatalogComesFromTheApplication() throws Exception {
        Set<Route> routes = routes(beans);
        Set<String> templates = routes.stream().map(Route::template).collect(Collectors.toSet());
        // a few that must be there, whichever way the catalog was read
        assertTrue(templates.containsAll(Set.of("/api/v1/push", "/api/v1/tasks/{id}/complete", "/webhooks/{source}",
                "/q/health/live", "/q/metrics", "/q/openapi", "/")), templates.toString());
        // every path of the OpenAPI document (the build's own reading of the JAX-RS resources) is in it
        String doc = RawHttp.send(port(), "GET", "/q/openapi", Map.of("Authorization", "Bearer " + Api.TEST_API_KEY), null).body();
        Matcher m = Pattern.compile("(?m)^  (/[^:]*):").matcher(doc);
        int paths = 0;
        while (m.find()) {
            paths++;
            assertTrue(templates.contains(m.group(1)), m.group(1) + " is in the OpenAPI document, not in " + templates);
        }
        assertTrue(paths > 10, doc);
    }

    @Test
    void noSpellingOfAProtectedRouteAnswersWithoutAKey() throws Exception {
        Set<Route> routes = routes(beans);
        List<String> failures = new ArrayList<>();
        Set<String> seriesBefore = series();
        Map<String, Long> rowsBefore = rows();
        int sent = 0;
        List<String> warnings;
        try (LogCapture logs = LogCapture.open()) {
            for (Route route : routes) {
                for (String spelling : RouteCatalog.spellings(route.sample())) {
                    for (String method : route.methods()) {
                        boolean body = !method.equals("GET") && !method.equals("DELETE") && !method.equals("HEAD");
                        RawHttp.Answer a = RawHttp.send(port(), method, spelling,
                                body ? Map.of("Content-Type", "application/json") : Map.of(),
                                body ? PUSH.getBytes(StandardCharsets.UTF_8) : null);
                        sent++;
                        String where = route + " as " + method + " " + spelling + ": " + a.status() + " " + a.body();
                        if (a.status() >= 500) {
                            failures.add(where);
                        } else if (!isPublic(route) && !isUnauthorized(a) && !refusedByTheHttpLayer(a)) {
                            failures.add(where);
                        } else if (isPublic(route) && a.status() < 300 && route.template().startsWith("/webhooks/")) {
                            failures.add(where);
                        }
                    }
                }
            }
            warnings = logs.records().stream().filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                    .map(RouteSpellingsTest::line).toList();
        }
        java.nio.file.Files.write(java.nio.file.Path.of("target", "route-spellings-server.txt"), failures);
        assertEquals(List.of(), failures.size() > 60 ? failures.subList(0, 60) : failures,
                failures.size() + " of " + sent + " requests without a key were not refused");
        assertEquals(rowsBefore, rows(), "rows written by requests without a key");
        Set<String> added = new TreeSet<>(series());
        added.removeAll(seriesBefore);
        Set<String> templates = routes.stream().map(Route::template).collect(Collectors.toSet());
        List<String> unbounded = added.stream().filter(s -> !boundedSeries(s, templates)).toList();
        assertEquals(List.of(), unbounded, "metric series made by requests without a key");
        assertEquals(List.of(), warnings, "warnings logged for requests without a key");
        System.out.printf("RouteSpellingsTest: %d routes, %d requests without a key%n", routes.size(), sent);
    }

    /** The control: the key reaches every protected route's plain path (so the 401s above are the key check's). */
    @Test
    void theKeyPassesOnEveryProtectedRoute() throws Exception {
        List<String> refused = new ArrayList<>();
        for (Route route : routes(beans)) {
            if (isPublic(route) || route.method() == null && !route.template().equals("/")) {
                continue;
            }
            String method = route.method() == null ? "GET" : route.method();
            RawHttp.Answer a = RawHttp.send(port(), method, route.sample(),
                    Map.of("Authorization", "Bearer " + Api.TEST_API_KEY, "Content-Type", "application/json"),
                    method.equals("GET") || method.equals("DELETE") ? null : "{}".getBytes(StandardCharsets.UTF_8));
            if (a.status() == 401) {
                refused.add(route + ": " + a.body());
            }
        }
        assertEquals(List.of(), refused);
    }

    /**
     * Every JAX-RS resource method says who may call it: @PermitAll exactly on the public routes,
     * @Authenticated on every other (an unannotated one would be refused 403, and one made public
     * by mistake would show here).
     */
    @Test
    void everyResourceMethodIsAnnotatedAndOnlyThePublicOnesArePermitAll() {
        List<String> wrong = new ArrayList<>();
        for (jakarta.enterprise.inject.spi.Bean<?> bean : beans.getBeans(Object.class, jakarta.enterprise.inject.Any.Literal.INSTANCE)) {
            Class<?> c = bean.getBeanClass();
            if (!c.isAnnotationPresent(jakarta.ws.rs.Path.class)) {
                continue;
            }
            for (java.lang.reflect.Method m : c.getMethods()) {
                if (java.util.Arrays.stream(m.getAnnotations()).noneMatch(a -> a.annotationType().isAnnotationPresent(jakarta.ws.rs.HttpMethod.class))) {
                    continue;
                }
                boolean permitAll = m.isAnnotationPresent(jakarta.annotation.security.PermitAll.class)
                        || !m.isAnnotationPresent(io.quarkus.security.Authenticated.class) && c.isAnnotationPresent(jakarta.annotation.security.PermitAll.class);
                boolean authenticated = m.isAnnotationPresent(io.quarkus.security.Authenticated.class)
                        || !m.isAnnotationPresent(jakarta.annotation.security.PermitAll.class) && c.isAnnotationPresent(io.quarkus.security.Authenticated.class);
                String where = c.getSimpleName() + "." + m.getName();
                if (!permitAll && !authenticated) {
                    wrong.add(where + " carries neither @Authenticated nor @PermitAll");
                } else if (permitAll && !c.getSimpleName().equals("WebhookResource")) {
                    wrong.add(where + " is @PermitAll but not a deliberately public route");
                } else if (authenticated && c.getSimpleName().equals("WebhookResource")) {
                    wrong.add(where + " is a webhook receiver, public by design");
                }
            }
        }
        assertEquals(List.of(), wrong);
    }

    /**
     * A request target the HTTP server does not parse (a backslash, "//" as the whole target) is
     * answered 400 without a body by the HTTP layer itself, before any route or filter runs.
     */
    static boolean refusedByTheHttpLayer(RawHttp.Answer a) {
        return a.status() == 400 && a.body().isEmpty() && a.header("content-type") == null;
    }

    static boolean isUnauthorized(RawHttp.Answer a) {
        return a.status() == 401 && "application/problem+json".equals(a.header("content-type"))
                && a.body().contains("\"type\":\"/problems/unauthorized\"")
                && a.header("www-authenticate") != null && a.header("www-authenticate").startsWith("Bearer realm=\"exactly\"");
    }

    /** A new series is bounded when it is none of ours or HTTP's, or its uri tag is a route template or a fixed value. */
    static boolean boundedSeries(String series, Set<String> templates) {
        if (!series.startsWith("http_server_") && !series.startsWith("exactly_")) {
            return true;
        }
        // the gauges of the queues named in exactly.metrics.queues are made by their timer's first
        // refresh (one interval after start-up, whenever it falls), never by a request
        Matcher gauged = Pattern.compile("^exactly_queue_[a-z_]+\\{.*queue=\"([^\"]*)\"").matcher(series);
        if (gauged.find() && ConfigProvider.getConfig().getOptionalValues("exactly.metrics.queues", String.class)
                .orElse(List.of()).contains(gauged.group(1))) {
            return true;
        }
        Matcher uri = Pattern.compile("uri=\"([^\"]*)\"").matcher(series);
        if (!uri.find()) {
            return false;
        }
        return templates.contains(uri.group(1)) || BOUNDED_URI_TAGS.contains(uri.group(1));
    }

    /** The series of /q/metrics (name and labels, without the value). */
    static Set<String> series() throws Exception {
        RawHttp.Answer a = RawHttp.send(port(), "GET", "/q/metrics", Map.of("Authorization", "Bearer " + Api.TEST_API_KEY), null);
        assertEquals(200, a.status(), a.body());
        return a.body().lines().filter(l -> !l.startsWith("#") && !l.isBlank())
                .map(l -> l.substring(0, l.lastIndexOf(' '))).collect(Collectors.toCollection(TreeSet::new));
    }

    static Map<String, Long> rows() throws Exception {
        try (Connection c = AppDatabase.connect()) {
            return TableRows.of(c);
        }
    }

    private static String line(ExtLogRecord r) {
        return r.getLevel() + " " + r.getLoggerName() + ": " + r.getFormattedMessage();
    }
}
