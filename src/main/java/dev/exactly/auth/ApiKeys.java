package dev.exactly.auth;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.jboss.logging.Logger;

/**
 * The accepted API keys, held as SHA-256 digests (from {@link AuthConfig#apiKeySha256()}), and
 * the check of a presented key: its SHA-256 is compared with every configured digest in constant
 * time ({@link MessageDigest#isEqual}), so the answer's timing tells nothing about how much of a
 * digest matched. Thread-safe and immutable after construction.
 */
@ApplicationScoped
public class ApiKeys {

    private static final Logger LOG = Logger.getLogger(ApiKeys.class);

    private final List<byte[]> digests;

    /**
     * @param config the configured digests
     * @throws IllegalArgumentException when a configured entry is not 64 hex digits (the start-up fails)
     */
    @Inject
    public ApiKeys(AuthConfig config) {
        this(config.apiKeySha256().orElse(List.of()));
    }

    /**
     * @param hexDigests hex SHA-256 digests of the accepted keys (blank entries are ignored)
     * @throws IllegalArgumentException when an entry is not 64 hex digits
     */
    public ApiKeys(List<String> hexDigests) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < hexDigests.size(); i++) {
            String h = hexDigests.get(i).trim();
            if (h.isEmpty()) {
                continue;
            }
            if (!h.matches("[0-9a-fA-F]{64}")) {
                throw new IllegalArgumentException("exactly.auth.api-key-sha256[" + i
                        + "] must be a hex SHA-256 digest (64 hex digits) of a key, not the key itself");
            }
            out.add(HexFormat.of().parseHex(h));
        }
        this.digests = List.copyOf(out);
    }

    /** True when at least one key is configured. */
    public boolean configured() {
        return !digests.isEmpty();
    }

    /**
     * @param key a presented key (the token of {@code Authorization: Bearer <key>}), may be null
     * @return true when its SHA-256 equals a configured digest
     */
    public boolean accepts(String key) {
        if (key == null || key.isEmpty()) {
            return false;
        }
        byte[] presented = sha256(key);
        boolean match = false;
        for (byte[] d : digests) {
            match |= MessageDigest.isEqual(d, presented); // no early exit
        }
        return match;
    }

    /** @return the SHA-256 digest (32 bytes) of the key's UTF-8 bytes */
    public static byte[] sha256(String key) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    /** @return the lowercase hex SHA-256 digest of the key, the form exactly.auth.api-key-sha256 takes */
    public static String sha256Hex(String key) {
        return HexFormat.of().formatHex(sha256(key));
    }

    void warnWhenNoneConfigured(@Observes StartupEvent event) {
        if (!configured()) {
            LOG.warn("No API key is configured (exactly.auth.api-key-sha256 / EXACTLY_AUTH_API_KEY_SHA256): "
                    + "every request that needs one (all of /api) will be refused with 401. Configure the hex SHA-256 "
                    + "of a key, e.g. printf %s \"$KEY\" | sha256sum (docs/security.md)");
        }
    }
}
