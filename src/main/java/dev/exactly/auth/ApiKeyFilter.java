package dev.exactly.auth;

import dev.exactly.http.UnroutedRequestMetrics;
import dev.exactly.problem.Problem;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Requires an API key on every request under {@code /api} (so every /api/v1 endpoint, and any
 * later version): {@code Authorization: Bearer <key>} (RFC 6750, section 2.1), checked by
 * {@link ApiKeys}. A request without a valid key is answered 401 with an RFC 9457 problem
 * ({@code /problems/unauthorized}) and {@code WWW-Authenticate: Bearer}, before its body is read
 * and before any endpoint runs, so nothing is written. Health, metrics and OpenAPI under
 * {@code /q/} and webhook receivers under {@code /webhooks/} are not under /api and stay open
 * (webhooks carry their own signatures).
 *
 * <p>It is a Vert.x route filter, so it guards the plain HTTP server and the Lambda alike
 * (quarkus-amazon-lambda-http feeds API Gateway events through the same router).
 */
@ApplicationScoped
public class ApiKeyFilter {

    /** Runs before every route; higher than the defaults of Quarkus' own filters. */
    static final int PRIORITY = 1000;

    private static final String MISSING = body("The request carries no API key. "
            + "Send it as 'Authorization: Bearer <key>'.");
    private static final String INVALID = body("The API key is not valid.");

    private final ApiKeys keys;

    /** Constructor injection. */
    public ApiKeyFilter(ApiKeys keys) {
        this.keys = keys;
    }

    void register(@Observes Filters filters) {
        filters.register(this::filter, PRIORITY);
    }

    private void filter(RoutingContext ctx) {
        if (!isProtected(ctx.normalizedPath())) {
            ctx.next();
            return;
        }
        String token = bearerToken(ctx.request().getHeader(HttpHeaders.AUTHORIZATION));
        if (token != null && keys.accepts(token)) {
            ctx.next();
            return;
        }
        UnroutedRequestMetrics.tag(ctx, null);
        ctx.response().setStatusCode(401)
                .putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
                .putHeader("WWW-Authenticate", token == null
                        ? "Bearer realm=\"exactly\""
                        : "Bearer realm=\"exactly\", error=\"invalid_token\"")
                .end(token == null ? MISSING : INVALID);
    }

    /**
     * @param path the request path
     * @return true for /api and everything under it; repeated slashes and letter case do not
     *         change the answer (fail closed)
     */
    static boolean isProtected(String path) {
        if (path == null) {
            return true;
        }
        String p = path.replaceAll("/{2,}", "/").toLowerCase(java.util.Locale.ROOT);
        return p.equals("/api") || p.startsWith("/api/") || p.startsWith("api/") || p.equals("api");
    }

    /**
     * @param authorization the Authorization header, may be null
     * @return the token of a {@code Bearer} credential (scheme case-insensitive, RFC 9110 section
     *         11.1), or null when absent or of another scheme
     */
    static String bearerToken(String authorization) {
        if (authorization == null) {
            return null;
        }
        String a = authorization.trim();
        if (a.length() < 7 || !a.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = a.substring(7).trim();
        return token.isEmpty() ? null : token;
    }

    private static String body(String detail) {
        return "{\"type\":\"/problems/unauthorized\",\"title\":\"Unauthorized\",\"status\":401,\"detail\":\""
                + detail + "\"}";
    }
}
