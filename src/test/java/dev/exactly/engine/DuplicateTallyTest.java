package dev.exactly.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The in-memory duplicate tally: minutes, verdict counting, drains that lose nothing, restore, the cap. */
class DuplicateTallyTest {

    private static Map<String, Long> byKey(List<DuplicateTally.Count> counts) {
        Map<String, Long> out = new TreeMap<>();
        for (DuplicateTally.Count c : counts) {
            out.merge(c.queue() + "@" + c.bucketStart(), c.duplicates(), Long::sum);
        }
        return out;
    }

    private static PushVerdict verdict(int i, String queue, PushStatus status) {
        return new PushVerdict(i, queue, "p", "t" + i, UUID.randomUUID(), status, i);
    }

    @Test
    void countsFallInTheMinuteTheyWereAnsweredIn() {
        long minute = 1_700_000_040L; // a multiple of 60
        AtomicLong clock = new AtomicLong((minute + 59) * 1000 + 999); // 59.999 s into that minute
        DuplicateTally tally = new DuplicateTally(clock::get);
        tally.record("orders", 2);
        clock.set((minute + 60) * 1000); // the next minute
        tally.record("orders", 1);
        tally.record("invoices", 0);
        tally.record("invoices", -3);

        Map<String, Long> drained = byKey(tally.drain());
        assertEquals(Map.of("orders@" + minute, 2L, "orders@" + (minute + 60), 1L), drained);
        assertTrue(tally.isEmpty());
        assertEquals(List.of(), tally.drain());
    }

    @Test
    void onlyDuplicateVerdictsAreCountedByQueue() {
        AtomicLong clock = new AtomicLong(120_000L);
        DuplicateTally tally = new DuplicateTally(clock::get);
        tally.record(List.of(verdict(0, "a", PushStatus.QUEUED), verdict(1, "a", PushStatus.DUPLICATE),
                verdict(2, "b", PushStatus.DUPLICATE), verdict(3, "a", PushStatus.DUPLICATE),
                verdict(4, "b", PushStatus.QUEUED)));
        tally.record(List.of(verdict(0, "c", PushStatus.QUEUED)));
        assertEquals(Map.of("a@120", 2L, "b@120", 1L), byKey(tally.drain()));
    }

    @Test
    void restoredCountsAddToWhatWasRecordedSince() {
        DuplicateTally tally = new DuplicateTally(() -> 0L);
        tally.record("q", 3);
        List<DuplicateTally.Count> drained = tally.drain();
        tally.record("q", 2);
        tally.restore(drained);
        assertEquals(Map.of("q@0", 5L), byKey(tally.drain()));
    }

    @Test
    void concurrentRecordsAndDrainsLoseNothing() throws Exception {
        DuplicateTally tally = new DuplicateTally();
        int threads = 4;
        int perThread = 50_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads + 1);
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean done = new AtomicBoolean();
        List<Future<?>> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            String queue = "q" + (t % 2);
            writers.add(pool.submit(() -> {
                start.await();
                for (int i = 0; i < perThread; i++) {
                    tally.record(queue, 1);
                }
                return null;
            }));
        }
        Future<Long> drainer = pool.submit(() -> {
            start.await();
            long sum = 0;
            while (!done.get()) {
                for (DuplicateTally.Count c : tally.drain()) {
                    sum += c.duplicates();
                }
            }
            return sum;
        });
        start.countDown();
        for (Future<?> w : writers) {
            w.get();
        }
        done.set(true);
        long drained = drainer.get();
        for (DuplicateTally.Count c : tally.drain()) {
            drained += c.duplicates();
        }
        pool.shutdown();
        assertEquals((long) threads * perThread, drained);
    }

    @Test
    void pastTheCapCountsAreDroppedAndCounted() {
        DuplicateTally tally = new DuplicateTally(() -> 0L);
        for (int i = 0; i < DuplicateTally.MAX_BUCKETS; i++) {
            tally.record("q" + i, 1);
        }
        tally.record("q0", 4); // an entry that exists still counts
        tally.record("one-too-many", 7);
        assertEquals(7, tally.dropped());
        List<DuplicateTally.Count> all = tally.drain();
        assertEquals(DuplicateTally.MAX_BUCKETS, all.size());
        assertEquals(DuplicateTally.MAX_BUCKETS + 4, all.stream().mapToLong(DuplicateTally.Count::duplicates).sum());
        tally.record("one-too-many", 1); // room again after the drain
        assertEquals(1, tally.drain().size());
    }
}
