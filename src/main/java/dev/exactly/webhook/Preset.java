package dev.exactly.webhook;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A known provider's defaults: signature scheme, deduplication key and kept headers. Each
 * default can be overridden per source (see {@link WebhooksConfig.Source}).
 */
public enum Preset {

    /** GitHub: X-Hub-Signature-256, keyed by X-GitHub-Delivery (the same on GitHub's redeliveries). */
    GITHUB("github", "github", "X-GitHub-Delivery", null, List.of("X-GitHub-Event", "X-GitHub-Delivery",
            "X-GitHub-Hook-ID", "X-GitHub-Hook-Installation-Target-ID", "X-GitHub-Hook-Installation-Target-Type",
            "X-Hub-Signature-256")),

    /** Stripe: Stripe-Signature, keyed by the event id at /id (a retry re-signs the same event). */
    STRIPE("stripe", "stripe", null, "/id", List.of("Stripe-Signature")),

    /** Standard Webhooks v1 (also Svix): keyed by webhook-id. */
    STANDARD_WEBHOOKS("standard-webhooks", "standard-webhooks", "webhook-id", null,
            List.of("webhook-id", "webhook-timestamp", "webhook-signature")),

    /** Nothing preset: the source names its signature scheme and key. */
    GENERIC("generic", null, null, null, List.of());

    private final String id;
    private final String signature;
    private final String keyHeader;
    private final String keyPointer;
    private final List<String> headers;

    Preset(String id, String signature, String keyHeader, String keyPointer, List<String> headers) {
        this.id = id;
        this.signature = signature;
        this.keyHeader = keyHeader;
        this.keyPointer = keyPointer;
        this.headers = headers;
    }

    /** @return the preset with this configuration name, or null */
    public static Preset byId(String id) {
        for (Preset p : values()) {
            if (p.id.equals(id)) {
                return p;
            }
        }
        return null;
    }

    /** The configuration names, for error messages. */
    public static String ids() {
        return Arrays.stream(values()).map(p -> p.id).collect(Collectors.joining(", "));
    }

    /** The configuration name. */
    public String id() {
        return id;
    }

    /** The default signature scheme, or null (generic: must be configured). */
    public String signature() {
        return signature;
    }

    /** The default key header, or null. */
    public String keyHeader() {
        return keyHeader;
    }

    /** The default key JSON Pointer, or null. */
    public String keyPointer() {
        return keyPointer;
    }

    /** The headers kept by default. */
    public List<String> headers() {
        return headers;
    }
}
