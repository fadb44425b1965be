package dev.exactly.bench;

import org.HdrHistogram.Histogram;

/**
 * What one load run measured, over its measurement period only (warm-up excluded).
 *
 * @param requests        requests answered with success
 * @param items           items in those requests
 * @param duplicates      items answered "duplicate"
 * @param errors          requests that failed (non-2xx or transport error)
 * @param seconds         length of the measurement period, in seconds
 * @param p50Ms           median request latency, milliseconds
 * @param p99Ms           99th percentile, milliseconds
 * @param p999Ms          99.9th percentile, milliseconds
 * @param maxMs           largest latency seen, milliseconds
 * @param firstError      the first failure's description, or null
 */
public record LoadResult(long requests, long items, long duplicates, long errors, double seconds,
                         double p50Ms, double p99Ms, double p999Ms, double maxMs, String firstError) {

    /** Items per second. */
    public double msgsPerSecond() {
        return seconds > 0 ? items / seconds : 0;
    }

    /** Requests per second. */
    public double requestsPerSecond() {
        return seconds > 0 ? requests / seconds : 0;
    }

    /** Fraction of items answered "duplicate". */
    public double duplicateFraction() {
        return items > 0 ? (double) duplicates / items : 0;
    }

    static LoadResult of(long requests, long items, long duplicates, long errors, double seconds, Histogram micros,
                         String firstError) {
        return new LoadResult(requests, items, duplicates, errors, seconds,
                micros.getValueAtPercentile(50) / 1000.0, micros.getValueAtPercentile(99) / 1000.0,
                micros.getValueAtPercentile(99.9) / 1000.0, micros.getMaxValue() / 1000.0, firstError);
    }
}
