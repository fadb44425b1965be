package dev.exactly.engine.cache;

import dev.exactly.engine.PartitionKey;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.PushItem;
import dev.exactly.engine.SegmentOutcome;
import dev.exactly.engine.TransactionHash;
import io.smallrye.mutiny.Uni;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A scripted partition log for the cache's rule tests: the cache's hydration input, driven by the
 * test's clock, so every rule is exercised without sleeping. (The real reader, {@link
 * TxnHashRepository}, is tested against PostgreSQL in TxnHashRepositoryTest and in the differential test.)
 * Loads complete at once, or, in held mode, when the test calls {@link #releaseAll()}.
 */
final class ScriptedLog implements HydrationSource {

    /** The test clock, in milliseconds. */
    final AtomicLong now = new AtomicLong(1_000_000);
    final Ticker ticker = now::get;

    static final class Part {
        int window = 3600;
        long id;
        long last = -1;
        long dataStart;
        final List<long[]> rows = new ArrayList<>(); // offset, hi, lo, created
    }

    private final Map<PartitionKey, Part> parts = new HashMap<>();
    private long nextId = 1;
    private final Deque<Runnable> held = new ArrayDeque<>();
    boolean hold;
    RuntimeException failNext;
    int fullReads;
    int deltaReads;

    Part part(PartitionKey k) {
        return parts.computeIfAbsent(k, x -> {
            Part p = new Part();
            p.id = nextId++;
            return p;
        });
    }

    void advance(long millis) {
        now.addAndGet(millis);
    }

    /** Items with the given transaction ids. */
    static List<PushItem> items(String... txns) {
        List<PushItem> out = new ArrayList<>();
        for (int i = 0; i < txns.length; i++) {
            out.add(new PushItem(i, PushCommand.json("q", "p", txns[i], "{}".getBytes(StandardCharsets.UTF_8), null),
                    UUID.randomUUID(), txns[i], TransactionHash.of(txns[i]), true));
        }
        return out;
    }

    /** Stores items (all new) in the log, as any instance's push would, and returns the store's outcome. */
    SegmentOutcome store(PartitionKey k, List<PushItem> items) {
        Part p = part(k);
        long prev = p.last;
        long[] offsets = new long[items.size()];
        UUID[] ids = new UUID[items.size()];
        for (int j = 0; j < items.size(); j++) {
            byte[] h = items.get(j).hash();
            offsets[j] = ++p.last;
            ids[j] = items.get(j).messageId();
            p.rows.add(new long[] {offsets[j], ResidentHashes.high(h), ResidentHashes.low(h), now.get()});
        }
        return new SegmentOutcome(p.id, prev, p.window, offsets, ids, new boolean[items.size()]);
    }

    /** A segment whose items were all duplicates: nothing stored, the allocator unchanged. */
    SegmentOutcome allDuplicates(PartitionKey k, int n) {
        Part p = part(k);
        boolean[] dup = new boolean[n];
        java.util.Arrays.fill(dup, true);
        return new SegmentOutcome(p.id, p.last, p.window, new long[n], new UUID[n], dup);
    }

    void releaseAll() {
        while (!held.isEmpty()) {
            held.poll().run();
        }
    }

    int heldLoads() {
        return held.size();
    }

    private Uni<Snapshot> deliver(Supplier<Snapshot> read) {
        if (failNext != null) {
            RuntimeException e = failNext;
            failNext = null;
            return Uni.createFrom().failure(e);
        }
        if (!hold) {
            return Uni.createFrom().item(read.get());
        }
        return Uni.createFrom().emitter(em -> held.add(() -> em.complete(read.get())));
    }

    @Override
    public Uni<Snapshot> fullWindow(PartitionKey key, int slackSeconds, RowSink sink) {
        fullReads++;
        Part p = parts.get(key);
        if (p == null) {
            return deliver(() -> new Snapshot(-1, -1, -1, true));
        }
        // the snapshot is taken now; rows are delivered (and aged) when the load completes
        long last = p.last;
        int window = p.window;
        long at = now.get();
        List<long[]> rows = new ArrayList<>(p.rows);
        return deliver(() -> {
            for (long[] r : rows) {
                if (r[0] <= last && r[3] >= at - (window + (long) slackSeconds) * 1000L) {
                    if (!sink.accept(r[0], r[1], r[2], at - r[3])) {
                        return new Snapshot(window, p.id, last, false);
                    }
                }
            }
            return new Snapshot(window, p.id, last, true);
        });
    }

    @Override
    public Uni<Snapshot> delta(PartitionKey key, long after, int expectedWindow, long maxRows, RowSink sink) {
        deltaReads++;
        Part p = parts.get(key);
        if (p == null || p.window != expectedWindow || p.last - after > maxRows || p.dataStart > after + 1) {
            return deliver(() -> new Snapshot(p == null ? -1 : p.window, p == null ? -1 : p.id,
                    p == null ? -1 : p.last, false));
        }
        long last = p.last;
        long at = now.get();
        List<long[]> rows = new ArrayList<>(p.rows);
        return deliver(() -> {
            for (long[] r : rows) {
                if (r[0] > after && r[0] <= last) {
                    sink.accept(r[0], r[1], r[2], at - r[3]);
                }
            }
            return new Snapshot(p.window, p.id, last, true);
        });
    }
}
