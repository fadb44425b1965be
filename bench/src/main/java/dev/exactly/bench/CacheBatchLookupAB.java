package dev.exactly.bench;

import dev.exactly.engine.cache.SortedRuns;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * An A/B of the warm cache's batch lookup (SortedRuns#containsAny) in one JVM, for a host too busy
 * for two separate runs to compare: A is another build's dev.exactly.engine.cache classes, loaded
 * apart from this build's by their own class loader (a directory or jar given as the argument,
 * e.g. a checkout of main compiled with javac); B is this build's. Both hold the same random
 * hashes (fixed seed) and answer the same batches of random absent hashes, rotating through 64, in
 * alternating slices of 100 ms, so both see the host's load alike, timed in the thread's CPU time
 * (which preemption does not inflate). Prints, per resident count and batch size, each side's
 * median and lowest slice in CPU ns per call and B ÷ A.
 *
 * <p>Usage: {@code java -cp CLASSPATH dev.exactly.bench.CacheBatchLookupAB DIR_OR_JAR
 * [resident,...] [n,...] [slices]}; defaults 20000,130000,1000000, 1,100,400 and 20 slices a side.
 */
public final class CacheBatchLookupAB {

    private static volatile boolean sink;

    private CacheBatchLookupAB() {
    }

    /** One side: a SortedRuns of either build, called through method handles. */
    private record Side(Object runs, MethodHandle add, MethodHandle containsAny) {
        static Side of(Class<?> type) throws ReflectiveOperationException {
            MethodHandles.Lookup l = MethodHandles.publicLookup();
            Object runs = type.getConstructor().newInstance();
            MethodHandle add = l.findVirtual(type, "add", MethodType.methodType(void.class, long.class, long.class, long.class, long.class))
                    .asType(MethodType.methodType(void.class, Object.class, long.class, long.class, long.class, long.class));
            MethodHandle any = l.findVirtual(type, "containsAny", MethodType.methodType(boolean.class, long[].class, int.class))
                    .asType(MethodType.methodType(boolean.class, Object.class, long[].class, int.class));
            return new Side(runs, add, any);
        }
    }

    /**
     * @param args the other build's classes (directory or jar), then optional resident counts,
     *     batch sizes and slices per side, comma-separated
     * @throws Throwable when the other build's classes cannot be loaded or called
     */
    public static void main(String[] args) throws Throwable {
        URL other = Path.of(args[0]).toUri().toURL();
        int[] residents = ints(args.length > 1 ? args[1] : "20000,130000,1000000");
        int[] sizes = ints(args.length > 2 ? args[2] : "1,100,400");
        int slices = args.length > 3 ? Integer.parseInt(args[3]) : 20;
        // parent: the platform loader, so A's dev.exactly classes come from A's location only
        ClassLoader loaderA = new URLClassLoader(new URL[] {other}, ClassLoader.getPlatformClassLoader());
        Class<?> typeA = loaderA.loadClass(SortedRuns.class.getName());
        if (typeA == SortedRuns.class) {
            throw new IllegalStateException("A resolved to this build's class");
        }
        System.out.println("resident n | A median / lowest ns | B median / lowest ns | B÷A median | B÷A lowest");
        for (int resident : residents) {
            Side a = Side.of(typeA);
            Side b = Side.of(SortedRuns.class);
            SplittableRandom r = new SplittableRandom(42);
            for (int i = 0; i < resident; i++) {
                long hi = r.nextLong();
                long lo = r.nextLong();
                a.add.invokeExact(a.runs, hi, lo, (long) i, (long) i);
                b.add.invokeExact(b.runs, hi, lo, (long) i, (long) i);
            }
            for (int n : sizes) {
                long[][] batches = new long[64][2 * n];
                for (long[] batch : batches) {
                    for (int i = 0; i < batch.length; i++) {
                        batch[i] = r.nextLong();
                    }
                }
                List<Double> ta = new ArrayList<>();
                List<Double> tb = new ArrayList<>();
                for (int s = -3; s < slices; s++) { // three warm-up slices a side
                    double da = slice(a, batches, n);
                    double db = slice(b, batches, n);
                    if (s >= 0) {
                        ta.add(da);
                        tb.add(db);
                    }
                }
                double ma = median(ta);
                double mb = median(tb);
                double la = ta.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
                double lb = tb.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
                System.out.printf("%d %d | %,.0f / %,.0f | %,.0f / %,.0f | %.2f | %.2f%n", resident, n, ma, la, mb, lb, mb / ma, lb / la);
            }
        }
    }

    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    /** Calls one side for 100 ms; returns the thread's CPU ns per call (preemption not counted). */
    private static double slice(Side side, long[][] batches, int n) throws Throwable {
        long calls = 0;
        boolean any = false;
        long c0 = THREADS.getCurrentThreadCpuTime();
        long end = System.nanoTime() + 100_000_000L;
        do {
            for (int k = 0; k < 16; k++) {
                any |= (boolean) side.containsAny.invokeExact(side.runs, batches[(int) (calls++ & 63)], n);
            }
        } while (System.nanoTime() < end);
        long cpu = THREADS.getCurrentThreadCpuTime() - c0;
        sink = any;
        if (any) {
            throw new IllegalStateException("a random batch was resident");
        }
        return (double) cpu / calls;
    }

    private static double median(List<Double> xs) {
        double[] a = xs.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private static int[] ints(String csv) {
        return Arrays.stream(csv.split(",")).mapToInt(Integer::parseInt).toArray();
    }
}
