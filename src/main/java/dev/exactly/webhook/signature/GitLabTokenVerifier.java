package dev.exactly.webhook.signature;

import dev.exactly.webhook.Delivery;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * GitLab's X-Gitlab-Token: the webhook's secret token itself, sent as is (GitLab Docs,
 * "Webhooks", secret token). Compared in constant time: both sides are hashed with SHA-256
 * first, so neither the content nor the length of the token leaks through timing. GitLab signs
 * nothing, so the token proves the sender but not the body.
 */
public final class GitLabTokenVerifier implements SignatureVerifier {

    /** The header GitLab sends the token in. */
    public static final String HEADER = "X-Gitlab-Token";

    private final byte[] expected;

    /** @param token the webhook's secret token as entered in GitLab */
    public GitLabTokenVerifier(String token) {
        this.expected = sha256(token);
    }

    @Override
    public void verify(Delivery delivery) {
        String given = delivery.header(HEADER);
        if (given == null) {
            throw new InvalidSignature(HEADER + " is missing");
        }
        if (!MessageDigest.isEqual(expected, sha256(given))) {
            throw new InvalidSignature(HEADER + " does not match this source's secret");
        }
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is unavailable", e);
        }
    }

    @Override
    public String scheme() {
        return "gitlab";
    }
}
