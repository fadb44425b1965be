package dev.exactly.engine.cache;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The {@link ResidentHashes} of one partition stored as a time-ordered list of immutable sorted
 * runs, plus one mutable arrival-order hot buffer.
 *
 * <p>A hash is stored as two longs (high 64 bits, then low 64 bits, as {@link
 * dev.exactly.engine.TransactionHash} lays out its bytes big-endian), ordered as {@link PairSort}
 * orders pairs. The hot buffer grows by doubling from {@value #FIRST_HOT_HASHES} hashes and is
 * sealed the instant it holds {@value #BLOCK_HASHES}: it is sorted in place and handed over without
 * a copy as a run of level 0 (a block). There is no per-hash map and no refcount: a hash lives
 * independently in every run that holds it.
 *
 * <p><b>Tiered merging</b> (the idea of log-structured merge trees with tiered compaction, applied to
 * a time-ordered list). After each seal and each {@link #append}, any {@value #FAN_IN} adjacent runs
 * of the same level {@code L < }{@value #MAX_LEVEL} are merged, in place in the time order, into
 * one run of level {@code L + 1}: a linear k-way merge of sorted pairs that keeps duplicates, the
 * newest time and the highest offset. A run therefore holds at most {@value #MAX_RUN_HASHES} hashes
 * (level 2: 16 blocks), each hash is copied at most {@value #MAX_LEVEL} times (amortised O(1)
 * copies per hash, plus an O(runs) scan per seal), and the largest merge, 65,536 hashes, is a
 * ~1 MiB linear pass on the caller's thread at seal time. A merge is made only when the merged run
 * would hold at most 1/{@value #RESIDENCY_RATIO} of the list's hashes, so a small list (under
 * 131,072 hashes) is never merged and keeps its blocks as before. The number of runs is then at most
 * about {@code hashes / 65,536 + 2 * (FAN_IN - 1) + 1}, or 32 blocks plus a few runs for a list too
 * small to merge: O(log n) up to the cap, linear beyond it with a slope 16 times smaller than
 * blocks alone (16 runs at 1,000,000 hashes instead of 244).
 *
 * <p>Each run is stored in chunks of at most {@value #CHUNK_HASHES} hashes ({@code long[32768]},
 * 256 KiB), so the largest single allocation is 256 KiB whatever the run size: below G1's humongous
 * threshold (half a region, and regions are at least 1 MiB) for every heap size, so runs never
 * fragment the heap as humongous objects. Each run carries a fence index sized to it: {@code
 * log2(count) - 2} bits of a hash's high half (about four hashes per bucket), an {@code int[]} of
 * bucket starts, about 1 byte per hash; accounting stays about 17 bytes per hash.
 *
 * <p>Membership is one fenced binary search per run (about two cache misses each) and a linear
 * scan of the hot buffer. A batch lookup ({@link #containsAny}) visits each run once, newest
 * first, in three passes over the probed hashes: it reads every probe's fence bucket start, then
 * the first pair of every probe's bucket, then searches each bucket (a short forward scan, a
 * binary search of the rest only in a crowded bucket). The first two passes are plain loads with
 * no branch on the data, so the processor has many cache misses in flight at once instead of
 * about two in a row per probe; the third then finds its pairs in cache, and skips a bucket whose
 * first pair is already above the probe. The hot buffer is unsorted: a batch of a few hashes
 * scans it once per hash, a larger one reads it once against a small hash table of the probes.
 * Expiry ({@link #expireBefore}) drops whole runs from the front only when the newest hash of the
 * run is older than the cutoff, so the resident set is always a superset of the hashes younger
 * than the cutoff. Extra residency: with a monotone clock, only the oldest remaining run can hold
 * hashes older than the cutoff, so fewer than {@value #MAX_RUN_HASHES} stale hashes stay resident,
 * and fewer than {@value #BLOCK_HASHES} for a list never large enough to merge (as before merging
 * existed); in general fewer than the size of the front run, which was at most 1/{@value
 * #RESIDENCY_RATIO} of the list when it was built.
 *
 * <p>Why runs and not a hash map: a hash lives independently in every run that holds it, so a
 * hash stored twice in the window stays known until its youngest run expires, with no reference
 * count; and run-granular expiry only ever drops runs that are wholly older than the cutoff, so
 * the resident set is a superset of the window's hashes. This block model is the one the Queen
 * message queue's documentation describes for its broker's dedup cache ("Deduplication", section
 * "How the hashes are stored"); the tiered merging is the tiered compaction of log-structured
 * merge trees (O'Neil et al., "The Log-Structured Merge-Tree", Acta Informatica, 1996).
 *
 * <p>Not thread-safe: the owner (a partition entry of {@link WarmDedupCache}) guards it.
 */
public final class SortedRuns implements ResidentHashes {

    /** Hashes per sealed block (a power of two, so sealing is a no-copy hand-off). */
    public static final int BLOCK_HASHES = 4096;

    /** Initial capacity of the hot buffer, in hashes. */
    public static final int FIRST_HOT_HASHES = 16;

    /** Adjacent runs of one level merged into one run of the next level. */
    public static final int FAN_IN = 4;

    /** Highest level a merge produces (level 0 is a block of {@value #BLOCK_HASHES} hashes). */
    public static final int MAX_LEVEL = 2;

    /** Most hashes in one run: {@code BLOCK_HASHES * FAN_IN^MAX_LEVEL} (1 MiB of pairs). */
    public static final int MAX_RUN_HASHES = BLOCK_HASHES * FAN_IN * FAN_IN;

    /** A merge is made only when the list holds at least this many times the merged run's hashes. */
    public static final int RESIDENCY_RATIO = 8;

    /** log2 of the hashes per storage chunk of a run. */
    static final int CHUNK_SHIFT = 14;

    /** Hashes per storage chunk of a run ({@code long[32768]}, 256 KiB): the largest array. */
    public static final int CHUNK_HASHES = 1 << CHUNK_SHIFT;

    private static final int CHUNK_MASK = CHUNK_HASHES - 1;

    /** Accounted bytes of a Java array header. */
    static final long ARRAY_HEADER_BYTES = 16;

    /**
     * Accounted bytes of one run besides its pairs and index: the Run object and its slot in the
     * list (56), and its chunk table (a header and 8 bytes per chunk, counted separately).
     */
    static final long BLOCK_OVERHEAD_BYTES = 48 + 8;

    /** Bits of a hash's high half that a full block's fence index resolves. */
    static final int INDEX_BITS = indexBits(BLOCK_HASHES);

    /** Accounted bytes of a full block: 65,536 bytes of hashes, its index, overheads. */
    public static final long FULL_BLOCK_BYTES = ARRAY_HEADER_BYTES + 16L * BLOCK_HASHES
            + ARRAY_HEADER_BYTES + 4L * ((1 << INDEX_BITS) + 1)
            + BLOCK_OVERHEAD_BYTES + ARRAY_HEADER_BYTES + 8;

    /** Fence index bits for a run of {@code count} hashes: about four hashes per bucket, at least 1. */
    static int indexBits(int count) {
        return Math.max(1, 31 - Integer.numberOfLeadingZeros(Math.max(1, count)) - 2);
    }

    /** The top {@code bits} bits of a high half, in the pairs' signed order: 0 .. 2^bits - 1. */
    static int bucket(long hi, int bits) {
        return (int) (hi >> (64 - bits)) + (1 << (bits - 1));
    }

    /**
     * Pairs a batch lookup scans forward in a fence bucket before it binary-searches the bucket's
     * rest: a bucket holds four to eight pairs on average, so the scan almost always ends first.
     */
    static final int SCAN_STEPS = 8;

    /** An immutable sorted run, stored in chunks, with its fence index. */
    private static final class Run {
        final long[][] chunks;
        final int count;
        final int level;
        final int bits;
        final int[] starts;
        final long maxTime;
        final long maxOffset;

        Run(long[][] chunks, int count, int level, long maxTime, long maxOffset) {
            this.chunks = chunks;
            this.count = count;
            this.level = level;
            this.maxTime = maxTime;
            this.maxOffset = maxOffset;
            this.bits = indexBits(count);
            // starts[b] = first position whose bucket is >= b (pairs are sorted, so buckets ascend)
            int buckets = 1 << bits;
            int[] st = new int[buckets + 1];
            int j = 0;
            for (int b = 0; b <= buckets; b++) {
                while (j < count && bucket(hi(j), bits) < b) {
                    j++;
                }
                st[b] = j;
            }
            this.starts = st;
        }

        long hi(int pos) {
            return chunks[pos >>> CHUNK_SHIFT][(pos & CHUNK_MASK) << 1];
        }

        long lo(int pos) {
            return chunks[pos >>> CHUNK_SHIFT][((pos & CHUNK_MASK) << 1) + 1];
        }

        /** The fenced bucket's positions, searched chunk by chunk (a bucket rarely spans two). */
        boolean contains(long hi, long lo) {
            int b = bucket(hi, bits);
            int from = starts[b];
            int to = starts[b + 1];
            while (from < to) {
                int chunk = from >>> CHUNK_SHIFT;
                int base = chunk << CHUNK_SHIFT;
                int end = Math.min(to, base + CHUNK_HASHES);
                if (PairSort.search(chunks[chunk], from - base, end - base, hi, lo)) {
                    return true;
                }
                from = end;
            }
            return false;
        }

        /**
         * True when one of the first {@code n} probed pairs is in this run. Three passes (see the
         * class doc): every probe's bucket start into {@code at}, the high half of the pair there
         * into {@code first}, then the search of each bucket: a forward scan of up to {@value
         * #SCAN_STEPS} pairs from its start and, if the bucket goes on, a binary search of its
         * rest, so a crowded bucket (skewed hashes) costs a logarithmic search, as in {@link
         * #contains}. The probes need no order.
         *
         * @param at    scratch of at least {@code n} ints
         * @param first scratch of at least {@code n} longs
         */
        boolean containsAnyOf(long[] probed, int n, int[] at, long[] first) {
            for (int i = 0; i < n; i++) {
                at[i] = starts[bucket(probed[2 * i], bits)];
            }
            int last = count - 1; // a run holds at least one pair
            for (int i = 0; i < n; i++) {
                int j = Math.min(at[i], last);
                first[i] = chunks[j >>> CHUNK_SHIFT][(j & CHUNK_MASK) << 1];
            }
            for (int i = 0; i < n; i++) {
                long hi = probed[2 * i];
                if (first[i] > hi) {
                    continue; // the bucket starts above the probe (or is empty, its successor's pair)
                }
                long lo = probed[2 * i + 1];
                int j = at[i];
                int to = starts[bucket(hi, bits) + 1];
                int scanned = Math.min(to, j + SCAN_STEPS);
                while (j < scanned && below(j, hi, lo)) {
                    j++;
                }
                if (j == scanned && j < to) {
                    j = lowerBound(j, to, hi, lo);
                }
                if (j < to && hi(j) == hi && lo(j) == lo) {
                    return true;
                }
            }
            return false;
        }

        /** True when the pair at {@code pos} orders before (hi, lo). */
        private boolean below(int pos, long hi, long lo) {
            long[] c = chunks[pos >>> CHUNK_SHIFT];
            int k = (pos & CHUNK_MASK) << 1;
            long h = c[k];
            return h < hi || (h == hi && c[k + 1] < lo);
        }

        /** The first position in [from, to) whose pair is not below (hi, lo), or {@code to}. */
        private int lowerBound(int from, int to, long hi, long lo) {
            while (from < to) {
                int m = (from + to) >>> 1;
                if (below(m, hi, lo)) {
                    from = m + 1;
                } else {
                    to = m;
                }
            }
            return from;
        }

        long bytes() {
            long b = BLOCK_OVERHEAD_BYTES + ARRAY_HEADER_BYTES + 8L * chunks.length
                    + ARRAY_HEADER_BYTES + 4L * starts.length;
            for (long[] c : chunks) {
                b += ARRAY_HEADER_BYTES + 8L * c.length;
            }
            return b;
        }
    }

    private final ArrayList<Run> runs = new ArrayList<>();
    private long[] hot;
    private int hotCount;
    private long hotMaxTime = Long.MIN_VALUE;
    private long hotMaxOffset = -1;
    private long sealedHashes;
    private long sealedBytes;

    /** An empty list. */
    public SortedRuns() {
    }

    /**
     * Appends a hash (arrival order). Seals the hot buffer when it reaches {@value #BLOCK_HASHES},
     * then merges runs where that pays (see the class doc).
     *
     * @param hi     high 64 bits of the 16-byte hash
     * @param lo     low 64 bits
     * @param offset the offset the hash was stored at (bookkeeping only)
     * @param time   when it was stored, in the owner's clock (milliseconds); expiry compares against it
     */
    @Override
    public void add(long hi, long lo, long offset, long time) {
        if (hot == null) {
            hot = new long[2 * FIRST_HOT_HASHES];
        } else if (2 * hotCount == hot.length) {
            hot = Arrays.copyOf(hot, hot.length * 2);
        }
        hot[2 * hotCount] = hi;
        hot[2 * hotCount + 1] = lo;
        hotCount++;
        if (time > hotMaxTime) {
            hotMaxTime = time;
        }
        if (offset > hotMaxOffset) {
            hotMaxOffset = offset;
        }
        if (hotCount == BLOCK_HASHES) {
            seal();
            compact();
        }
    }

    /**
     * Seals the hot buffer as a block even if it is not full (used when another list's content is
     * appended behind it). No-op when the hot buffer is empty. Does not merge.
     */
    void sealPartial() {
        if (hotCount > 0) {
            seal();
        }
    }

    private void seal() {
        PairSort.sort(hot, hotCount);
        push(new Run(new long[][] {hot}, hotCount, 0, hotMaxTime, hotMaxOffset));
        hot = null;
        hotCount = 0;
        hotMaxTime = Long.MIN_VALUE;
        hotMaxOffset = -1;
    }

    private void push(Run r) {
        runs.add(r);
        sealedHashes += r.count;
        sealedBytes += r.bytes();
    }

    /**
     * Merges {@value #FAN_IN} adjacent runs of one level below {@value #MAX_LEVEL} into one run of
     * the next level, oldest group first, until no group qualifies. A group qualifies only when the
     * list holds at least {@value #RESIDENCY_RATIO} times its hashes (so a small list is not held
     * longer than its window by much). Keeps the time order; the hashes resident do not change.
     */
    private void compact() {
        boolean merged = true;
        while (merged) {
            merged = false;
            int sameLevel = 0;
            long groupHashes = 0;
            for (int i = 0; i < runs.size(); i++) {
                Run r = runs.get(i);
                if (i > 0 && r.level == runs.get(i - 1).level) {
                    sameLevel++;
                    groupHashes += r.count;
                } else {
                    sameLevel = 1;
                    groupHashes = r.count;
                }
                if (sameLevel > FAN_IN) {
                    groupHashes -= runs.get(i - FAN_IN).count;
                    sameLevel = FAN_IN;
                }
                if (sameLevel == FAN_IN && r.level < MAX_LEVEL
                        && groupHashes * RESIDENCY_RATIO <= hashes()) {
                    List<Run> group = runs.subList(i - FAN_IN + 1, i + 1);
                    Run m = merge(group, r.level + 1);
                    for (Run g : group) {
                        sealedBytes -= g.bytes();
                    }
                    group.clear();
                    runs.add(i - FAN_IN + 1, m);
                    sealedBytes += m.bytes();
                    merged = true;
                    break;
                }
            }
        }
    }

    /** One k-way merge of sorted runs into a new run: O(total * parts), duplicates kept. */
    private static Run merge(List<Run> parts, int level) {
        int k = parts.size();
        int total = 0;
        long maxTime = Long.MIN_VALUE;
        long maxOffset = -1;
        for (Run p : parts) {
            total += p.count;
            maxTime = Math.max(maxTime, p.maxTime);
            maxOffset = Math.max(maxOffset, p.maxOffset);
        }
        long[][] out = new long[(total + CHUNK_MASK) >>> CHUNK_SHIFT][];
        for (int c = 0; c < out.length; c++) {
            out[c] = new long[2 * Math.min(CHUNK_HASHES, total - (c << CHUNK_SHIFT))];
        }
        int[] at = new int[k];
        for (int o = 0; o < total; o++) {
            int best = -1;
            long bh = 0;
            long bl = 0;
            for (int r = 0; r < k; r++) {
                Run p = parts.get(r);
                if (at[r] == p.count) {
                    continue;
                }
                long h = p.hi(at[r]);
                long l = p.lo(at[r]);
                if (best < 0 || h < bh || (h == bh && l < bl)) {
                    best = r;
                    bh = h;
                    bl = l;
                }
            }
            at[best]++;
            long[] c = out[o >>> CHUNK_SHIFT];
            int i = (o & CHUNK_MASK) << 1;
            c[i] = bh;
            c[i + 1] = bl;
        }
        return new Run(out, total, level, maxTime, maxOffset);
    }

    /**
     * @param hi high 64 bits of the hash
     * @param lo low 64 bits
     * @return true when the hash is resident (in some run or in the hot buffer)
     */
    @Override
    public boolean contains(long hi, long lo) {
        for (int r = runs.size() - 1; r >= 0; r--) {
            if (runs.get(r).contains(hi, lo)) {
                return true;
            }
        }
        return hotContains(hi, lo);
    }

    /** One linear scan of the hot buffer for one hash. */
    private boolean hotContains(long hi, long lo) {
        long[] h = hot;
        for (int i = 0, n = 2 * hotCount; i < n; i += 2) {
            if (h[i] == hi && h[i + 1] == lo) {
                return true;
            }
        }
        return false;
    }

    /**
     * Batch membership: true when any of the first {@code n} probed hashes is resident; the same
     * answer as {@link #contains} asked of each. A single hash is one {@link #contains}; a batch
     * visits each run once, newest first, in three passes (see the class doc), then reads the hot
     * buffer once. The caller's array is only read.
     *
     * @param probed pairs (high, low) of the hashes to look up, in any order
     * @param n      number of pairs in {@code probed} (0 finds nothing)
     */
    @Override
    public boolean containsAny(long[] probed, int n) {
        if (n <= 1) {
            return n == 1 && contains(probed[0], probed[1]);
        }
        if (!runs.isEmpty()) {
            int[] at = new int[n];
            long[] first = new long[n];
            for (int r = runs.size() - 1; r >= 0; r--) {
                if (runs.get(r).containsAnyOf(probed, n, at, first)) {
                    return true;
                }
            }
        }
        return hotContainsAny(probed, n);
    }

    /** Probed hashes up to which one linear scan of the hot buffer each beats building a table. */
    static final int HOT_SCAN_PROBES = 8;

    /** Hot-buffer products (probed x hot) up to which one scan per probed hash beats a table. */
    static final int NESTED_SCAN_LIMIT = 4096;

    /**
     * The hot buffer's part of {@link #containsAny}: the buffer is unsorted. Few probed hashes (at
     * most {@value #HOT_SCAN_PROBES}, or a small buffer) are each looked for by one linear scan,
     * the loop of {@link #contains}. Past that the probed hashes go into a small open-addressing
     * table (linear probing) and the buffer is read once: O(hot + n) instead of O(hot * n). The
     * table has at least eight times as many slots as hashes: most buffered hashes then meet an
     * empty slot at once, a branch the processor predicts (at half full, about three times slower
     * per buffered hash when measured).
     */
    private boolean hotContainsAny(long[] probed, int n) {
        long[] h = hot;
        int m = hotCount;
        if (m == 0) {
            return false;
        }
        if (n <= HOT_SCAN_PROBES || (long) n * m <= NESTED_SCAN_LIMIT) {
            return hotScanAny(probed, n);
        }
        int size = Integer.highestOneBit(2 * n - 1) << 3;
        int mask = size - 1;
        int[] slots = new int[size]; // 0 = empty, else index + 1 of a probed hash
        for (int i = 0; i < n; i++) {
            int s = slot(probed[2 * i]) & mask;
            while (slots[s] != 0) {
                s = (s + 1) & mask;
            }
            slots[s] = i + 1;
        }
        for (int j = 0; j < 2 * m; j += 2) {
            long x = h[j];
            long y = h[j + 1];
            for (int s = slot(x) & mask, e; (e = slots[s]) != 0; s = (s + 1) & mask) {
                if (probed[2 * (e - 1)] == x && probed[2 * (e - 1) + 1] == y) {
                    return true;
                }
            }
        }
        return false;
    }

    /** One linear scan of the hot buffer per probed hash. */
    private boolean hotScanAny(long[] probed, int n) {
        for (int i = 0; i < n; i++) {
            if (hotContains(probed[2 * i], probed[2 * i + 1])) {
                return true;
            }
        }
        return false;
    }

    /** Spreads a high half over the table's slots (Fibonacci hashing: multiply by 2^64 / phi). */
    private static int slot(long hi) {
        return (int) ((hi * 0x9E3779B97F4A7C15L) >>> 32);
    }

    /**
     * Drops, from the front, every run whose newest hash is older than the cutoff, and the hot
     * buffer too once no run is left and its newest hash is older than the cutoff. A run with at
     * least one hash at or after the cutoff stops the sweep, so every hash stored at or after the
     * cutoff stays resident.
     *
     * @param cutoff time in the owner's clock (milliseconds)
     * @return the number of hashes dropped
     */
    @Override
    public long expireBefore(long cutoff) {
        long dropped = 0;
        int k = 0;
        while (k < runs.size() && runs.get(k).maxTime < cutoff) {
            Run b = runs.get(k++);
            sealedHashes -= b.count;
            sealedBytes -= b.bytes();
            dropped += b.count;
        }
        runs.subList(0, k).clear();
        if (runs.isEmpty() && hotCount > 0 && hotMaxTime < cutoff) {
            dropped += hotCount;
            hot = null;
            hotCount = 0;
            hotMaxTime = Long.MIN_VALUE;
            hotMaxOffset = -1;
        }
        return dropped;
    }

    /**
     * Moves every hash of {@code later} behind this list's hashes: this list's hot buffer is sealed
     * (possibly partial), {@code later}'s runs are appended in order and its hot buffer becomes
     * this list's; then runs are merged where that pays. {@code later} is left empty. Used to splice
     * a delta hydration in.
     *
     * @param other hashes stored after every hash of this list, another {@code SortedRuns}
     * @throws IllegalArgumentException when {@code other} is another implementation
     */
    @Override
    public void append(ResidentHashes other) {
        if (!(other instanceof SortedRuns later)) {
            throw new IllegalArgumentException("cannot splice " + other.getClass().getName() + " into SortedRuns");
        }
        if (later.hashes() == 0) {
            return;
        }
        sealPartial();
        for (Run b : later.runs) {
            push(b);
        }
        hot = later.hot;
        hotCount = later.hotCount;
        hotMaxTime = later.hotMaxTime;
        hotMaxOffset = later.hotMaxOffset;
        later.runs.clear();
        later.hot = null;
        later.hotCount = 0;
        later.hotMaxTime = Long.MIN_VALUE;
        later.hotMaxOffset = -1;
        later.sealedHashes = 0;
        later.sealedBytes = 0;
        compact();
    }

    /** @return resident hashes (sealed runs plus hot buffer; a hash held twice counts twice) */
    @Override
    public long hashes() {
        return sealedHashes + hotCount;
    }

    /** @return number of sealed runs (blocks and merged runs), each searched once per lookup */
    public int runs() {
        return runs.size();
    }

    /** @return hashes in the hot buffer */
    public int hotHashes() {
        return hotCount;
    }

    /**
     * Accounted footprint in bytes: each run's chunks (16 bytes per hash slot plus headers), fence
     * index and overheads, and the hot buffer's allocated capacity. Dominated by the real 16 bytes
     * per hash.
     */
    @Override
    public long bytes() {
        return sealedBytes + (hot == null ? 0 : ARRAY_HEADER_BYTES + 8L * hot.length);
    }

    /**
     * @return true when every run is sorted, its chunks hold exactly its count, its index agrees,
     *     its level is at most {@value #MAX_LEVEL}, and the counters agree (for tests)
     */
    boolean wellFormed() {
        long hashes = 0;
        long bytes = 0;
        for (Run b : runs) {
            if (b.level < 0 || b.level > MAX_LEVEL || b.count > MAX_RUN_HASHES) {
                return false;
            }
            long slots = 0;
            for (int c = 0; c < b.chunks.length; c++) {
                slots += b.chunks[c].length / 2;
                if (c < b.chunks.length - 1 && b.chunks[c].length != 2 * CHUNK_HASHES) {
                    return false;
                }
            }
            if (slots < b.count || (b.level > 0 && slots != b.count)) {
                return false;
            }
            for (int i = 0; i < b.count; i++) {
                if (i > 0 && (b.hi(i - 1) > b.hi(i) || (b.hi(i - 1) == b.hi(i) && b.lo(i - 1) > b.lo(i)))) {
                    return false;
                }
                int k = bucket(b.hi(i), b.bits);
                if (i < b.starts[k] || i >= b.starts[k + 1]) {
                    return false;
                }
            }
            hashes += b.count;
            bytes += b.bytes();
        }
        return hashes == sealedHashes && bytes == sealedBytes;
    }

    /** @return level of each run, oldest first (for tests) */
    int[] levels() {
        return runs.stream().mapToInt(r -> r.level).toArray();
    }

    /** @return the largest single array this list holds, in bytes (at most one chunk, 256 KiB) */
    long largestArrayBytes() {
        long max = hot == null ? 0 : 8L * hot.length;
        for (Run b : runs) {
            max = Math.max(max, 4L * b.starts.length);
            for (long[] c : b.chunks) {
                max = Math.max(max, 8L * c.length);
            }
        }
        return max;
    }

    /** @return the highest offset resident, or -1 when empty */
    public long maxOffset() {
        long m = hotMaxOffset;
        for (Run r : runs) {
            m = Math.max(m, r.maxOffset);
        }
        return m;
    }
}
