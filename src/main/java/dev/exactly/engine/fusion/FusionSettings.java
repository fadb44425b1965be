package dev.exactly.engine.fusion;

import java.time.Duration;

/**
 * Tunables of {@link FusingWriter}.
 *
 * @param lingerNanos how long an idle partition waits for more pushes before flushing, in
 *                    nanoseconds (0 = flush at once; arrivals during a flush still fuse)
 * @param maxItems    a flush is sent as soon as this many items are pending (flush on size)
 * @param maxBytes    a flush is sent as soon as this many payload bytes are pending
 */
public record FusionSettings(long lingerNanos, int maxItems, long maxBytes) {

    /**
     * @param linger   the linger
     * @param maxItems flush-on-size item count (at least 1)
     * @param maxBytes flush-on-size payload bytes (at least 1)
     * @return settings
     * @throws IllegalArgumentException for a negative linger or a non-positive size
     */
    public static FusionSettings of(Duration linger, int maxItems, long maxBytes) {
        if (linger.isNegative() || maxItems < 1 || maxBytes < 1) {
            throw new IllegalArgumentException("fusion: linger must be >= 0, max-items and max-bytes >= 1");
        }
        return new FusionSettings(linger.toNanos(), maxItems, maxBytes);
    }
}
