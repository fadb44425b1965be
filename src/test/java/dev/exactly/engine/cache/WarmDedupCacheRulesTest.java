package dev.exactly.engine.cache;

import static dev.exactly.engine.cache.ScriptedLog.items;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.exactly.engine.DedupCache;
import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.ProbeBound;
import dev.exactly.engine.PushItem;
import dev.exactly.engine.SegmentOutcome;
import dev.exactly.testing.CacheDefaults;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One test per rule of the warm cache (the rules listed in {@link WarmDedupCache}'s and {@link
 * MemoryGovernor}'s class notes), run through the {@link ResidentHashes} interface: the storage is
 * {@link #STORAGE}, and the only fact the tests take from it is its expiry granule. Time is the
 * scripted log's clock: no sleeping.
 */
class WarmDedupCacheRulesTest {

    private static final PartitionKey K = new PartitionKey("q", "p");
    private static final long BIG = 1L << 40;
    /** The storage the cache runs with: every rule below holds for any {@link ResidentHashes}. */
    private static final Supplier<ResidentHashes> STORAGE = SortedRuns::new;
    /** The storage's expiry granule, in hashes: a full block of this many expires whole. */
    private static final int BLOCK = SortedRuns.BLOCK_HASHES;
    /** Accounted bytes of a partition holding exactly two full blocks. */
    private static final long TWO_BLOCKS = PartitionEntry.ENTRY_BYTES + bytesOf(2 * BLOCK);

    /** The storage's accounted bytes for {@code n} hashes stored at once. */
    private static long bytesOf(int n) {
        ResidentHashes s = STORAGE.get();
        for (int i = 0; i < n; i++) {
            s.add(i, i, i, 0);
        }
        return s.bytes();
    }

    private ScriptedLog log;
    private WarmDedupCache cache;

    @BeforeEach
    void setUp() {
        log = new ScriptedLog();
        cache = new WarmDedupCache(log, CacheDefaults.settings(512).withMaxBytes(BIG), log.ticker, STORAGE);
    }

    private WarmDedupCache cache(long maxBytes) {
        cache = new WarmDedupCache(log, CacheDefaults.settings(512).withMaxBytes(maxBytes), log.ticker, STORAGE);
        return cache;
    }

    private ProbeBound bound(PartitionKey k, String... txns) {
        return cache.bound(k, items(txns));
    }

    /** Our own push: the cache is asked, the log stores, the cache is told. */
    private void push(PartitionKey k, String... txns) {
        List<PushItem> its = items(txns);
        cache.bound(k, its);
        cache.committed(k, its, log.store(k, its));
    }

    /** An all-duplicate segment of ours: nothing stored, the memo confirmed. */
    private void confirm(PartitionKey k) {
        cache.committed(k, items("dup"), log.allDuplicates(k, 1));
    }

    /** Another instance's push: the log stores, this cache hears nothing. */
    private void foreign(PartitionKey k, String... txns) {
        log.store(k, items(txns));
    }

    /**
     * After a first early notice: as many more of ours as the entry holds, the last one past what
     * it holds, so the gap is taken for another instance's write.
     */
    private void beyond(PartitionKey k) {
        for (int i = 0; i < PartitionEntry.MAX_EARLY; i++) {
            push(k, "beyond" + i);
        }
    }

    private static String[] ids(String prefix, int n) {
        String[] s = new String[n];
        for (int i = 0; i < n; i++) {
            s[i] = prefix + i;
        }
        return s;
    }

    // ------------------------------------------------------------------------------ born complete

    @Test
    void aColdPartitionAnswersMinusOneWhileItHydratesInTheBackground() {
        foreign(K, "a", "b", "c");
        log.hold = true;
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "x"), "nothing known yet");
        assertEquals(1, log.heldLoads());
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "x"), "still loading: -1, and no second load");
        assertEquals(1, log.fullReads);
        log.releaseAll();
        assertEquals(new ProbeBound(2, 3600), bound(K, "x"), "born complete up to the allocator watermark read");
        assertEquals(1, cache.stats().fullHydrations());
    }

    @Test
    void atMostTwoHydrationsAreInFlightAndAPartitionWithoutASlotTriesAgainLater() {
        log.hold = true;
        bound(p("a"));
        bound(p("b"));
        assertEquals(ProbeBound.PROBE_ALL, bound(p("c")));
        assertEquals(2, log.heldLoads(), "c found no slot: no connection is taken for it");
        assertEquals(2, cache.loadsInFlight());
        log.releaseAll();
        assertEquals(0, cache.loadsInFlight());
        bound(p("c"));
        assertEquals(1, log.heldLoads(), "c's next push starts its hydration");
        log.releaseAll();
        assertEquals(3, cache.stats().fullHydrations());
    }

    @Test
    void hydrationReadsTheWholeWindowPlusSlackOnTheSafeSide() {
        foreign(K, "old");
        log.advance(3600_000 + 4_000); // 'old' is 3604 s old: outside the window, inside the 5 s slack
        foreign(K, "new");
        bound(K);
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "old"), "kept: extra old rows only widen coverage");
        assertEquals(new ProbeBound(1, 3600), bound(K, "other"));
    }

    // ------------------------------------------------------------------------------ contiguity

    @Test
    void aContiguousCommitAppendsItsHashesAndAdvancesTheWatermark() {
        foreign(K, "a");
        bound(K);
        assertEquals(new ProbeBound(0, 3600), bound(K, "z"));
        push(K, "b", "c");
        assertEquals(new ProbeBound(2, 3600), bound(K, "z"));
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "c"), "the appended hash is known");
        // a segment of duplicates stores nothing and leaves the watermark where it was
        cache.committed(K, items("a"), log.allDuplicates(K, 1));
        assertEquals(new ProbeBound(2, 3600), bound(K, "z"));
    }

    @Test
    void aLocalDuplicateRoutesTheSegmentToTheFullProbe() {
        push(K, "warm-up");
        push(K, "a");
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "new-1", "a", "new-2"), "a hit is a hint, never a verdict");
        assertEquals(1, cache.stats().localHits());
        assertEquals(new ProbeBound(1, 3600), bound(K, "new-1", "new-2"));
    }

    @Test
    void itemsWithoutATransactionIdAreNeverLookedUp() {
        push(K, "warm-up");
        push(K, "a");
        PushItem own = items("a").get(0);
        PushItem unprobed = new PushItem(0, own.command(), own.messageId(), own.transactionId(), own.hash(), false);
        assertEquals(new ProbeBound(1, 3600), cache.bound(K, List.of(unprobed)),
                "the store does not probe it, so it cannot need the full window");
    }

    @Test
    void anInterleaveGapAnswersMinusOneUntilADeltaReadHealsIt() {
        push(K, "a");
        push(K, "b");
        foreign(K, "f1", "f2"); // another instance, offsets 2..3
        push(K, "c");           // ours at 4: prev 3 > verifiedUpto 1 → held (early notice)
        assertEquals(new ProbeBound(1, 3600), bound(K, "zz"), "one early notice: still vouching for what it holds");
        beyond(K);              // ours at 5..8: one notice above the watermark too many → gap
        log.hold = true;
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "zz"), "gap: cannot vouch");
        assertEquals(1, log.deltaReads, "the heal is a delta read of the gap, not a full hydration");
        assertEquals(1, log.fullReads);
        log.releaseAll();
        assertEquals(new ProbeBound(8, 3600), bound(K, "zz"));
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "f2"), "the foreign hashes are known after the heal");
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "c"));
        assertEquals(1, cache.stats().deltaHydrations());
    }

    @Test
    void aNoticeThatOvertookAnEarlierCommitsIsHeldUntilTheGapFills() {
        push(K, "a");
        List<PushItem> first = items("b", "c");
        SegmentOutcome o1 = log.store(K, first);  // ours at 1..2
        List<PushItem> second = items("d");
        SegmentOutcome o2 = log.store(K, second); // ours at 3, committed after it
        cache.committed(K, second, o2);           // its notice comes first: prev 2 > verifiedUpto 0
        assertEquals(new ProbeBound(0, 3600), bound(K, "zz"), "held: the watermark stays, no disqualification");
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "d"), "a hash of the held commit is a local hit");
        cache.committed(K, first, o1);            // fills the gap: both applied
        assertEquals(new ProbeBound(3, 3600), bound(K, "zz"));
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "c"));
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "d"));
        assertEquals(0, log.deltaReads, "no read: nothing was missing");
        assertEquals(1, log.fullReads);
        push(K, "e");
        assertEquals(new ProbeBound(4, 3600), bound(K, "zz"), "contiguous commits go on extending the content");
    }

    @Test
    void severalNoticesThatArriveInReverseOrderAreAppliedInOrderOnceTheGapFills() {
        push(K, "a");
        List<List<PushItem>> its = new ArrayList<>();
        List<SegmentOutcome> outs = new ArrayList<>();
        for (int i = 0; i <= PartitionEntry.MAX_EARLY; i++) {
            its.add(items("r" + i));
            outs.add(log.store(K, its.get(i))); // ours at 1 + i
        }
        for (int i = PartitionEntry.MAX_EARLY; i >= 1; i--) {
            cache.committed(K, its.get(i), outs.get(i)); // held, each
            assertEquals(new ProbeBound(0, 3600), bound(K, "zz"));
        }
        cache.committed(K, its.get(0), outs.get(0));
        assertEquals(new ProbeBound(1 + PartitionEntry.MAX_EARLY, 3600), bound(K, "zz"), "all applied");
        assertEquals(0, log.deltaReads);
    }

    @Test
    void aLocalDuplicateWhileAGapIsPendingStillAnswersMinusOne() {
        push(K, "a");
        foreign(K, "f");
        push(K, "b");
        beyond(K);
        log.hold = true;
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "a"));
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "unknown"));
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "a", "unknown"));
        log.releaseAll();
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "a"), "healed, and the hit still routes to the full probe");
        assertEquals(new ProbeBound(6, 3600), bound(K, "unknown"));
    }

    @Test
    void aGapThatCannotBeReadExactlyFallsBackToAFullRehydration() {
        cache = new WarmDedupCache(log, CacheDefaults.settings(512).withMaxBytes(BIG).withMaxDeltaRows(2), log.ticker,
                STORAGE);
        push(K, "a");
        foreign(K, "f1", "f2", "f3");
        push(K, "b");
        beyond(K);
        bound(K); // delta refused: gap of 8 > 2
        assertEquals(1, log.deltaReads);
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "zz"));
        assertEquals(2, log.fullReads, "the incomplete delta made the next load a full one");
        assertEquals(new ProbeBound(8, 3600), bound(K, "zz"));
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "f3"));
    }

    @Test
    void anOverlapForcesAFullRebuild() {
        push(K, "a");
        push(K, "b");
        // a commit claiming to start below the watermark (impossible under a monotone allocator)
        SegmentOutcome o = log.store(K, items("c"));
        SegmentOutcome overlapping = new SegmentOutcome(o.partitionId(), 0, o.windowSeconds(), new long[] {1},
                o.messageIds(), o.duplicate());
        cache.committed(K, items("c"), overlapping);
        int fullBefore = log.fullReads;
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "zz"));
        assertEquals(fullBefore + 1, log.fullReads, "not a delta: the content itself is suspect");
        assertEquals(0, log.deltaReads);
        assertEquals(new ProbeBound(2, 3600), bound(K, "zz"));
    }

    @Test
    void commitsSeenDuringAHydrationAreReplayedAfterIt() {
        foreign(K, "a");
        log.hold = true;
        bound(K); // full load: snapshot L = 0
        // ours, committed while the load is in flight: stored at 1..2, after the snapshot
        List<PushItem> its = items("b", "c");
        cache.committed(K, its, log.store(K, its));
        log.releaseAll();
        assertEquals(new ProbeBound(2, 3600), bound(K, "zz"), "the buffered commit extended the fresh content");
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "c"));
    }

    @Test
    void aCommitAlreadyInsideTheHydrationSnapshotIsNotAppliedTwice() {
        push(K, "a");
        List<PushItem> its = items("b");
        SegmentOutcome o = log.store(K, its); // stored at 1; its notice is late
        cache.queueReconfigured("q");
        log.hold = true;
        bound(K); // full load: its snapshot (L = 1) already holds "b"
        cache.committed(K, its, o); // the late notice arrives during the load (prev 0 < L)
        log.releaseAll();
        assertEquals(new ProbeBound(1, 3600), bound(K, "zz"), "skipped, not taken for an overlap");
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "b"));
        assertEquals(2, log.fullReads);
    }

    @Test
    void aLateNoticeAfterTheHydrationInstalledIsSkippedNotTakenForAnOverlap() {
        push(K, "a");
        List<PushItem> its = items("b");
        SegmentOutcome o = log.store(K, its); // stored at 1; its notice is late
        cache.queueReconfigured("q");
        bound(K); // full load: its snapshot (L = 1) already holds "b"; installs at once
        assertEquals(new ProbeBound(1, 3600), bound(K, "zz"));
        cache.committed(K, its, o); // the late notice arrives after the install (prev 0, end 1 <= L)
        assertEquals(new ProbeBound(1, 3600), bound(K, "zz"), "still vouching: no rebuild");
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "b"));
        assertEquals(2, log.fullReads, "no further full hydration");
        push(K, "c"); // contiguous commits still extend the content
        assertEquals(new ProbeBound(2, 3600), bound(K, "zz"));
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "c"));
    }

    @Test
    void aLateAllDuplicateNoticeIsSkipped() {
        push(K, "a");
        SegmentOutcome empty = log.allDuplicates(K, 1); // stored nothing at prev = 0
        push(K, "b");
        cache.committed(K, items("dup"), empty); // its notice comes after the later commit's
        int fullBefore = log.fullReads;
        assertEquals(new ProbeBound(1, 3600), bound(K, "zz"), "nothing stored, nothing to rebuild");
        assertEquals(fullBefore, log.fullReads);
    }

    // ------------------------------------------------------------------------------ window & memo

    @Test
    void aWindowChangeForcesAFullRehydrationStickyUntilOneSucceeds() {
        push(K, "a");
        log.part(K).window = 7200;
        push(K, "b"); // its outcome reports 7200
        // the first rebuild fails: the entry keeps answering -1 and the next load is full again
        log.failNext = new IllegalStateException("database away");
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "zz"), "changed window: rebuild");
        assertEquals(2, log.fullReads);
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "zz"), "a failed load is retried after a back-off");
        assertEquals(2, log.fullReads);
        log.failNext = new IllegalStateException("database away");
        log.advance(1_000);
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "zz"));
        assertEquals(3, log.fullReads);
        log.advance(1_000);
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "zz"));
        assertEquals(4, log.fullReads, "still full: the flag is sticky until a rebuild succeeds");
        assertEquals(0, log.deltaReads);
        assertEquals(new ProbeBound(1, 7200), bound(K, "zz"));
        assertEquals(2, cache.stats().failedHydrations());
    }

    @Test
    void theVouchCarriesTheWindowItWasMadeUnder() {
        log.part(K).window = 60;
        push(K, "a");
        assertEquals(new ProbeBound(0, 60), bound(K, "zz"),
                "the store ignores it if the queue's window has grown meanwhile");
    }

    @Test
    void aReconfiguredQueueRebuildsFullyEvenIfALoadWasInFlight() {
        push(K, "a");
        cache.queueReconfigured("other-queue");
        assertEquals(new ProbeBound(0, 3600), bound(K, "zz"));
        cache.queueReconfigured("q");
        log.hold = true;
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "zz"));
        assertEquals(2, log.fullReads);
        cache.queueReconfigured("q"); // again, while that load is in flight
        log.releaseAll();
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "zz"), "the in-flight load may hold the old window");
        assertEquals(3, log.fullReads);
        log.releaseAll();
        assertEquals(new ProbeBound(0, 3600), bound(K, "zz"));
    }

    @Test
    void aPartitionIdChangeForcesAFullRebuild() {
        push(K, "a");
        SegmentOutcome o = log.store(K, items("b"));
        cache.committed(K, items("b"), new SegmentOutcome(o.partitionId() + 100, o.prevLastOffset(),
                o.windowSeconds(), o.offsets(), o.messageIds(), o.duplicate()));
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "zz"));
        assertEquals(2, log.fullReads);
    }

    @Test
    void aMemoOlderThanThirtySecondsAnswersMinusOneUntilACommitConfirmsIt() {
        push(K, "a");
        log.advance(30_000);
        assertEquals(new ProbeBound(0, 3600), bound(K, "zz"), "exactly 30 s: still fresh");
        log.advance(1);
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "zz"), "stale memo");
        push(K, "b");
        assertEquals(new ProbeBound(1, 3600), bound(K, "zz"), "the commit's outcome confirmed id, window, allocator");
    }

    @Test
    void aPartitionThatDidNotExistAdoptsItsFirstCommitsWindow() {
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "a"));
        assertEquals(1, log.fullReads);
        log.part(K).window = 120; // created (by the push) with a configured window
        List<PushItem> its = items("a");
        cache.committed(K, its, log.store(K, its));
        assertEquals(new ProbeBound(0, 120), bound(K, "zz"));
        assertEquals(1, log.fullReads, "an empty content is valid for any window: no rebuild");
    }

    // ------------------------------------------------------------------------------ expiry

    @Test
    void expiryIsBlockGranularAndKeepsASuperset() {
        log.part(K).window = 60;
        push(K, ids("old-", BLOCK)); // one full block at t0
        log.advance(30_000);
        push(K, "young");                            // hot buffer at t0 + 30 s
        log.advance(34_000);                         // t0 + 64 s: 'old' is past the window, not past the slack
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "old-7"));
        log.advance(1_001);                          // t0 + 65.001 s: the whole block is stale
        confirm(K);                                  // (keeps the 30 s memo fresh)
        assertEquals(new ProbeBound(BLOCK, 60), bound(K, "old-7"));
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "young"), "younger hashes stay");
        assertEquals(BLOCK, cache.stats().expiredHashes());
        assertEquals(1, cache.stats().residentHashes());
    }

    @Test
    void aHashInTwoBlocksSurvivesTheFirstBlocksExpiry() {
        log.part(K).window = 60;
        push(K, ids("a-", BLOCK));
        log.advance(40_000);
        push(K, "a-5"); // stored again (e.g. while the window was 0 elsewhere): a second, younger block
        log.advance(30_000);
        assertEquals(ProbeBound.PROBE_ALL, bound(K, "a-5"), "known while its last containing block lives");
        assertEquals(new ProbeBound(BLOCK, 60), bound(K, "a-6"));
    }

    // ------------------------------------------------------------------------------ memory

    private void fillTwoBlocks(PartitionKey k) {
        foreign(k, ids(k.partition() + "-", 2 * BLOCK));
    }

    private static PartitionKey p(String name) {
        return new PartitionKey("q", name);
    }

    @Test
    void theLruEvictsWholePartitionsWhenTheCapIsExceeded() {
        cache(3 * TWO_BLOCKS + 1000);
        for (String n : List.of("a", "b", "c", "d")) {
            fillTwoBlocks(p(n));
        }
        bound(p("a"));
        log.advance(1_000);
        bound(p("b"));
        log.advance(1_000);
        bound(p("c"));
        log.advance(10_000);
        bound(p("b")); // b is now more recent than a
        log.advance(10_000);
        bound(p("d")); // brand new: admitted; the cache is then over its cap
        assertFalse(cache.resident(p("a")), "the least recently used partition went, whole");
        assertTrue(cache.resident(p("b")));
        assertTrue(cache.resident(p("c")));
        assertTrue(cache.resident(p("d")));
        assertEquals(3 * 2 * BLOCK, cache.stats().residentHashes());
        assertTrue(cache.stats().residentBytes() <= cache.settings().maxBytes());
    }

    @Test
    void readmissionEvictsTheLeastRecentlyUsedToMakeRoomUnderNinetyPercent() {
        cache(4 * TWO_BLOCKS);
        for (String n : List.of("a", "b", "c", "d")) {
            fillTwoBlocks(p(n));
        }
        for (String n : List.of("a", "b", "c", "d")) {
            bound(p(n));
            log.advance(1_000);
        }
        // a full cache (4 of 4 slots); a window change makes 'd' rebuild with a known footprint:
        // it fits only under 90% of the cap after evicting the LRU partition
        log.advance(10_000);
        cache.queueReconfigured("q");
        bound(p("d"));
        assertFalse(cache.resident(p("a")), "LRU evicted to admit the rebuild");
        assertTrue(cache.resident(p("b")));
        assertFalse(cache.suppressed(p("d")));
        assertEquals(new ProbeBound(2 * BLOCK - 1, 3600), bound(p("d"), "zz"));
    }

    @Test
    void aPartitionUsedWithinFiveSecondsIsNotEvictedToAdmitANewcomer() {
        cache(3 * TWO_BLOCKS + 1000);
        for (String n : List.of("a", "b", "c", "d")) {
            fillTwoBlocks(p(n));
        }
        bound(p("a"));
        bound(p("b"));
        bound(p("c"));
        log.advance(10_000);
        bound(p("d")); // evicts a (LRU, not recent); a's footprint is now known
        assertFalse(cache.resident(p("a")));
        log.advance(10_000);
        bound(p("b"));
        bound(p("c"));
        log.advance(4_000);
        bound(p("d"));
        // b, c, d all used within the last 5 s: a cannot be admitted by evicting them
        assertEquals(ProbeBound.PROBE_ALL, bound(p("a"), "zz"));
        assertTrue(cache.resident(p("b")));
        assertTrue(cache.resident(p("c")));
        assertTrue(cache.resident(p("d")));
        assertTrue(cache.suppressed(p("a")), "the newcomer is suppressed instead");
        assertEquals(1, cache.stats().suppressedPartitions());
    }

    @Test
    void aSuppressedPartitionServesItsCooldownThenIsTestedAgain() {
        cache(3 * TWO_BLOCKS + 2 * TWO_BLOCKS / 5); // three partitions fit under 90% of the cap
        for (String n : List.of("a", "b", "c", "d")) {
            fillTwoBlocks(p(n));
        }
        bound(p("a"));
        bound(p("b"));
        bound(p("c"));
        log.advance(10_000);
        bound(p("d"));
        bound(p("b"));
        bound(p("c"));
        bound(p("a")); // suppressed: b, c, d are recent
        assertTrue(cache.suppressed(p("a")));
        int reads = log.fullReads;
        for (int i = 0; i < 29; i++) {
            log.advance(1_000);
            bound(p("b"));
            bound(p("c"));
            bound(p("d"));
            assertEquals(ProbeBound.PROBE_ALL, bound(p("a"), "zz"));
        }
        assertEquals(reads, log.fullReads, "not re-tested during the cooldown");
        // after 30 s, with d idle for a while, a is tested again and admitted by evicting d
        log.advance(1_000);
        bound(p("b"));
        bound(p("c"));
        log.advance(6_000);
        bound(p("b"));
        bound(p("c"));
        assertEquals(ProbeBound.PROBE_ALL, bound(p("a"), "zz"));
        assertFalse(cache.suppressed(p("a")));
        assertEquals(reads + 1, log.fullReads);
        assertFalse(cache.resident(p("d")), "d was the LRU partition not used within 5 s");
        assertEquals(new ProbeBound(2 * BLOCK - 1, 3600), bound(p("a"), "zz"));
    }

    @Test
    void pressureWarnsAtMostOncePerMinute() {
        cache(TWO_BLOCKS + 1000);
        for (String n : List.of("a", "b", "c")) {
            fillTwoBlocks(p(n));
        }
        bound(p("a"));
        log.advance(10_000);
        bound(p("b")); // a evicted, its footprint known
        bound(p("a")); // suppressed
        assertEquals(1, cache.stats().warnings());
        log.advance(31_000);
        bound(p("b"));
        bound(p("a")); // suppressed again, 31 s after the first warning
        assertEquals(2, cache.stats().suppressions());
        assertEquals(1, cache.stats().warnings(), "one per minute, process-wide");
        log.advance(31_000);
        bound(p("b"));
        bound(p("a"));
        assertEquals(3, cache.stats().suppressions());
        assertEquals(2, cache.stats().warnings());
    }

    @Test
    void aBrandNewPartitionIsNeverSuppressedOnFirstContact() {
        cache(TWO_BLOCKS + 1000);
        fillTwoBlocks(p("a"));
        bound(p("a"));
        bound(p("new")); // a is recent and the cache is over 90%: a known footprint would be refused
        assertFalse(cache.suppressed(p("new")));
        assertTrue(cache.resident(p("new")));
        assertEquals(2, cache.stats().fullHydrations());
    }

    @Test
    void aHydrationLargerThanTheCapIsAbortedAndSuppressed() {
        cache(TWO_BLOCKS / 2);
        fillTwoBlocks(p("a"));
        assertEquals(ProbeBound.PROBE_ALL, bound(p("a")));
        assertTrue(cache.suppressed(p("a")), "stopped reading once it could not fit");
        assertFalse(cache.resident(p("a")));
        assertEquals(0, cache.stats().residentHashes());
    }

    @Test
    void growthPastTheCapEvictsIdlePartitionsThenSuppressesTheOneThatGrew() {
        cache(TWO_BLOCKS + TWO_BLOCKS / 4); // room for about two and a half blocks
        fillTwoBlocks(p("a"));
        bound(p("a"));
        log.advance(10_000);
        push(p("b"), ids("b-", BLOCK)); // a (2 blocks, idle) + b (1 block) > cap
        assertFalse(cache.resident(p("a")), "the idle partition went first");
        assertTrue(cache.resident(p("b")));
        push(p("b"), ids("c-", 2 * BLOCK)); // b alone now exceeds the cap
        assertFalse(cache.resident(p("b")));
        assertTrue(cache.suppressed(p("b")));
        assertTrue(cache.stats().residentBytes() <= cache.settings().maxBytes());
    }

    @Test
    void cheapAdmissionsAreNeverGated() {
        cache(TWO_BLOCKS + 1000);
        fillTwoBlocks(p("a"));
        bound(p("a"));
        assertTrue(cache.stats().residentBytes() > 0.9 * cache.settings().maxBytes(), "above the fit line");
        // vouching: no gate
        assertEquals(new ProbeBound(2 * BLOCK - 1, 3600), bound(p("a"), "zz"));
        // an interleave gap is healed by a delta read, not gated either
        foreign(p("a"), "f");
        push(p("a"), "g");
        beyond(p("a"));
        bound(p("a"));
        assertEquals(1, log.deltaReads);
        assertEquals(new ProbeBound(2 * BLOCK + 5, 3600), bound(p("a"), "zz"));
        assertEquals(0, cache.stats().suppressions());
    }

    @Test
    void anEvictedEntrysLoadIsDiscarded() {
        cache(TWO_BLOCKS + 1000);
        fillTwoBlocks(p("a"));
        fillTwoBlocks(p("b"));
        bound(p("a"));
        log.hold = true;
        log.advance(10_000);
        cache.queueReconfigured("q");
        bound(p("a")); // a's rebuild in flight
        log.advance(10_000);
        log.hold = false;
        bound(p("b")); // b admitted; over the cap: a (idle 10 s) is evicted while its load is in flight
        assertFalse(cache.resident(p("a")));
        log.releaseAll();
        assertFalse(cache.resident(p("a")), "the late load did not resurrect it");
        assertEquals(2 * BLOCK, cache.stats().residentHashes());
    }

    @Test
    void bookkeepingMapsAreSoftCapped() {
        cache = new WarmDedupCache(log, CacheDefaults.settings(512).withMaxBytes(TWO_BLOCKS + 1000)
                .withBookkeepingCap(10), log.ticker, STORAGE);
        for (int i = 0; i < 40; i++) {
            PartitionKey k = p("n" + i);
            fillTwoBlocks(k);
            bound(k);
            log.advance(6_000);
        }
        // each newcomer evicted the previous one: 39 footprint hints were recorded
        assertTrue(cache.footprintEntries() <= 10, "footprints " + cache.footprintEntries());
        for (int i = 0; i < 39; i++) {
            bound(p("n" + i)); // known footprints, no room: suppressed
            log.advance(1);
        }
        assertTrue(cache.cooldownEntries() <= 10, "cooldowns " + cache.cooldownEntries());
        assertTrue(cache.stats().suppressions() >= 10);
    }

    // ------------------------------------------------------------------------------ disabled

    @Test
    void theDisabledCacheAlwaysAnswersMinusOneAndRemembersNothing() {
        DedupCache off = DedupCache.DISABLED;
        List<PushItem> its = items("a", "b");
        assertEquals(ProbeBound.PROBE_ALL, off.bound(K, its));
        off.committed(K, its, log.store(K, its));
        off.queueReconfigured("q");
        assertEquals(ProbeBound.PROBE_ALL, off.bound(K, items("c")));
        assertEquals(ProbeBound.PROBE_ALL, off.bound(K, its));
        assertFalse(ProbeBound.PROBE_ALL.narrows());
        assertNull(cache.describe(K));
    }
}
