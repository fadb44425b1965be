package dev.exactly.destination;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The rule of the dispatcher's database waits ({@link Dispatcher#awaitThroughInterrupt}): the stop
 * interrupts the workers to cut their attempts, and a statement they await goes on through the
 * interrupt to its answer (or its deadline), the interrupt flag set again afterwards. With
 * {@code await().atMost}, the wait it replaced, each case below ends at the interrupt instead.
 */
class DispatcherWaitTest {

    @AfterEach
    void clearFlag() {
        Thread.interrupted();
    }

    @Test
    void aWaitInterruptedMidwayGoesOnToTheAnswerAndKeepsTheInterrupt() {
        CompletableFuture<String> answer = new CompletableFuture<>();
        Thread me = Thread.currentThread();
        new Thread(() -> {
            sleep(100);
            me.interrupt(); // the stop, while the statement is under way
            sleep(200);
            answer.complete("acked");
        }).start();
        long start = System.nanoTime();
        assertEquals("acked", Dispatcher.awaitThroughInterrupt(Uni.createFrom().completionStage(answer), Duration.ofSeconds(30)));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(250), "waited past the interrupt");
        assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept for the attempt it is meant to cut");
    }

    @Test
    void aThreadInterruptedBeforehandStillGetsTheAnswer() {
        CompletableFuture<Integer> answer = new CompletableFuture<>();
        new Thread(() -> {
            sleep(150);
            answer.complete(7);
        }).start();
        Thread.currentThread().interrupt();
        assertEquals(7, Dispatcher.awaitThroughInterrupt(Uni.createFrom().completionStage(answer), Duration.ofSeconds(30)));
        assertTrue(Thread.currentThread().isInterrupted());
    }

    @Test
    void anInterruptedWaitStillEndsAtItsDeadline() {
        Thread.currentThread().interrupt();
        long start = System.nanoTime();
        assertThrows(io.smallrye.mutiny.TimeoutException.class,
                () -> Dispatcher.awaitThroughInterrupt(Uni.createFrom().nothing(), Duration.ofMillis(300)));
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waited >= 250 && waited < 5_000, "ended at its deadline: " + waited + " ms");
        assertTrue(Thread.currentThread().isInterrupted());
    }

    @Test
    void aFailureIsThrownAsItIs() {
        IllegalStateException failure = new IllegalStateException("the database is away");
        assertSame(failure, assertThrows(IllegalStateException.class,
                () -> Dispatcher.awaitThroughInterrupt(Uni.createFrom().failure(failure), Duration.ofSeconds(1))));
        assertFalse(Thread.currentThread().isInterrupted(), "no interrupt made up");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
