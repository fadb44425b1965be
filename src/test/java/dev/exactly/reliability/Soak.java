package dev.exactly.reliability;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs client traffic for a while and injects faults in turn, then lets every client finish the
 * operation it has in flight (each retries until answered) after {@code recover} has put things
 * back (the database running). The caller then audits.
 */
final class Soak {

    /**
     * One kind of traffic and how many concurrent clients run it.
     *
     * @param operation what each client does in a loop
     * @param clients   how many clients
     */
    record Traffic(SoakOperation operation, int clients) {
    }

    private Soak() {
    }

    /**
     * @param durationMs how long clients start new operations, in milliseconds
     * @param traffic    the operations and their client counts
     * @param faults     injected in turn (round robin), one every {@code faultEveryMs} (with jitter)
     * @param recover    run once the traffic stops, before waiting for the clients (e.g. start the database)
     * @param seed       random seed (printed by callers so a run can be repeated)
     * @return the run's counters
     */
    static SoakStats run(long durationMs, List<Traffic> traffic, List<Fault> faults, long faultEveryMs,
                         Fault.Action recover, long seed) throws Exception {
        SoakStats stats = new SoakStats();
        long end = System.currentTimeMillis() + durationMs;
        int clients = traffic.stream().mapToInt(Traffic::clients).sum();
        ExecutorService pool = Executors.newFixedThreadPool(clients + 1);
        List<Future<?>> running = new ArrayList<>();
        int c = 0;
        for (Traffic t : traffic) {
            for (int i = 0; i < t.clients(); i++) {
                Random rnd = new Random(seed * 31 + c++);
                running.add(pool.submit(() -> {
                    while (System.currentTimeMillis() < end) {
                        try {
                            t.operation().run(rnd, stats);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return null;
                        } catch (Exception | AssertionError e) {
                            stats.error(t.operation().name() + ": " + e);
                        }
                    }
                    return null;
                }));
            }
        }
        Future<?> injector = pool.submit(() -> {
            Random rnd = new Random(seed);
            int next = 0;
            while (!faults.isEmpty()) {
                Thread.sleep(faultEveryMs / 2 + (long) (rnd.nextDouble() * faultEveryMs));
                if (System.currentTimeMillis() > end - faultEveryMs / 2) {
                    return null;
                }
                Fault f = faults.get(next++ % faults.size());
                f.action().inject();
                stats.fault(f.name());
            }
            return null;
        });
        injector.get(durationMs + 300_000, TimeUnit.MILLISECONDS);
        recover.inject();
        for (Future<?> f : running) {
            f.get(300, TimeUnit.SECONDS);
        }
        pool.shutdown();
        return stats;
    }
}
