package dev.exactly.webhook.signature;

import static dev.exactly.webhook.Signing.utf8;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.webhook.Deliveries;
import dev.exactly.webhook.Signing;
import org.junit.jupiter.api.Test;

class GitHubSignatureVerifierTest {

    private static final String SECRET = "It's a Secret to Everybody";
    private static final byte[] BODY = utf8("Hello, World!");
    private final GitHubSignatureVerifier verifier = new GitHubSignatureVerifier(SECRET);

    @Test
    void acceptsTheDocumentedExample() {
        // GitHub Docs, "Validating webhook deliveries", test values
        String documented = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
        assertEquals(documented, Signing.github(SECRET, BODY));
        assertDoesNotThrow(() -> verifier.verify(Deliveries.of(BODY, "X-Hub-Signature-256", documented)));
    }

    @Test
    void acceptsAnUpperCaseHeaderNameAndHexDigest() {
        String sig = "sha256=" + Signing.github(SECRET, BODY).substring(7).toUpperCase();
        assertDoesNotThrow(() -> verifier.verify(Deliveries.of(BODY, "x-hub-signature-256", sig)));
    }

    @Test
    void rejectsATamperedBody() {
        String sig = Signing.github(SECRET, BODY);
        InvalidSignature e = assertThrows(InvalidSignature.class,
                () -> verifier.verify(Deliveries.of(utf8("Hello, World?"), "X-Hub-Signature-256", sig)));
        assertEquals(401, e.status());
        assertTrue(e.getMessage().contains("does not match"), e.getMessage());
    }

    @Test
    void rejectsAnotherSecret() {
        String sig = Signing.github("another secret", BODY);
        assertThrows(InvalidSignature.class, () -> verifier.verify(Deliveries.of(BODY, "X-Hub-Signature-256", sig)));
    }

    @Test
    void rejectsMissingAndMalformedSignatures() {
        assertTrue(assertThrows(InvalidSignature.class, () -> verifier.verify(Deliveries.of(BODY)))
                .getMessage().contains("missing"));
        String hex = Signing.github(SECRET, BODY).substring(7);
        assertThrows(InvalidSignature.class, () -> verifier.verify(Deliveries.of(BODY, "X-Hub-Signature-256", hex)));
        assertThrows(InvalidSignature.class,
                () -> verifier.verify(Deliveries.of(BODY, "X-Hub-Signature-256", "sha256=zz" + hex.substring(2))));
        assertThrows(InvalidSignature.class,
                () -> verifier.verify(Deliveries.of(BODY, "X-Hub-Signature-256", "sha256=" + hex.substring(2))));
    }
}
