package dev.exactly.destination;

import dev.exactly.naming.Names;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Base64;
import java.util.function.BiConsumer;

/**
 * The rules of a destination's settings, the same for the configuration and the API. Each broken
 * rule is reported with the field it concerns (the API's JSON member name).
 */
public final class DestinationRules {

    /** Longest destination name: its consumer group, {@code destination:<name>}, stays a valid name. */
    public static final int MAX_NAME_LENGTH = 200;
    /** Longest attempt a destination may set, in milliseconds. */
    public static final int MAX_TIMEOUT_MS = 60_000;
    /** Most attempts a destination may set. */
    public static final int MAX_ATTEMPTS = 100;
    /** Longest backoff a destination may set, in milliseconds (one hour). */
    public static final int MAX_BACKOFF_MS = 3_600_000;
    /** The only type built so far. */
    public static final String HTTP = "http";
    /** The prefix of a Standard Webhooks secret. */
    public static final String SECRET_PREFIX = "whsec_";

    private DestinationRules() {
    }

    /** Checks a destination's name. */
    public static void name(String name, BiConsumer<String, String> broken) {
        String why = Names.checkName(name);
        if (why != null) {
            broken.accept("name", why);
        } else if (name.length() > MAX_NAME_LENGTH) {
            broken.accept("name", "must be at most " + MAX_NAME_LENGTH + " characters");
        }
    }

    /** Checks the settings of a destination ({@code queue} null: not checked here; {@code guard} null: no address check). */
    public static void check(String queue, String type, String url, String signingSecret, Integer timeoutMs,
                             Integer maxAttempts, Integer backoffMs, Integer backoffCapMs, AddressGuard guard,
                             BiConsumer<String, String> broken) {
        if (queue != null) {
            String why = Names.checkName(queue);
            if (why != null) {
                broken.accept("queue", why);
            }
        }
        if (!HTTP.equals(type)) {
            broken.accept("type", "must be http (the only destination type built so far)");
        }
        if (url == null) {
            broken.accept("url", "is required");
        } else {
            String why = url(url, guard);
            if (why != null) {
                broken.accept("url", why);
            }
        }
        if (signingSecret != null) {
            String why = secret(signingSecret);
            if (why != null) {
                broken.accept("signingSecret", why);
            }
        }
        range("timeoutMs", timeoutMs, 1, MAX_TIMEOUT_MS, broken);
        range("maxAttempts", maxAttempts, 1, MAX_ATTEMPTS, broken);
        range("backoffMs", backoffMs, 1, MAX_BACKOFF_MS, broken);
        range("backoffCapMs", backoffCapMs, 1, MAX_BACKOFF_MS, broken);
        if (backoffMs != null && backoffCapMs != null && backoffCapMs < backoffMs) {
            broken.accept("backoffCapMs", "must not be below backoffMs (" + backoffMs + ")");
        }
    }

    private static void range(String field, Integer value, int min, int max, BiConsumer<String, String> broken) {
        if (value != null && (value < min || value > max)) {
            broken.accept(field, "must be between " + min + " and " + max);
        }
    }

    /** @return null when {@code url} is an http(s) URL a destination may have, else why not */
    static String url(String url, AddressGuard guard) {
        URI u;
        try {
            u = new URI(url);
        } catch (URISyntaxException e) {
            return "is not a URL: " + e.getReason();
        }
        String scheme = u.getScheme();
        if (scheme == null || !(scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"))) {
            return "must be an http or https URL";
        }
        if (u.getHost() == null || u.getHost().isEmpty()) {
            return "must name a host";
        }
        if (u.getRawUserInfo() != null) {
            return "must not carry user information (put credentials in the URL's path or query, or sign with signingSecret)";
        }
        if (u.getRawFragment() != null) {
            return "must not have a fragment";
        }
        if (url.length() > 2048) {
            return "must be at most 2048 characters";
        }
        return guard == null ? null : guard.refusedLiteral(u.getHost());
    }

    /** @return null when {@code secret} is a Standard Webhooks secret, else why not (never quoting it) */
    static String secret(String secret) {
        if (!secret.startsWith(SECRET_PREFIX)) {
            return "must be a Standard Webhooks secret: whsec_ followed by the base64 key";
        }
        byte[] key;
        try {
            key = Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
        } catch (IllegalArgumentException e) {
            return "must be whsec_ followed by base64 (RFC 4648): the rest is not base64";
        }
        if (key.length < 24 || key.length > 64) {
            return "must hold a key of 24 to 64 bytes (Standard Webhooks), this one has " + key.length;
        }
        return null;
    }

    /** @return the HMAC key of a Standard Webhooks secret (checked before) */
    static byte[] key(String secret) {
        return Base64.getDecoder().decode(secret.substring(SECRET_PREFIX.length()));
    }
}
