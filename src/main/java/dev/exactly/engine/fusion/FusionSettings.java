package dev.exactly.engine.fusion;

import java.time.Duration;

/**
 * Tunables of {@link FusingWriter}.
 *
 * @param lingerNanos how long an idle partition waits for more pushes before flushing, in
 *                    nanoseconds (0 = flush at once; arrivals during a flush still fuse)
 * @param maxItems    a flush is sent as soon as this many items are pending (flush on size)
 * @param maxBytes    a flush is sent as soon as this many payload bytes are pending
 * @param pipeline    flushes of one partition in flight at once (1 = strictly one after another;
 *                    2 = the next flush waits for the partition's row lock at the database while
 *                    the one ahead holds it); each holds a pooled connection
 */
public record FusionSettings(long lingerNanos, int maxItems, long maxBytes, int pipeline) {

    /**
     * @param linger   the linger
     * @param maxItems flush-on-size item count (at least 1)
     * @param maxBytes flush-on-size payload bytes (at least 1)
     * @param pipeline flushes per partition in flight at once (at least 1)
     * @return settings
     * @throws IllegalArgumentException for a negative linger or a non-positive size or depth
     */
    public static FusionSettings of(Duration linger, int maxItems, long maxBytes, int pipeline) {
        if (linger.isNegative() || maxItems < 1 || maxBytes < 1 || pipeline < 1) {
            throw new IllegalArgumentException("fusion: linger must be >= 0, max-items, max-bytes and pipeline >= 1");
        }
        return new FusionSettings(linger.toNanos(), maxItems, maxBytes, pipeline);
    }
}
