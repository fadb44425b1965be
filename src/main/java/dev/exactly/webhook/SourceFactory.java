package dev.exactly.webhook;

import dev.exactly.naming.Names;
import dev.exactly.webhook.key.ContentHashKey;
import dev.exactly.webhook.key.DeliveryField;
import dev.exactly.webhook.key.FieldKey;
import dev.exactly.webhook.key.HeaderField;
import dev.exactly.webhook.key.KeyExtractor;
import dev.exactly.webhook.key.PartitionSelector;
import dev.exactly.webhook.key.PointerField;
import dev.exactly.webhook.signature.SignatureVerifier;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns one source's configuration and its preset into a {@link WebhookSource}, collecting every
 * error of the settings taken together (each naming its key) instead of stopping at the first; each
 * value's own range is checked before, by {@link WebhooksConfig}'s constraints.
 */
public final class SourceFactory {

    private static final String PREFIX = "exactly.webhooks.sources.";

    private final long defaultMaxBodyBytes;
    private final SignatureFactory signatures;

    /**
     * @param defaultMaxBodyBytes the body limit of sources that set none (exactly.push.max-body-bytes)
     * @param clock               the time source of timestamped signature schemes
     */
    public SourceFactory(long defaultMaxBodyBytes, Clock clock) {
        this.defaultMaxBodyBytes = defaultMaxBodyBytes;
        this.signatures = new SignatureFactory(clock);
    }

    /** Why a source is not built: configuration errors, or disabled for want of a secret. */
    public static final class Problems {
        final List<String> errors = new ArrayList<>();
        boolean disabled;

        /** The configuration errors, each naming its key. */
        public List<String> errors() {
            return errors;
        }

        /** True when the source is well-formed but has no secret, so it stays off. */
        public boolean disabled() {
            return disabled;
        }
    }

    /**
     * @param name     the source's name
     * @param cfg      its configuration
     * @param problems receives the errors, or the disabled mark
     * @return the source, or null when it has errors or is disabled
     */
    public WebhookSource build(String name, WebhooksConfig.Source cfg, Problems problems) {
        List<String> errors = problems.errors;
        String at = PREFIX + name + ".";
        if (Names.checkName(name) != null) {
            errors.add("source name '" + name + "' " + Names.checkName(name));
        }
        Preset preset = Preset.byId(cfg.preset());
        if (preset == null) {
            errors.add(at + "preset: '" + cfg.preset() + "' is not one of " + Preset.ids());
            return null;
        }
        String queue = cfg.queue().orElse("webhooks." + name);
        check(errors, at + "queue", Names.checkName(queue));
        PartitionSelector partition = partition(cfg.partition(), at, errors);
        KeyExtractor key = key(preset, cfg.key(), at, errors);
        List<String> kept = cfg.headers().orElse(preset.headers()).stream()
                .map(h -> h.trim().toLowerCase(Locale.ROOT)).filter(h -> !h.isEmpty()).distinct().toList();
        long maxBody = cfg.maxBodyBytes().orElse(defaultMaxBodyBytes);
        if (maxBody > defaultMaxBodyBytes) {
            errors.add(at + "max-body-bytes: must be at most exactly.push.max-body-bytes (" + defaultMaxBodyBytes
                    + "), which the HTTP layer enforces first");
        }
        DedupWindow window = window(preset, cfg);
        SignatureVerifier signature = signatures.build(cfg.signature().orElse(preset.signature()), cfg, at, errors,
                problems);
        if (!errors.isEmpty() || signature == null) {
            return null;
        }
        // a preset's handshake only under its own scheme (a Slack preset re-pointed at another scheme has none)
        Handshake handshake = preset.handshake() != null && signature.scheme().equals(preset.signature())
                ? preset.handshake() : null;
        return new WebhookSource(name, queue, partition, key, signature, kept, maxBody, window, handshake);
    }

    private static PartitionSelector partition(WebhooksConfig.Partition p, String at, List<String> errors) {
        if (p.header().isPresent() && p.pointer().isPresent()) {
            errors.add(at + "partition: set header or pointer, not both");
            return null;
        }
        DeliveryField f = field(p.header(), p.pointer(), at + "partition.pointer", errors);
        if (f != null) {
            return PartitionSelector.from(f);
        }
        return PartitionSelector.fixed(p.name());
    }

    private static KeyExtractor key(Preset preset, WebhooksConfig.Key k, String at, List<String> errors) {
        int set = (k.header().isPresent() ? 1 : 0) + (k.pointer().isPresent() ? 1 : 0) + (k.contentHash() ? 1 : 0);
        boolean hashOptions = k.include().isPresent() || k.exclude().isPresent();
        if (hashOptions && !k.contentHash()) {
            errors.add(at + "key.include / key.exclude: only apply with key.content-hash=true");
        }
        if (set > 1) {
            errors.add(at + "key: set exactly one of header, pointer or content-hash");
            return null;
        }
        if (k.contentHash()) {
            try {
                return new ContentHashKey(k.include().orElse(List.of()), k.exclude().orElse(List.of()));
            } catch (IllegalArgumentException e) {
                errors.add(at + "key.include / key.exclude: " + e.getMessage());
                return null;
            }
        }
        Optional<String> header = set == 1 ? k.header() : Optional.ofNullable(preset.keyHeader());
        Optional<String> pointer = set == 1 ? k.pointer() : Optional.ofNullable(preset.keyPointer());
        if (header.isEmpty() && pointer.isEmpty()) {
            errors.add(at + "key: the " + preset.id() + " preset has no key; set key.header, key.pointer or key.content-hash");
            return null;
        }
        if (set == 0 && header.isPresent()) {
            return new FieldKey(new HeaderField(header.get(), preset.keyHeaderAliases()));
        }
        // a bad key.pointer is reported by field() under its own key, and only there
        DeliveryField f = field(header, pointer, at + "key.pointer", errors);
        return f == null ? null : new FieldKey(f);
    }

    private static DeliveryField field(Optional<String> header, Optional<String> pointer, String pointerKey,
                                       List<String> errors) {
        if (header.isPresent()) {
            return new HeaderField(header.get().trim());
        }
        if (pointer.isPresent()) {
            try {
                return new PointerField(pointer.get().trim());
            } catch (IllegalArgumentException e) {
                errors.add(pointerKey + ": " + e.getMessage());
            }
        }
        return null;
    }

    private static DedupWindow window(Preset preset, WebhooksConfig.Source cfg) {
        if (cfg.windowSeconds().isPresent()) {
            return DedupWindow.explicit((int) cfg.windowSeconds().getAsLong(), preset.windowSeconds());
        }
        return preset.windowSeconds() == null ? null : DedupWindow.preset(preset.windowSeconds());
    }

    private static void check(List<String> errors, String key, String reason) {
        if (reason != null) {
            errors.add(key + ": " + reason);
        }
    }
}
