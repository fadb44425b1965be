package dev.exactly.http;

import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.Problem;
import io.vertx.core.http.HttpServerRequest;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/**
 * The answers about methods that Quarkus REST (3.33) gets wrong: its 405 carries no {@code Allow}
 * header, which RFC 9110 (section 15.5.6) requires, and its OPTIONS offers every method of the
 * resource class, HEAD also on POST-only routes such as {@code /api/v1/push} (where a HEAD then gets
 * 405), and answers 200 on a path no route has. RFC 9110 (section 9.3.7) has OPTIONS describe what
 * the target resource supports: a known path gets the Allow list a 405 gives, an unknown one the 404
 * problem any other method gets.
 *
 * <p>The methods of each path are read once from the resource classes ({@code @Path} beans) and
 * their methods' HTTP method annotations; a path template's {@code {name}} matches one segment,
 * {@code {name: regex}} its regex. OPTIONS is always allowed and HEAD wherever GET is, as the
 * runtime answers both.
 *
 * <p>Metrics: Quarkus REST records a route's template for {@code http_server_requests} only when a
 * resource method runs, so both answers would be tagged with the raw path, and every id or queue
 * name a client sent would make a new series. They are tagged with the template of the route that
 * has the path ({@link #templateOf}), else {@value UnroutedRequestMetrics#UNROUTED}.
 */
@ApplicationScoped
public class AllowedMethods {

    private static final MediaType PROBLEM = MediaType.valueOf(Problem.MEDIA_TYPE);

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
        Set<String> out = matching(path).map(Route::method).collect(Collectors.toCollection(TreeSet::new));
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
        return matching(path).map(Route::template).findFirst().orElse(null);
    }

    /** @return the template of every route, e.g. /api/v1/tasks/{id} */
    public Set<String> templates() {
        return routes().stream().map(Route::template).collect(Collectors.toCollection(TreeSet::new));
    }

    private Stream<Route> matching(String path) {
        return routes().stream().filter(r -> r.path().matcher(path).matches());
    }

    /** 405 method-not-allowed, with Allow listing what the path takes. */
    @ServerExceptionMapper
    public Response notAllowed(NotAllowedException e, UriInfo uri, Request request) {
        Set<String> methods = on(uri.getPath());
        String list = String.join(", ", methods);
        Response.ResponseBuilder b = Response.status(405).type(Problem.MEDIA_TYPE)
                .entity(new Problem("/problems/method-not-allowed", "Method not allowed", 405,
                        request.getMethod() + " is not allowed on " + uri.getPath()
                                + (methods.isEmpty() ? "" : "; it takes " + list + " (see the Allow header)"), null));
        return (methods.isEmpty() ? b : b.header("Allow", list)).build();
    }

    /** Rewrites an OPTIONS answer and tags it, or a 405, with its route (other answers pass untouched). */
    @ServerResponseFilter
    public void answer(ContainerRequestContext request, ContainerResponseContext response, HttpServerRequest http) {
        boolean options = HttpMethod.OPTIONS.equals(request.getMethod());
        if (!options && response.getStatus() != 405) {
            return;
        }
        String path = request.getUriInfo().getPath();
        UnroutedRequestMetrics.tag(http, templateOf(path));
        Set<String> methods = options ? on(path) : Set.of();
        if (options && methods.isEmpty()) {
            response.getHeaders().remove("Allow");
            response.setStatus(404);
            response.setEntity(ApiProblem.notFound("No route has the path " + path + ".").toProblem(), new Annotation[0], PROBLEM);
        } else if (options) {
            response.getHeaders().putSingle("Allow", String.join(", ", methods));
        }
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
