package dev.exactly.engine.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.cache.MemoryGovernor.Admission;
import dev.exactly.engine.cache.MemoryGovernor.Reservation;
import dev.exactly.engine.cache.PartitionEntry.State;
import dev.exactly.testing.CacheDefaults;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * One test per rule of {@link MemoryGovernor} (listed in its class note), on entries built by hand
 * so that each rule is seen alone: no hydration, no database, the clock is the test's.
 */
class MemoryGovernorTest {

    /** Accounted bytes of an entry holding one full block of hashes: the unit the tests count in. */
    private static final long U = PartitionEntry.ENTRY_BYTES + SortedRuns.FULL_BLOCK_BYTES;
    private static final long T0 = 1_000_000;

    private final AtomicLong now = new AtomicLong(T0);
    private final Map<PartitionKey, PartitionEntry> entries = new ConcurrentHashMap<>();
    private MemoryGovernor governor;

    private MemoryGovernor governor(long cap) {
        return governor(CacheDefaults.settings(512).withMaxBytes(cap));
    }

    private MemoryGovernor governor(CacheSettings settings) {
        governor = new MemoryGovernor(settings, now::get, entries, SortedRuns::new);
        return governor;
    }

    private static PartitionKey p(String name) {
        return new PartitionKey("q", name);
    }

    /** A READY entry holding {@code blocks} full blocks, last used at {@code lastUsed}, accounted. */
    private PartitionEntry resident(String name, int blocks, long lastUsed) {
        PartitionEntry e = new PartitionEntry(p(name), new SortedRuns());
        fill(e, blocks);
        e.state = State.READY;
        e.lastUsed = lastUsed;
        entries.put(e.key, e);
        return e;
    }

    /** Adds {@code blocks} full blocks of hashes to e and accounts it. */
    private void fill(PartitionEntry e, int blocks) {
        synchronized (e) {
            long base = e.resident.hashes();
            for (int i = 0; i < blocks * SortedRuns.BLOCK_HASHES; i++) {
                e.resident.add(e.key.partition().hashCode(), base + i, base + i, now.get());
            }
            governor.account(e);
        }
    }

    /** An entry not yet resident (a partition seen for the first time). */
    private PartitionEntry newcomer(String name) {
        PartitionEntry e = new PartitionEntry(p(name), new SortedRuns());
        entries.put(e.key, e);
        return e;
    }

    // ------------------------------------------------------------------------------ accounting

    @Test
    void theTotalsFollowEachEntryAndAnEvictedEntryCountsNothing() {
        governor(100 * U);
        PartitionEntry a = resident("a", 1, T0);
        assertEquals(U, governor.residentBytes());
        assertEquals(SortedRuns.BLOCK_HASHES, governor.residentHashes());
        resident("b", 2, T0);
        assertEquals(U + (U + SortedRuns.FULL_BLOCK_BYTES), governor.residentBytes());
        fill(a, 1);
        assertEquals(2 * (U + SortedRuns.FULL_BLOCK_BYTES), governor.residentBytes());
        assertEquals(4L * SortedRuns.BLOCK_HASHES, governor.residentHashes());
        synchronized (a) {
            a.state = State.DEAD;
            governor.account(a);
        }
        assertEquals(U + SortedRuns.FULL_BLOCK_BYTES, governor.residentBytes());
        assertEquals(2L * SortedRuns.BLOCK_HASHES, governor.residentHashes());
        assertEquals(0, a.accountedBytes);
    }

    // ------------------------------------------------------------------------------ admission

    @Test
    void aPartitionWithNoFootprintHistoryIsAlwaysAdmitted() {
        governor(U);
        resident("a", 2, now.get()); // over the cap already, and recent
        PartitionEntry n = newcomer("new");
        assertEquals(0, governor.estimate(n), "no history: an empty window");
        Reservation r = new Reservation(n, governor.estimate(n));
        assertEquals(Admission.ADMIT, governor.admit(r, now.get()));
        assertEquals(0, r.reservedBytes);
        assertEquals(0, governor.suppressions());
    }

    @Test
    void aRebuildIsAdmittedOnlyUnderNinetyPercentOfTheCap() {
        governor(10 * U);
        for (int i = 0; i < 7; i++) {
            resident("r" + i, 1, now.get()); // 7 U, all recent: nothing can be evicted
        }
        Reservation fits = new Reservation(newcomer("fits"), U + U / 2); // 8.5 U <= 9 U
        assertEquals(Admission.ADMIT, governor.admit(fits, now.get()));
        assertEquals(U + U / 2, fits.reservedBytes, "an admitted estimate is reserved");
        assertEquals(U + U / 2, governor.reservedBytes());
        governor.release(fits);
        assertEquals(0, governor.reservedBytes());
        Reservation over = new Reservation(newcomer("over"), 2 * U + U / 2); // 9.5 U: under the cap, over 90%
        assertEquals(Admission.SUPPRESS, governor.admit(over, now.get()));
        assertEquals(0, over.reservedBytes);
        assertEquals(0, governor.reservedBytes());
    }

    @Test
    void aPartitionsOwnBytesDoNotCountAgainstItsRebuild() {
        governor(10 * U);
        PartitionEntry e = resident("e", 5, now.get());
        assertEquals(5 * U - 4 * PartitionEntry.ENTRY_BYTES, governor.estimate(e), "what it holds now");
        Reservation r = new Reservation(e, 5 * U); // 5 U resident (its own) + 5 U > 9 U, but its own go
        assertEquals(Admission.ADMIT, governor.admit(r, now.get()));
    }

    @Test
    void idlePartitionsAreEvictedLeastRecentlyUsedFirstToAdmitARebuild() {
        governor(10 * U);
        PartitionEntry a = resident("a", 3, T0);
        PartitionEntry b = resident("b", 3, T0 + 1_000);
        PartitionEntry c = resident("c", 3, T0 + 2_000);
        long aBytes = a.accountedBytes;
        now.set(T0 + 10_000);
        Reservation r = new Reservation(newcomer("n"), c.accountedBytes);
        assertEquals(Admission.ADMIT, governor.admit(r, now.get()));
        assertFalse(entries.containsKey(a.key), "the least recently used went, whole");
        assertEquals(State.DEAD, a.state);
        assertEquals(0, a.resident.hashes());
        assertSame(b, entries.get(b.key));
        assertSame(c, entries.get(c.key));
        assertEquals(1, governor.evictions());
        assertEquals(aBytes, governor.footprint(a.key), "its footprint is remembered for its next rebuild");
    }

    @Test
    void aPartitionUsedWithinFiveSecondsIsNeverEvictedToAdmitAnother() {
        governor(10 * U);
        PartitionEntry a = resident("a", 3, T0);
        PartitionEntry b = resident("b", 3, T0 + 1);
        resident("c", 3, T0 + 1);
        now.set(T0 + 4_999);
        Reservation r = new Reservation(newcomer("n"), 3 * U);
        assertEquals(Admission.SUPPRESS, governor.admit(r, now.get()));
        assertEquals(0, governor.evictions());
        assertSame(a, entries.get(a.key));
        now.set(T0 + 5_000); // idle for exactly 5 s: evictable
        assertEquals(Admission.ADMIT, governor.admit(r, now.get()));
        assertFalse(entries.containsKey(a.key));
        assertSame(b, entries.get(b.key));
    }

    @Test
    void aBusyEvictionLockMeansRetryNotWait() throws Exception {
        governor(2 * U);
        PartitionEntry victim = resident("victim", 2, T0);
        PartitionEntry grower = resident("grower", 1, T0 + 10_000);
        now.set(T0 + 10_000);
        Thread shedder;
        synchronized (victim) {
            // another thread sheds memory: it takes the eviction lock, then waits for the victim's monitor
            shedder = new Thread(() -> governor.enforceCap(grower, now.get()));
            shedder.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (shedder.getState() != Thread.State.BLOCKED && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(Thread.State.BLOCKED, shedder.getState());
            Reservation r = new Reservation(newcomer("n"), U);
            assertEquals(Admission.RETRY, governor.admit(r, now.get()), "the push path never waits for the lock");
            Reservation g = new Reservation(newcomer("g"), 0);
            assertTrue(governor.grow(g, 10 * U), "a busy lock: the growing hydration checks again later");
        }
        shedder.join(10_000);
        assertFalse(shedder.isAlive());
        assertFalse(entries.containsKey(victim.key), "the shedder went on once the monitor was free");
    }

    // ------------------------------------------------------------------------------ growth

    @Test
    void concurrentHydrationsReserveTogetherSoTheyCannotOvershootTheCap() {
        governor(10 * U);
        Reservation r1 = new Reservation(newcomer("one"), 0);
        Reservation r2 = new Reservation(newcomer("two"), 0);
        assertTrue(governor.grow(r1, 6 * U));
        assertEquals(6 * U, governor.reservedBytes());
        assertFalse(governor.grow(r2, 6 * U), "each estimated an empty window; together they do not fit");
        assertEquals(12 * U, governor.reservedBytes());
        governor.release(r2); // the one that stopped gives its bytes back
        assertEquals(6 * U, governor.reservedBytes());
        assertTrue(governor.grow(r1, 3 * U), "a reservation never shrinks while reading");
        assertEquals(6 * U, r1.reservedBytes);
        governor.release(r1);
        assertEquals(0, governor.reservedBytes());
    }

    @Test
    void growthPastTheCapEvictsIdlePartitionsToMakeRoom() {
        governor(10 * U);
        PartitionEntry idle = resident("idle", 6, T0);
        PartitionEntry recent = resident("recent", 1, T0 + 10_000);
        now.set(T0 + 10_000);
        Reservation r = new Reservation(newcomer("n"), 0);
        assertTrue(governor.grow(r, 2 * U));
        assertSame(idle, entries.get(idle.key), "fits: nothing evicted");
        assertTrue(governor.grow(r, 6 * U));
        assertFalse(entries.containsKey(idle.key), "over the cap: the idle partition went");
        assertSame(recent, entries.get(recent.key));
        assertFalse(governor.grow(r, 10 * U), "cannot fit even so: the hydration stops");
        assertSame(recent, entries.get(recent.key), "a recent partition is never evicted for it");
    }

    @Test
    void growthOfAResidentEntryEvictsIdlePartitionsThenSuppressesTheOneThatGrew() {
        governor(4 * U);
        PartitionEntry idle = resident("idle", 2, T0);
        PartitionEntry grower = resident("grower", 1, T0 + 10_000);
        now.set(T0 + 10_000);
        fill(grower, 2); // idle (2 blocks) + grower (3 blocks) > 4 U
        governor.enforceCap(grower, now.get());
        assertFalse(entries.containsKey(idle.key), "the idle partition went first");
        assertSame(grower, entries.get(grower.key));
        assertFalse(governor.suppressed(grower.key, now.get()));
        fill(grower, 3); // alone over the cap now
        long grown = grower.accountedBytes;
        governor.enforceCap(grower, now.get());
        assertFalse(entries.containsKey(grower.key));
        assertTrue(governor.suppressed(grower.key, now.get()));
        assertEquals(grown, governor.footprint(grower.key));
        assertEquals(0, governor.residentBytes());
    }

    @Test
    void aHydrationTooBigToFitLeavesItsMeasuredFootprintAndIsSuppressed() {
        governor(U);
        PartitionEntry e = newcomer("big");
        e.state = State.LOADING;
        governor.tooBig(e, 3 * U, now.get());
        assertTrue(governor.suppressed(e.key, now.get()));
        assertFalse(entries.containsKey(e.key));
        assertEquals(3 * U + PartitionEntry.ENTRY_BYTES, governor.footprint(e.key));
        PartitionEntry again = newcomer("big");
        assertEquals(3 * U + PartitionEntry.ENTRY_BYTES, governor.estimate(again), "its next rebuild is gated");
    }

    // ------------------------------------------------------------------------------ suppression

    @Test
    void aSuppressedPartitionServesItsCooldownThenIsForgotten() {
        governor(10 * U);
        PartitionEntry e = resident("e", 1, now.get());
        governor.suppress(e, now.get());
        assertFalse(entries.containsKey(e.key), "suppression evicts, even a recent partition");
        assertEquals(1, governor.suppressions());
        assertEquals(1, governor.suppressedPartitions(now.get()));
        assertTrue(governor.coolingDown(e.key, now.get() + 29_999));
        assertEquals(1, governor.cooldownEntries());
        assertFalse(governor.coolingDown(e.key, now.get() + 30_000), "30 s later it is tested again");
        assertEquals(0, governor.cooldownEntries(), "an ended cooldown is forgotten");
        assertFalse(governor.suppressed(e.key, now.get() + 30_000));
    }

    @Test
    void pressureWarnsAtMostOncePerMinuteProcessWide() {
        governor(10 * U);
        governor.suppress(resident("a", 1, T0), T0);
        assertEquals(1, governor.warnings());
        governor.suppress(resident("b", 1, T0), T0 + 30_000);
        governor.suppress(resident("c", 1, T0), T0 + 59_999);
        assertEquals(3, governor.suppressions());
        assertEquals(1, governor.warnings(), "other partitions, same minute: no second warning");
        governor.suppress(resident("d", 1, T0), T0 + 60_000);
        assertEquals(2, governor.warnings());
    }

    @Test
    void theBookkeepingMapsAreSoftCappedExpiredCooldownsFirst() {
        governor(CacheDefaults.settings(512).withMaxBytes(10 * U).withBookkeepingCap(10));
        for (int i = 0; i < 6; i++) {
            governor.suppress(resident("old" + i, 1, T0), T0);
        }
        long later = T0 + 31_000; // the six cooldowns have ended (not yet pruned)
        for (int i = 0; i < 4; i++) {
            governor.suppress(resident("live" + i, 1, later), later);
        }
        assertEquals(10, governor.cooldownEntries());
        assertEquals(10, governor.footprintEntries());
        governor.suppress(resident("new", 1, later), later);
        assertEquals(5, governor.cooldownEntries(), "the six ended cooldowns were pruned, not the live ones");
        assertTrue(governor.suppressed(p("live0"), later));
        assertTrue(governor.suppressed(p("new"), later));
        assertEquals(1, governor.footprintEntries(), "footprints past the cap: cleared, the newest kept");
        assertEquals(U, governor.footprint(p("new")));
        assertNull(governor.footprint(p("old0")));
        for (int i = 0; i < 6; i++) {
            governor.suppress(resident("more" + i, 1, later), later);
        }
        assertEquals(1, governor.cooldownEntries(), "eleven live cooldowns: cleared, the newest kept");
        assertTrue(governor.suppressed(p("more5"), later), "the newest cooldown survives a reset");
        assertFalse(governor.suppressed(p("live0"), later), "the only cost: a cooldown ends early");
    }
}
