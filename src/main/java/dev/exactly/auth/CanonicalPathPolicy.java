package dev.exactly.auth;

import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.vertx.http.runtime.security.HttpSecurityPolicy;
import io.smallrye.mutiny.Uni;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The HTTP security policy of the public paths ({@code policy=public} in application.properties):
 * permits a request whose path is spelled the one way the router spells it, and denies every
 * other spelling of it (which then needs the API key like any closed path). The path as sent must
 * equal its normalized form (no dot segments, no percent-encoded unreserved characters; RFC 3986
 * sections 6.2.2.2 and 6.2.2.3, as Vert.x normalizes) and carry no matrix parameter, backslash or
 * doubled slash. A webhook provider or a probe sends the URL it was given, so nothing legitimate is
 * refused; without this, each odd spelling of a public route that the router still served was a
 * path of its own to the HTTP metrics (one series per spelling), and a path the permission check
 * and a router might read differently.
 */
@ApplicationScoped
public class CanonicalPathPolicy implements HttpSecurityPolicy {

    /** The policy's name, as the HTTP permissions refer to it. */
    public static final String NAME = "public";

    @Override
    public Uni<CheckResult> checkPermission(RoutingContext request, Uni<SecurityIdentity> identity,
                                            AuthorizationRequestContext requestContext) {
        return canonical(request.request().path(), request.normalizedPath()) ? CheckResult.permit() : CheckResult.deny();
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * @param raw        the path as the request sent it
     * @param normalized the router's normalized form of it
     * @return true when they are the same and the path has no ';', '\' or "//"
     */
    static boolean canonical(String raw, String normalized) {
        return raw != null && raw.equals(normalized) && raw.indexOf(';') < 0 && raw.indexOf('\\') < 0 && !raw.contains("//");
    }
}
