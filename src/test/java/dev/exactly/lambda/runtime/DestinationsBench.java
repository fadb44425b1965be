package dev.exactly.lambda.runtime;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.standardwebhooks.Webhook;
import com.sun.net.httpserver.HttpServer;
import dev.exactly.testing.Api;
import dev.exactly.testing.PayloadClock;
import dev.exactly.testing.TestDatabase;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Delivery in the Lambda shape, measured (bench/lambda-destinations drives {@link #main}): the
 * figures of the server shape's destinations phase (bench/src/main/java/dev/exactly/bench/DestinationsPhase.java)
 * for target/function.zip under the AWS Lambda Java runtime interface client.
 *
 * <p>Set-up, as {@code LambdaDeliveryIT} runs the package: {@code --instances} function instances,
 * each the runtime client in a JVM of its own ({@link FunctionProcess}) on a {@link RuntimeApiServer}
 * of its own, fed by one queue ({@link Instances}): each event goes to an idle instance, as Lambda
 * hands it out, and waits in the queue while every instance is busy (a function whose reserved
 * concurrency is the number of instances; Lambda would throttle a synchronous call instead); an
 * invocation that outlasts the function's timeout replaces its instance, as Lambda does. Pushes are API Gateway HTTP API events built on AWS's sample
 * ({@link ApiGatewayEvents}). One HTTP destination, configured as infra/terraform configures it (its
 * settings in the settings document, its signing secret a reference to a secret of the loopback
 * Secrets Manager stand-in). The drains the function asks for go to the loopback Invoke API
 * stand-in ({@link FakeLambdaInvoke}), which hands each to the same queue: a drain takes an
 * instance for as long as it runs. The EventBridge schedule's event ({@code {"exactly":"deliver"}})
 * is invoked every 60 s. The receiver (JDK HTTP server on 127.0.0.1) verifies every request with the
 * Standard Webhooks library and counts distinct webhook-ids and repeats.
 *
 * <p>{@value #PRODUCERS} producer threads of one-item pushes, producer c to partition p{c}; each
 * round runs, alternating which goes first, a closed loop on a queue without a destination
 * (pushes/s: the bound of these instances on this machine) and one on the queue with it (pushes/s,
 * and the deliveries that arrived during the same period, per second), then the queue with it paced
 * at half that round's rate, where each message's push-to-delivery time is taken from its send time
 * (System.nanoTime in its payload) to its arrival (same clock, same JVM). After each cell with the
 * destination the bench waits until every pushed message id has arrived. Medians over the rounds.
 */
public final class DestinationsBench {

    static final int PRODUCERS = 16;
    static final String WITHOUT = "lambda-bench-none";
    static final String WITH = "lambda-bench-http";
    static final String DESTINATION = "bench";
    /** infra/terraform/variables.tf's default lambda_timeout_seconds: each invocation's deadline. */
    static final long FUNCTION_TIMEOUT_MS = 28_000;
    static final Duration CATCH_UP = Duration.ofSeconds(180);
    static final Duration SCHEDULE = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:";
    private static final String SETTINGS = ARN + "exactly-settings-BeNcHx";
    private static final String SIGNING_SECRET = "whsec_" + Base64.getEncoder().encodeToString(
            "exactly-bench-signing-secret-32b".getBytes(StandardCharsets.US_ASCII));

    /** One round's figures. */
    record Round(double pushedWithout, double pushedWith, double deliveredWith, double pacedRate, double pacedPushed,
                 double p50Ms, double p99Ms, double maxMs, long timed, long drains) {
        double deliveryRatio() {
            return pushedWith > 0 ? deliveredWith / pushedWith : Double.NaN;
        }

        double pushRatio() {
            return pushedWithout > 0 ? pushedWith / pushedWithout : Double.NaN;
        }
    }

    /** What one load run measured. */
    record Run(double pushedPerSecond, double deliveredPerSecond, double pushP50Ms, Histogram latency) {
    }

    private DestinationsBench() {
    }

    /**
     * Runs the bench and prints each cell, each round and the medians.
     *
     * @param args {@code --rounds N} (3), {@code --instances N} (4), {@code --warmup-ms} (1000),
     *             {@code --measure-ms} (5000), {@code --recovery-down-s S} (0: no recovery phase; else
     *             after the rounds the receiver answers 503 for S seconds while the producers push
     *             for the first 5, then answers again, and the bench times the catch-up),
     *             {@code --recovery-answer-ms D} (0: how long the receiver takes to answer each request
     *             from the recovery on)
     * @throws Exception when the function cannot be started, a push fails, or a message is not delivered
     */
    public static void main(String[] args) throws Exception {
        int rounds = 3;
        int instances = 4;
        long warmupMs = 1_000;
        long measureMs = 5_000;
        int recoveryDownS = 0;
        int recoveryAnswerMs = 0;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--instances" -> instances = Integer.parseInt(args[++i]);
                case "--warmup-ms" -> warmupMs = Long.parseLong(args[++i]);
                case "--measure-ms" -> measureMs = Long.parseLong(args[++i]);
                case "--recovery-down-s" -> recoveryDownS = Integer.parseInt(args[++i]);
                case "--recovery-answer-ms" -> recoveryAnswerMs = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + "; usage: DestinationsBench [--rounds N] [--instances N] [--warmup-ms MS] [--measure-ms MS] [--recovery-down-s S] [--recovery-answer-ms D]");
            }
        }
        // the JDK's HTTP servers (runtime API, receiver) write a response's head and body apart; without
        // TCP_NODELAY the body waits for the client's delayed ACK of the head
        System.setProperty("sun.net.httpserver.nodelay", "true");
        try {
            new DestinationsBench().run(rounds, instances, Duration.ofMillis(warmupMs), Duration.ofMillis(measureMs),
                    Duration.ofSeconds(recoveryDownS), recoveryAnswerMs);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private final Receiver receiver = new Receiver();
    private final Set<String> pushedIds = ConcurrentHashMap.newKeySet();
    private final AtomicLong drains = new AtomicLong();
    private final AtomicLong drainFailures = new AtomicLong();
    private final AtomicLong drainMillis = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final String tag = Long.toString(System.currentTimeMillis() % 100_000_000L, 36);
    private Instances functions;
    private long runs;

    private void run(int rounds, int instances, Duration warmup, Duration measure, Duration recoveryDown, int recoveryAnswerMs)
            throws Exception {
        System.out.printf("load average at start: %s%n", ColdStartBench.loadAverage());
        String db = TestDatabase.createMigratedDatabase();
        var schedule = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "schedule");
            t.setDaemon(true);
            return t;
        });
        try (FakeSecretsManager secrets = new FakeSecretsManager();
             FakeLambdaInvoke invoke = new FakeLambdaInvoke(this::drain);
             Instances started = new Instances(instances, environment(TestDatabase.reactiveUrl(db), secrets, invoke),
                     FunctionProcess.unzipped(Path.of("target", "function.zip"), Path.of("target", "lambda-task")))) {
            functions = started;
            // EventBridge's delivery_schedule rule: a drain of every destination each minute
            schedule.scheduleAtFixedRate(() -> drain("{\"exactly\":\"deliver\"}".getBytes(StandardCharsets.UTF_8)),
                    SCHEDULE.toSeconds(), SCHEDULE.toSeconds(), TimeUnit.SECONDS);
            System.out.printf("%d function instances (runtime interface client, one JVM each), %d producers of one-item pushes "
                    + "over %d partitions, %d ms warm-up + %d ms measured per cell%n", instances, PRODUCERS, PRODUCERS,
                    warmup.toMillis(), measure.toMillis());
            System.out.println("warm-up (not reported)");
            for (int i = 0; i < 2; i++) {
                load(WITHOUT, 0, Duration.ZERO, Duration.ofSeconds(8));
                load(WITH, 0, Duration.ZERO, Duration.ofSeconds(8));
                catchUp();
            }
            receiver.repeats.set(0);
            List<Round> results = new ArrayList<>();
            System.out.printf("%5s %-8s %10s %12s %10s %10s %10s%n", "round", "cell", "pushes/s", "delivered/s", "push p50",
                    "p50 ms", "p99 ms");
            for (int r = 0; r < rounds; r++) {
                results.add(round(r, warmup, measure));
            }
            String perInstance = started.describe();
            System.out.printf("load average at end: %s%n", ColdStartBench.loadAverage());
            report(results, instances);
            if (!recoveryDown.isZero()) {
                recovery(recoveryDown, recoveryAnswerMs);
            }
            long missing = pushedIds.stream().filter(id -> !receiver.unique.containsKey(id)).count();
            System.out.printf("%nexactness: %d message ids pushed into the destination's queue, %d delivered, %d missing, "
                            + "%d repeats after the warm-up, %d requests whose signature did not verify%n",
                    pushedIds.size(), receiver.unique.size(), missing, receiver.repeats.get(), receiver.unverified.get());
            System.out.printf("drain invocations: %d (%d failed), %.1f instance-seconds in drains%n", drains.get(),
                    drainFailures.get(), drainMillis.get() / 1000.0);
            System.out.printf("instances (invocations, CPU of the current process): %s%n", perInstance);
            System.out.printf("invocations that outlasted the function's timeout (the instance replaced, as Lambda does): %d%s%n",
                    started.timeouts.get(), started.timeouts.get() == 0 ? "" : " (thread dumps in target/lambda-destinations-timeout-*.txt)");
            System.out.printf("failed pushes: %d%s%n", errors.get(), firstError.get() == null ? "" : " (first: " + firstError.get() + ")");
        } finally {
            schedule.shutdownNow();
            receiver.close();
        }
    }

    /** The function's environment: as infra/terraform writes it, with the destination in the settings document. */
    private Map<String, String> environment(String reactiveUrl, FakeSecretsManager secrets, FakeLambdaInvoke invoke) throws Exception {
        secrets.put(ARN + "exactly-destination-bench-AbCdEf", SIGNING_SECRET);
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("exactly.destinations." + DESTINATION + ".queue", WITH);
        properties.put("exactly.destinations." + DESTINATION + ".type", "http");
        properties.put("exactly.destinations." + DESTINATION + ".url", "http://127.0.0.1:" + receiver.port() + "/hook");
        properties.put("exactly.destinations." + DESTINATION + ".timeout-ms", "5000");
        // docs/destinations.md's setting for a catch-up that starts within a minute of a recovery
        properties.put("exactly.destinations." + DESTINATION + ".backoff-cap-ms", "30000");
        properties.put("exactly.delivery.allowed-hosts", "127.0.0.1/32");
        Map<String, String> refs = Map.of("exactly.destinations." + DESTINATION + ".signing-secret",
                ARN + "exactly-destination-bench-AbCdEf");
        secrets.put(SETTINGS, JSON.writeValueAsString(Map.of("properties", properties, "secrets", refs)));
        Map<String, String> env = new HashMap<>(ColdStartBench.environment(reactiveUrl, "postgres"));
        env.put("EXACTLY_SECRETS_DOCUMENT", SETTINGS);
        env.put("EXACTLY_SECRETS_ENDPOINT", secrets.endpoint());
        env.put("EXACTLY_INVOKE_ENDPOINT", invoke.endpoint());
        return env;
    }

    /** An asynchronous invocation (a drain the function asked for, or the schedule's): run on an idle instance. */
    private void drain(byte[] event) {
        long t0 = System.nanoTime();
        try {
            RuntimeApiServer.Outcome o = functions.invoke(event, Duration.ofMillis(FUNCTION_TIMEOUT_MS + 120_000));
            if (o.response() == null) {
                drainFailures.incrementAndGet();
                firstError.compareAndSet(null, "drain: " + o.error());
            }
        } catch (Exception e) {
            drainFailures.incrementAndGet();
            firstError.compareAndSet(null, "drain: " + e);
        } finally {
            drains.incrementAndGet();
            drainMillis.addAndGet(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
        }
    }

    private Round round(int r, Duration warmup, Duration measure) throws Exception {
        long drainsBefore = drains.get();
        Run without = null;
        Run with = null;
        for (int i = 0; i < 2; i++) {
            boolean destination = (i + r) % 2 == 1;
            Run run = load(destination ? WITH : WITHOUT, 0, warmup, measure);
            print(r, destination ? "with" : "without", run, false);
            if (destination) {
                with = run;
                catchUp();
            } else {
                without = run;
            }
        }
        double rate = with.pushedPerSecond() / 2;
        Run paced = load(WITH, rate, warmup, measure);
        catchUp();
        print(r, "paced", paced, true);
        Histogram h = paced.latency();
        return new Round(without.pushedPerSecond(), with.pushedPerSecond(), with.deliveredPerSecond(), rate,
                paced.pushedPerSecond(), h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                h.getMaxValue() / 1000.0, h.getTotalCount(), drains.get() - drainsBefore);
    }

    private static void print(int r, String cell, Run run, boolean latency) {
        System.out.printf(Locale.ROOT, "%5d %-8s %10.0f %12s %10.2f %10s %10s%n", r + 1, cell, run.pushedPerSecond(),
                cell.equals("without") ? "" : String.format(Locale.ROOT, "%.0f", run.deliveredPerSecond()), run.pushP50Ms(),
                latency ? String.format(Locale.ROOT, "%.2f", run.latency().getValueAtPercentile(50) / 1000.0) : "",
                latency ? String.format(Locale.ROOT, "%.2f", run.latency().getValueAtPercentile(99) / 1000.0) : "");
    }

    /**
     * The recovery phase: the receiver answers 503 for {@code down} while the producers push into
     * the destination's queue for its first 5 s (closed loop), then answers 200 again. Prints the
     * messages stored meanwhile, the attempts refused, how long after the recovery the first of them
     * and the last of them arrived, the catch-up's rate (messages ÷ the time from the first to the
     * last arrival) and the drains it took. The schedule's drain runs every {@link #SCHEDULE}, as
     * delivery_schedule does, and the destination's backoff is capped at 30 s. From the recovery on
     * the receiver takes {@code answerMs} to answer each request.
     */
    private void recovery(Duration down, int answerMs) throws InterruptedException {
        long drainsBefore = drains.get();
        long wentDown = System.nanoTime();
        receiver.down = true;
        int before = pushedIds.size();
        Duration pushFor = down.compareTo(Duration.ofSeconds(5)) < 0 ? down : Duration.ofSeconds(5);
        Run pushed = load(WITH, 0, Duration.ZERO, pushFor);
        int stored = pushedIds.size() - before;
        long wait = wentDown + down.toNanos() - System.nanoTime();
        if (wait > 0) {
            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(wait));
        }
        long up = System.nanoTime();
        receiver.answerMs = answerMs;
        receiver.up(up);
        catchUp();
        double first = (receiver.firstAfterUp - up) / 1e9;
        double last = (receiver.lastAfterUp - up) / 1e9;
        double span = Math.max(1e-3, last - first);
        System.out.printf(Locale.ROOT, "%nrecovery: the receiver answered 503 for %d s, then 200 after %d ms; %d messages stored meanwhile (%.0f pushes/s "
                        + "for %d s), %d attempts refused%n", down.toSeconds(), answerMs, stored, pushed.pushedPerSecond(), pushFor.toSeconds(),
                receiver.refused.get());
        System.out.printf(Locale.ROOT, "  after the recovery: first arrival %.1f s, last %.1f s; catch-up %.0f messages/s "
                        + "(%d messages from the first arrival to the last); %d drains from going down to caught up%n",
                first, last, stored / span, stored, drains.get() - drainsBefore);
    }

    /** Waits until every message id pushed into the destination's queue so far has arrived at the receiver. */
    private void catchUp() throws InterruptedException {
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        while (receiver.unique.size() < pushedIds.size() || !receiver.unique.keySet().containsAll(pushedIds)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the destination did not catch up within " + CATCH_UP + ": "
                        + receiver.unique.size() + " of " + pushedIds.size() + " delivered; first error " + firstError.get());
            }
            Thread.sleep(20);
        }
    }

    /**
     * {@value #PRODUCERS} producers, each a thread invoking the function with one push at a time:
     * closed loop (rate 0), or producer c sending its k-th push at start + offset + k × PRODUCERS ÷ rate.
     */
    private Run load(String queue, double rate, Duration warmup, Duration measure) throws InterruptedException {
        long start = System.nanoTime();
        long t0 = start + warmup.toNanos();
        long t1 = t0 + measure.toNanos();
        if (queue.equals(WITH)) {
            receiver.window(t0, t1);
        }
        ConcurrentHistogram push = new ConcurrentHistogram(3_600_000_000L, 3);
        AtomicLong measured = new AtomicLong();
        long interval = rate > 0 ? (long) (PRODUCERS * 1e9 / rate) : 0;
        String runTag = tag + "r" + (runs++);
        List<Thread> producers = new ArrayList<>();
        for (int c = 0; c < PRODUCERS; c++) {
            int producer = c;
            Thread thread = new Thread(() -> {
                String partition = "p" + producer;
                long offset = interval * producer / PRODUCERS;
                for (long k = 0; ; k++) {
                    if (interval > 0) {
                        long due = start + offset + k * interval;
                        long wait = due - System.nanoTime();
                        if (wait > 0) {
                            LockSupport.parkNanos(wait);
                        }
                    }
                    long begin = System.nanoTime();
                    if (begin >= t1) {
                        return;
                    }
                    String body = "{\"items\":[{\"queue\":\"" + queue + "\",\"partition\":\"" + partition
                            + "\",\"transactionId\":\"" + runTag + "c" + producer + "-" + k + "\",\"payload\":{\"t\":" + begin
                            + ",\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}]}";
                    try {
                        RuntimeApiServer.Outcome o = functions.invoke(ApiGatewayEvents.request("POST", "/api/v1/push")
                                .header("authorization", "Bearer " + Api.TEST_API_KEY).json(body).build(), Duration.ofSeconds(180));
                        if (o.response() == null) {
                            throw new IllegalStateException("the invocation failed: " + o.error());
                        }
                        JsonNode r = JSON.readTree(o.response());
                        JsonNode answer = JSON.readTree(r.path("body").asText());
                        if (r.path("statusCode").asInt() != 200 || !"queued".equals(answer.at("/results/0/status").asText())) {
                            throw new IllegalStateException("answered " + r.path("statusCode").asInt() + ": " + answer);
                        }
                        long end = System.nanoTime();
                        if (queue.equals(WITH)) {
                            pushedIds.add(answer.at("/results/0/messageId").asText());
                        }
                        if (end >= t0 && end < t1) {
                            measured.incrementAndGet();
                            push.recordValue(Math.max(1, (end - begin) / 1000));
                        }
                    } catch (Exception e) {
                        errors.incrementAndGet();
                        firstError.compareAndSet(null, String.valueOf(e));
                    }
                }
            }, "producer-" + c);
            thread.start();
            producers.add(thread);
        }
        for (Thread t : producers) {
            t.join();
        }
        double seconds = measure.toNanos() / 1e9;
        return new Run(measured.get() / seconds, queue.equals(WITH) ? receiver.inWindow.get() / seconds : Double.NaN,
                push.getValueAtPercentile(50) / 1000.0, receiver.latency);
    }

    private static void report(List<Round> rounds, int instances) {
        System.out.printf("%n%5s %12s %10s %12s %14s %12s %9s %9s %9s %8s %7s%n", "round", "without /s", "with /s",
                "delivered/s", "paced /s", "paced got /s", "p50 ms", "p99 ms", "max ms", "timed", "drains");
        for (int i = 0; i < rounds.size(); i++) {
            Round r = rounds.get(i);
            System.out.printf(Locale.ROOT, "%5d %12.0f %10.0f %12.0f %14.0f %12.0f %9.2f %9.2f %9.2f %8d %7d%n", i + 1,
                    r.pushedWithout(), r.pushedWith(), r.deliveredWith(), r.pacedRate(), r.pacedPushed(), r.p50Ms(), r.p99Ms(),
                    r.maxMs(), r.timed(), r.drains());
        }
        System.out.printf(Locale.ROOT, "%n%d instances; medians over %d rounds:%n", instances, rounds.size());
        System.out.printf(Locale.ROOT, "  delivered/s ÷ pushed/s          %6.2f  (target ≥ 1.0; rounds %s)%n",
                median(rounds, Round::deliveryRatio), each(rounds, Round::deliveryRatio));
        System.out.printf(Locale.ROOT, "  pushes/s with ÷ without         %6.2f  (target ≥ 0.9; rounds %s)%n",
                median(rounds, Round::pushRatio), each(rounds, Round::pushRatio));
        System.out.printf(Locale.ROOT, "  push-to-delivery p50 at half    %6.2f ms (target ≤ 20; rounds %s)%n",
                median(rounds, Round::p50Ms), each(rounds, Round::p50Ms));
        System.out.printf(Locale.ROOT, "  push-to-delivery p99 at half    %6.2f ms (target ≤ 100; rounds %s)%n",
                median(rounds, Round::p99Ms), each(rounds, Round::p99Ms));
        System.out.printf(Locale.ROOT, "  pushes/s without a destination  %6.0f  (the bound of these instances here)%n",
                median(rounds, Round::pushedWithout));
    }

    private static double median(List<Round> rounds, ToDoubleFunction<Round> f) {
        double[] v = rounds.stream().mapToDouble(f).filter(x -> !Double.isNaN(x)).sorted().toArray();
        if (v.length == 0) {
            return Double.NaN;
        }
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static String each(List<Round> rounds, ToDoubleFunction<Round> f) {
        return String.join(", ", rounds.stream().map(r -> String.format(Locale.ROOT, "%.2f", f.applyAsDouble(r))).toList());
    }

    /**
     * The function instances, and Lambda's hand-out of events: each instance is the runtime client
     * in a JVM of its own polling a {@link RuntimeApiServer} of its own, served by one thread here
     * that takes the next event of the shared queue only while its instance is idle (initialised and
     * not invoked), so an event goes to an idle instance or waits for one. An invocation that
     * outlasts the function's timeout is answered as timed out, and its instance is replaced by a
     * new one (Lambda ends the runtime then and initialises a new execution environment); a thread
     * dump of the instance is kept first in target/lambda-destinations-timeout-N.txt.
     */
    static final class Instances implements AutoCloseable {
        private record Job(byte[] event, CompletableFuture<RuntimeApiServer.Outcome> outcome) {
        }

        /** One instance: its runtime API, its process and how many invocations it answered. */
        private static final class Slot {
            final int index;
            volatile RuntimeApiServer api;
            volatile FunctionProcess process;
            final AtomicLong invocations = new AtomicLong();
            int starts;

            Slot(int index) {
                this.index = index;
            }
        }

        final AtomicLong timeouts = new AtomicLong();
        private final LinkedBlockingQueue<Job> queue = new LinkedBlockingQueue<>();
        private final List<Slot> slots = new ArrayList<>();
        private final List<Thread> workers = new ArrayList<>();
        private final Map<String, String> env;
        private final Path task;
        private volatile boolean closed;

        Instances(int n, Map<String, String> env, Path task) throws Exception {
            this.env = env;
            this.task = task;
            for (int i = 1; i <= n; i++) {
                Slot slot = new Slot(i);
                start(slot);
                slots.add(slot);
                Thread t = new Thread(() -> serve(slot), "instance-" + i);
                t.setDaemon(true);
                t.start();
                workers.add(t);
            }
        }

        private void start(Slot slot) throws Exception {
            slot.starts++;
            slot.api = new RuntimeApiServer();
            slot.api.timeoutMillis(FUNCTION_TIMEOUT_MS);
            slot.process = FunctionProcess.start("bench-destinations-" + slot.index + (slot.starts > 1 ? "-" + slot.starts : ""),
                    slot.api, env, task, null);
            // one instance at a time: the runtime client writes its JNI library to one /tmp path at start, and
            // instances starting together crashed loading it (SIGBUS), leaving fewer instances than asked for
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (slot.api.firstNextNanos() == 0) {
                if (System.nanoTime() > until || !slot.process.alive()) {
                    throw new IllegalStateException("function instance " + slot.index + " did not start: see "
                            + "target/lambda-ric-bench-destinations-" + slot.index + "*.log");
                }
                Thread.sleep(20);
            }
        }

        /** Hands an event to the next idle instance and waits for its answer, at most {@code wait}. */
        RuntimeApiServer.Outcome invoke(byte[] event, Duration wait) throws Exception {
            Job job = new Job(event, new CompletableFuture<>());
            queue.add(job);
            return job.outcome().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        }

        private void serve(Slot slot) {
            while (!closed) {
                try {
                    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
                    while (slot.api.firstNextNanos() == 0) { // initialising: not idle yet
                        if (!slot.process.alive() || System.nanoTime() > until) {
                            throw new IllegalStateException("instance " + slot.index + " did not start:\n" + slot.process.output());
                        }
                        Thread.sleep(10);
                    }
                    Job job = queue.take();
                    try {
                        RuntimeApiServer.Outcome o = slot.api.invoke(job.event(), Duration.ofMillis(FUNCTION_TIMEOUT_MS + 2_000));
                        slot.invocations.incrementAndGet();
                        job.outcome().complete(o);
                    } catch (TimeoutException e) {
                        long n = timeouts.incrementAndGet();
                        job.outcome().completeExceptionally(new TimeoutException("instance " + slot.index
                                + ": the invocation outlasted the function's timeout; the instance was replaced"));
                        dump(slot, n);
                        slot.process.close();
                        slot.api.close();
                        start(slot);
                    } catch (Exception e) {
                        job.outcome().completeExceptionally(e);
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    if (!closed) {
                        System.err.println("instance " + slot.index + ": " + e);
                    }
                    return;
                }
            }
        }

        private static void dump(Slot slot, long n) {
            Path out = Path.of("target", "lambda-destinations-timeout-" + n + ".txt");
            try {
                new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jstack").toString(),
                        Long.toString(slot.process.pid())).redirectErrorStream(true).redirectOutput(out.toFile())
                        .start().waitFor(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                System.err.println("no thread dump of instance " + slot.index + ": " + e);
            }
        }

        /** Per instance: its invocations, its starts, and the CPU time of its current process. */
        String describe() {
            StringBuilder b = new StringBuilder();
            for (Slot s : slots) {
                b.append(b.isEmpty() ? "" : "; ").append(s.index).append(": ").append(s.invocations.get()).append(" invocations, ")
                        .append(s.starts).append(s.starts == 1 ? " start, " : " starts, ")
                        .append(String.format(Locale.ROOT, "%.1f", ColdStartBench.cpuMillis(s.process.pid()) / 1000.0)).append(" s CPU")
                        .append(s.process.alive() ? "" : " (ended)");
            }
            return b.toString();
        }

        @Override
        public void close() throws Exception {
            closed = true;
            workers.forEach(Thread::interrupt);
            for (Slot s : slots) {
                s.process.close();
                s.api.close();
            }
        }
    }

    /**
     * The destination's endpoint: a JDK HTTP server on 127.0.0.1 answering 200 to each POST after
     * verifying its Standard Webhooks signature. It counts distinct webhook-ids, repeats, unverified
     * requests, the arrivals inside the measured period, and the push-to-delivery time of each
     * message whose send time (the payload's "t") lies in that period.
     */
    static final class Receiver {
        final HttpServer server;
        final Map<String, Boolean> unique = new ConcurrentHashMap<>();
        final AtomicLong repeats = new AtomicLong();
        final AtomicLong unverified = new AtomicLong();
        final AtomicLong inWindow = new AtomicLong();
        volatile long t0 = Long.MAX_VALUE;
        volatile long t1 = Long.MIN_VALUE;
        volatile ConcurrentHistogram latency = new ConcurrentHistogram(3_600_000_000L, 3);
        /** While true, every request is answered 503 and nothing counts as arrived. */
        volatile boolean down;
        /** How long each request waits before its answer (ms). */
        volatile int answerMs;
        final AtomicLong refused = new AtomicLong();
        /** From {@link #up}: System.nanoTime of the first and the last new arrival. */
        volatile long upAt = Long.MAX_VALUE;
        volatile long firstAfterUp;
        volatile long lastAfterUp;

        Receiver() {
            try {
                server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 100);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            server.setExecutor(Executors.newFixedThreadPool(16, r -> {
                Thread t = new Thread(r, "receiver");
                t.setDaemon(true);
                return t;
            }));
            Webhook verifier = new Webhook(SIGNING_SECRET);
            server.createContext("/hook", ex -> {
                try (ex) {
                    byte[] body = ex.getRequestBody().readAllBytes();
                    long now = System.nanoTime();
                    if (down) {
                        refused.incrementAndGet();
                        ex.sendResponseHeaders(503, -1);
                        return;
                    }
                    Map<String, List<String>> headers = new HashMap<>();
                    ex.getRequestHeaders().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), v));
                    String text = new String(body, StandardCharsets.UTF_8);
                    try {
                        verifier.verify(text, HttpHeaders.of(headers, (a, b) -> true));
                    } catch (Exception e) {
                        unverified.incrementAndGet();
                    }
                    String id = ex.getRequestHeaders().getFirst("webhook-id");
                    if (id != null && unique.putIfAbsent(id, Boolean.TRUE) != null) {
                        repeats.incrementAndGet();
                    } else if (now >= upAt) {
                        synchronized (this) {
                            if (firstAfterUp == 0) {
                                firstAfterUp = now;
                            }
                            lastAfterUp = Math.max(lastAfterUp, now);
                        }
                    }
                    if (now >= t0 && now < t1) {
                        inWindow.incrementAndGet();
                    }
                    long sent = PayloadClock.sentAt(text);
                    if (sent >= t0 && sent < t1) {
                        latency.recordValue(Math.max(1, (now - sent) / 1000));
                    }
                    if (answerMs > 0) {
                        try {
                            Thread.sleep(answerMs);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    ex.sendResponseHeaders(200, -1);
                }
            });
            server.start();
        }

        int port() {
            return server.getAddress().getPort();
        }

        /** Opens a measured period [t0, t1) (System.nanoTime) with a fresh latency histogram. */
        void window(long from, long to) {
            latency = new ConcurrentHistogram(3_600_000_000L, 3);
            inWindow.set(0);
            this.t0 = from;
            this.t1 = to;
        }

        /** Answers again from {@code at} (System.nanoTime) on, timing the arrivals from then. */
        synchronized void up(long at) {
            firstAfterUp = 0;
            lastAfterUp = 0;
            upAt = at;
            down = false;
        }

        void close() {
            server.stop(0);
        }
    }
}
