package dev.exactly.testing;

import io.vertx.ext.web.Router;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The routes an application answers, read from the application itself: the JAX-RS resource
 * classes it deployed (their {@code @Path} and HTTP method annotations) and the Vert.x routes of
 * its router (health, metrics, OpenAPI, and any route an extension or the application adds),
 * sub-routers included. No list here is kept by hand. Also the spellings of a path that an HTTP
 * server might route like the path itself: what a test sends to find a spelling that skips a
 * check made on the path.
 */
public final class RouteCatalog {

    /** The value put in place of each path parameter. */
    public static final String PARAMETER = "x1";

    /**
     * One route.
     *
     * @param method   the HTTP method, or null for a Vert.x route that takes any
     * @param template the path template, e.g. /api/v1/tasks/{id}; a Vert.x prefix route ends with "/*"
     * @param source   "jax-rs" or "vert.x"
     */
    public record Route(String method, String template, String source) implements Comparable<Route> {

        /** @return the template with every parameter (and a prefix route's "*") filled in */
        public String sample() {
            String t = template.replaceAll("\\{[^}]*}", PARAMETER);
            return t.endsWith("/*") ? t.substring(0, t.length() - 1) + PARAMETER : t;
        }

        /** @return the methods to send: the route's, or GET and POST for a route that takes any */
        public List<String> methods() {
            return method == null ? List.of("GET", "POST") : List.of(method);
        }

        @Override
        public int compareTo(Route o) {
            int c = template.compareTo(o.template);
            return c != 0 ? c : String.valueOf(method).compareTo(String.valueOf(o.method));
        }

        @Override
        public String toString() {
            return (method == null ? "*" : method) + " " + template;
        }
    }

    private RouteCatalog() {
    }

    /**
     * @param beans the running application's bean manager
     * @return the JAX-RS routes of the resource classes among its beans (Quarkus REST makes each
     *         resource class a bean)
     */
    public static Set<Route> jaxRs(BeanManager beans) {
        List<Class<?>> classes = new ArrayList<>();
        for (Bean<?> bean : beans.getBeans(Object.class, Any.Literal.INSTANCE)) {
            if (bean.getBeanClass().isAnnotationPresent(Path.class)) {
                classes.add(bean.getBeanClass());
            }
        }
        return jaxRs(classes);
    }

    /**
     * @param classes classes, those without {@code @Path} are skipped
     * @return the JAX-RS routes their resource methods declare
     */
    public static Set<Route> jaxRs(Collection<Class<?>> classes) {
        Set<Route> out = new TreeSet<>();
        for (Class<?> c : classes) {
            Path base = c.getAnnotation(Path.class);
            if (base == null) {
                continue;
            }
            for (Method m : c.getMethods()) {
                String verb = httpMethod(m);
                if (verb != null) {
                    Path sub = m.getAnnotation(Path.class);
                    out.add(new Route(verb, normalized(base.value() + "/" + (sub == null ? "" : sub.value())), "jax-rs"));
                }
            }
        }
        return out;
    }

    /**
     * @param router the application's HTTP router
     * @return every Vert.x route that has a path, sub-routers included; the catch-all "/" prefix
     *         routes (Quarkus REST's and the default handler) become the exact route "/"
     */
    public static Set<Route> vertx(Router router) {
        Set<Route> out = new TreeSet<>();
        walk(router, "", out);
        return out;
    }

    private static void walk(Router router, String prefix, Set<Route> out) {
        for (io.vertx.ext.web.Route r : router.getRoutes()) {
            if (r.getPath() == null) {
                continue;
            }
            String path = normalized(prefix + r.getPath());
            if (r.getSubRouter() != null) {
                walk(r.getSubRouter(), path, out);
                continue;
            }
            boolean prefixRoute = !r.isExactPath() && !"/".equals(path);
            String template = prefixRoute ? (path.equals("/") ? "" : path) + "/*" : path;
            if (r.methods() == null || r.methods().isEmpty()) {
                out.add(new Route(null, template, "vert.x"));
            } else {
                r.methods().forEach(m -> out.add(new Route(m.name(), template, "vert.x")));
            }
        }
    }

    /** A template with one leading slash and no doubled or trailing one. */
    static String normalized(String template) {
        String t = ("/" + template).replaceAll("/+", "/");
        return t.length() > 1 && t.endsWith("/") ? t.substring(0, t.length() - 1) : t;
    }

    private static String httpMethod(Method m) {
        for (Annotation a : m.getAnnotations()) {
            HttpMethod h = a.annotationType().getAnnotation(HttpMethod.class);
            if (h != null) {
                return h.value();
            }
        }
        return null;
    }

    /**
     * The spellings of a path that a server might route as the path itself, each a raw request
     * target (as curl --path-as-is sends it): the path; a matrix parameter ({@code ;x}, and a bare
     * {@code ;}) in each segment and in all of them; a percent-encoded letter in each segment
     * (lower- and upper-case hex digits); a percent-encoded slash in place of each separator; a
     * doubled slash before each segment; dot segments ({@code .}, {@code x/..}, and their
     * percent-encoded forms) before each segment, and a climb out of the public prefixes
     * ({@code /webhooks/../}, {@code /q/health/../../}); a trailing slash; the path in other
     * letter cases; a backslash in place of a separator.
     *
     * @param path a path starting with "/"
     * @return the spellings, the path itself first, without repeats
     */
    public static List<String> spellings(String path) {
        Set<String> out = new LinkedHashSet<>();
        out.add(path);
        String[] segments = path.substring(1).split("/", -1);
        int n = segments.length;
        for (int i = 0; i < n; i++) {
            out.add(join(segments, i, segments[i] + ";x"));
            out.add(join(segments, i, segments[i] + ";"));
            out.add(join(segments, i, segments[i] + ";jsessionid=1"));
            int letter = firstLetter(segments[i]);
            if (letter >= 0) {
                String s = segments[i];
                out.add(join(segments, i, s.substring(0, letter) + hex(s.charAt(letter), false) + s.substring(letter + 1)));
                out.add(join(segments, i, s.substring(0, letter) + hex(s.charAt(letter), true) + s.substring(letter + 1)));
            }
            out.add(insertBefore(segments, i, "/"));
            out.add(insertBefore(segments, i, "/./"));
            out.add(insertBefore(segments, i, "/%2e/"));
            out.add(insertBefore(segments, i, "/zz/../"));
            out.add(insertBefore(segments, i, "/zz/%2e%2e/"));
            out.add(insertBefore(segments, i, "/zz;x/..;x/"));
            if (i > 0) {
                out.add(separator(segments, i, "%2F"));
                out.add(separator(segments, i, "%2f"));
                out.add(separator(segments, i, "%5C"));
                out.add(separator(segments, i, "\\"));
            }
        }
        StringBuilder allMatrix = new StringBuilder();
        for (String s : segments) {
            allMatrix.append('/').append(s).append(";x");
        }
        out.add(allMatrix.toString());
        out.add("/" + String.join("//", segments));
        out.add("/webhooks/.." + path);
        out.add("/webhooks/%2e%2e" + path);
        out.add("/webhooks;x/.." + path);
        out.add("/q/health/../.." + path);
        out.add("/q/health/%2e%2e/%2e%2e" + path);
        out.add("/q/metrics/.." + path.replaceFirst("^/q/", "/"));
        out.add(path + "/");
        out.add(path + "/.");
        out.add(path + ";x");
        out.add(path.toUpperCase(Locale.ROOT));
        out.add(capitalised(segments));
        out.remove("");
        return List.copyOf(out);
    }

    private static String join(String[] segments, int at, String replacement) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < segments.length; i++) {
            b.append('/').append(i == at ? replacement : segments[i]);
        }
        return b.toString();
    }

    /** The path with {@code insert} (which starts and ends with "/") in place of the "/" before segment {@code at}. */
    private static String insertBefore(String[] segments, int at, String insert) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < segments.length; i++) {
            b.append(i == at ? insert : "/").append(segments[i]);
        }
        return b.toString();
    }

    /** The path with {@code sep} in place of the "/" before segment {@code at} (at > 0). */
    private static String separator(String[] segments, int at, String sep) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < segments.length; i++) {
            b.append(i == at ? sep : "/").append(segments[i]);
        }
        return b.toString();
    }

    private static int firstLetter(String segment) {
        for (int i = 0; i < segment.length(); i++) {
            if (Character.isLetter(segment.charAt(i))) {
                return i;
            }
        }
        return -1;
    }

    private static String hex(char c, boolean upper) {
        StringBuilder b = new StringBuilder();
        for (byte x : String.valueOf(c).getBytes(StandardCharsets.UTF_8)) {
            String h = String.format("%%%02x", x & 0xff);
            b.append(upper ? h.toUpperCase(Locale.ROOT) : h);
        }
        return b.toString();
    }

    private static String capitalised(String[] segments) {
        StringBuilder b = new StringBuilder();
        for (String s : segments) {
            b.append('/').append(s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1));
        }
        return b.toString();
    }
}
