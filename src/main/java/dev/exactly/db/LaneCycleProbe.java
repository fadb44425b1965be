package dev.exactly.db;

import io.smallrye.mutiny.Uni;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jboss.logging.Logger;

/**
 * A bench-only measurement of a fused lane's serial cycle: where the service spends the time from
 * a flush's rows arriving to the next flush's statement being written. Off unless the system
 * property {@code bench.exactly.lane-probe} is true; then every {@link #mark} takes a timestamp and
 * a daemon thread logs, every five seconds, the mean of each part over the flushes that followed
 * one another without waiting for arrivals, in wall time and (for a part that began and ended on
 * one thread) in that thread's CPU time, which a loaded host's preemption does not inflate. Made
 * for one hot partition (workload C): the marks of concurrent lanes would mix. With the property unset, {@link #ON} is a constant false and the
 * marks compile away.
 */
public final class LaneCycleProbe {

    /** True when the system property {@code bench.exactly.lane-probe} is true. */
    public static final boolean ON = Boolean.getBoolean("bench.exactly.lane-probe");

    /** A settled flush's rows arrived at PushRepository (decoded by the client). */
    public static final int ROWS = 0;
    /** The fused writer's callback saw the settled flush (answer parsed, Mutiny chain run). */
    public static final int SETTLED = 1;
    /** The lane handed its freed slot to a pending batch (the next flush starts back to back). */
    public static final int HANDOVER = 2;
    /** The next flush began (late requests checked). */
    public static final int FLUSH = 3;
    /** Layer 2 grouped the next flush's requests. */
    public static final int GROUPED = 4;
    /** The cache gave its watermark for the next flush. */
    public static final int BOUND = 5;
    /** PushRepository built the next flush's arguments. */
    public static final int ARGS = 6;
    /** The next flush's statement was issued on its borrowed connection. */
    public static final int SENT = 7;
    /**
     * The statement's subscription returned: when the connection's event loop is the calling
     * thread, the client has encoded and written it by then.
     */
    public static final int WRITTEN = 8;

    /** The parts between consecutive points, from ROWS to WRITTEN. */
    private static final String[] NAMES = {"answer (rows to callback)", "slot release", "take and start", "layer 2",
        "cache bound", "arguments", "borrow and issue", "encode and write"};
    private static final Logger LOG = Logger.getLogger(LaneCycleProbe.class);

    private static final long[] at = new long[9];
    private static final long[] sum = new long[9];
    /** Per point, the marking thread's CPU time then, and the thread. */
    private static final long[] cpuAt = new long[9];
    private static final long[] threadAt = new long[9];
    /** Per part: the thread's CPU time spent in it, and how many parts ran on one thread. */
    private static final long[] cpuSum = new long[9];
    private static final long[] cpuCount = new long[9];
    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();
    private static long cycles;
    private static long cycleSum;
    private static long roundTripSum;
    private static long sends;
    private static long lastSent;
    private static boolean backToBack;
    /** A back-to-back statement was issued and its WRITTEN mark is awaited. */
    private static boolean pending;
    private static long pendingCycle;

    static {
        if (ON) {
            Thread t = new Thread(LaneCycleProbe::report, "lane-cycle-probe");
            t.setDaemon(true);
            t.start();
        }
    }

    private LaneCycleProbe() {
    }

    /**
     * Issues a statement with its marks: {@link #issued} before it is created, {@link #written}
     * once its subscription returned, which on the connection's own event loop is after the client
     * encoded and wrote it. Call only when {@link #ON}.
     *
     * @param sql       the statement's text (a push_segment call is marked)
     * @param statement creates the statement's Uni on the borrowed connection
     */
    public static <T> Uni<T> timed(String sql, Supplier<Uni<T>> statement) {
        issued(sql);
        Uni<T> created = statement.get();
        return Uni.createFrom().<T>emitter(em -> {
            created.subscribe().with(em::complete, em::fail);
            written(sql);
        });
    }

    /**
     * Marks {@link #SENT} when {@code sql} is a push_segment call; a push_bundle call (a first push
     * by name) only ends the cycle, uncounted. Call only when {@link #ON}.
     */
    static void issued(String sql) {
        if (sql.contains("push_segment")) {
            mark(SENT);
        } else if (sql.contains("push_bundle")) {
            synchronized (LaneCycleProbe.class) {
                lastSent = System.nanoTime();
                pending = false;
            }
        }
    }

    /** Marks {@link #WRITTEN} after a push_segment statement's subscription returned; call only when {@link #ON}. */
    static void written(String sql) {
        if (sql.contains("push_segment")) {
            mark(WRITTEN);
        }
    }

    /** Takes the timestamp of one point of the cycle; call only when {@link #ON}. */
    public static synchronized void mark(int point) {
        long now = System.nanoTime();
        at[point] = now;
        cpuAt[point] = THREADS.getCurrentThreadCpuTime();
        threadAt[point] = Thread.currentThread().getId();
        if (point == ROWS) {
            backToBack = false;
            if (lastSent != 0) {
                roundTripSum += now - lastSent;
            }
        } else if (point == HANDOVER) {
            // the rows and the callback are the last statement's (a first push by name goes as a
            // bundle, which marks no rows), and the slot passed without waiting for an arrival
            backToBack = at[ROWS] > lastSent && at[SETTLED] >= at[ROWS];
        } else if (point == SENT) {
            sends++;
            pending = backToBack && lastSent != 0;
            // one back-to-back cycle: from the last statement issued to this one
            pendingCycle = now - lastSent;
            backToBack = false;
            lastSent = now;
        } else if (point == WRITTEN && pending) {
            pending = false;
            cycleSum += pendingCycle;
            for (int i = SETTLED; i <= WRITTEN; i++) {
                sum[i] += at[i] - at[i - 1];
                if (threadAt[i] == threadAt[i - 1]) {
                    cpuSum[i] += cpuAt[i] - cpuAt[i - 1];
                    cpuCount[i]++;
                }
            }
            cycles++;
        }
    }

    private static void report() {
        long lastSends = 0;
        while (true) {
            try {
                Thread.sleep(5000);
            } catch (InterruptedException e) {
                return;
            }
            long[] s;
            long[] cs;
            long[] cn;
            long n;
            long cyc;
            long rt;
            long sent;
            synchronized (LaneCycleProbe.class) {
                s = sum.clone();
                cs = cpuSum.clone();
                cn = cpuCount.clone();
                java.util.Arrays.fill(cpuSum, 0);
                java.util.Arrays.fill(cpuCount, 0);
                n = cycles;
                cyc = cycleSum;
                rt = roundTripSum;
                sent = sends;
                java.util.Arrays.fill(sum, 0);
                cycles = 0;
                cycleSum = 0;
                roundTripSum = 0;
            }
            if (n == 0) {
                continue;
            }
            StringBuilder b = new StringBuilder("lane cycle: ").append(sent - lastSends).append(" statements in 5 s, ")
                    .append(n).append(" back to back; mean µs: cycle ").append(us(cyc, n))
                    .append(", statement issued to rows ").append(us(rt, sent - lastSends));
            long gap = 0;
            long gapCpu = 0;
            for (int i = SETTLED; i <= WRITTEN; i++) {
                b.append(", ").append(NAMES[i - 1]).append(' ').append(us(s[i], n))
                        .append(" (cpu ").append(us(cs[i], cn[i])).append(" in ").append(cn[i]).append(')');
                gap += s[i];
                gapCpu += cn[i] == 0 ? 0 : cs[i] / cn[i];
            }
            b.append("; gap (rows to the next statement written) ").append(us(gap, n))
                    .append(", its parts' mean thread cpu ").append(us(gapCpu, 1));
            lastSends = sent;
            LOG.info(b);
        }
    }

    private static String us(long nanos, long n) {
        return String.format("%.1f", TimeUnit.NANOSECONDS.toMicros(nanos * 10 / Math.max(1, n)) / 10.0);
    }
}
