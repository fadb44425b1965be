package dev.exactly.auth;

import io.smallrye.config.ConfigMapping;
import java.util.List;
import java.util.Optional;

/**
 * API-key authentication of the HTTP API, under {@code exactly.auth.} (SmallRye Config); the keys
 * are checked by {@link ApiKeyAuthenticationMechanism}.
 * Environment form: {@code EXACTLY_AUTH_API_KEY_SHA256=<hex>,<hex>}.
 */
@ConfigMapping(prefix = "exactly.auth")
public interface AuthConfig {

    /**
     * Accepted keys, each given as the lowercase or uppercase hex SHA-256 digest (64 hex digits,
     * FIPS 180-4) of the key's UTF-8 bytes; the keys themselves are never configured. Several
     * entries allow rotation. None configured: every request that needs a key is refused (fail
     * closed). Which paths need one: application.properties, quarkus.http.auth.permission.*.
     */
    Optional<List<String>> apiKeySha256();
}
