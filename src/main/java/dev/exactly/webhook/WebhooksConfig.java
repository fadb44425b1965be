package dev.exactly.webhook;

import dev.exactly.naming.Name;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Webhook sources, under {@code exactly.webhooks.sources.<name>.*} (SmallRye Config). Each named
 * source answers POST /webhooks/{name}. A preset fills in the signature scheme, the
 * deduplication key and the kept headers of a known provider; every setting below overrides it.
 * Validated at start-up, each value by its constraints here and the settings of a source together
 * by {@link SourceFactory}: a wrong setting stops the service with a message naming the key.
 */
@ConfigMapping(prefix = "exactly.webhooks")
public interface WebhooksConfig {

    /** The sources by name (the {source} path segment): 1 to 255 characters of [A-Za-z0-9._:-]. */
    Map<String, Source> sources();

    /** One webhook source. */
    interface Source {

        /**
         * github, stripe, standard-webhooks, shopify, slack, gitlab, twitch, square, linear, paddle
         * or generic (no defaults: say everything). See {@link Preset}.
         */
        @WithDefault("generic")
        String preset();

        /**
         * The signing secret. Standard Webhooks: whsec_ followed by the base64 key; GitLab: the
         * secret token; Square: the subscription's signature key; every other scheme: the secret
         * as the provider shows it, used as text (its UTF-8 bytes are the HMAC key). Empty or
         * absent: the source is disabled (it answers 404) unless the signature scheme is none.
         */
        Optional<String> secret();

        /**
         * Overrides the preset's signature scheme: one of the presets' schemes (github, stripe,
         * standard-webhooks, shopify, slack, gitlab, twitch, square, linear, paddle), hmac-sha256
         * (an HMAC of the body in {@link #signatureHeader()}) or none (no verification: anyone
         * who can reach the route can write).
         */
        Optional<String> signature();

        /** hmac-sha256 only: the header carrying the signature, e.g. X-Shopify-Hmac-Sha256. */
        Optional<String> signatureHeader();

        /** hmac-sha256 only: a prefix before the encoded digest, e.g. "sha256=". */
        Optional<String> signaturePrefix();

        /** hmac-sha256 only: how the digest is encoded, hex or base64. */
        @WithDefault("hex")
        String signatureEncoding();

        /**
         * Timestamped schemes only: how far the signed timestamp may be from now, in seconds.
         * Defaults as each provider's library: stripe 300, slack 300, twitch 600, linear 60,
         * paddle 5. Not settable for standard-webhooks (the specification fixes 300).
         */
        OptionalLong toleranceSeconds();

        /**
         * square only: the notification URL exactly as entered in the Square subscription (Square
         * signs it with the body), e.g. https://hooks.example.com/webhooks/square. Required.
         */
        Optional<String> notificationUrl();

        /**
         * The deduplication window of the source's queue, in seconds; default the preset's (its
         * provider's longest retry or redelivery horizon, with margin). Applied to the queue when
         * the source's first delivery creates it, and to an existing queue whose window is still
         * the queue default (3600) or the preset's; a window an operator set through the queue
         * API is never overridden (a warning is logged instead). 0 turns the probe off.
         */
        @Min(0)
        @Max(Integer.MAX_VALUE)
        OptionalLong windowSeconds();

        /** The queue deliveries are pushed to; default {@code webhooks.<name>}. */
        Optional<String> queue();

        /** Where in the queue a delivery goes. */
        Partition partition();

        /** The deduplication key (the transactionId of the stored message). */
        Key key();

        /**
         * The request headers stored with each message (names, case-insensitive; stored
         * lower-case). Replaces the preset's list, which keeps the provider's id, event and
         * signature headers so that a consumer can verify the signature again.
         */
        Optional<List<String>> headers();

        /** Largest body in bytes; more is a 413. Default and upper bound: exactly.push.max-body-bytes. */
        @Min(1)
        OptionalLong maxBodyBytes();
    }

    /** The partition of a source's deliveries: a fixed name, or a header, or a JSON Pointer into the body. */
    interface Partition {

        /** The fixed partition name, used when neither header nor pointer is set. */
        @WithDefault("Default")
        @Name
        String name();

        /** Take the partition from this request header (missing header: 400). */
        Optional<String> header();

        /** Take the partition from this JSON Pointer (RFC 6901) into the body (missing: 400). */
        Optional<String> pointer();
    }

    /**
     * The deduplication key: exactly one of header, pointer or content-hash. Setting any of them
     * replaces the preset's key.
     */
    interface Key {

        /** The key is this request header's value, e.g. X-GitHub-Delivery, webhook-id, X-Shopify-Webhook-Id. */
        Optional<String> header();

        /** The key is the string or number at this JSON Pointer (RFC 6901) into the body, e.g. /id. */
        Optional<String> pointer();

        /**
         * The key is "sha256:" + hex SHA-256 of the body's RFC 8785 canonical form, after
         * {@link #exclude()} and {@link #include()} are applied.
         */
        @WithDefault("false")
        boolean contentHash();

        /** content-hash: hash only the values at these JSON Pointers (default: the whole body). */
        Optional<List<String>> include();

        /** content-hash: leave out the values at these JSON Pointers (volatile fields such as a send time). */
        Optional<List<String>> exclude();
    }
}
