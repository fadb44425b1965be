package dev.exactly.http;

import dev.exactly.problem.ApiProblem;
import java.util.function.Consumer;

/**
 * The body limit of a group of routes whose limit is not {@code exactly.push.max-body-bytes} (the
 * limit of every other route): a bean of this type, found by {@link BodyLimitFilter}, which applies
 * it before the body is read.
 */
public interface RouteBodyLimit {

    /**
     * @param path the request's normalized path, e.g. {@code /api/v1/tasks/claim}
     * @return the limit of the route at that path, or null when it is not one of this group's
     */
    Limit limitFor(String path);

    /** @return the largest limit of the group (checked at start-up against the HTTP layer's own) */
    Limit largest();

    /**
     * @return the route template of the group's paths, the {@code uri} tag of a request refused
     *         before routing (e.g. {@code /webhooks/{source}}), or null when the paths have none in
     *         common (the tag is then {@code /REFUSED_EARLY}, never the raw path)
     */
    default String uriTemplate() {
        return null;
    }

    /**
     * One route's limit.
     *
     * @param maxBytes  the largest body accepted, in bytes
     * @param key       the configuration key that sets it, named in the 413's detail
     * @param onRefused told of each refusal before it is sent (e.g. to count it); never throws
     */
    record Limit(long maxBytes, String key, Consumer<ApiProblem> onRefused) {

        /** A limit that nothing is told of. */
        public static Limit of(long maxBytes, String key) {
            return new Limit(maxBytes, key, p -> { });
        }

        /** @return the 413 answered for a body over the limit */
        public ApiProblem problem() {
            return ApiProblem.tooLarge("the body is larger than the limit of " + maxBytes + " bytes (" + key + ")");
        }
    }
}
