package dev.exactly.engine.cache;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The contract of {@link ResidentHashes}, one test per guarantee the cache's soundness rests on
 * (no false negative, expiry keeps a superset, copies are independent, honest accounting, append
 * moves everything). An implementation's test extends this class and adds its own rules; the
 * cache's rule tests ({@link WarmDedupCacheRulesTest}) then hold for it through the interface.
 */
abstract class ResidentHashesContract {

    /** @return a new, empty set of the implementation under test */
    abstract ResidentHashes create();

    /** Adds {@code his.length} random hashes to {@code s}, hash i (kept in his[i], los[i]) at offset and time i. */
    private static void fill(ResidentHashes s, Random rnd, long[] his, long[] los) {
        for (int i = 0; i < his.length; i++) {
            his[i] = rnd.nextLong();
            los[i] = rnd.nextLong();
            s.add(his[i], los[i], i, i);
        }
    }

    /** Enough hashes to leave any small-buffer path of an implementation (several blocks of runs). */
    private static final int MANY = 20_000;

    @Test
    void anEmptySetHoldsNothingAndCostsNothing() {
        ResidentHashes s = create();
        assertEquals(0, s.hashes());
        assertEquals(0, s.bytes());
        assertFalse(s.contains(0, 0));
        assertFalse(s.containsAny(new long[] {1, 2}, 1));
        assertEquals(0, s.expireBefore(Long.MAX_VALUE));
    }

    @Test
    void everyAddedHashIsFoundAndNoOtherIs() {
        ResidentHashes s = create();
        Random rnd = new Random(21);
        long[] his = new long[MANY];
        long[] los = new long[MANY];
        for (int i = 0; i < MANY; i++) {
            his[i] = i % 9 == 0 && i > 0 ? his[i - 1] : rnd.nextLong(); // equal high halves too
            los[i] = rnd.nextLong();
            s.add(his[i], los[i], i, i);
        }
        assertEquals(MANY, s.hashes());
        for (int i = 0; i < MANY; i++) {
            assertTrue(s.contains(his[i], los[i]), "hash " + i);
            assertFalse(s.contains(his[i], los[i] ^ 1), "near miss " + i);
        }
        for (int i = 0; i < 10_000; i++) {
            assertFalse(s.contains(rnd.nextLong(), rnd.nextLong()));
        }
    }

    @Test
    void aBatchLookupFindsAnyResidentHashAndAnEmptyBatchFindsNothing() {
        ResidentHashes s = create();
        Random rnd = new Random(22);
        long[] his = new long[MANY];
        long[] los = new long[MANY];
        fill(s, rnd, his, los);
        long[] misses = new long[2 * 100];
        for (int i = 0; i < misses.length; i++) {
            misses[i] = rnd.nextLong();
        }
        assertFalse(s.containsAny(misses, 100));
        for (int i = 0; i < MANY; i += 37) {
            long[] probe = misses.clone();
            int at = i % 100;
            probe[2 * at] = his[i];
            probe[2 * at + 1] = los[i];
            assertTrue(s.containsAny(probe, 100), "hash " + i + " at batch position " + at);
        }
        assertFalse(s.containsAny(new long[] {his[0], los[0]}, 0));
    }

    @Test
    void aBatchLookupReadsOnlyItsFirstNPairsAndLeavesTheCallersArrayAsItWas() {
        ResidentHashes s = create();
        Random rnd = new Random(25);
        long[] his = new long[MANY];
        long[] los = new long[MANY];
        fill(s, rnd, his, los);
        long[] probe = new long[2 * 301];
        for (int i = 0; i < probe.length; i++) {
            probe[i] = rnd.nextLong(); // unsorted, none resident
        }
        probe[2 * 300] = his[MANY / 2]; // a resident hash just past the batch
        probe[2 * 300 + 1] = los[MANY / 2];
        long[] before = probe.clone();
        assertFalse(s.containsAny(probe, 300), "the pair past n is not part of the batch");
        assertTrue(s.containsAny(probe, 301));
        assertArrayEquals(before, probe, "the caller's array is neither reordered nor written");
    }

    @Test
    void aByteArrayHashIsItsBigEndianHalves() {
        ResidentHashes s = create();
        byte[] h = new byte[16];
        for (int i = 0; i < 16; i++) {
            h[i] = (byte) (0xF0 - i * 13);
        }
        s.add(h, 0, 0);
        assertTrue(s.contains(ResidentHashes.high(h), ResidentHashes.low(h)));
        assertEquals(0xF0E3D6C9_BCAFA295L, ResidentHashes.high(h));
        h[0]++;
        assertFalse(s.contains(h));
    }

    @Test
    void expiryKeepsEveryHashStoredAtOrAfterTheCutoff() {
        ResidentHashes s = create();
        Random rnd = new Random(23);
        long[] his = new long[MANY];
        long[] los = new long[MANY];
        fill(s, rnd, his, los); // hash i stored at time i
        for (int cutoff = 0; cutoff <= MANY; cutoff += 3_000) {
            long before = s.hashes();
            long dropped = s.expireBefore(cutoff);
            assertEquals(before - dropped, s.hashes(), "the count follows what was dropped");
            assertTrue(s.hashes() >= MANY - cutoff, "a superset of the hashes at or after " + cutoff);
            for (int i = cutoff; i < MANY; i += 7) {
                assertTrue(s.contains(his[i], los[i]), "fresh hash " + i + " at cutoff " + cutoff);
            }
        }
    }

    @Test
    void expiringPastEveryHashEmptiesTheSet() {
        ResidentHashes s = create();
        for (int i = 0; i < MANY; i++) {
            s.add(3, i, i, i);
        }
        assertEquals(MANY, s.expireBefore(MANY));
        assertEquals(0, s.hashes());
        assertEquals(0, s.bytes());
        assertFalse(s.contains(3, MANY - 1));
    }

    @Test
    void aHashStoredTwiceStaysKnownWhileItsYoungestCopyLives() {
        ResidentHashes s = create();
        for (int i = 0; i < MANY; i++) {
            s.add(7, i, i, 0);
        }
        s.add(7, 5, MANY, 100); // the same hash again, later
        for (int i = 0; i < MANY; i++) {
            s.add(8, i, MANY + 1 + i, 100);
        }
        s.expireBefore(50);
        assertTrue(s.contains(7, 5), "no reference count needed by the caller");
        for (int i = 0; i < MANY; i += 11) {
            assertTrue(s.contains(8, i));
        }
    }

    @Test
    void theAccountingCoversTheRealSixteenBytesPerHash() {
        ResidentHashes s = create();
        Random rnd = new Random(24);
        long last = 0;
        for (int i = 1; i <= MANY; i++) {
            s.add(rnd.nextLong(), rnd.nextLong(), i, i);
            assertTrue(s.bytes() >= 16L * s.hashes(), "bytes " + s.bytes() + " for " + i + " hashes");
            assertTrue(s.bytes() >= last, "adding never shrinks the footprint");
            last = s.bytes();
        }
    }

    @Test
    void appendMovesEveryHashBehindAndLeavesTheOtherEmpty() {
        ResidentHashes a = create();
        ResidentHashes b = create();
        for (int i = 0; i < MANY; i++) {
            a.add(1, i, i, 0);
        }
        for (int i = 0; i < MANY / 2 + 3; i++) {
            b.add(2, i, MANY + i, 100);
        }
        a.append(b);
        assertEquals(0, b.hashes());
        assertEquals(MANY + MANY / 2 + 3, a.hashes());
        for (int i = 0; i < MANY; i += 3) {
            assertTrue(a.contains(1, i));
        }
        for (int i = 0; i < MANY / 2 + 3; i++) {
            assertTrue(a.contains(2, i));
        }
        a.expireBefore(50); // the earlier hashes may go; the appended ones are younger and stay
        for (int i = 0; i < MANY / 2 + 3; i++) {
            assertTrue(a.contains(2, i));
        }
        a.append(create());
        assertTrue(a.contains(2, 0), "appending an empty set changes nothing");
    }

    @Test
    void appendRefusesAnotherImplementation() {
        ResidentHashes a = create();
        ResidentHashes foreign = new ResidentHashes() {
            @Override
            public void add(long hi, long lo, long offset, long time) {
            }

            @Override
            public boolean contains(long hi, long lo) {
                return false;
            }

            @Override
            public boolean containsAny(long[] probed, int n) {
                return false;
            }

            @Override
            public long expireBefore(long cutoff) {
                return 0;
            }

            @Override
            public void append(ResidentHashes later) {
            }

            @Override
            public long hashes() {
                return 1;
            }

            @Override
            public long bytes() {
                return 16;
            }
        };
        assertThrows(IllegalArgumentException.class, () -> a.append(foreign));
    }
}
