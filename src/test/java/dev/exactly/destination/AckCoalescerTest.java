package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rules of {@link AckCoalescer}, with statements the test answers by hand: a lone submission
 * runs at once, those made while a statement is in flight go together into the next one (never
 * two in flight), each gets its own result, a failed statement fails every submission in it and
 * the next one runs all the same, and a statement that answers nothing in time fails its own.
 */
class AckCoalescerTest {

    /** The statements started so far: their submissions, and the answer the test gives. */
    private final List<List<Integer>> started = new ArrayList<>();
    private final List<CompletableFuture<List<String>>> answers = new ArrayList<>();

    private AckCoalescer<Integer, String> coalescer(Duration maxWait) {
        return new AckCoalescer<>(items -> {
            CompletableFuture<List<String>> answer = new CompletableFuture<>();
            synchronized (started) {
                started.add(List.copyOf(items));
                answers.add(answer);
            }
            return Uni.createFrom().completionStage(answer);
        }, maxWait);
    }

    private static List<String> results(List<Integer> items) {
        return items.stream().map(i -> "r" + i).toList();
    }

    @Test
    void aLoneSubmissionRunsAtOnceAndGetsItsResult() throws Exception {
        AckCoalescer<Integer, String> c = coalescer(Duration.ofSeconds(10));
        CompletableFuture<String> one = c.submit(1);
        assertEquals(List.of(List.of(1)), started, "a statement of its own, without waiting");
        answers.get(0).complete(results(started.get(0)));
        assertEquals("r1", one.get(1, TimeUnit.SECONDS));
        CompletableFuture<String> two = c.submit(2);
        assertEquals(List.of(List.of(1), List.of(2)), started, "nothing in flight: at once again");
        answers.get(1).complete(results(started.get(1)));
        assertEquals("r2", two.get(1, TimeUnit.SECONDS));
    }

    @Test
    void submissionsMadeWhileOneIsInFlightGoTogetherIntoTheNextStatement() throws Exception {
        AckCoalescer<Integer, String> c = coalescer(Duration.ofSeconds(10));
        CompletableFuture<String> first = c.submit(1);
        CompletableFuture<String> a = c.submit(2);
        CompletableFuture<String> b = c.submit(3);
        CompletableFuture<String> d = c.submit(4);
        assertEquals(List.of(List.of(1)), started, "one statement in flight at most");
        assertFalse(a.isDone());
        answers.get(0).complete(results(started.get(0)));
        assertEquals("r1", first.get(1, TimeUnit.SECONDS));
        assertEquals(List.of(List.of(1), List.of(2, 3, 4)), started, "the waiting ones together, in their order");
        CompletableFuture<String> e = c.submit(5);
        assertEquals(2, started.size(), "the next one waits for the one in flight");
        answers.get(1).complete(List.of("x", "y", "z"));
        assertEquals("x", a.get(1, TimeUnit.SECONDS));
        assertEquals("y", b.get(1, TimeUnit.SECONDS));
        assertEquals("z", d.get(1, TimeUnit.SECONDS));
        assertEquals(List.of(5), started.get(2));
        answers.get(2).complete(results(started.get(2)));
        assertEquals("r5", e.get(1, TimeUnit.SECONDS));
    }

    @Test
    void aFailedStatementFailsEachOfItsSubmissionsAndTheNextRunsAllTheSame() throws Exception {
        AckCoalescer<Integer, String> c = coalescer(Duration.ofSeconds(10));
        CompletableFuture<String> first = c.submit(1);
        CompletableFuture<String> a = c.submit(2);
        CompletableFuture<String> b = c.submit(3);
        answers.get(0).complete(results(started.get(0)));
        first.get(1, TimeUnit.SECONDS);
        CompletableFuture<String> later = c.submit(4);
        IllegalStateException boom = new IllegalStateException("the database is away");
        answers.get(1).completeExceptionally(boom);
        assertSame(boom, assertThrows(ExecutionException.class, () -> a.get(1, TimeUnit.SECONDS)).getCause());
        assertSame(boom, assertThrows(ExecutionException.class, () -> b.get(1, TimeUnit.SECONDS)).getCause());
        assertEquals(List.of(4), started.get(2), "the next statement started once the failed one ended");
        answers.get(2).complete(results(started.get(2)));
        assertEquals("r4", later.get(1, TimeUnit.SECONDS));
    }

    @Test
    void aStatementThatThrowsOrAnswersTheWrongCountFailsItsOwnOnly() throws Exception {
        boolean[] thrown = {false};
        AckCoalescer<Integer, String> c = new AckCoalescer<>(items -> {
            if (!thrown[0]) {
                thrown[0] = true;
                throw new IllegalArgumentException("cannot be made");
            }
            return Uni.createFrom().item(items.size() == 1 ? List.of("a", "b") : List.of());
        }, Duration.ofSeconds(10));
        CompletableFuture<String> one = c.submit(1);
        assertTrue(assertThrows(ExecutionException.class, () -> one.get(1, TimeUnit.SECONDS)).getCause()
                instanceof IllegalArgumentException);
        CompletableFuture<String> two = c.submit(2);
        assertTrue(assertThrows(ExecutionException.class, () -> two.get(1, TimeUnit.SECONDS)).getCause()
                instanceof IllegalStateException, "two results for one submission");
    }

    @Test
    void aStatementThatAnswersNothingInTimeFailsItsSubmissionsAndFreesTheNext() throws Exception {
        AckCoalescer<Integer, String> c = coalescer(Duration.ofMillis(200));
        CompletableFuture<String> stuck = c.submit(1);
        CompletableFuture<String> next = c.submit(2);
        assertThrows(ExecutionException.class, () -> stuck.get(5, TimeUnit.SECONDS));
        synchronized (started) {
            assertEquals(List.of(List.of(1), List.of(2)), started);
            answers.get(1).complete(results(started.get(1)));
        }
        assertEquals("r2", next.get(5, TimeUnit.SECONDS));
    }

    @Test
    void manyThreadsEachGetTheirOwnResultAndStatementsNeverOverlap() throws Exception {
        int[] inFlight = {0};
        int[] most = {0};
        List<Integer> sizes = new ArrayList<>();
        java.util.concurrent.ExecutorService db = java.util.concurrent.Executors.newSingleThreadExecutor();
        AckCoalescer<Integer, String> c = new AckCoalescer<>(items -> {
            synchronized (sizes) {
                inFlight[0]++;
                most[0] = Math.max(most[0], inFlight[0]);
                sizes.add(items.size());
            }
            return Uni.createFrom().completionStage(CompletableFuture.supplyAsync(() -> {
                try {
                    Thread.sleep(2);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                synchronized (sizes) {
                    inFlight[0]--;
                }
                return results(items);
            }, db));
        }, Duration.ofSeconds(10));
        int threads = 8;
        int each = 50;
        List<Thread> all = new ArrayList<>();
        List<Throwable> wrong = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            int base = t * 1000;
            Thread th = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    try {
                        String r = c.submit(base + i).get(10, TimeUnit.SECONDS);
                        if (!r.equals("r" + (base + i))) {
                            wrong.add(new AssertionError(r + " for " + (base + i)));
                        }
                    } catch (Exception e) {
                        wrong.add(e);
                    }
                }
            });
            all.add(th);
            th.start();
        }
        for (Thread th : all) {
            th.join(30_000);
        }
        db.shutdown();
        assertEquals(List.of(), wrong);
        assertEquals(1, most[0], "never two statements in flight");
        assertEquals(threads * each, sizes.stream().mapToInt(Integer::intValue).sum());
        assertTrue(sizes.stream().anyMatch(n -> n > 1), "some statements fused several submissions: " + sizes);
    }
}
