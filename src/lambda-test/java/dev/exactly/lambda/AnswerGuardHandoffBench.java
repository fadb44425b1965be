package dev.exactly.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What {@link AnswerGuard} itself adds to a dispatch, in-process and without Quarkus: a stand-in of
 * Quarkus' Lambda HTTP dispatch (the event handed to one "event loop" thread, which signals the
 * arrival and completes a future the caller waits on, as {@code LambdaHttpHandler.nettyDispatch}
 * waits on Vert.x) called directly, as the handler did before the guard, against the same dispatch
 * through the guard. Rounds interleaved; per round and way, the median and p99 time of a call (ns)
 * and the process' CPU time per call (µs, all threads). Run by bench/lambda-warm/run with
 * {@code --handoff}; arguments {@code [rounds (8)] [calls per round (20000)]}. It measures the
 * hand-overs only; bench/lambda-warm/run's packages measure them inside a real invocation.
 */
public final class AnswerGuardHandoffBench {

    private static final byte[] EVENT = "{\"rawPath\":\"/q/health/live\"}".getBytes(StandardCharsets.UTF_8);
    private static final byte[] OK = "{\"statusCode\":200,\"body\":\"{}\"}".getBytes(StandardCharsets.UTF_8);

    private AnswerGuardHandoffBench() {
    }

    /**
     * @param args rounds, calls per round
     * @throws Exception when a call fails
     */
    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int calls = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        ExecutorService eventLoop = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "stand-in-event-loop");
            t.setDaemon(true);
            return t;
        });
        AnswerGuard.Dispatch quarkus = (in, out, ctx) -> {
            in.readAllBytes();
            CompletableFuture<byte[]> answer = new CompletableFuture<>();
            eventLoop.execute(() -> {
                AnswerGuard.arrived(ctx.getAwsRequestId());
                answer.complete(OK);
            });
            try {
                out.write(answer.get());
            } catch (Exception e) {
                throw new java.io.IOException(e);
            }
        };
        AnswerGuard guard = new AnswerGuard(quarkus, FunctionHandler.ARRIVAL_WAIT_MILLIS, 26_000);
        System.out.printf("load average at start: %s%n", loadAverage());
        for (int w = 0; w < 2; w++) {
            time(calls, i -> quarkus.handle(new java.io.ByteArrayInputStream(EVENT), new ByteArrayOutputStream(), context(i)));
            time(calls, i -> guard.handle(EVENT, new ByteArrayOutputStream(), context(i)));
        }
        System.out.printf("%-8s %5s %10s %10s %14s%n", "way", "round", "p50 µs", "p99 µs", "CPU µs/call");
        double[][] direct = new double[rounds][];
        double[][] guarded = new double[rounds][];
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < 2; k++) {
                boolean viaGuard = (r + k) % 2 == 1;
                double[] t = viaGuard
                        ? time(calls, i -> guard.handle(EVENT, new ByteArrayOutputStream(), context(i)))
                        : time(calls, i -> quarkus.handle(new java.io.ByteArrayInputStream(EVENT), new ByteArrayOutputStream(), context(i)));
                (viaGuard ? guarded : direct)[r] = t;
                System.out.printf("%-8s %5d %10.1f %10.1f %14.1f%n", viaGuard ? "guard" : "direct", r + 1, t[0], t[1], t[2]);
            }
        }
        System.out.printf("load average at end: %s%n", loadAverage());
        String[] names = {"p50 µs", "p99 µs", "CPU µs/call"};
        for (int f = 0; f < 3; f++) {
            double d = median(direct, f);
            double g = median(guarded, f);
            System.out.printf("median %-12s direct %8.1f  guard %8.1f  guard - direct %8.1f  ratio %.2f%n", names[f], d, g, g - d, g / d);
        }
    }

    @FunctionalInterface
    private interface Call {
        void run(int i) throws Exception;
    }

    /** calls calls of c: {p50 µs, p99 µs, process CPU µs per call}. */
    private static double[] time(int calls, Call c) throws Exception {
        long[] nanos = new long[calls];
        long cpu0 = processCpuNanos();
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            c.run(i);
            nanos[i] = System.nanoTime() - t0;
        }
        long cpu = processCpuNanos() - cpu0;
        Arrays.sort(nanos);
        return new double[] {nanos[calls / 2] / 1e3, nanos[(int) (calls * 0.99)] / 1e3, cpu / 1e3 / calls};
    }

    private static Context context(int i) {
        return new AnswerGuardTest.FakeContext("handoff-" + i, 28_000);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static String loadAverage() {
        try {
            String[] f = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (java.io.IOException e) {
            return "unknown";
        }
    }

    private static double median(double[][] rounds, int field) {
        double[] v = Arrays.stream(rounds).mapToDouble(r -> r[field]).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }
}
