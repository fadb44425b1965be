package dev.exactly.webhook.signature;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.exactly.webhook.Deliveries;
import org.junit.jupiter.api.Test;

class GitLabTokenVerifierTest {

    private final GitLabTokenVerifier verifier = new GitLabTokenVerifier("gl-secret-token");
    private static final byte[] BODY = utf8("{\"object_kind\":\"push\"}");

    @Test
    void acceptsTheExactToken() {
        assertDoesNotThrow(() -> verifier.verify(Deliveries.of(BODY, "X-Gitlab-Token", "gl-secret-token")));
    }

    @Test
    void refusesAnyOtherTokenIncludingPrefixesAndCase() {
        for (String t : new String[] {"gl-secret-toke", "gl-secret-token ", "GL-SECRET-TOKEN", "", "gl-secret-token2"}) {
            assertThrows(InvalidSignature.class, () -> verifier.verify(Deliveries.of(BODY, "X-Gitlab-Token", t)), t);
        }
        assertThrows(InvalidSignature.class, () -> verifier.verify(Deliveries.of(BODY)));
    }
}
