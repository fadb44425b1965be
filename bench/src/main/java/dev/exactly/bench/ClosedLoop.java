package dev.exactly.bench;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * A closed-loop load: {@code concurrency} request chains, each sending its next request when the
 * previous one is answered, for a warm-up period (not recorded) and then a measurement period.
 * Bounded: it stops at the end of the measurement period or after {@code maxRequests}, whichever
 * comes first, and never waits longer than the periods plus one minute for answers in flight.
 */
final class ClosedLoop {

    /** Sends one request; completes with the number of items answered "duplicate", or fails. */
    interface Sender extends Function<Workload.Batch, CompletionStage<Integer>> {
    }

    /** Timing and bounds of a run. */
    record Options(int concurrency, Duration warmup, Duration measure, long maxRequests) {
    }

    private ClosedLoop() {
    }

    static LoadResult run(Workload w, Options o, Sender sender) throws InterruptedException {
        ConcurrentHistogram micros = new ConcurrentHistogram(3_600_000_000L, 3);
        AtomicLong requests = new AtomicLong();
        AtomicLong items = new AtomicLong();
        AtomicLong dups = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        AtomicLong sent = new AtomicLong();
        AtomicReference<String> firstError = new AtomicReference<>();
        long start = System.nanoTime();
        long t0 = start + o.warmup().toNanos();
        long t1 = t0 + o.measure().toNanos();
        CountDownLatch done = new CountDownLatch(o.concurrency());
        String runTag = Long.toString(System.currentTimeMillis() % 100_000_000L, 36);
        for (int c = 0; c < o.concurrency(); c++) {
            Workload.Generator gen = w.generator(runTag + "c" + c, 31L * c + 7, c);
            new Object() {
                void next() {
                    if (System.nanoTime() >= t1 || sent.incrementAndGet() > o.maxRequests()) {
                        done.countDown();
                        return;
                    }
                    Workload.Batch b = gen.next();
                    long begin = System.nanoTime();
                    CompletionStage<Integer> call;
                    try {
                        call = sender.apply(b);
                    } catch (RuntimeException e) {
                        call = java.util.concurrent.CompletableFuture.failedFuture(e);
                    }
                    call.whenComplete((d, err) -> {
                        long end = System.nanoTime();
                        boolean measured = end >= t0 && end < t1;
                        if (err != null) {
                            errors.incrementAndGet();
                            firstError.compareAndSet(null, String.valueOf(err));
                        } else {
                            gen.answered(b);
                            if (measured) {
                                requests.incrementAndGet();
                                items.addAndGet(b.size());
                                dups.addAndGet(d);
                                micros.recordValue(Math.max(1, (end - begin) / 1000));
                            }
                        }
                        next();
                    });
                }
            }.next();
        }
        long waitMs = TimeUnit.NANOSECONDS.toMillis(t1 - System.nanoTime()) + 60_000;
        if (!done.await(waitMs, TimeUnit.MILLISECONDS)) {
            firstError.compareAndSet(null, "requests still in flight after the run");
        }
        return LoadResult.of(requests.get(), items.get(), dups.get(), errors.get(), o.measure().toNanos() / 1e9,
                micros, firstError.get());
    }
}
