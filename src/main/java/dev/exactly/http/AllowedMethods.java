package dev.exactly.http;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HTTP methods each path of the API answers, for the {@code Allow} header a 405 must carry
 * (RFC 9110, section 15.5.6). Read once from the resource classes ({@code @Path} beans) and their
 * methods' HTTP method annotations; a path template's {@code {name}} matches one segment,
 * {@code {name: regex}} its regex. OPTIONS is always allowed and HEAD wherever GET is, as the
 * JAX-RS runtime answers both.
 */
@ApplicationScoped
public class AllowedMethods {

    private record Route(Pattern path, String template, String method) {
    }

    private final BeanManager beans;
    private volatile List<Route> routes;

    /** Constructor injection. */
    public AllowedMethods(BeanManager beans) {
        this.beans = beans;
    }

    /**
     * @param path the request's path, e.g. /api/v1/tasks/t-1
     * @return the methods allowed on it, sorted (empty when no route has that path)
     */
    public Set<String> on(String path) {
        Set<String> out = new TreeSet<>();
        for (Route r : routes()) {
            if (r.path().matcher(path).matches()) {
                out.add(r.method());
            }
        }
        if (!out.isEmpty()) {
            out.add(HttpMethod.OPTIONS);
            if (out.contains(HttpMethod.GET)) {
                out.add(HttpMethod.HEAD);
            }
        }
        return out;
    }

    /**
     * @param path the request's path, e.g. /api/v1/tasks/t-1
     * @return the template of a route with that path, e.g. /api/v1/tasks/{id} (the first one
     *         declared when several match), or null when none has it
     */
    public String templateOf(String path) {
        for (Route r : routes()) {
            if (r.path().matcher(path).matches()) {
                return r.template();
            }
        }
        return null;
    }

    /** A template as Quarkus REST names a route: one leading slash, no doubled or trailing one. */
    static String normalized(String template) {
        String t = ("/" + template).replaceAll("/+", "/");
        return t.length() > 1 && t.endsWith("/") ? t.substring(0, t.length() - 1) : t;
    }

    private List<Route> routes() {
        List<Route> r = routes;
        if (r == null) {
            r = new ArrayList<>();
            for (Bean<?> bean : beans.getBeans(Object.class, Any.Literal.INSTANCE)) {
                Path base = bean.getBeanClass().getAnnotation(Path.class);
                if (base == null) {
                    continue;
                }
                for (Method m : bean.getBeanClass().getMethods()) {
                    String verb = httpMethod(m);
                    if (verb != null) {
                        Path sub = m.getAnnotation(Path.class);
                        String t = base.value() + "/" + (sub == null ? "" : sub.value());
                        r.add(new Route(template(t), normalized(t), verb));
                    }
                }
            }
            routes = List.copyOf(r);
        }
        return r;
    }

    /** @return the HTTP verb a JAX-RS resource method answers (its @GET, @POST, … annotation), or null */
    static String httpMethod(Method m) {
        for (Annotation a : m.getAnnotations()) {
            HttpMethod h = a.annotationType().getAnnotation(HttpMethod.class);
            if (h != null) {
                return h.value();
            }
        }
        return null;
    }

    /** A JAX-RS path template as a regex: /a/{id}/b matches /a/x/b (a trailing slash optional). */
    static Pattern template(String template) {
        String t = normalized(template);
        StringBuilder re = new StringBuilder();
        Matcher m = Pattern.compile("\\{\\s*[\\w.-]+\\s*(?::\\s*((?:[^{}]|\\{[^{}]*})*))?}").matcher(t);
        int at = 0;
        while (m.find()) {
            re.append(Pattern.quote(t.substring(at, m.start())));
            re.append(m.group(1) == null ? "[^/]+" : "(?:" + m.group(1).strip() + ")");
            at = m.end();
        }
        re.append(Pattern.quote(t.substring(at))).append("/?");
        return Pattern.compile(re.toString());
    }
}
