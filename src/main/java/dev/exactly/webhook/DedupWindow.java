package dev.exactly.webhook;

import dev.exactly.queue.QueueOption;
import java.util.List;

/**
 * The deduplication window a source wants on its queue, and which stored windows it may replace
 * without overriding an operator: the queue default (3600 s, which a queue created by a plain
 * push holds) and the preset's window (which Exactly itself may have applied earlier). Any other
 * stored value was set through the queue API and is kept.
 *
 * @param seconds     the wanted window, in seconds (0 turns the probe off)
 * @param replaceable stored windows that may be replaced by {@code seconds}
 * @param explicit    true when window-seconds is set on the source, false for the preset's default
 */
public record DedupWindow(int seconds, List<Integer> replaceable, boolean explicit) {

    /** The preset's default window. */
    static DedupWindow preset(int seconds) {
        return new DedupWindow(seconds, List.of(QueueOption.DEDUP_WINDOW_SECONDS.defaultValue(), seconds), false);
    }

    /** A window set on the source; {@code presetSeconds} may be null (generic). */
    static DedupWindow explicit(int seconds, Integer presetSeconds) {
        int def = QueueOption.DEDUP_WINDOW_SECONDS.defaultValue();
        return new DedupWindow(seconds, presetSeconds == null ? List.of(def) : List.of(def, presetSeconds), true);
    }

    /**
     * The rule, for a stored window.
     *
     * @param stored the queue's current window, in seconds
     * @return true when the stored window is to become {@link #seconds()}
     */
    public boolean replaces(int stored) {
        return stored != seconds && replaceable.contains(stored);
    }
}
