package dev.exactly.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The key check and the Authorization header rule of the API-key mechanism, without a server. */
class ApiKeysTest {

    @Test
    void acceptsExactlyTheConfiguredKeys() {
        ApiKeys keys = new ApiKeys(List.of(ApiKeys.sha256Hex("old-key"), ApiKeys.sha256Hex("new-key").toUpperCase()));
        assertTrue(keys.configured());
        assertTrue(keys.accepts("old-key"));
        assertTrue(keys.accepts("new-key"));
        assertFalse(keys.accepts("new-key "));
        assertFalse(keys.accepts("other"));
        assertFalse(keys.accepts(""));
        assertFalse(keys.accepts(null));
        // the digest itself is not a key
        assertFalse(keys.accepts(ApiKeys.sha256Hex("old-key")));
    }

    @Test
    void noKeyConfiguredRefusesEverything() {
        ApiKeys keys = new ApiKeys(List.of());
        assertFalse(keys.configured());
        assertFalse(keys.accepts("anything"));
        assertFalse(new ApiKeys(List.of(" ")).configured());
    }

    @Test
    void aKeyInPlaceOfItsDigestIsAConfigurationError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new ApiKeys(List.of("exactly-test-key")));
        assertFalse(e.getMessage().contains("exactly-test-key"), "the error must not echo a secret");
    }

    @Test
    void knownDigest() {
        // printf %s exactly-test-key | sha256sum
        assertEquals("1edcd27b52dea85146f9e7cdf48002ab056b5b6c2cd4a73b89277c442fbe6aa2", ApiKeys.sha256Hex("exactly-test-key"));
    }

    @Test
    void bearerTokens() {
        assertEquals("k", ApiKeyAuthenticationMechanism.bearerToken("Bearer k"));
        assertEquals("k", ApiKeyAuthenticationMechanism.bearerToken("bearer   k "));
        assertNull(ApiKeyAuthenticationMechanism.bearerToken("Bearer "));
        assertNull(ApiKeyAuthenticationMechanism.bearerToken("Basic k"));
        assertNull(ApiKeyAuthenticationMechanism.bearerToken("Bearerk"));
        assertNull(ApiKeyAuthenticationMechanism.bearerToken(null));
    }
}
