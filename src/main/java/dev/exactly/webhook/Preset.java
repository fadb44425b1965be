package dev.exactly.webhook;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A known provider's defaults: signature scheme, deduplication key, kept headers and
 * deduplication window. Each default can be overridden per source (see
 * {@link WebhooksConfig.Source}).
 *
 * <p>The window covers the provider's longest automatic retry or manual redelivery horizon, with
 * margin, as each provider documents it (named per constant below; docs/webhooks.md, "Presets",
 * lists them). The kept headers never include a header that carries the secret itself.
 */
public enum Preset {

    /**
     * GitHub: X-Hub-Signature-256, keyed by X-GitHub-Delivery (the same on a redelivery). GitHub
     * never retries by itself; an operator may redeliver deliveries of the past 3 days on
     * GitHub.com and 7 days on GitHub Enterprise Server (GitHub Docs, "Redelivering webhooks"):
     * window 8 days.
     */
    GITHUB("github", "github", "X-GitHub-Delivery", null, List.of("X-GitHub-Event", "X-GitHub-Delivery",
            "X-GitHub-Hook-ID", "X-GitHub-Hook-Installation-Target-ID", "X-GitHub-Hook-Installation-Target-Type",
            "X-Hub-Signature-256"), days(8)),

    /**
     * Stripe: Stripe-Signature, keyed by the event id at /id (a retry re-signs the same event).
     * Live-mode events are retried for up to three days (Stripe Docs, "Receive Stripe events in
     * your webhook endpoint", retry behaviour): window 4 days. Timestamp tolerance 300 s, past only.
     */
    STRIPE("stripe", "stripe", null, "/id", List.of("Stripe-Signature"), days(4)),

    /**
     * Standard Webhooks v1 (also Svix, whose svix-* header names are accepted as aliases): keyed by
     * webhook-id. Svix's schedule ends about 27.6 hours after the first attempt (Svix Docs, "Retry
     * Schedule"): window 2 days. Timestamp tolerance 300 s either way, fixed by the specification.
     */
    STANDARD_WEBHOOKS("standard-webhooks", "standard-webhooks", "webhook-id", null,
            List.of("webhook-id", "webhook-timestamp", "webhook-signature", "svix-id", "svix-timestamp",
                    "svix-signature"), days(2)),

    /**
     * Shopify: X-Shopify-Hmac-Sha256 (base64 HMAC-SHA256 of the body), keyed by
     * X-Shopify-Webhook-Id (the same on every retry). Retried 8 times over 4 hours (Shopify
     * developer changelog, "Updates to webhook retry mechanism", 2024-09): window 1 day.
     */
    SHOPIFY("shopify", "shopify", "X-Shopify-Webhook-Id", null, List.of("X-Shopify-Topic", "X-Shopify-Shop-Domain",
            "X-Shopify-Webhook-Id", "X-Shopify-Event-Id", "X-Shopify-Triggered-At", "X-Shopify-API-Version",
            "X-Shopify-Hmac-Sha256"), days(1)),

    /**
     * Slack Events API: X-Slack-Signature v0 over "v0:" + X-Slack-Request-Timestamp + ":" + body,
     * keyed by the event id at /event_id. A failed event is retried 3 times, the last about 5
     * minutes after the first attempt (Slack API docs, "Events API", retries): window 1 hour.
     * Timestamp tolerance 300 s either way (Slack, "Verifying requests from Slack").
     */
    SLACK("slack", "slack", null, "/event_id", List.of("X-Slack-Signature", "X-Slack-Request-Timestamp",
            "X-Slack-Retry-Num", "X-Slack-Retry-Reason"), 3600),

    /**
     * GitLab: X-Gitlab-Token (the secret itself, compared in constant time and never stored),
     * keyed by Idempotency-Key (the same on automatic retries and on a resend from the webhook's
     * request history; GitLab Docs, "Webhooks", delivery headers). An operator may resend any event
     * of the webhook's history, which covers the past 7 days (GitLab Docs, "Webhooks" and the
     * webhook events API): window 8 days.
     */
    GITLAB("gitlab", "gitlab", "Idempotency-Key", null, List.of("X-Gitlab-Event", "X-Gitlab-Event-UUID",
            "X-Gitlab-Webhook-UUID", "X-Gitlab-Instance", "Idempotency-Key"), days(8)),

    /**
     * Twitch EventSub: Twitch-Eventsub-Message-Signature, sha256= hex HMAC-SHA256 over message id
     * + timestamp + body, keyed by Twitch-Eventsub-Message-Id (the same when Twitch resends).
     * Messages older than 10 minutes are refused (Twitch Developers, "Handling webhook events").
     * Twitch publishes no retry schedule: window 1 day.
     */
    TWITCH("twitch", "twitch", "Twitch-Eventsub-Message-Id", null, List.of("Twitch-Eventsub-Message-Id",
            "Twitch-Eventsub-Message-Retry", "Twitch-Eventsub-Message-Type", "Twitch-Eventsub-Message-Signature",
            "Twitch-Eventsub-Message-Timestamp", "Twitch-Eventsub-Subscription-Type",
            "Twitch-Eventsub-Subscription-Version"), days(1)),

    /**
     * Square: x-square-hmacsha256-signature, base64 HMAC-SHA256 over the notification URL + body
     * (the source's notification-url must be the URL configured at Square), keyed by /event_id.
     * Unsuccessful deliveries are retried for up to 72 hours (Square Developer docs, "Troubleshoot
     * webhooks"): window 4 days.
     */
    SQUARE("square", "square", null, "/event_id", List.of("x-square-hmacsha256-signature", "square-environment",
            "square-retry-number", "square-retry-reason", "square-initial-delivery-timestamp"), days(4)),

    /**
     * Linear: Linear-Signature, hex HMAC-SHA256 of the body, with the body's webhookTimestamp
     * (milliseconds) within 60 s of now either way (Linear Developers, "Webhooks", securing
     * webhooks), keyed by Linear-Delivery. Linear retries a failed delivery with backoff over
     * hours (Linear Developers, "Webhooks"): window 1 day.
     */
    LINEAR("linear", "linear", "Linear-Delivery", null, List.of("Linear-Delivery", "Linear-Event",
            "Linear-Signature"), days(1)),

    /**
     * Paddle Billing: Paddle-Signature ts=...;h1=..., hex HMAC-SHA256 over ts + ":" + body, keyed
     * by /event_id. Live-account notifications are retried up to 60 times over 3 days (Paddle
     * Developer, "Handle webhook delivery"): window 4 days. Timestamp tolerance 5 s, past only,
     * as Paddle's SDKs.
     */
    PADDLE("paddle", "paddle", null, "/event_id", List.of("Paddle-Signature"), days(4)),

    /** Nothing preset: the source names its signature scheme and key; the queue keeps its window. */
    GENERIC("generic", null, null, null, List.of(), null);

    private final String id;
    private final String signature;
    private final String keyHeader;
    private final String keyPointer;
    private final List<String> headers;
    private final Integer windowSeconds;

    Preset(String id, String signature, String keyHeader, String keyPointer, List<String> headers,
           Integer windowSeconds) {
        this.id = id;
        this.signature = signature;
        this.keyHeader = keyHeader;
        this.keyPointer = keyPointer;
        this.headers = headers;
        this.windowSeconds = windowSeconds;
    }

    private static int days(int d) {
        return d * 86_400;
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

    /**
     * Other names of the default key header, read when it is absent: Svix's svix-id for Standard
     * Webhooks' webhook-id.
     */
    public List<String> keyHeaderAliases() {
        return this == STANDARD_WEBHOOKS ? List.of("svix-id") : List.of();
    }

    /** The provider's endpoint-ownership challenge, or null when it has none. */
    public Handshake handshake() {
        return this == SLACK ? Handshake.SLACK : this == TWITCH ? Handshake.TWITCH : null;
    }

    /** The default key JSON Pointer, or null. */
    public String keyPointer() {
        return keyPointer;
    }

    /** The headers kept by default. */
    public List<String> headers() {
        return headers;
    }

    /** The default deduplication window of the source's queue, in seconds, or null (generic). */
    public Integer windowSeconds() {
        return windowSeconds;
    }
}
