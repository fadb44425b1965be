package dev.exactly.engine.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link SortedRuns}, the run store behind {@link ResidentHashes}: sealing, fence
 * index, run-granular expiry, tiered merging, chunked allocation, accounting. The contract every
 * {@link ResidentHashes} keeps is checked too (inherited from {@link ResidentHashesContract}).
 */
class SortedRunsTest extends ResidentHashesContract {

    @Override
    ResidentHashes create() {
        return new SortedRuns();
    }

    private static final int B = SortedRuns.BLOCK_HASHES;

    @Test
    void hotBufferSealsIntoASortedBlockTheInstantItIsFull() {
        SortedRuns r = new SortedRuns();
        Random rnd = new Random(1);
        for (int i = 0; i < B - 1; i++) {
            r.add(rnd.nextLong(), rnd.nextLong(), i, 0);
        }
        assertEquals(0, r.runs());
        assertEquals(B - 1, r.hotHashes());
        r.add(rnd.nextLong(), rnd.nextLong(), B - 1, 0);
        assertEquals(1, r.runs(), "sealed at capacity, not at the next add");
        assertEquals(0, r.hotHashes());
        assertEquals(B, r.hashes());
    }

    @Test
    void everyAddedHashIsFoundAndOthersAreNot() {
        SortedRuns r = new SortedRuns();
        Random rnd = new Random(2);
        int n = 3 * B + 123;
        long[] his = new long[n];
        long[] los = new long[n];
        for (int i = 0; i < n; i++) {
            his[i] = rnd.nextLong();
            // some equal high halves, to exercise the tie-break on the low half
            if (i % 7 == 0 && i > 0) {
                his[i] = his[i - 1];
            }
            los[i] = rnd.nextLong();
            r.add(his[i], los[i], i, i);
        }
        assertEquals(3, r.runs());
        assertTrue(r.wellFormed(), "sorted blocks whose fence index agrees");
        for (int i = 0; i < n; i++) {
            assertTrue(r.contains(his[i], los[i]), "hash " + i);
            assertTrue(r.containsAny(new long[] {rnd.nextLong(), rnd.nextLong(), his[i], los[i]}, 2), "batch " + i);
        }
        assertFalse(r.containsAny(new long[] {his[0], los[0]}, 0), "an empty batch finds nothing");
        for (int i = 0; i < 10_000; i++) {
            assertFalse(r.contains(rnd.nextLong(), rnd.nextLong()));
        }
        long[] misses = new long[2 * 500];
        for (int i = 0; i < misses.length; i++) {
            misses[i] = rnd.nextLong();
        }
        assertFalse(r.containsAny(misses, 500));
        // extreme high halves land in the first and last fence buckets
        SortedRuns edges = new SortedRuns();
        long[] ext = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};
        for (int i = 0; i < B; i++) {
            edges.add(ext[i % ext.length], i, i, 0);
        }
        assertTrue(edges.wellFormed());
        for (int i = 0; i < B; i++) {
            assertTrue(edges.contains(ext[i % ext.length], i));
        }
        assertFalse(edges.contains(Long.MIN_VALUE, -5));
        // a near miss: right high half, wrong low half
        assertFalse(r.contains(his[0], los[0] + 1));
    }

    @Test
    void byteArrayHashesUseTheirBigEndianHalves() {
        SortedRuns r = new SortedRuns();
        byte[] h = new byte[16];
        for (int i = 0; i < 16; i++) {
            h[i] = (byte) (i * 17 + 3);
        }
        r.add(h, 0, 0);
        assertTrue(r.contains(h));
        assertTrue(r.contains(ResidentHashes.high(h), ResidentHashes.low(h)));
        assertEquals(0x03142536_4758697AL, ResidentHashes.high(h));
        h[15]++;
        assertFalse(r.contains(h));
    }

    @Test
    void expiryDropsWholeBlocksOnlyWhenTheirNewestHashIsStale() {
        SortedRuns r = new SortedRuns();
        // block 1: times 0..4095; block 2: times 10_000..; hot: time 20_000
        for (int i = 0; i < B; i++) {
            r.add(1, i, i, i);
        }
        for (int i = 0; i < B; i++) {
            r.add(2, i, B + i, 10_000 + i);
        }
        r.add(3, 0, 2 * B, 20_000);
        // the cutoff falls inside block 1: its newest hash (time 4095) is not stale yet, so it stays
        assertEquals(0, r.expireBefore(4095));
        assertTrue(r.contains(1, 0), "a block is kept whole while any of its hashes is in the window");
        // past block 1's newest hash: block 1 goes, entirely
        assertEquals(B, r.expireBefore(4096));
        assertFalse(r.contains(1, 0));
        assertFalse(r.contains(1, B - 1));
        assertTrue(r.contains(2, 0));
        // a cutoff past block 2 but not past the hot buffer
        assertEquals(B, r.expireBefore(15_000));
        assertTrue(r.contains(3, 0));
        assertEquals(1, r.hashes());
        // everything stale: the hot buffer goes too
        assertEquals(1, r.expireBefore(20_001));
        assertEquals(0, r.hashes());
        assertEquals(0, r.bytes());
    }

    @Test
    void aHashInTwoBlocksSurvivesTheFirstBlocksExpiry() {
        SortedRuns r = new SortedRuns();
        for (int i = 0; i < B; i++) {
            r.add(7, i, i, 0);
        }
        // the same hash (7, 5) again, later, in the second block
        r.add(7, 5, B, 100);
        for (int i = 1; i < B; i++) {
            r.add(8, i, B + i, 100);
        }
        assertEquals(2, r.runs());
        r.expireBefore(50);
        assertEquals(1, r.runs());
        assertTrue(r.contains(7, 5), "no refcount needed: the later block still holds it");
        assertFalse(r.contains(7, 6));
    }

    @Test
    void expiryNeverLooksPastAFreshFrontBlock() {
        // a front block that is fresh (a clock step) keeps later stale blocks: superset, never a loss
        SortedRuns r = new SortedRuns();
        for (int i = 0; i < B; i++) {
            r.add(1, i, i, 1_000);
        }
        for (int i = 0; i < B; i++) {
            r.add(2, i, B + i, 10);
        }
        assertEquals(0, r.expireBefore(500));
        assertEquals(2 * B, r.hashes());
    }

    @Test
    void theLargestAllocationIsOneChunkAndAccountingStaysUnderTwentyBytesPerHash() {
        SortedRuns r = new SortedRuns();
        Random rnd = new Random(3);
        int n = 1_000_000;
        for (int i = 0; i < n; i++) {
            r.add(rnd.nextLong(), rnd.nextLong(), i, i);
        }
        assertEquals(16L * SortedRuns.CHUNK_HASHES, r.largestArrayBytes(), "one chunk: long[32768], 256 KiB");
        assertTrue(r.largestArrayBytes() < 512 * 1024, "below G1's smallest humongous threshold");
        double perHash = (double) r.bytes() / r.hashes();
        assertTrue(perHash <= 20.0, "bytes per hash " + perHash);
        assertTrue(perHash >= 16.0, "the accounting covers the real 16 bytes per hash: " + perHash);
        assertTrue(r.wellFormed());
        // a full block is accounted at its array, its int[1025] index, the run and its chunk table
        assertEquals(SortedRuns.FULL_BLOCK_BYTES, 16 + 16L * B + (16 + 4 * 1025) + 56 + (16 + 8));
    }

    @Test
    void appendSplicesALaterRingBehindAndEmptiesIt() {
        SortedRuns a = new SortedRuns();
        SortedRuns b = new SortedRuns();
        for (int i = 0; i < 10; i++) {
            a.add(1, i, i, 0);
        }
        for (int i = 0; i < B + 5; i++) {
            b.add(2, i, 10 + i, 100);
        }
        a.append(b);
        assertEquals(0, b.hashes());
        assertEquals(10 + B + 5, a.hashes());
        assertEquals(2, a.runs(), "a's partial hot buffer sealed, then b's block");
        assertTrue(a.contains(1, 9));
        assertTrue(a.contains(2, B + 4));
        // the partial block (time 0) expires first, whole
        assertEquals(10, a.expireBefore(50));
        assertTrue(a.contains(2, 0));
    }

    // ---- tiered merging of sealed runs (log-structured merge, tiered compaction) ----

    private static final int MAX = SortedRuns.MAX_RUN_HASHES;

    /** Adds {@code n} random hashes at times (and offsets) from {@code from}, recording them. */
    private static void fill(SortedRuns r, Random rnd, int from, int n, long[] his, long[] los) {
        for (int i = from; i < from + n; i++) {
            his[i] = rnd.nextLong();
            los[i] = rnd.nextLong();
            r.add(his[i], los[i], i, i);
        }
    }

    @Test
    void aSmallRingIsNeverMergedSoItKeepsOneBlockOfStaleHashesAtMost() {
        SortedRuns r = new SortedRuns();
        int n = SortedRuns.RESIDENCY_RATIO * SortedRuns.FAN_IN * B - 1; // one hash short of the first merge
        for (int i = 0; i < n; i++) {
            r.add(1, i, i, i);
        }
        assertEquals(n / B, r.runs(), "blocks only");
        for (int level : r.levels()) {
            assertEquals(0, level);
        }
        for (long cutoff = 0; cutoff < n; cutoff += 1_000) {
            r.expireBefore(cutoff);
            long stale = r.hashes() - (n - cutoff);
            assertTrue(stale >= 0 && stale < B, "stale " + stale + " at " + cutoff);
        }
    }

    @Test
    void fourAdjacentBlocksMergeOnceTheRingHoldsEightTimesTheMergedRun() {
        SortedRuns r = new SortedRuns();
        int first = SortedRuns.RESIDENCY_RATIO * SortedRuns.FAN_IN * B; // 131,072 hashes: 32 blocks
        for (int i = 0; i < first - B; i++) {
            r.add(5, i, i, i);
        }
        assertEquals(31, r.runs(), "31 blocks: a merge of 4 would exceed an eighth of the ring");
        for (int i = first - B; i < first; i++) {
            r.add(5, i, i, i);
        }
        assertEquals(8, r.runs(), "the 32nd seal merges every group of 4 blocks");
        assertArrayEquals(new int[] {1, 1, 1, 1, 1, 1, 1, 1}, r.levels());
        assertEquals(first, r.hashes());
        assertTrue(r.wellFormed());
        // the second level needs 8 x 65,536 hashes resident
        int second = SortedRuns.RESIDENCY_RATIO * MAX;
        for (int i = first; i < second - B; i++) {
            r.add(5, i, i, i);
        }
        assertEquals(31 + 3, r.runs(), "31 runs of level 1, then 3 blocks");
        for (int i = second - B; i < second; i++) {
            r.add(5, i, i, i);
        }
        assertEquals(8, r.runs());
        assertArrayEquals(new int[] {2, 2, 2, 2, 2, 2, 2, 2}, r.levels(), "runs of the cap, no higher level");
        assertTrue(r.wellFormed());
        for (int i = 0; i < second; i += 97) {
            assertTrue(r.contains(5, i), "hash " + i);
        }
    }

    @Test
    void theRunCountStaysLogarithmicUpToTheCapAndSixteenTimesFlatterBeyondIt() {
        SortedRuns r = new SortedRuns();
        Random rnd = new Random(11);
        int n = 1_000_000;
        int lower = (SortedRuns.FAN_IN - 1) * SortedRuns.MAX_LEVEL;
        for (int i = 1; i <= n; i++) {
            r.add(rnd.nextLong(), rnd.nextLong(), i, i);
            if (i % B == 0) {
                long bound = Math.max(SortedRuns.RESIDENCY_RATIO * SortedRuns.FAN_IN + lower, i / MAX + lower + 1);
                assertTrue(r.runs() <= bound, r.runs() + " runs at " + i);
            }
        }
        assertTrue(r.runs() <= n / MAX + lower + 1, r.runs() + " runs at 10^6 (244 blocks unmerged)");
        assertTrue(r.wellFormed());
    }

    @Test
    void everyHashIsFoundAfterMergesAndNoOtherIs() {
        SortedRuns r = new SortedRuns();
        Random rnd = new Random(12);
        int n = 600_000;
        long[] his = new long[n];
        long[] los = new long[n];
        for (int i = 0; i < n; i++) {
            his[i] = rnd.nextLong();
            los[i] = rnd.nextLong();
            if (i % 5 == 0 && i > 0) {
                his[i] = his[i - 1]; // equal high halves, across runs too: the low half decides
            }
            if (i % 1_000 == 3) {
                his[i] = his[i / 2]; // an old hash again, later: a duplicate across runs
                los[i] = los[i / 2];
            }
            r.add(his[i], los[i], i, i);
        }
        assertTrue(r.hotHashes() > 0, "some hashes still in the hot buffer");
        assertTrue(r.levels()[0] == SortedRuns.MAX_LEVEL, "merged runs exist");
        assertTrue(r.wellFormed());
        assertEquals(n, r.hashes(), "merging keeps every copy");
        for (int i = 0; i < n; i++) {
            assertTrue(r.contains(his[i], los[i]), "hash " + i);
        }
        for (int i = 0; i < n; i += 101) {
            assertTrue(r.containsAny(new long[] {rnd.nextLong(), rnd.nextLong(), his[i], los[i]}, 2), "batch " + i);
        }
        for (int i = 0; i < 100_000; i++) {
            assertFalse(r.contains(rnd.nextLong(), rnd.nextLong()));
        }
        for (int i = 1; i < n; i += 7) {
            assertFalse(r.contains(his[i], los[i] + 1), "near miss " + i);
            assertFalse(r.contains(his[i], los[i] - 1), "near miss " + i);
        }
        long[] misses = new long[2 * 100];
        for (int i = 0; i < misses.length; i++) {
            misses[i] = rnd.nextLong();
        }
        assertFalse(r.containsAny(misses, 100));
    }

    @Test
    void extremeHighHalvesLandInTheFirstAndLastBucketsOfAMergedRun() {
        SortedRuns r = new SortedRuns();
        long[] ext = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1, Long.MAX_VALUE};
        int n = SortedRuns.RESIDENCY_RATIO * SortedRuns.FAN_IN * B;
        for (int i = 0; i < n; i++) {
            r.add(ext[i % ext.length], i, i, 0);
        }
        assertEquals(8, r.runs());
        assertTrue(r.wellFormed());
        for (int i = 0; i < n; i++) {
            assertTrue(r.contains(ext[i % ext.length], i));
        }
        assertFalse(r.contains(Long.MIN_VALUE, -5));
        assertFalse(r.contains(Long.MAX_VALUE, -5));
    }

    @Test
    void expiryAfterMergingDropsOnlyWholeStaleRunsAndKeepsEveryFreshHash() {
        SortedRuns r = new SortedRuns();
        Random rnd = new Random(13);
        int n = 700_000;
        long[] his = new long[n];
        long[] los = new long[n];
        fill(r, rnd, 0, n, his, los);
        for (int cutoff = 0; cutoff <= n; cutoff += 37_000) {
            long before = r.hashes();
            long dropped = r.expireBefore(cutoff);
            assertEquals(before - dropped, r.hashes());
            assertTrue(r.wellFormed(), "after expiry at " + cutoff);
            for (int i = cutoff; i < n; i += 13) {
                assertTrue(r.contains(his[i], los[i]), "fresh hash " + i + " at cutoff " + cutoff);
            }
            long stale = r.hashes() - (n - cutoff);
            assertTrue(stale >= 0, "superset at " + cutoff);
            assertTrue(stale < MAX, "at most one run of stale hashes: " + stale + " at " + cutoff);
        }
        r.expireBefore(n);
        assertEquals(0, r.hashes(), "everything stale: every run and the hot buffer go");
        assertEquals(0, r.bytes());
    }

    @Test
    void aMergedRunIsKeptWhileItsNewestHashIsFresh() {
        // a merged run takes the newest time of its parts: a fresh hash in its last block keeps it whole
        SortedRuns r = new SortedRuns();
        int n = SortedRuns.RESIDENCY_RATIO * SortedRuns.FAN_IN * B;
        for (int i = 0; i < n; i++) {
            r.add(9, i, i, i < 4 * B - 1 ? 0 : 1_000_000);
        }
        assertArrayEquals(new int[] {1, 1, 1, 1, 1, 1, 1, 1}, r.levels());
        assertEquals(0, r.expireBefore(500_000), "the first run's last hash is fresh");
        assertTrue(r.contains(9, 0));
        assertEquals(n - 1, r.maxOffset());
    }

    @Test
    void appendAfterMergesKeepsTimeOrderAndMergesTheSplicedRuns() {
        Random rnd = new Random(14);
        int na = 300_000;
        int nb = 300_000;
        long[] his = new long[na + nb];
        long[] los = new long[na + nb];
        SortedRuns a = new SortedRuns();
        fill(a, rnd, 0, na, his, los);
        SortedRuns b = new SortedRuns();
        fill(b, rnd, na, nb, his, los);
        int runsBefore = a.runs() + 1 + b.runs();
        a.append(b);
        assertEquals(0, b.hashes());
        assertEquals(0, b.runs());
        assertEquals(na + nb, a.hashes());
        assertTrue(a.wellFormed());
        assertTrue(a.runs() <= runsBefore, "the splice may merge, never split");
        for (int i = 0; i < na + nb; i++) {
            assertTrue(a.contains(his[i], los[i]), "hash " + i);
        }
        assertEquals(na + nb - 1, a.maxOffset());
        // a's hashes (times < na) expire before any of b's
        a.expireBefore(na);
        for (int i = na; i < na + nb; i++) {
            assertTrue(a.contains(his[i], los[i]), "later hash " + i);
        }
        assertTrue(a.hashes() - nb < MAX, "at most one run of a's hashes left");
        // more adds after the splice keep merging
        for (int i = 0; i < 10 * B; i++) {
            a.add(rnd.nextLong(), rnd.nextLong(), na + nb + i, na + nb + i);
        }
        assertTrue(a.wellFormed());
    }

    @Test
    void mergingNeverChangesTheHashesOrTheirAccountedCountAndBytesAgree() {
        SortedRuns r = new SortedRuns();
        Random rnd = new Random(15);
        long lastBytes = 0;
        for (int i = 0; i < 600_000; i++) {
            r.add(rnd.nextLong(), rnd.nextLong(), i, i);
            if (i % B == B - 1) {
                assertEquals(i + 1, r.hashes());
                assertTrue(r.wellFormed(), "counters and bytes agree after seal " + i / B);
                assertTrue(r.bytes() > lastBytes);
                lastBytes = r.bytes();
            }
        }
    }

    @Test
    void pairSortSortsAnyInputIncludingAdversarialOnes() {
        Random rnd = new Random(4);
        for (int shape = 0; shape < 5; shape++) {
            int n = 5000;
            long[] a = new long[2 * n];
            for (int i = 0; i < n; i++) {
                switch (shape) {
                    case 0 -> { a[2 * i] = rnd.nextLong(); a[2 * i + 1] = rnd.nextLong(); }
                    case 1 -> { a[2 * i] = 42; a[2 * i + 1] = rnd.nextLong(); } // equal high halves
                    case 2 -> { a[2 * i] = i; a[2 * i + 1] = 0; }                // sorted
                    case 3 -> { a[2 * i] = n - i; a[2 * i + 1] = 0; }            // reversed
                    default -> { a[2 * i] = 7; a[2 * i + 1] = 7; }               // all equal
                }
            }
            long[] copy = a.clone();
            PairSort.sort(a, n);
            assertTrue(PairSort.isSorted(a, n), "shape " + shape);
            for (int i = 0; i < n; i++) {
                assertTrue(PairSort.search(a, n, copy[2 * i], copy[2 * i + 1]), "shape " + shape + " pair " + i);
            }
        }
    }

    /** Rule: a batch lookup finds a hot-buffer hash whatever the batch and buffer sizes (both the
     * nested scan and the table path), and never one that is absent, even with equal high halves. */
    @Test
    void batchLookupOfTheHotBufferIsExactOnBothPaths() {
        Random rnd = new Random(11);
        for (int hotSize : new int[] {1, 40, 1000, B - 1}) {
            for (int batch : new int[] {1, 3, 100, 700}) {
                SortedRuns r = new SortedRuns();
                long[] his = new long[hotSize];
                long[] los = new long[hotSize];
                for (int i = 0; i < hotSize; i++) {
                    his[i] = i % 3 == 0 ? 42L : rnd.nextLong(); // many equal high halves
                    los[i] = rnd.nextLong();
                    r.add(his[i], los[i], i, 0);
                }
                assertEquals(hotSize, r.hotHashes());
                long[] misses = new long[2 * batch];
                for (int i = 0; i < batch; i++) {
                    misses[2 * i] = i % 2 == 0 ? 42L : rnd.nextLong();
                    misses[2 * i + 1] = rnd.nextLong();
                }
                assertFalse(r.containsAny(misses, batch), "absent, hot " + hotSize + " batch " + batch);
                for (int k = 0; k < 5; k++) {
                    long[] probe = misses.clone();
                    int at = rnd.nextInt(batch);
                    int which = rnd.nextInt(hotSize);
                    probe[2 * at] = his[which];
                    probe[2 * at + 1] = los[which];
                    assertTrue(r.containsAny(probe, batch), "present, hot " + hotSize + " batch " + batch);
                }
            }
        }
    }

    // ---- batch lookup: each run visited once per batch, in passes over the probes ----

    /** What {@link SortedRuns#containsAny} must answer: some one of the n pairs is resident. */
    static boolean anyByOne(SortedRuns r, long[] probed, int n) {
        for (int i = 0; i < n; i++) {
            if (r.contains(probed[2 * i], probed[2 * i + 1])) {
                return true;
            }
        }
        return false;
    }

    /** Asserts the batch answer equals the per-hash answer and leaves the array as it was. */
    static boolean checkedBatch(SortedRuns r, long[] probed, int n, String what) {
        long[] before = probed.clone();
        boolean any = r.containsAny(probed, n);
        assertEquals(anyByOne(r, probed, n), any, what);
        assertArrayEquals(before, probed, "the caller's array is unchanged: " + what);
        return any;
    }

    /** A list of every kind of run: merged runs of both levels, blocks, a hot buffer. */
    static SortedRuns mixed(Random rnd, int n, long[] his, long[] los) {
        SortedRuns r = new SortedRuns();
        for (int i = 0; i < n; i++) {
            his[i] = i % 5 == 0 && i > 0 ? his[i - 1] : rnd.nextLong(); // equal high halves too
            los[i] = rnd.nextLong();
            r.add(his[i], los[i], i, i);
        }
        return r;
    }

    /** Rule: on a list of merged runs, blocks and a hot buffer, a batch of any size answers as
     * the per-hash lookups do, for batches of absent hashes and batches holding one resident. */
    @Test
    void aBatchAnswersAsPerHashLookupsOnEveryKindOfRunWhateverItsSize() {
        Random rnd = new Random(31);
        int n = 600_000;
        long[] his = new long[n];
        long[] los = new long[n];
        SortedRuns r = mixed(rnd, n, his, los);
        assertEquals(SortedRuns.MAX_LEVEL, r.levels()[0], "merged runs of the top level");
        assertEquals(0, r.levels()[r.runs() - 1], "a block last");
        assertTrue(r.hotHashes() > 0, "and a hot buffer");
        for (int size : new int[] {1, 2, 3, 8, 9, 100, 400, 5_000}) {
            for (int round = 0; round < 6; round++) {
                long[] probe = new long[2 * size];
                for (int i = 0; i < probe.length; i++) {
                    probe[i] = rnd.nextLong();
                }
                assertFalse(checkedBatch(r, probe, size, "absent, size " + size), "absent, size " + size);
                // one resident hash: from the oldest run, a middle one, the last block, the hot buffer
                int[] from = {rnd.nextInt(1_000), n / 2 + rnd.nextInt(1_000), n - r.hotHashes() - 1 - rnd.nextInt(100),
                        n - 1 - rnd.nextInt(r.hotHashes())};
                int which = from[round % from.length];
                int at = rnd.nextInt(size);
                probe[2 * at] = his[which];
                probe[2 * at + 1] = los[which];
                assertTrue(checkedBatch(r, probe, size, "hash " + which + " at " + at + " of " + size));
            }
        }
    }

    /** Rule: a probe repeated in the batch is answered as once, present or absent, wherever the
     * repeats sit. */
    @Test
    void duplicateProbesAreAnsweredAsOne() {
        Random rnd = new Random(32);
        int n = 200_000;
        long[] his = new long[n];
        long[] los = new long[n];
        SortedRuns r = mixed(rnd, n, his, los);
        long absentHi = rnd.nextLong();
        long absentLo = rnd.nextLong();
        long[] probe = new long[2 * 400];
        for (int i = 0; i < 400; i++) {
            probe[2 * i] = i % 2 == 0 ? absentHi : rnd.nextLong();
            probe[2 * i + 1] = i % 2 == 0 ? absentLo : rnd.nextLong();
        }
        assertFalse(checkedBatch(r, probe, 400, "one absent hash 200 times"));
        // the same resident hash many times, and a resident hash just after a run of repeats
        int k = 12_345;
        for (int i = 0; i < 400; i += 3) {
            probe[2 * i] = his[k];
            probe[2 * i + 1] = los[k];
        }
        assertTrue(checkedBatch(r, probe, 400, "one resident hash 134 times"));
        long[] repeats = new long[2 * 50];
        for (int i = 0; i < 49; i++) {
            repeats[2 * i] = his[k];
            repeats[2 * i + 1] = los[k] - 1; // absent (unless drawn, checked by the oracle)
        }
        repeats[2 * 49] = his[k];
        repeats[2 * 49 + 1] = los[k];
        assertTrue(checkedBatch(r, repeats, 50, "repeats before the resident hash of the same high half"));
    }

    /** Rule: the low half decides: probes that share a resident hash's high half but not its low
     * half are misses, in a bucket of a few pairs and in a bucket crowded with equal high halves. */
    @Test
    void probesEqualAtTheHighHalfButNotTheLowAreMisses() {
        Random rnd = new Random(33);
        int n = 200_000;
        long[] his = new long[n];
        long[] los = new long[n];
        SortedRuns r = mixed(rnd, n, his, los);
        long[] probe = new long[2 * 400];
        for (int i = 0; i < 400; i++) {
            int k = rnd.nextInt(n);
            probe[2 * i] = his[k];
            probe[2 * i + 1] = los[k] + (i % 2 == 0 ? 1 : -1);
        }
        boolean any = checkedBatch(r, probe, 400, "near misses");
        assertFalse(any, "near misses (the random low halves are not resident)");
        probe[2 * 399] = his[77];
        probe[2 * 399 + 1] = los[77];
        assertTrue(checkedBatch(r, probe, 400, "near misses and one hit"));

        // every hash with one high half: each bucket search goes past the short scan into the
        // binary search, and the buckets of merged runs span chunks
        SortedRuns crowded = new SortedRuns();
        int m = 600_000;
        for (int i = 0; i < m; i++) {
            crowded.add(7, 2L * i, i, i); // even low halves
        }
        assertTrue(crowded.wellFormed());
        assertEquals(SortedRuns.MAX_LEVEL, crowded.levels()[0]);
        for (int size : new int[] {1, 2, 9, 400}) {
            long[] odd = new long[2 * size];
            for (int i = 0; i < size; i++) {
                odd[2 * i] = 7;
                odd[2 * i + 1] = 2L * rnd.nextInt(m) + 1;
            }
            assertFalse(checkedBatch(crowded, odd, size, "odd low halves, size " + size));
            for (int edge : new int[] {0, SortedRuns.CHUNK_HASHES - 1, SortedRuns.CHUNK_HASHES,
                    SortedRuns.MAX_RUN_HASHES - 1, SortedRuns.MAX_RUN_HASHES, m - 1}) {
                long[] hit = odd.clone();
                hit[2 * (size - 1) + 1] = 2L * edge;
                assertTrue(checkedBatch(crowded, hit, size, "even low half " + edge + ", size " + size));
            }
        }
        long[] outside = {6, 0, 7, -1, 7, 2L * m, 8, 0};
        assertFalse(checkedBatch(crowded, outside, 4, "around the crowded high half"));
    }

    /** Rule: probes whose high halves sit on the fence buckets' edges (of every run's index size)
     * and at the extremes are found when resident and missed when not. */
    @Test
    void probesAtFenceBucketEdgesAreAnsweredExactly() {
        Random rnd = new Random(34);
        SortedRuns r = new SortedRuns();
        int n = 300_000;
        long[] his = new long[n];
        long[] los = new long[n];
        int top = SortedRuns.indexBits(SortedRuns.MAX_RUN_HASHES); // the finest index: its edges are every run's
        for (int i = 0; i < n; i++) {
            long edge = (long) (rnd.nextInt(1 << top) - (1 << (top - 1))) << (64 - top);
            his[i] = switch (i % 5) {
                case 0 -> edge - 1;
                case 1 -> edge;
                case 2 -> edge + 1;
                case 3 -> i % 2 == 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
                default -> rnd.nextLong();
            };
            los[i] = rnd.nextLong();
            r.add(his[i], los[i], i, i);
        }
        assertTrue(r.wellFormed());
        for (int round = 0; round < 200; round++) {
            int size = 1 + rnd.nextInt(500);
            long[] probe = new long[2 * size];
            for (int i = 0; i < size; i++) {
                int k = rnd.nextInt(n);
                probe[2 * i] = his[k];
                probe[2 * i + 1] = rnd.nextLong(); // the edge's high half, an absent low half
            }
            assertFalse(checkedBatch(r, probe, size, "edges, absent, round " + round));
            int k = rnd.nextInt(n);
            int at = rnd.nextInt(size);
            probe[2 * at] = his[k];
            probe[2 * at + 1] = los[k];
            assertTrue(checkedBatch(r, probe, size, "edges, hash " + k + ", round " + round));
        }
    }

    /** Rule: an empty batch finds nothing, even when the array holds resident hashes; a batch of
     * one is a single lookup; with no sealed run the hot buffer alone answers. */
    @Test
    void anEmptyBatchFindsNothingAndABatchOfOneIsALookup() {
        Random rnd = new Random(35);
        int n = 3 * B + 17;
        long[] his = new long[n];
        long[] los = new long[n];
        SortedRuns r = mixed(rnd, n, his, los);
        assertFalse(r.containsAny(new long[] {his[0], los[0]}, 0));
        assertFalse(r.containsAny(new long[0], 0));
        for (int i = 0; i < n; i += 97) {
            assertTrue(checkedBatch(r, new long[] {his[i], los[i]}, 1, "hash " + i));
            assertFalse(checkedBatch(r, new long[] {his[i], ~los[i]}, 1, "near miss " + i));
        }
        SortedRuns hotOnly = new SortedRuns();
        hotOnly.add(5, 6, 0, 0);
        assertEquals(0, hotOnly.runs());
        assertTrue(checkedBatch(hotOnly, new long[] {1, 2, 5, 6}, 2, "hot buffer only"));
        assertFalse(checkedBatch(hotOnly, new long[] {1, 2, 5, 7}, 2, "hot buffer only"));
    }

    /** Rule: a probe whose bucket is empty, or lies past every pair of a run, or starts above the
     * probe, is a miss, and a resident hash beside such probes is still found. */
    @Test
    void probesInEmptyBucketsAndPastEveryPairAreMisses() {
        Random rnd = new Random(36);
        SortedRuns r = new SortedRuns();
        int n = 200_000;
        long[] his = new long[n];
        long[] los = new long[n];
        for (int i = 0; i < n; i++) {
            his[i] = -1 - (rnd.nextLong() >>> 2); // the lower quarter of the order only: upper buckets empty
            los[i] = rnd.nextLong();
            r.add(his[i], los[i], i, i);
        }
        for (int size : new int[] {2, 9, 400}) {
            long[] probe = new long[2 * size];
            for (int i = 0; i < size; i++) {
                probe[2 * i] = switch (i % 3) {
                    case 0 -> rnd.nextLong() >>> 1;           // past every pair of every run
                    case 1 -> Long.MIN_VALUE;                 // below every pair: the first bucket
                    default -> -1 - (rnd.nextLong() >>> 2);   // among the pairs
                };
                probe[2 * i + 1] = rnd.nextLong();
            }
            assertFalse(checkedBatch(r, probe, size, "absent, size " + size));
            int k = rnd.nextInt(n);
            probe[2 * (size - 1)] = his[k];
            probe[2 * (size - 1) + 1] = los[k];
            assertTrue(checkedBatch(r, probe, size, "hash " + k + " after misses, size " + size));
        }
    }
}
