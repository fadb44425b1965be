package dev.exactly.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * This instance's count of the duplicates it answered, per queue and minute, kept in memory until
 * it is drained to the database (sql/V19__duplicate_counts.sql). A duplicate answer writes nothing
 * in the database (the lock-free first look answers from a read-only transaction), so the count is
 * taken here, after the verdicts, and written later by a separate transaction.
 *
 * <p>Thread-safe: {@link #record} merges into one map entry per (queue, minute) atomically
 * ({@link ConcurrentHashMap#merge}), and {@link #drain} removes each entry atomically, so a count
 * recorded while a drain runs lands either in that drain or in the next one, never in neither.
 * Bounded: at most {@link #MAX_BUCKETS} entries (queues × minutes not drained yet); counts that
 * would need another entry are dropped and counted by {@link #dropped()}, which keeps the stored
 * figure a lower bound.
 */
public final class DuplicateTally {

    /** Length of one bucket, in seconds: the duplicates of one queue in one minute share a count. */
    public static final int BUCKET_SECONDS = 60;

    /** Most (queue, minute) entries held between drains. */
    public static final int MAX_BUCKETS = 100_000;

    /**
     * One count.
     *
     * @param queue       queue name
     * @param bucketStart start of its minute, in seconds since the epoch (a multiple of {@link #BUCKET_SECONDS})
     * @param duplicates  duplicates answered in it (positive)
     */
    public record Count(String queue, long bucketStart, long duplicates) {
    }

    private record Key(String queue, long bucketStart) {
    }

    private final ConcurrentHashMap<Key, Long> counts = new ConcurrentHashMap<>();
    private final LongSupplier epochMillis;
    private final AtomicLong dropped = new AtomicLong();

    /** A tally on the system clock. */
    public DuplicateTally() {
        this(System::currentTimeMillis);
    }

    /** @param epochMillis the clock that places a duplicate in its minute (milliseconds since the epoch) */
    public DuplicateTally(LongSupplier epochMillis) {
        this.epochMillis = epochMillis;
    }

    /**
     * Counts {@code n} duplicates answered now in {@code queue}.
     *
     * @param queue queue name
     * @param n     how many (nothing is recorded for 0 or less)
     */
    public void record(String queue, long n) {
        if (n <= 0) {
            return;
        }
        long second = Math.floorDiv(epochMillis.getAsLong(), 1000L);
        add(new Key(queue, second - Math.floorMod(second, BUCKET_SECONDS)), n);
    }

    /** Counts every duplicate among a request's verdicts, by queue. */
    void record(List<PushVerdict> verdicts) {
        String queue = null;
        long n = 0;
        for (PushVerdict v : verdicts) {
            if (v.status() != PushStatus.DUPLICATE) {
                continue;
            }
            if (!v.queue().equals(queue)) {
                record(queue, n);
                queue = v.queue();
                n = 0;
            }
            n++;
        }
        record(queue, n);
    }

    private void add(Key key, long n) {
        if (counts.size() >= MAX_BUCKETS && !counts.containsKey(key)) {
            dropped.addAndGet(n);
            return;
        }
        counts.merge(key, n, Long::sum);
    }

    /**
     * Removes and returns every count recorded so far.
     *
     * @return the counts, in no particular order (empty when there are none)
     */
    public List<Count> drain() {
        List<Count> out = new ArrayList<>(counts.size());
        for (Key key : counts.keySet()) {
            Long n = counts.remove(key);
            if (n != null) {
                out.add(new Count(key.queue(), key.bucketStart(), n));
            }
        }
        return out;
    }

    /**
     * Puts drained counts back (their write failed), adding them to whatever was recorded since.
     *
     * @param drained what {@link #drain} returned
     */
    public void restore(List<Count> drained) {
        for (Count c : drained) {
            add(new Key(c.queue(), c.bucketStart()), c.duplicates());
        }
    }

    /** @return true when nothing waits to be drained */
    public boolean isEmpty() {
        return counts.isEmpty();
    }

    /** @return duplicates not counted because {@link #MAX_BUCKETS} entries were held, since start */
    public long dropped() {
        return dropped.get();
    }
}
