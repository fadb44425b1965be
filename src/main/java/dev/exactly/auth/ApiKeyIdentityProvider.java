package dev.exactly.auth;

import io.quarkus.security.AuthenticationFailedException;
import io.quarkus.security.identity.AuthenticationRequestContext;
import io.quarkus.security.identity.IdentityProvider;
import io.quarkus.security.identity.SecurityIdentity;
import io.quarkus.security.runtime.QuarkusPrincipal;
import io.quarkus.security.runtime.QuarkusSecurityIdentity;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * Turns a presented API key into a security identity when {@link ApiKeys} accepts it (its
 * SHA-256 equals a configured digest, compared in constant time), else fails the authentication.
 * The check is a hash and a few comparisons, so it runs on the calling thread.
 */
@ApplicationScoped
public class ApiKeyIdentityProvider implements IdentityProvider<ApiKeyAuthenticationRequest> {

    /** The principal name of every identity made from an API key. */
    public static final String PRINCIPAL = "api-key";

    private final ApiKeys keys;

    /** Constructor injection. */
    public ApiKeyIdentityProvider(ApiKeys keys) {
        this.keys = keys;
    }

    @Override
    public Class<ApiKeyAuthenticationRequest> getRequestType() {
        return ApiKeyAuthenticationRequest.class;
    }

    /**
     * @return the identity {@value #PRINCIPAL}, or a failure with {@link AuthenticationFailedException}
     *         when the key is not an accepted one (also when no key is configured)
     */
    @Override
    public Uni<SecurityIdentity> authenticate(ApiKeyAuthenticationRequest request, AuthenticationRequestContext context) {
        if (!keys.accepts(request.key())) {
            return Uni.createFrom().failure(new AuthenticationFailedException("the API key is not valid"));
        }
        return Uni.createFrom().item(QuarkusSecurityIdentity.builder().setPrincipal(new QuarkusPrincipal(PRINCIPAL)).build());
    }
}
