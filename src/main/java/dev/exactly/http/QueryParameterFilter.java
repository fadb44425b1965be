package dev.exactly.http;

import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.Provider;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.resteasy.reactive.RestQuery;

/**
 * Quarkus REST ignores a query parameter that a method does not declare, and takes the first of a
 * repeated one; this filter refuses, on every endpoint, a query parameter the endpoint does not
 * declare, one given more than once ({@code ?queue=a&queue=b}) and one given empty ({@code ?queue=}
 * or {@code ?queue}), with a 400 problem naming each (as unknown body fields are refused): a
 * misspelt {@code ?qeue=billing} would otherwise act on the default queue. An endpoint's parameters
 * are the {@code @QueryParam} / {@code @RestQuery} parameters of its resource method, read once per
 * method. Runs after routing (it needs the matched method) and before the body is read, so nothing
 * is written.
 */
@Provider
@Priority(Priorities.USER)
public class QueryParameterFilter implements ContainerRequestFilter {

    private static final Map<Method, Set<String>> DECLARED = new ConcurrentHashMap<>();

    @Context
    ResourceInfo resource;

    @Override
    public void filter(ContainerRequestContext request) {
        MultivaluedMap<String, String> query = request.getUriInfo().getQueryParameters();
        if (query.isEmpty()) {
            return;
        }
        Method method = resource.getResourceMethod();
        Set<String> declared = method == null ? Set.of() : DECLARED.computeIfAbsent(method, QueryParameterFilter::declared);
        List<FieldError> errors = new ArrayList<>();
        for (Map.Entry<String, List<String>> e : query.entrySet()) {
            String name = e.getKey();
            List<String> values = e.getValue();
            if (!declared.contains(name)) {
                errors.add(new FieldError(null, name, "unknown query parameter; this endpoint takes "
                        + (declared.isEmpty() ? "none" : String.join(", ", declared))));
            } else if (values.size() > 1) {
                errors.add(new FieldError(null, name, "query parameter given " + values.size() + " times; give it once"));
            } else if (values.isEmpty() || values.get(0) == null || values.get(0).isEmpty()) {
                errors.add(new FieldError(null, name, "query parameter is empty; give a value or leave it out"));
            }
        }
        if (!errors.isEmpty()) {
            throw ApiProblem.invalid(errors);
        }
    }

    /** The query parameter names a resource method declares, sorted. */
    static Set<String> declared(Method method) {
        Set<String> names = new TreeSet<>();
        for (Parameter p : method.getParameters()) {
            if (p.isAnnotationPresent(QueryParam.class)) {
                names.add(p.getAnnotation(QueryParam.class).value());
            } else if (p.isAnnotationPresent(RestQuery.class)) {
                names.add(p.getAnnotation(RestQuery.class).value().isEmpty() ? p.getName() : p.getAnnotation(RestQuery.class).value());
            }
        }
        return Collections.unmodifiableSet(names);
    }
}
