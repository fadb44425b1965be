package dev.exactly.webhook;

import dev.exactly.webhook.signature.GitHubSignatureVerifier;
import dev.exactly.webhook.signature.GitLabTokenVerifier;
import dev.exactly.webhook.signature.HmacHeaderVerifier;
import dev.exactly.webhook.signature.LinearSignatureVerifier;
import dev.exactly.webhook.signature.NoSignature;
import dev.exactly.webhook.signature.PaddleSignatureVerifier;
import dev.exactly.webhook.signature.SignatureVerifier;
import dev.exactly.webhook.signature.SlackSignatureVerifier;
import dev.exactly.webhook.signature.SquareSignatureVerifier;
import dev.exactly.webhook.signature.StandardWebhooksVerifier;
import dev.exactly.webhook.signature.StripeSignatureVerifier;
import dev.exactly.webhook.signature.TwitchSignatureVerifier;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Builds a source's {@link SignatureVerifier} from its scheme name and settings, adding every
 * configuration error (naming its key) to a list instead of throwing.
 */
final class SignatureFactory {

    /** The schemes with a signed timestamp and their providers' default tolerance, in seconds. */
    private static final Map<String, Long> TOLERANCE = Map.of("stripe", 300L, "slack", 300L, "twitch", 600L,
            "linear", 60L, "paddle", 5L);

    /** Every scheme name accepted by the signature setting. */
    static final List<String> SCHEMES = List.of("github", "stripe", "standard-webhooks", "shopify", "slack", "gitlab",
            "twitch", "square", "linear", "paddle", "hmac-sha256", "none");

    private final Clock clock;

    /** @param clock the time source of timestamped schemes */
    SignatureFactory(Clock clock) {
        this.clock = clock;
    }

    /**
     * @param scheme   the configured or preset scheme, or null when neither names one
     * @param cfg      the source's settings
     * @param at       the source's key prefix, for messages
     * @param errors   receives configuration errors
     * @param problems marked disabled when the scheme needs a secret and none is set
     * @return the verifier, or null on an error or when disabled
     */
    SignatureVerifier build(String scheme, WebhooksConfig.Source cfg, String at, List<String> errors,
                            SourceFactory.Problems problems) {
        String all = String.join(", ", SCHEMES);
        if (scheme == null) {
            errors.add(at + "signature: the generic preset needs one of " + all);
            return null;
        }
        if (!SCHEMES.contains(scheme)) {
            errors.add(at + "signature: '" + scheme + "' is not one of " + all);
            return null;
        }
        if (scheme.equals("none")) {
            return new NoSignature();
        }
        long tolerance = tolerance(scheme, cfg, at, errors);
        HmacHeaderVerifier.Encoding encoding = hmacSettings(scheme, cfg, at, errors);
        Optional<String> secret = cfg.secret().filter(s -> !s.isBlank());
        // without a secret the source stays off, so its URL is not required yet
        Optional<String> url = scheme.equals("square") && secret.isPresent()
                ? notificationUrl(cfg, at, errors) : Optional.empty();
        if (secret.isEmpty()) {
            problems.disabled = true;
            return null;
        }
        if (!errors.isEmpty()) {
            return null;
        }
        String key = secret.get();
        switch (scheme) {
            case "github":
                return new GitHubSignatureVerifier(key);
            case "stripe":
                return new StripeSignatureVerifier(key, tolerance, clock);
            case "standard-webhooks":
                try {
                    return new StandardWebhooksVerifier(key, clock);
                } catch (IllegalArgumentException e) {
                    errors.add(at + "secret: a Standard Webhooks secret is whsec_ followed by base64");
                    return null;
                }
            case "shopify":
                return HmacHeaderVerifier.shopify(key);
            case "slack":
                return new SlackSignatureVerifier(key, tolerance, clock);
            case "gitlab":
                return new GitLabTokenVerifier(key);
            case "twitch":
                return new TwitchSignatureVerifier(key, tolerance, clock);
            case "square":
                return new SquareSignatureVerifier(key, url.get());
            case "linear":
                return new LinearSignatureVerifier(key, tolerance, clock);
            case "paddle":
                return new PaddleSignatureVerifier(key, tolerance, clock);
            default:
                return new HmacHeaderVerifier(key, cfg.signatureHeader().get(), cfg.signaturePrefix().orElse(""),
                        encoding);
        }
    }

    private static long tolerance(String scheme, WebhooksConfig.Source cfg, String at, List<String> errors) {
        Long def = TOLERANCE.get(scheme);
        if (cfg.toleranceSeconds().isEmpty()) {
            return def == null ? 0 : def;
        }
        long t = cfg.toleranceSeconds().getAsLong();
        if (def == null) {
            errors.add(at + "tolerance-seconds: applies only to stripe, slack, twitch, linear and paddle"
                    + (scheme.equals("standard-webhooks") ? " (the Standard Webhooks specification fixes 300 s)" : ""));
        } else if (t <= 0 || t > 86_400) {
            errors.add(at + "tolerance-seconds: must be between 1 and 86400");
        }
        return t;
    }

    private static HmacHeaderVerifier.Encoding hmacSettings(String scheme, WebhooksConfig.Source cfg, String at,
                                                            List<String> errors) {
        HmacHeaderVerifier.Encoding encoding = null;
        try {
            encoding = HmacHeaderVerifier.Encoding.valueOf(cfg.signatureEncoding().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            errors.add(at + "signature-encoding: '" + cfg.signatureEncoding() + "' is not hex or base64");
        }
        if (scheme.equals("hmac-sha256") && cfg.signatureHeader().isEmpty()) {
            errors.add(at + "signature-header: required by signature=hmac-sha256");
        }
        return encoding;
    }

    private static Optional<String> notificationUrl(WebhooksConfig.Source cfg, String at, List<String> errors) {
        Optional<String> url = cfg.notificationUrl().filter(u -> !u.isBlank());
        if (url.isEmpty()) {
            errors.add(at + "notification-url: required by signature=square (Square signs the URL with the body)");
            return url;
        }
        try {
            URI u = new URI(url.get());
            if (!u.isAbsolute() || u.getHost() == null) {
                errors.add(at + "notification-url: must be an absolute URL, as entered at Square");
            }
        } catch (URISyntaxException e) {
            errors.add(at + "notification-url: is not a URL: " + e.getReason());
        }
        return url;
    }
}
