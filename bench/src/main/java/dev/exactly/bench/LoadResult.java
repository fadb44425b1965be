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
 * @param micros          the latencies in microseconds (HdrHistogram), for merging runs
 */
public record LoadResult(long requests, long items, long duplicates, long errors, double seconds,
                         double p50Ms, double p99Ms, double p999Ms, double maxMs, String firstError, Histogram micros) {

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
                micros.getValueAtPercentile(99.9) / 1000.0, micros.getMaxValue() / 1000.0, firstError, micros);
    }

    /**
     * Several runs of the same cell as one: counts and measured seconds added, latency
     * histograms merged, so msgs/s is the mean over the runs' measured periods.
     */
    public static LoadResult merge(java.util.List<LoadResult> runs) {
        Histogram all = new Histogram(3_600_000_000L, 3);
        long req = 0;
        long items = 0;
        long dups = 0;
        long errors = 0;
        double secs = 0;
        String first = null;
        for (LoadResult r : runs) {
            all.add(r.micros());
            req += r.requests();
            items += r.items();
            dups += r.duplicates();
            errors += r.errors();
            secs += r.seconds();
            first = first != null ? first : r.firstError();
        }
        return of(req, items, dups, errors, secs, all, first);
    }
}
