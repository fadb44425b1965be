package dev.exactly.engine.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The block store's own rules (spec: "How the hashes are stored"). */
class HashRingTest {

    private static final int B = HashRing.BLOCK_HASHES;

    @Test
    void hotBufferSealsIntoASortedBlockTheInstantItIsFull() {
        HashRing r = new HashRing();
        Random rnd = new Random(1);
        for (int i = 0; i < B - 1; i++) {
            r.add(rnd.nextLong(), rnd.nextLong(), i, 0);
        }
        assertEquals(0, r.blocks());
        assertEquals(B - 1, r.hotHashes());
        r.add(rnd.nextLong(), rnd.nextLong(), B - 1, 0);
        assertEquals(1, r.blocks(), "sealed at capacity, not at the next add");
        assertEquals(0, r.hotHashes());
        assertEquals(B, r.hashes());
    }

    @Test
    void everyAddedHashIsFoundAndOthersAreNot() {
        HashRing r = new HashRing();
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
        assertEquals(3, r.blocks());
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
        HashRing edges = new HashRing();
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
        HashRing r = new HashRing();
        byte[] h = new byte[16];
        for (int i = 0; i < 16; i++) {
            h[i] = (byte) (i * 17 + 3);
        }
        r.add(h, 0, 0);
        assertTrue(r.contains(h));
        assertTrue(r.contains(HashRing.high(h), HashRing.low(h)));
        assertEquals(0x03142536_4758697AL, HashRing.high(h));
        h[15]++;
        assertFalse(r.contains(h));
    }

    @Test
    void expiryDropsWholeBlocksOnlyWhenTheirNewestHashIsStale() {
        HashRing r = new HashRing();
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
        HashRing r = new HashRing();
        for (int i = 0; i < B; i++) {
            r.add(7, i, i, 0);
        }
        // the same hash (7, 5) again, later, in the second block
        r.add(7, 5, B, 100);
        for (int i = 1; i < B; i++) {
            r.add(8, i, B + i, 100);
        }
        assertEquals(2, r.blocks());
        r.expireBefore(50);
        assertEquals(1, r.blocks());
        assertTrue(r.contains(7, 5), "no refcount needed: the later block still holds it");
        assertFalse(r.contains(7, 6));
    }

    @Test
    void expiryNeverLooksPastAFreshFrontBlock() {
        // a front block that is fresh (a clock step) keeps later stale blocks: superset, never a loss
        HashRing r = new HashRing();
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
    void theLargestAllocationIsOneBlockAndAccountingStaysUnderTwentyBytesPerHash() {
        HashRing r = new HashRing();
        Random rnd = new Random(3);
        int n = 1_000_000;
        for (int i = 0; i < n; i++) {
            r.add(rnd.nextLong(), rnd.nextLong(), i, i);
        }
        assertEquals(16L * B, r.largestArrayBytes(), "one block: long[8192], 64 KiB");
        assertEquals(n / B, r.blocks());
        double perHash = (double) r.bytes() / r.hashes();
        assertTrue(perHash < 20.0, "bytes per hash " + perHash);
        assertTrue(perHash >= 16.0, "the accounting covers the real 16 bytes per hash: " + perHash);
        // a full block is accounted at its array plus overheads
        assertEquals(HashRing.FULL_BLOCK_BYTES, 16 + 16L * B + (16 + 2 * 1025) + 56);
    }

    @Test
    void appendSplicesALaterRingBehindAndEmptiesIt() {
        HashRing a = new HashRing();
        HashRing b = new HashRing();
        for (int i = 0; i < 10; i++) {
            a.add(1, i, i, 0);
        }
        for (int i = 0; i < B + 5; i++) {
            b.add(2, i, 10 + i, 100);
        }
        a.append(b);
        assertEquals(0, b.hashes());
        assertEquals(10 + B + 5, a.hashes());
        assertEquals(2, a.blocks(), "a's partial hot buffer sealed, then b's block");
        assertTrue(a.contains(1, 9));
        assertTrue(a.contains(2, B + 4));
        // the partial block (time 0) expires first, whole
        assertEquals(10, a.expireBefore(50));
        assertTrue(a.contains(2, 0));
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
}
