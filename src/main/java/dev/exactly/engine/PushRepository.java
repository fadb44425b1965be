package dev.exactly.engine;

import dev.exactly.db.BorrowedConnections;
import dev.exactly.db.DatabaseErrors;
import dev.exactly.db.LaneCycleProbe;
import dev.exactly.db.RequestDeadline;
import io.netty.buffer.Unpooled;
import io.smallrye.mutiny.Uni;
import io.vertx.core.buffer.Buffer;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.SqlClient;
import io.vertx.mutiny.sqlclient.Tuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The probe client: sends segments to the store's settle functions (sql/R__push.sql), which probe
 * a partition's window before they allocate offsets (a segment of committed duplicates is answered
 * without a lock or a write). A single segment whose partition id this store has learnt goes
 * straight to {@code exactly.push_segment}, one statement; any other request goes to
 * {@code exactly.push_bundle}, which resolves and creates partitions by name, locks a
 * multi-partition bundle's rows in ascending id order and settles its segments (all at once with
 * {@code exactly.settle_bundle} on plain PostgreSQL, one push_segment call each on Citus).
 * Either is one round trip and one transaction. With {@code releaseBeforeFlush} (the stateless
 * shape's store) a push that wrote commits before its WAL flush, which frees the partition's row
 * lock for the next writer sooner, and is answered after a second round trip,
 * {@code exactly.flush_wal()}, returned; in every mode so is a duplicate whose original might not
 * be flushed yet (sql/R__push.sql, "Commit before the WAL flush"). Partitions are never renamed or
 * deleted, so an id once learnt stays valid; should it vanish anyway, the push goes by name again.
 */
public final class PushRepository {

    // The flush column is asked once, on the first row: the function has returned all its rows
    // (they are materialised before the first is read), so its writes are known by then; asked on
    // every row, the SQL function's call cost as much as a small push's own work.
    private static String pushBundle(boolean release) {
        return "SELECT segment, item, partition_id, \"offset\", message_id, duplicate, prev_last_offset, "
                + "dedup_window_seconds, original_digest, reject_mismatch, "
                + "CASE WHEN segment = 1 AND item = 1 THEN exactly.flush_needed() END AS flush "
                + "FROM exactly.push_bundle(p_queues => $1, p_partitions => $2, p_verified => $3, p_counts => $4, "
                + "p_hashes => $5, p_probe => $6, p_message_ids => $7, p_txn_ids => $8, p_payloads => $9, "
                + "p_content_types => $10, p_headers => $11, p_trace_ids => $12, p_verified_windows => $13, "
                + "p_spreads => $14, p_digests => $15, p_release => " + release + ")";
    }

    private static String pushSegment(boolean release) {
        return "SELECT item, \"offset\", message_id, duplicate, prev_last_offset, dedup_window_seconds, "
                + "original_digest, reject_mismatch, CASE WHEN item = 1 THEN exactly.flush_needed() END AS flush "
                + "FROM exactly.push_segment(p_pid => $1, p_verified => $2, p_verified_window => $3, p_hashes => $4, "
                + "p_probe => $5, p_message_ids => $6, p_txn_ids => $7, p_payloads => $8, p_content_types => $9, "
                + "p_headers => $10, p_trace_ids => $11, p_locked => false, p_spread => $12, p_digests => $13, "
                + "p_release => " + release + ")";
    }

    /**
     * A push sent on its own (on the pool), with {@code releaseBeforeFlush}: a write commits before
     * its WAL flush, which releases the partition's row lock sooner, and the answer waits for
     * {@link #FLUSH_WAL} (sql/R__push.sql, "Commit before the WAL flush"). Without it, and inside a
     * caller's transaction, a push commits as its session says.
     */
    private final String pushBundle;

    private final String pushSegment;

    private static final String PUSH_BUNDLE_WITHIN = pushBundle(false);

    private static final String PUSH_SEGMENT_WITHIN = pushSegment(false);

    /** Flushes the WAL written so far (a synchronous commit of a record of its own). */
    static final String FLUSH_WAL = "SELECT exactly.flush_wal()";

    private static final String SPREADS =
            "SELECT name, spread_partitions FROM exactly.queues WHERE name = ANY ($1)";

    /** SQLSTATE push_segment raises for a segment routed with another spreadPartitions than its queue's. */
    static final String SPREAD_CHANGED = "EXS01";

    /** Partition ids kept at most; past it the map starts over (ids are re-learnt by name). */
    static final int MAX_KNOWN_PARTITIONS = 100_000;

    private final Pool pool;
    private final LongAdder calls = new LongAdder();
    private final LongAdder flushes = new LongAdder();
    private final ConcurrentHashMap<PartitionKey, Long> partitionIds = new ConcurrentHashMap<>();

    /**
     * A store whose pushes commit before their WAL flush (the stateless shape's: every request is
     * a transaction of its own, and concurrent ones to a partition queue on its row lock).
     *
     * @param pool the connection pool of this engine instance
     */
    public PushRepository(Pool pool) {
        this(pool, true);
    }

    /**
     * @param pool               the connection pool of this engine instance
     * @param releaseBeforeFlush true: a write commits before its WAL flush and its answer waits for
     *                           one ({@code exactly.flush_wal()}); false: it commits synchronously, as
     *                           a server's fused flushes do by default (one flush already carries
     *                           every request waiting for the partition)
     */
    public PushRepository(Pool pool, boolean releaseBeforeFlush) {
        this.pool = pool;
        this.pushBundle = pushBundle(releaseBeforeFlush);
        this.pushSegment = pushSegment(releaseBeforeFlush);
    }

    /**
     * Attempts after the first when the connection is lost or the database aborted the push to
     * resolve a conflict (each probes the whole window).
     */
    static final int RETRIES = 3;

    /**
     * Whether a push on the pool runs again (in the exact retry mode of {@link #execute}): its
     * connection was lost (it may or may not have committed), or the database aborted its
     * transaction to resolve a conflict (40P01, 40001: it wrote nothing). Pushes take partition
     * locks in ascending id order, so two pushes never deadlock; a push still can with a caller's
     * transaction that holds a partition row and then creates a partition the push created and has
     * not committed yet. On Citus the distributed deadlock detection also counts every process of a
     * node that is in no distributed transaction (a session of a worker's own, a statement the
     * coordinator sends outside a transaction block) as one transaction (citus issue #1803,
     * https://github.com/citusdata/citus/issues/1803): a push run on the coordinator (a bundle, a
     * first push by name) that waits for a partition row held by one such process, while another
     * waits behind it (for the row's tuple lock, which the push holds as the row's first waiter),
     * is cancelled as a deadlock though no cycle exists.
     */
    private static boolean runsAgain(Throwable e) {
        return DatabaseErrors.isConnectionLost(e) || DatabaseErrors.isConflictAbort(e);
    }

    /**
     * Pushes segments, probing each partition's whole window (p_verified = -1).
     *
     * @param segments leader segments, each for a distinct partition
     * @return one outcome per segment, in segment order
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is
     *         away, or {@link dev.exactly.db.StoreTimeoutException} past a statement or lock timeout
     */
    public Uni<List<SegmentOutcome>> push(List<Segment> segments) {
        long[] all = new long[segments.size()];
        java.util.Arrays.fill(all, DedupCache.PROBE_ALL);
        return push(segments, all, new int[segments.size()]);
    }

    /**
     * Pushes segments with the p_verified watermarks a warm cache vouched for (see {@link ProbeBound}).
     *
     * <p>When the connection is lost mid-statement the outcome is unknown (the commit may or may
     * not have happened); when the database aborted the push to resolve a conflict it wrote
     * nothing ({@link #runsAgain}). The push is then retried, at most {@link #RETRIES} times after
     * a short back-off (so that the pool has dropped a dead connection, or the conflict has
     * passed), probing everything in the exact retry mode of {@link #execute}. Other failures are
     * not retried here.
     *
     * @param segments leader segments, each for a distinct partition
     * @param verified per segment: the offset the caller vouches for, -1 to probe the whole window
     * @param windows  per segment: the window (seconds) the watermark was vouched under; the store
     *                 ignores the watermark when the queue's current window is larger
     * @return one outcome per segment, in segment order
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is
     *         away, or {@link dev.exactly.db.StoreTimeoutException} past a statement or lock timeout
     */
    public Uni<List<SegmentOutcome>> push(List<Segment> segments, long[] verified, int[] windows) {
        // the deadline of the request(s) this push is for, read now: the retries run later, on other threads
        long deadline = RequestDeadline.current();
        return execute(segments, verified, windows, false, pool, deadline).flatMap(PushRepository::whenDurable)
                .onFailure(PushRepository::runsAgain).recoverWithUni(() -> exactRetry(segments, deadline))
                .onFailure().transform(PushRepository::classify);
    }

    /**
     * Pushes segments as {@link #push(List, long[], int[])} does, but completes as soon as the
     * store has settled them, before the WAL flush their answer must wait for: the caller may
     * start the partition's next write at once (its row lock is free) and answers after
     * {@link SegmentWriter.Settled#durable()}. A lost connection or a conflict abort during the
     * settle statement is retried as {@link #push(List, long[], int[])} retries it (the outcome
     * then comes durable); a
     * failure of the flush fails {@code durable()}, and the outcome is then unknown to the caller,
     * as after any lost answer (its client's retry is answered exactly).
     *
     * @return the settled outcomes (one per segment, in segment order) and when they may be answered
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's or durable()'s failure) when the
     *         database is away, or {@link dev.exactly.db.StoreTimeoutException} past a statement or lock timeout
     */
    public Uni<SegmentWriter.Settled> pushSettled(List<Segment> segments, long[] verified, int[] windows) {
        long deadline = RequestDeadline.current();
        return execute(segments, verified, windows, false, pool, deadline)
                .map(settled -> new SegmentWriter.Settled(settled.outcomes(),
                        settled.durable().onFailure().transform(PushRepository::classify)))
                .onFailure(PushRepository::runsAgain).recoverWithUni(() -> exactRetry(segments, deadline)
                        .map(outcomes -> new SegmentWriter.Settled(outcomes, DURABLE)))
                .onFailure().transform(PushRepository::classify);
    }

    /** A completed durability: nothing to wait for. */
    private static final Uni<Void> DURABLE = Uni.createFrom().voidItem();

    private static Uni<List<SegmentOutcome>> whenDurable(SegmentWriter.Settled settled) {
        return settled.durable().replaceWith(settled.outcomes());
    }

    /**
     * The push again after its connection was lost, when it may or may not have committed, or
     * after a conflict abort, when it wrote nothing ({@link #runsAgain}): at most {@link #RETRIES}
     * attempts after a short back-off (so that the pool has dropped a dead connection), each
     * probing everything in the exact retry mode of {@link #execute} and answered once durable.
     */
    private Uni<List<SegmentOutcome>> exactRetry(List<Segment> segments, long deadline) {
        long[] all = new long[segments.size()];
        java.util.Arrays.fill(all, DedupCache.PROBE_ALL);
        // the back-off lets the pool drop a dead connection before it is lent again
        return Uni.createFrom().voidItem().onItem().delayIt().by(Duration.ofMillis(20))
                .chain(() -> execute(segments, all, null, true, pool, deadline).flatMap(PushRepository::whenDurable))
                .onFailure(PushRepository::runsAgain).retry()
                .withBackOff(Duration.ofMillis(50), Duration.ofMillis(500)).atMost(RETRIES - 1);
    }

    /** A spreadPartitions mismatch as {@link SpreadChangedException}, anything else as {@link DatabaseErrors#classify}. */
    private static Throwable classify(Throwable e) {
        return SPREAD_CHANGED.equals(DatabaseErrors.sqlState(e)) ? new SpreadChangedException(e) : DatabaseErrors.classify(e);
    }

    /**
     * Reads queues' spreadPartitions (retried once on a closed connection).
     *
     * @param queues queue names
     * @return name to spreadPartitions, every name present (0 for a queue that does not exist)
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<Map<String, Integer>> spreads(Collection<String> queues) {
        String[] names = queues.toArray(new String[0]);
        return dev.exactly.db.ConnectionRetry.onceOnClosedConnection(
                        () -> BorrowedConnections.execute(pool, SPREADS, Tuple.of(names)))
                .onFailure().transform(DatabaseErrors.CLASSIFY)
                .map(rows -> {
                    Map<String, Integer> out = new HashMap<>();
                    for (String q : names) {
                        out.put(q, 0);
                    }
                    for (Row r : rows) {
                        out.put(r.getString(0), r.getInteger(1));
                    }
                    return out;
                });
    }

    /**
     * Pushes segments on a given client instead of the pool: a connection inside a transaction
     * the caller owns (all-or-nothing work that also pushes). The statement takes the segments'
     * partition row locks, held until the caller's transaction ends; nothing is committed here,
     * and nothing is retried (a lost connection loses the caller's transaction with it). Every
     * segment probes its whole window: a transaction must not trust a cache it may roll back under.
     *
     * @param segments leader segments, each for a distinct partition
     * @param client   where to run push_bundle, e.g. a {@code SqlConnection} in a transaction
     * @return one outcome per segment, in segment order
     * @throws dev.exactly.db.StoreUnavailableException (as the Uni's failure) when the database is away
     */
    public Uni<List<SegmentOutcome>> push(List<Segment> segments, SqlClient client) {
        long[] all = new long[segments.size()];
        java.util.Arrays.fill(all, DedupCache.PROBE_ALL);
        return execute(segments, all, null, false, client, RequestDeadline.NONE).flatMap(PushRepository::whenDurable)
                .onFailure().transform(PushRepository::classify);
    }

    /**
     * One attempt. A retry (after the connection was lost, when the first attempt may or may not
     * have committed) probes every item against the whole window, including items whose key is
     * their own minted message id; an item found stored under its own message id was stored by
     * the first attempt and is reported as queued. So the retry is exact either way.
     */
    private Uni<SegmentWriter.Settled> execute(List<Segment> segments, long[] verified, int[] windows, boolean retry,
                                               SqlClient client, long deadline) {
        if (segments.size() == 1) {
            Segment seg = segments.get(0);
            Long pid = partitionIds.get(seg.partition());
            if (pid != null) {
                Tuple args = segmentArguments(pid, seg, verified[0], windows == null ? null : windows[0], retry);
                if (LaneCycleProbe.ON) {
                    LaneCycleProbe.mark(LaneCycleProbe.ARGS);
                }
                calls.increment();
                Uni<SegmentWriter.Settled> direct = statement(client, deadline, client == pool ? pushSegment : PUSH_SEGMENT_WITHIN, args)
                        .map(rows -> {
                            if (LaneCycleProbe.ON) {
                                LaneCycleProbe.mark(LaneCycleProbe.ROWS);
                            }
                            return new SegmentWriter.Settled(List.of(segmentOutcome(pid, seg, rows, retry)),
                                    flush(rows, 8, client, deadline));
                        });
                if (client != pool) {
                    return direct; // in a caller's transaction a failed statement ends it: no second try
                }
                return direct.onFailure(e -> NO_SUCH_PARTITION.equals(DatabaseErrors.sqlState(e))).recoverWithUni(() -> {
                    partitionIds.remove(seg.partition(), pid);
                    return bundle(segments, verified, windows, retry, client, deadline);
                });
            }
        }
        return bundle(segments, verified, windows, retry, client, deadline);
    }

    /**
     * One statement: on the pool, a borrowed connection bounded by the deadline
     * ({@link BorrowedConnections}); on a caller's connection, as it is (the caller's transaction
     * is bounded as a whole).
     */
    private Uni<RowSet<Row>> statement(SqlClient client, long deadline, String sql, Tuple args) {
        return client == pool ? BorrowedConnections.execute(pool, deadline, sql, args) : client.preparedQuery(sql).execute(args);
    }

    /**
     * What an answer must wait for: when the statement's flush column (exactly.flush_needed()) is
     * true on any row, {@link #FLUSH_WAL} (run when subscribed), so that what the answer reports
     * (this push's rows, or a duplicate's original, which another writer may have committed
     * before its own flush) is durable; else nothing. On the pool it is a transaction of its own on
     * any connection; in a caller's transaction it is a statement of that transaction, whose
     * commit then flushes.
     */
    private Uni<Void> flush(RowSet<Row> rows, int column, SqlClient client, long deadline) {
        for (Row r : rows) {
            if (Boolean.TRUE.equals(r.getBoolean(column))) {
                return Uni.createFrom().deferred(() -> {
                    flushes.increment();
                    return statement(client, deadline, FLUSH_WAL, Tuple.tuple()).replaceWithVoid();
                });
            }
        }
        return DURABLE;
    }

    /** SQLSTATE push_segment raises for a partition id that does not exist. */
    private static final String NO_SUCH_PARTITION = "P0002";

    private Uni<SegmentWriter.Settled> bundle(List<Segment> segments, long[] verified, int[] windows, boolean retry,
                                              SqlClient client, long deadline) {
        Tuple args = bundleArguments(segments, verified, windows, retry);
        calls.increment();
        return statement(client, deadline, client == pool ? pushBundle : PUSH_BUNDLE_WITHIN, args).map(rows -> {
            List<SegmentOutcome> out = outcomes(segments, rows, retry);
            Uni<Void> durable = flush(rows, 10, client, deadline);
            if (client != pool) {
                // in a caller's transaction, which may still roll back: a partition it created
                // would vanish with it, and its id would send the next push in a transaction
                // (which cannot go by name again) to no partition
                return new SegmentWriter.Settled(out, durable);
            }
            if (partitionIds.size() >= MAX_KNOWN_PARTITIONS) {
                partitionIds.clear();
            }
            for (int i = 0; i < segments.size(); i++) {
                partitionIds.put(segments.get(i).partition(), out.get(i).partitionId());
            }
            return new SegmentWriter.Settled(out, durable);
        });
    }

    /**
     * The arguments of {@code exactly.push_segment} for one leader segment, $1 to $13 of
     * {@link #PUSH_SEGMENT}, which names the parameter each one is (see sql/R__push.sql;
     * p_locked is false): partition id, p_verified, p_verified_window (null: none vouched), per
     * item hash, probe flag, message id, transactionId, payload, content type, headers, trace id,
     * p_spread, and per item the payload digest.
     */
    private static Tuple segmentArguments(long pid, Segment seg, long verified, Integer window, boolean probeAll) {
        ItemColumns items = new ItemColumns(seg.items().size(), probeAll);
        seg.items().forEach(items::add);
        return items.addTo(Tuple.tuple().addLong(pid).addLong(verified).addInteger(window))
                .addInteger(seg.spread()).addValue(items.digests);
    }

    /**
     * The per-item columns push_segment and push_bundle share (sql/R__push.sql), filled in item
     * order: hash (16 bytes), probe flag, message id, transactionId, payload, content type,
     * headers, trace id ({@link #addTo}), and the payload digest (16 bytes), which both functions
     * take after their per-segment arguments.
     */
    private static final class ItemColumns {
        private final boolean probeAll;
        private final Buffer[] hashes;
        private final Boolean[] probe;
        private final UUID[] ids;
        private final String[] txns;
        private final Buffer[] payloads;
        private final String[] contentTypes;
        private final String[] headers;
        private final String[] traces;
        final Buffer[] digests;
        private int k;

        /**
         * @param n        how many items will be added
         * @param probeAll true to probe every item, also those keyed by their own fresh message id
         */
        ItemColumns(int n, boolean probeAll) {
            this.probeAll = probeAll;
            hashes = new Buffer[n];
            probe = new Boolean[n];
            ids = new UUID[n];
            txns = new String[n];
            payloads = new Buffer[n];
            contentTypes = new String[n];
            headers = new String[n];
            traces = new String[n];
            digests = new Buffer[n];
        }

        void add(PushItem it) {
            hashes[k] = wrap(it.hash());
            probe[k] = probeAll || it.probe();
            ids[k] = it.messageId();
            txns[k] = it.transactionId();
            payloads[k] = wrap(it.command().payload());
            contentTypes[k] = it.command().contentType();
            headers[k] = it.command().headersJson();
            traces[k] = it.command().traceId();
            digests[k] = wrap(it.digest());
            k++;
        }

        /**
         * A buffer over the bytes themselves, not a copy ({@code Buffer.buffer(byte[])} copies):
         * the client encodes it into its message as it would a copy, and nothing writes to these
         * arrays once an item is built.
         */
        private static Buffer wrap(byte[] bytes) {
            return Buffer.buffer(Unpooled.wrappedBuffer(bytes));
        }

        /** Appends the eight columns from hash to trace id, in the functions' parameter order. */
        Tuple addTo(Tuple t) {
            return t.addValue(hashes).addArrayOfBoolean(probe).addArrayOfUUID(ids).addArrayOfString(txns)
                    .addValue(payloads).addArrayOfString(contentTypes).addArrayOfString(headers)
                    .addArrayOfString(traces);
        }
    }

    private static SegmentOutcome segmentOutcome(long pid, Segment seg, RowSet<Row> rows, boolean retry) {
        int size = seg.items().size();
        long[] offsets = new long[size];
        UUID[] ids = new UUID[size];
        boolean[] dup = new boolean[size];
        byte[][] originals = new byte[size][];
        long prev = 0;
        int window = 0;
        boolean reject = false;
        int n = 0;
        for (Row r : rows) {
            int item = r.getInteger(0) - 1;
            offsets[item] = r.getLong(1);
            ids[item] = r.getUUID(2);
            dup[item] = r.getBoolean(3) && !(retry && ids[item].equals(seg.items().get(item).messageId()));
            prev = r.getLong(4);
            window = r.getInteger(5);
            originals[item] = dup[item] ? bytes(r.getBuffer(6)) : null;
            reject = r.getBoolean(7);
            n++;
        }
        if (n != size) {
            throw new IllegalStateException("push_segment answered " + n + " of " + size + " items");
        }
        return new SegmentOutcome(pid, prev, window, offsets, ids, dup, originals, reject);
    }

    private static byte[] bytes(io.vertx.mutiny.core.buffer.Buffer b) {
        return b == null ? null : b.getBytes();
    }

    /**
     * The arguments of {@code exactly.push_bundle} for leader segments, $1 to $15 of
     * {@link #PUSH_BUNDLE}, which names the parameter each one is (see sql/R__push.sql): per
     * segment queue, partition, p_verified, item count; per item hash (16 bytes), probe flag, message id, transactionId, payload, content type, headers, trace id;
     * per segment the window each watermark was vouched under (null: none) and the
     * spreadPartitions its items were routed with; per item the payload digest (16 bytes).
     *
     * @param segments leader segments
     * @param verified per segment: the vouched offset, or {@link DedupCache#PROBE_ALL}
     * @param windows  per segment: the window (seconds) the watermark was vouched under, or null
     * @param probeAll true to probe every item, also those keyed by their own fresh message id
     * @return the argument tuple
     */
    public static Tuple bundleArguments(List<Segment> segments, long[] verified, int[] windows, boolean probeAll) {
        int s = segments.size();
        int n = 0;
        for (Segment seg : segments) {
            n += seg.items().size();
        }
        String[] queues = new String[s];
        String[] partitions = new String[s];
        Long[] watermarks = new Long[s];
        Integer[] vouchedWindows = windows == null ? null : new Integer[s];
        Integer[] counts = new Integer[s];
        Integer[] spreads = new Integer[s];
        ItemColumns items = new ItemColumns(n, probeAll);
        for (int i = 0; i < s; i++) {
            Segment seg = segments.get(i);
            queues[i] = seg.partition().queue();
            partitions[i] = seg.partition().partition();
            watermarks[i] = verified[i];
            if (vouchedWindows != null) {
                vouchedWindows[i] = windows[i];
            }
            counts[i] = seg.items().size();
            spreads[i] = seg.spread();
            seg.items().forEach(items::add);
        }
        return items.addTo(Tuple.tuple()
                .addArrayOfString(queues).addArrayOfString(partitions)
                .addArrayOfLong(watermarks).addArrayOfInteger(counts))
                .addArrayOfInteger(vouchedWindows).addArrayOfInteger(spreads).addValue(items.digests);
    }

    /** @return how many push_bundle and push_segment calls this store has sent (SQL round trips), for tests and metrics */
    public long calls() {
        return calls.sum();
    }

    /** @return how many WAL flushes ({@code exactly.flush_wal()}) this store has run before answers, for tests and metrics */
    public long flushes() {
        return flushes.sum();
    }

    private static List<SegmentOutcome> outcomes(List<Segment> segments, RowSet<Row> rows, boolean retry) {
        List<SegmentOutcome> out = new ArrayList<>(segments.size());
        long[] offsets = null;
        UUID[] ids = null;
        boolean[] dup = null;
        byte[][] originals = null;
        int current = 0;
        for (Row r : rows) {
            int seg = r.getInteger(0);
            if (seg != current) {
                current = seg;
                int size = segments.get(seg - 1).items().size();
                offsets = new long[size];
                ids = new UUID[size];
                dup = new boolean[size];
                originals = new byte[size][];
                out.add(new SegmentOutcome(r.getLong(2), r.getLong(6), r.getInteger(7), offsets, ids, dup, originals,
                        r.getBoolean(9)));
            }
            int item = r.getInteger(1) - 1;
            offsets[item] = r.getLong(3);
            ids[item] = r.getUUID(4);
            dup[item] = r.getBoolean(5)
                    && !(retry && ids[item].equals(segments.get(seg - 1).items().get(item).messageId()));
            originals[item] = dup[item] ? bytes(r.getBuffer(8)) : null;
        }
        if (out.size() != segments.size()) {
            throw new IllegalStateException("push_bundle answered " + out.size() + " of " + segments.size() + " segments");
        }
        return out;
    }
}
