package dev.exactly.bench;

import dev.exactly.testing.PayloadClock;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The suite's destinations phase ({@code bench/run --only destinations}): the server shape (cache +
 * fusion) with an HTTP destination whose receiver runs in this JVM on 127.0.0.1 (allowed through
 * {@code exactly.delivery.allowed-hosts}), {@value #PRODUCERS} producers of one-item pushes, producer c
 * to partition p{c} of {@value #PARTITIONS}. Each round runs, in an order that alternates:
 * <ul>
 *   <li><b>without</b>: closed loop on a queue that has no destination (pushes/s);</li>
 *   <li><b>with</b>: closed loop on the queue with the destination (pushes/s, and the deliveries that
 *       arrived at the receiver during the same measured period, per second);</li>
 * </ul>
 * then <b>paced</b>: the queue with the destination at half the round's "with" push rate, each
 * producer sending on a fixed schedule, and the push-to-delivery latency of each message sent in the
 * measured period: from the moment its push was sent (System.nanoTime, written into its payload) to
 * its arrival at the receiver (the same clock, same JVM). After each cell the phase waits until the
 * destination has delivered everything pushed so far, so a cell's deliveries do not load the next.
 * Targets: delivered/s ≥ 1.0 × pushed/s; pushes/s with the destination ≥ 0.9 × without; latency p50
 * ≤ 20 ms and p99 ≤ 100 ms; each the median over the rounds.
 */
final class DestinationsPhase {

    static final int PRODUCERS = 16;
    static final int PARTITIONS = 16;
    static final String WITHOUT = "dest-bench-none";
    static final String WITH = "dest-bench-http";
    static final String DESTINATION = "bench-receiver";
    static final Duration DRAIN = Duration.ofSeconds(120);
    /** The database of the second service of an A/B run ({@code --jar-b}). */
    static final String DATABASE_B = "exactly_bench_b";

    /**
     * One round's figures. The bounds beside the targets: {@code cpuUsWithout} and {@code cpuUsWith} are the
     * whole machine's busy CPU per push in the closed loops (µs; with the destination it includes that push's
     * delivery: the dispatcher, the receiver, the database's pops and acks), {@code busyWithout} and
     * {@code busyWith} the share of all cores busy then; {@code pacedPushP50Ms} is the pushes' own answer time
     * at the paced rate, which a delivery cannot beat (a push is delivered after it commits). The splits give,
     * per push of each cell, whose CPU it was: the service's, the database's, this harness's.
     */
    record Round(double pushedWithout, double pushedWith, double deliveredWith, long backlogAtEnd, double pacedRate,
                 double pacedPushed, double p50Ms, double p99Ms, double maxMs, long latencies, double busyWithout,
                 double busyWith, double cpuUsWithout, double cpuUsWith, double pacedPushP50Ms, Split splitWithout,
                 Split splitWith, Split splitPaced) {
        double deliveryRatio() {
            return pushedWith > 0 ? deliveredWith / pushedWith : Double.NaN;
        }

        double pushRatio() {
            return pushedWithout > 0 ? pushedWith / pushedWithout : Double.NaN;
        }

        /**
         * Pushes with ÷ without that the machine's CPU allows when both closed loops keep every core
         * busy: a push's CPU without the destination ÷ a push's CPU with it (its delivery included).
         */
        double cpuBound() {
            return cpuUsWith > 0 ? cpuUsWithout / cpuUsWith : Double.NaN;
        }

        /**
         * The bound of {@link #cpuBound} with this harness's CPU (the load generator and the receiver, which a
         * deployment runs elsewhere) left out: the service's and the database's CPU per push without the
         * destination ÷ with it.
         */
        double ownCpuBound() {
            double with = splitWith.exactly();
            return with > 0 ? splitWithout.exactly() / with : Double.NaN;
        }

        /** Push-to-delivery p50 less the push's own answer p50 at the same rate: what delivery adds. */
        double deliveryOwnP50Ms() {
            return p50Ms - pacedPushP50Ms;
        }
    }

    /**
     * Whose CPU a cell's pushes took, µs per push answered in its measured period (with the destination,
     * deliveries included): the service's process, the database server's processes ({@link PostgresCpu}),
     * and this JVM's (the load generator and the receiver). NaN where not read.
     */
    record Split(double serviceUs, double databaseUs, double harnessUs) {
        static final Split NONE = new Split(Double.NaN, Double.NaN, Double.NaN);

        /** The service's and the database's CPU per push: Exactly's own part. */
        double exactly() {
            return serviceUs + databaseUs;
        }
    }

    /** The rounds, and what went wrong if anything did. */
    static final class Result {
        final List<Round> rounds = new ArrayList<>();
        String failed;
        String settings;
        long duplicates;
        long errors;
        String firstError;
        long delivered;

        /** The median over the rounds of a figure (NaN without rounds). */
        double median(ToDoubleFunction<Round> f) {
            double[] v = rounds.stream().mapToDouble(f).filter(x -> !Double.isNaN(x)).sorted().toArray();
            if (v.length == 0) {
                return Double.NaN;
            }
            return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
        }
    }

    private final Suite s;

    DestinationsPhase(Suite suite) {
        this.s = suite;
    }

    Result run() throws Exception {
        if (s.args.containsKey("jar-b")) {
            return runAgainst(Path.of(s.args.get("jar-b")));
        }
        Result result = new Result();
        s.truncateAll();
        s.db.execute("TRUNCATE exactly.destinations, exactly.destination_state, exactly.destination_dead_letters, "
                + "exactly.consumer_cursors, exactly.deliveries CASCADE");
        Path jar = Path.of(s.args.getOrDefault("jar", "target/quarkus-app/quarkus-run.jar"));
        Map<String, String> settings = new LinkedHashMap<>(Suite.MODES.get("cache+fusion"));
        settings.put("exactly.delivery.allowed-hosts", "127.0.0.1/32");
        result.settings = settings.toString();
        Receiver receiver = new Receiver();
        try (ServerProcess server = ServerProcess.start(jar, s.db.reactiveUrl(BenchDatabase.NAME), s.db.user(),
                Suite.sha256(s.apiKey), settings, s.work.resolve("service-destinations.log"), s.recording("destinations"))) {
            server.awaitFirstPush(s.apiKey, Duration.ofSeconds(120));
            URI base = server.baseUrl();
            Load load = new Load(base, s.apiKey);
            load.service = ProcessHandle.of(server.pid()).orElse(null);
            load.database = databaseCpu();
            try {
                setUp(base, load, receiver);
                for (int r = 0; r < s.rounds; r++) {
                    result.rounds.add(round(load, receiver, r, ""));
                }
                result.duplicates = receiver.duplicates.get();
                result.delivered = receiver.unique.size();
                result.errors = load.errors.get();
                result.firstError = load.firstError.get();
            } finally {
                load.close();
            }
        } catch (RuntimeException e) {
            result.failed = e.toString();
            Suite.log("destinations: " + e);
        } finally {
            receiver.close();
        }
        return result;
    }

    /**
     * A/B in one run ({@code --jar-b PATH}, and {@code --settings-b k=v,k=v} for B's settings on top
     * of A's): the service of {@code --jar} (A, on the benchmark's database) and that of
     * {@code --jar-b} (B, on a database of its own, {@value #DATABASE_B}) run
     * side by side, idle in turn: each round runs A's cells then B's, or B's then A's (alternating),
     * so that the host's load, which drifts over minutes, weighs on both alike. Each is paced at half
     * its own closed-loop rate of the round, so their latencies may be taken at different rates (the
     * log gives both). The report holds A's rounds; the log gives B's and, per round, B ÷ A of each
     * figure, and their medians.
     */
    private Result runAgainst(Path jarB) throws Exception {
        Result a = new Result();
        Result b = new Result();
        s.truncateAll();
        s.db.execute("TRUNCATE exactly.destinations, exactly.destination_state, exactly.destination_dead_letters, "
                + "exactly.consumer_cursors, exactly.deliveries CASCADE");
        s.db.prepareAnother(s.root, DATABASE_B);
        Path jarA = Path.of(s.args.getOrDefault("jar", "target/quarkus-app/quarkus-run.jar"));
        Map<String, String> settings = new LinkedHashMap<>(Suite.MODES.get("cache+fusion"));
        settings.put("exactly.delivery.allowed-hosts", "127.0.0.1/32");
        Map<String, String> settingsB = new LinkedHashMap<>(settings);
        for (String kv : s.args.getOrDefault("settings-b", "").split(",")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                settingsB.put(kv.substring(0, eq).strip(), kv.substring(eq + 1).strip());
            }
        }
        a.settings = settings + " A: " + jarA + ", B: " + jarB + " " + settingsB;
        Receiver receiverA = new Receiver();
        Receiver receiverB = new Receiver();
        try (ServerProcess serverA = ServerProcess.start(jarA, s.db.reactiveUrl(BenchDatabase.NAME), s.db.user(),
                Suite.sha256(s.apiKey), settings, s.work.resolve("service-destinations-a.log"), s.recording("destinations-a"));
             ServerProcess serverB = ServerProcess.start(jarB, s.db.reactiveUrl(DATABASE_B), s.db.user(),
                Suite.sha256(s.apiKey), settingsB, s.work.resolve("service-destinations-b.log"), s.recording("destinations-b"))) {
            serverA.awaitFirstPush(s.apiKey, Duration.ofSeconds(120));
            serverB.awaitFirstPush(s.apiKey, Duration.ofSeconds(120));
            Load loadA = new Load(serverA.baseUrl(), s.apiKey);
            Load loadB = new Load(serverB.baseUrl(), s.apiKey);
            loadA.service = ProcessHandle.of(serverA.pid()).orElse(null);
            loadB.service = ProcessHandle.of(serverB.pid()).orElse(null);
            // one server holds both databases: a cell's database CPU is all of it, the other service idle then
            loadA.database = databaseCpu();
            loadB.database = loadA.database;
            try {
                setUp(serverA.baseUrl(), loadA, receiverA);
                setUp(serverB.baseUrl(), loadB, receiverB);
                List<double[]> ratios = new ArrayList<>();
                for (int r = 0; r < s.rounds; r++) {
                    Round ra;
                    Round rb;
                    if (r % 2 == 0) {
                        ra = round(loadA, receiverA, r, "A ");
                        rb = round(loadB, receiverB, r, "B ");
                    } else {
                        rb = round(loadB, receiverB, r, "B ");
                        ra = round(loadA, receiverA, r, "A ");
                    }
                    a.rounds.add(ra);
                    b.rounds.add(rb);
                    double[] q = {rb.p50Ms() / ra.p50Ms(), rb.p99Ms() / ra.p99Ms(), rb.deliveryRatio() / ra.deliveryRatio(),
                            rb.pushRatio() / ra.pushRatio()};
                    ratios.add(q);
                    Suite.log(String.format(Locale.ROOT, "destinations A/B round %d: B÷A p50 %.2f, p99 %.2f, delivered÷pushed %.2f, "
                            + "with÷without %.2f", r + 1, q[0], q[1], q[2], q[3]));
                }
                for (String arm : List.of("A", "B")) {
                    Result x = arm.equals("A") ? a : b;
                    Suite.log(String.format(Locale.ROOT, "destinations %s medians: p50 %.2f ms, p99 %.2f ms, delivered÷pushed %.2f, "
                                    + "with÷without %.2f, paced at %.0f pushes/s (rounds p50: %s)", arm, x.median(Round::p50Ms),
                            x.median(Round::p99Ms), x.median(Round::deliveryRatio), x.median(Round::pushRatio),
                            x.median(Round::pacedRate), rounds(x, Round::p50Ms, 2)));
                }
                Suite.log(String.format(Locale.ROOT, "destinations A/B medians of the rounds' B÷A: p50 %.2f, p99 %.2f, "
                                + "delivered÷pushed %.2f, with÷without %.2f", medianOf(ratios, 0), medianOf(ratios, 1),
                        medianOf(ratios, 2), medianOf(ratios, 3)));
                a.duplicates = receiverA.duplicates.get() + receiverB.duplicates.get();
                a.delivered = receiverA.unique.size();
                a.errors = loadA.errors.get() + loadB.errors.get();
                a.firstError = loadA.firstError.get() != null ? loadA.firstError.get() : loadB.firstError.get();
            } finally {
                loadA.close();
                loadB.close();
            }
        } catch (RuntimeException e) {
            a.failed = e.toString();
            Suite.log("destinations: " + e);
        } finally {
            receiverA.close();
            receiverB.close();
        }
        return a;
    }

    /** The database server's CPU reader, or null (logged) when its processes are not visible here. */
    private PostgresCpu databaseCpu() {
        try (java.sql.Connection c = s.db.connect(BenchDatabase.NAME)) {
            return PostgresCpu.of(c);
        } catch (java.sql.SQLException | IllegalStateException e) {
            Suite.log("destinations: no database CPU figures: " + e.getMessage());
            return null;
        }
    }

    private static double medianOf(List<double[]> rows, int i) {
        double[] v = rows.stream().mapToDouble(x -> x[i]).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** Creates the partitions, then the destination, and warms the service up (not reported). */
    private void setUp(URI base, Load load, Receiver receiver) throws Exception {
        // the partitions exist before the destination, which starts at their ends
        for (String q : List.of(WITHOUT, WITH)) {
            load.run(q, 0, Duration.ZERO, Duration.ofMillis(300), null);
        }
        put(base, receiver.port());
        load.pushedWith.set(0); // what was stored before the destination is not delivered to it
        Suite.log("destinations warm-up (not reported)");
        Duration warm = Duration.ofSeconds(Math.max(5, 2 * s.measure.toSeconds()));
        for (int i = 0; i < 2; i++) {
            load.run(WITHOUT, 0, Duration.ZERO, warm, null);
            load.run(WITH, 0, Duration.ZERO, warm, receiver);
            drain(receiver, load);
        }
        receiver.reset();
    }

    /** One round: closed loops without and with the destination (alternating which goes first), then paced at half. */
    private Round round(Load load, Receiver receiver, int r, String label) throws InterruptedException {
        Run without = null;
        Run with = null;
        for (int i = 0; i < 2; i++) {
            boolean destination = (i + r) % 2 == 1;
            Suite.log("destinations " + label + (destination ? "with" : "without") + " the destination, closed loop (round "
                    + (r + 1) + "/" + s.rounds + ")");
            Run run = load.run(destination ? WITH : WITHOUT, 0, s.warmup, s.measure, destination ? receiver : null);
            log(run);
            if (destination) {
                with = run;
                drain(receiver, load);
            } else {
                without = run;
            }
        }
        double rate = with.pushedPerSecond() / 2;
        Suite.log(String.format(Locale.ROOT, "destinations %spaced at %.0f pushes/s (round %d/%d)", label, rate, r + 1, s.rounds));
        Run paced = load.run(WITH, rate, s.warmup, s.measure, receiver);
        drain(receiver, load);
        log(paced);
        Histogram h = paced.latency;
        Round round = new Round(without.pushedPerSecond(), with.pushedPerSecond(), with.deliveredPerSecond(), with.backlogAtEnd,
                rate, paced.pushedPerSecond(), h.getValueAtPercentile(50) / 1000.0,
                h.getValueAtPercentile(99) / 1000.0, h.getMaxValue() / 1000.0, h.getTotalCount(), without.busy, with.busy,
                without.cpuUsPerPush(), with.cpuUsPerPush(), paced.push.getValueAtPercentile(50) / 1000.0, without.split(),
                with.split(), paced.split());
        Suite.log(String.format(Locale.ROOT, "  delivered %.2f× pushed, pushes with %.2f× without (CPU bound %.2f×: "
                        + "%.0f µs a push without, %.0f µs with, cores busy %.0f%% and %.0f%%), "
                        + "push-to-delivery p50 %.2f ms p99 %.2f ms (%d messages), the push's own p50 %.2f ms",
                round.deliveryRatio(), round.pushRatio(), round.cpuBound(), round.cpuUsWithout(), round.cpuUsWith(),
                100 * round.busyWithout(), 100 * round.busyWith(), round.p50Ms(), round.p99Ms(), round.latencies(),
                round.pacedPushP50Ms()));
        Suite.log(String.format(Locale.ROOT, "  µs of CPU a push (service / database / load generator and receiver): "
                        + "without %s, with %s, paced %s; the bound without the harness %.2f×", split(round.splitWithout()),
                split(round.splitWith()), split(round.splitPaced()), round.ownCpuBound()));
        return round;
    }

    private static String split(Split x) {
        return String.format(Locale.ROOT, "%.0f / %.0f / %.0f", x.serviceUs(), x.databaseUs(), x.harnessUs());
    }

    private static void log(Run r) {
        Suite.log(String.format(Locale.ROOT, "  %.0f pushes/s, %.0f delivered/s, backlog %d at the end, push p50 %.2f ms, "
                        + "cores busy %.0f%%, %.0f µs of CPU a push", r.pushedPerSecond(), r.deliveredPerSecond(), r.backlogAtEnd,
                r.push.getValueAtPercentile(50) / 1000.0, 100 * r.busy, r.cpuUsPerPush()));
    }

    /** Waits until the receiver has had every message pushed to the destination's queue so far. */
    private static void drain(Receiver receiver, Load load) throws InterruptedException {
        long deadline = System.nanoTime() + DRAIN.toNanos();
        while (receiver.unique.size() < load.pushedWith.get()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the destination did not catch up within " + DRAIN + ": "
                        + receiver.unique.size() + " of " + load.pushedWith.get() + " delivered");
            }
            Thread.sleep(20);
        }
    }

    /** Creates the destination (PUT /api/v1/queues/{queue}/destinations/{name}), signed, as a user's would be. */
    private void put(URI base, int port) throws Exception {
        String body = "{\"url\":\"http://127.0.0.1:" + port + "/hook\",\"signingSecret\":\"whsec_"
                + java.util.Base64.getEncoder().encodeToString("exactly-bench-signing-secret-32b".getBytes(StandardCharsets.UTF_8))
                + "\",\"timeoutMs\":5000}";
        HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        base.resolve("/api/v1/queues/" + WITH + "/destinations/" + DESTINATION))
                .header("Authorization", "Bearer " + s.apiKey).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("PUT destination: " + r.statusCode() + " " + r.body());
        }
    }

    // ------------------------------------------------------------------ the receiver

    /**
     * The destination's endpoint: a Vert.x HTTP server on one event loop of its own, answering 200 to
     * each POST. It counts distinct webhook-ids, repeats, the arrivals inside the measured period, and
     * records the latency of each message whose send time (the payload's "t") lies in that period.
     */
    static final class Receiver {
        final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1));
        final HttpServer server;
        final Set<String> unique = ConcurrentHashMap.newKeySet();
        final AtomicLong duplicates = new AtomicLong();
        final AtomicLong inWindow = new AtomicLong();
        volatile long t0 = Long.MAX_VALUE;
        volatile long t1 = Long.MIN_VALUE;
        volatile ConcurrentHistogram latency = new ConcurrentHistogram(3_600_000_000L, 3);

        Receiver() throws Exception {
            server = vertx.createHttpServer().requestHandler(req -> req.body().onComplete(ar -> {
                long now = System.nanoTime();
                if (ar.succeeded()) {
                    String id = req.getHeader("webhook-id");
                    if (id != null && !unique.add(id)) {
                        duplicates.incrementAndGet();
                    }
                    if (now >= t0 && now < t1) {
                        inWindow.incrementAndGet();
                    }
                    long sent = PayloadClock.sentAt(ar.result().toString(StandardCharsets.UTF_8));
                    if (sent >= t0 && sent < t1) {
                        latency.recordValue(Math.max(1, (now - sent) / 1000));
                    }
                }
                req.response().setStatusCode(200).end();
            })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }

        int port() {
            return server.actualPort();
        }

        /** Opens a measured period [t0, t1) (System.nanoTime) with a fresh latency histogram. */
        void window(long t0, long t1) {
            latency = new ConcurrentHistogram(3_600_000_000L, 3);
            inWindow.set(0);
            this.t0 = t0;
            this.t1 = t1;
        }

        void reset() {
            duplicates.set(0);
        }

        void close() throws Exception {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    // ------------------------------------------------------------------ the producers

    /** What one load run measured. */
    static final class Run {
        long pushed;
        long delivered;
        long backlogAtEnd;
        double seconds;
        Histogram push;
        Histogram latency;
        /** The machine's busy CPU over the measured period, seconds over all cores (NaN when not read). */
        double cpuSeconds = Double.NaN;
        /** The share of all cores busy over the measured period (NaN when not read). */
        double busy = Double.NaN;
        /** CPU seconds over the measured period of the service, the database and this JVM (NaN when not read). */
        double serviceSeconds = Double.NaN;
        double databaseSeconds = Double.NaN;
        double harnessSeconds = Double.NaN;

        /** Whose CPU the pushes took, per push. */
        Split split() {
            return pushed > 0 ? new Split(serviceSeconds * 1e6 / pushed, databaseSeconds * 1e6 / pushed,
                    harnessSeconds * 1e6 / pushed) : Split.NONE;
        }

        /** The machine's busy CPU per push answered in the measured period, µs. */
        double cpuUsPerPush() {
            return pushed > 0 ? cpuSeconds * 1e6 / pushed : Double.NaN;
        }

        double pushedPerSecond() {
            return seconds > 0 ? pushed / seconds : 0;
        }

        double deliveredPerSecond() {
            return seconds > 0 ? delivered / seconds : 0;
        }
    }

    /**
     * {@value #PRODUCERS} producers of one-item pushes on a Vert.x HTTP client (one event loop, a
     * keep-alive connection per producer), producer c to partition p{c}; the payload carries the
     * send time as "t" (System.nanoTime). Closed loop, or paced: producer c sends its k-th push at
     * start + k × PRODUCERS ÷ rate (at once when it is behind).
     */
    static final class Load {
        final Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1));
        final HttpClient client;
        final String authorization;
        /** Pushes answered 200 on the destination's queue since the destination was created. */
        final AtomicLong pushedWith = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicReference<String> firstError = new AtomicReference<>();
        final String tag = Long.toString(System.currentTimeMillis() % 100_000_000L, 36);
        long runs;
        /** The service's process, whose CPU each run reads (null: not read). */
        ProcessHandle service;
        /** The database server's CPU (null: not read, e.g. a server on another machine). */
        PostgresCpu database;

        Load(URI base, String apiKey) {
            client = vertx.createHttpClient(new HttpClientOptions().setDefaultHost(base.getHost()).setDefaultPort(base.getPort())
                    .setKeepAlive(true).setConnectTimeout(5_000), new PoolOptions().setHttp1MaxSize(PRODUCERS).setMaxWaitQueueSize(-1));
            authorization = "Bearer " + apiKey;
        }

        /**
         * @param rate     pushes per second over all producers; 0: closed loop
         * @param receiver the destination's receiver whose measured period this run opens, or null
         */
        Run run(String queue, double rate, Duration warmup, Duration measure, Receiver receiver) throws InterruptedException {
            long start = System.nanoTime();
            long t0 = start + warmup.toNanos();
            long t1 = t0 + measure.toNanos();
            if (receiver != null) {
                receiver.window(t0, t1);
            }
            ConcurrentHistogram push = new ConcurrentHistogram(3_600_000_000L, 3);
            AtomicLong measured = new AtomicLong();
            CountDownLatch done = new CountDownLatch(PRODUCERS);
            long interval = rate > 0 ? (long) (PRODUCERS * 1e9 / rate) : 0;
            String runTag = tag + "r" + (runs++);
            for (int c = 0; c < PRODUCERS; c++) {
                String partition = "p" + (c % PARTITIONS);
                String txPrefix = runTag + "c" + c + "-";
                long offset = interval * c / PRODUCERS; // producers spread over the interval
                new Object() {
                    long k;

                    void schedule() {
                        long due = start + offset + k * interval;
                        long wait = (due - System.nanoTime()) / 1_000_000;
                        if (interval > 0 && wait >= 1) {
                            vertx.setTimer(wait, id -> send());
                        } else {
                            send();
                        }
                    }

                    void send() {
                        long begin = System.nanoTime();
                        if (begin >= t1) {
                            done.countDown();
                            return;
                        }
                        String body = "{\"items\":[{\"queue\":\"" + queue + "\",\"partition\":\"" + partition
                                + "\",\"transactionId\":\"" + txPrefix + (k++) + "\",\"payload\":{\"t\":" + begin
                                + ",\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}]}";
                        RequestOptions request = new RequestOptions().setMethod(HttpMethod.POST).setURI("/api/v1/push")
                                .setIdleTimeout(30_000).putHeader("Content-Type", "application/json")
                                .putHeader("Authorization", authorization);
                        client.request(request).compose(r -> r.send(Buffer.buffer(body)))
                                .compose(response -> response.body().map(b -> {
                                    if (response.statusCode() != 200) {
                                        throw new IllegalStateException("HTTP " + response.statusCode() + ": " + b);
                                    }
                                    return b;
                                }))
                                .onComplete(ar -> {
                                    long end = System.nanoTime();
                                    if (ar.failed()) {
                                        errors.incrementAndGet();
                                        firstError.compareAndSet(null, String.valueOf(ar.cause()));
                                    } else {
                                        if (queue.equals(WITH)) {
                                            pushedWith.incrementAndGet();
                                        }
                                        if (end >= t0 && end < t1) {
                                            measured.incrementAndGet();
                                            push.recordValue(Math.max(1, (end - begin) / 1000));
                                        }
                                    }
                                    schedule();
                                });
                    }
                }.schedule();
            }
            // the machine's CPU over the measured period, and whose it was, read on this thread while the producers run
            double cpu0 = Double.NaN;
            double cpu1 = Double.NaN;
            double[] own0 = null;
            double[] own1 = null;
            if (MachineCpu.available()) {
                TimeUnit.NANOSECONDS.sleep(Math.max(0, t0 - System.nanoTime()));
                cpu0 = MachineCpu.busySeconds();
                own0 = own();
                TimeUnit.NANOSECONDS.sleep(Math.max(0, t1 - System.nanoTime()));
                cpu1 = MachineCpu.busySeconds();
                own1 = own();
            }
            long waitMs = TimeUnit.NANOSECONDS.toMillis(t1 - System.nanoTime()) + 60_000;
            if (!done.await(waitMs, TimeUnit.MILLISECONDS)) {
                firstError.compareAndSet(null, "pushes still in flight after the run");
            }
            Run r = new Run();
            r.pushed = measured.get();
            r.seconds = measure.toNanos() / 1e9;
            r.push = push;
            r.cpuSeconds = cpu1 - cpu0;
            r.busy = r.cpuSeconds / r.seconds / Runtime.getRuntime().availableProcessors();
            if (own0 != null) {
                r.serviceSeconds = own1[0] - own0[0];
                r.databaseSeconds = own1[1] - own0[1];
                r.harnessSeconds = own1[2] - own0[2];
            }
            if (receiver != null) {
                r.delivered = receiver.inWindow.get();
                r.backlogAtEnd = pushedWith.get() - receiver.unique.size();
                r.latency = receiver.latency;
            }
            return r;
        }

        /** CPU seconds so far of the service, the database server and this JVM (NaN where not readable). */
        private double[] own() {
            double svc = service == null ? Double.NaN : cpuSeconds(service);
            double db = Double.NaN;
            if (database != null) {
                try {
                    db = database.read().total();
                } catch (IllegalStateException gone) {
                    db = Double.NaN;
                }
            }
            return new double[] {svc, db, cpuSeconds(ProcessHandle.current())};
        }

        private static double cpuSeconds(ProcessHandle p) {
            return p.info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(Double.NaN);
        }

        void close() throws Exception {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    /** For the report: the per-round values of a figure, formatted. */
    static String rounds(Result r, ToDoubleFunction<Round> f, int digits) {
        return String.join(", ", Arrays.stream(r.rounds.stream().mapToDouble(f).toArray())
                .mapToObj(v -> Report.fmt(v, digits)).toList());
    }
}
