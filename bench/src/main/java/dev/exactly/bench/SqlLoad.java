package dev.exactly.bench;

import dev.exactly.engine.DedupCache;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.RequestGrouping;
import dev.exactly.engine.Segment;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The in-process SQL-level driver: the same request shape as the HTTP driver, grouped by the
 * engine's own layer 1 ({@link RequestGrouping}, which also hashes), sent as one call of a
 * bundle function with exactly.push_bundle's twelve arrays (Exactly's own with all its arguments) (the argument building mirrors
 * dev.exactly.engine.PushRepository). Used for Exactly's push_bundle and for the baselines in
 * bench/sql/baselines.sql alike, so their figures compare like with like.
 */
public final class SqlLoad {

    /**
     * @param concurrency calls in flight (one pooled connection each)
     * @param warmup      unrecorded first period
     * @param measure     recorded period
     * @param maxRequests hard bound on calls sent
     */
    public record Options(int concurrency, Duration warmup, Duration measure, long maxRequests) {
    }

    private SqlLoad() {
    }

    /** Exactly's own bundle function: sent all its arguments (payload digests included), as the service sends it. */
    static final String EXACTLY = "exactly.push_bundle";

    /** The statement that calls a bundle function, e.g. {@code exactly.push_bundle}. */
    static String statement(String function) {
        return "SELECT duplicate FROM " + function + "($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12"
                + (EXACTLY.equals(function) ? ", $13, $14, $15)" : ")");
    }

    /**
     * Drives {@code function} with the workload and returns what was measured.
     *
     * @param pool     a pool with at least {@code concurrency} connections
     * @param function a function with exactly.push_bundle's signature and result columns
     * @throws InterruptedException when interrupted while waiting for the run to end
     */
    public static LoadResult run(Pool pool, String function, Workload w, Options o) throws InterruptedException {
        String sql = statement(function);
        return ClosedLoop.run(w, new ClosedLoop.Options(o.concurrency(), o.warmup(), o.measure(), o.maxRequests()),
                batch -> {
                    List<PushCommand> commands = commands(w, batch);
                    RequestGrouping grouping = RequestGrouping.of(commands);
                    int leaders = 0;
                    for (Segment s : grouping.segments()) {
                        leaders += s.items().size();
                    }
                    int followers = grouping.size() - leaders;
                    Tuple args = EXACTLY.equals(function) ? all(grouping.segments()) : arguments(grouping.segments());
                    return pool.preparedQuery(sql).execute(args).map(rows -> {
                        int d = followers;
                        for (Row r : rows) {
                            if (r.getBoolean(0)) {
                                d++;
                            }
                        }
                        return d;
                    }).toCompletionStage();
                });
    }

    /** A batch as the engine's validated push commands. */
    static List<PushCommand> commands(Workload w, Workload.Batch batch) {
        byte[] payload = batch.payload().getBytes(StandardCharsets.UTF_8);
        List<PushCommand> out = new ArrayList<>(batch.size());
        for (int i = 0; i < batch.size(); i++) {
            out.add(PushCommand.json(w.queue(), batch.partitions()[i], batch.transactionIds()[i], payload, null));
        }
        return out;
    }

    /** push_bundle's first twelve arguments for leader segments, every segment at p_verified = -1 (the baselines take these twelve). */
    static Tuple arguments(List<Segment> segments) {
        Tuple full = all(segments);
        Tuple twelve = Tuple.tuple();
        for (int i = 0; i < 12; i++) {
            twelve.addValue(full.getValue(i));
        }
        return twelve;
    }

    /** push_bundle's fifteen arguments, as the service sends them (p_verified = -1, no vouched window, payload digests). */
    static Tuple all(List<Segment> segments) {
        long[] all = new long[segments.size()];
        java.util.Arrays.fill(all, DedupCache.PROBE_ALL);
        return dev.exactly.engine.PushRepository.bundleArguments(segments, all, null, false).getDelegate();
    }
}
