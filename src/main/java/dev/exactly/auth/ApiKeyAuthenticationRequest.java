package dev.exactly.auth;

import io.quarkus.security.identity.request.BaseAuthenticationRequest;

/**
 * The API key a request presented ({@code Authorization: Bearer <key>}), handed by
 * {@link ApiKeyAuthenticationMechanism} to {@link ApiKeyIdentityProvider}.
 */
public final class ApiKeyAuthenticationRequest extends BaseAuthenticationRequest {

    private final String key;

    /** @param key the presented key, not empty */
    public ApiKeyAuthenticationRequest(String key) {
        this.key = key;
    }

    /** @return the presented key */
    public String key() {
        return key;
    }
}
