package dev.exactly.auth;

import dev.exactly.http.UnroutedRequestMetrics;
import io.quarkus.security.identity.IdentityProviderManager;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.identity.request.AuthenticationRequest;
import io.quarkus.vertx.http.runtime.security.ChallengeData;
import io.quarkus.vertx.http.runtime.security.HttpAuthenticationMechanism;
import io.quarkus.vertx.http.runtime.security.HttpCredentialTransport;
import io.quarkus.vertx.http.runtime.security.HttpSecurityUtils;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Set;

/**
 * The API key as a Quarkus Security HTTP authentication mechanism: {@code Authorization: Bearer
 * <key>} (RFC 6750, section 2.1; the scheme name case-insensitive, RFC 9110 section 11.1),
 * checked by {@link ApiKeyIdentityProvider}. A request without a Bearer credential is anonymous,
 * which the HTTP permissions (application.properties: deny by default, the public paths
 * permitted) and {@code @Authenticated} then refuse; a request with a wrong key fails
 * authentication wherever it goes.
 *
 * <p>The challenge keeps the API's wire contract: 401 with an RFC 9457 problem
 * ({@code /problems/unauthorized}) and {@code WWW-Authenticate: Bearer realm="exactly"}, plus
 * {@code error="invalid_token"} when a key was presented (RFC 6750, section 3). It is sent by the
 * security handlers, which run before any other route and before the body is read, so a refused
 * request writes nothing; the connection is closed when a body is still on its way, so it is not
 * read either. The answer's metrics carry the {@code uri} tag
 * {@value UnroutedRequestMetrics#UNROUTED}, never the path a client made up.
 */
@ApplicationScoped
public class ApiKeyAuthenticationMechanism implements HttpAuthenticationMechanism {

    /** The authentication scheme, as HTTP permissions name it ({@code auth-mechanism=bearer}). */
    public static final String SCHEME = "bearer";

    static final String REALM = "Bearer realm=\"exactly\"";

    private static final String MISSING = body("The request carries no API key. "
            + "Send it as 'Authorization: Bearer <key>'.");
    private static final String INVALID = body("The API key is not valid.");

    @Override
    public Uni<SecurityIdentity> authenticate(RoutingContext context, IdentityProviderManager identityProviderManager) {
        String token = bearerToken(context.request().getHeader(HttpHeaders.AUTHORIZATION));
        if (token == null) {
            return Uni.createFrom().nullItem();
        }
        return identityProviderManager.authenticate(
                HttpSecurityUtils.setRoutingContextAttribute(new ApiKeyAuthenticationRequest(token), context));
    }

    @Override
    public Uni<ChallengeData> getChallenge(RoutingContext context) {
        return Uni.createFrom().item(new ChallengeData(401, "WWW-Authenticate", challenge(context)));
    }

    /** Answers 401 problem+json with the challenge; the request's body is not read. */
    @Override
    public Uni<Boolean> sendChallenge(RoutingContext context) {
        if (!context.response().ended()) {
            boolean presented = presented(context);
            UnroutedRequestMetrics.tag(context, null);
            context.response().setStatusCode(401)
                    .putHeader(HttpHeaders.CONTENT_TYPE, dev.exactly.problem.Problem.MEDIA_TYPE)
                    .putHeader("WWW-Authenticate", challenge(context));
            Refusals.end(context, presented ? INVALID : MISSING);
        }
        return Uni.createFrom().item(true);
    }

    @Override
    public Set<Class<? extends AuthenticationRequest>> getCredentialTypes() {
        return Set.of(ApiKeyAuthenticationRequest.class);
    }

    @Override
    public Uni<HttpCredentialTransport> getCredentialTransport(RoutingContext context) {
        return Uni.createFrom().item(new HttpCredentialTransport(HttpCredentialTransport.Type.AUTHORIZATION, SCHEME));
    }

    private static boolean presented(RoutingContext context) {
        return bearerToken(context.request().getHeader(HttpHeaders.AUTHORIZATION)) != null;
    }

    private static String challenge(RoutingContext context) {
        return presented(context) ? REALM + ", error=\"invalid_token\"" : REALM;
    }

    /**
     * @param authorization the Authorization header, may be null
     * @return the token of a {@code Bearer} credential (scheme case-insensitive, RFC 9110 section
     *         11.1), or null when absent, empty or of another scheme
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
