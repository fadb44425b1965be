package dev.exactly.engine;

/**
 * What a warm cache vouches for one segment: "none of these hashes occurs at or below
 * {@code verified} among the rows a window of {@code windowSeconds} covers". The store narrows its
 * probe to offsets above {@code verified}, and only while the queue's current window is at most
 * {@code windowSeconds} (otherwise it probes the whole window: the vouch was made for a smaller
 * window). {@link #PROBE_ALL} (-1) is always sound.
 *
 * @param verified      the vouched offset watermark, or -1 to probe the whole window
 * @param windowSeconds the deduplication window, in seconds, the vouch was made under
 */
public record ProbeBound(long verified, int windowSeconds) {

    /** Cannot vouch: the store probes the whole window. */
    public static final ProbeBound PROBE_ALL = new ProbeBound(-1L, 0);

    /** @return true when this bound narrows the probe (verified &gt;= 0) */
    public boolean narrows() {
        return verified >= 0;
    }
}
