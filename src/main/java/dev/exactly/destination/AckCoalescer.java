package dev.exactly.destination;

import dev.exactly.db.RequestDeadline;
import io.smallrye.mutiny.Uni;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Fuses the submissions of several threads into one statement, at most one statement in flight:
 * a submission made while none is in flight starts a statement of its own at once (no timer, no
 * added delay); those made while one is in flight wait, and all of them go together into the next
 * statement, started as soon as the one in flight ends. Each submission completes with its own
 * result (the statement answers one result per submission, in the order given), or fails with the
 * statement's failure: a failed statement fails every submission in it, and the next statement
 * starts all the same.
 *
 * <p>The dispatcher keeps one per destination for its workers' completed acks
 * ({@link DestinationRepository#ackCompletedAll}). A statement is started on the thread that
 * submitted, or on the thread that completed the statement before it (an event loop), with no
 * request's deadline ({@link RequestDeadline#NONE}): it is no request's work. A statement that
 * answers nothing within {@code maxWait} fails its submissions with a timeout, so that the next
 * one is not held back for ever.
 *
 * @param <S> a submission
 * @param <R> its result
 */
public final class AckCoalescer<S, R> {

    private final Function<List<S>, Uni<List<R>>> statement;
    private final Duration maxWait;
    private final Object lock = new Object();
    /** Submissions waiting for the next statement, in the order they came. */
    private List<Pending<S, R>> waiting = new ArrayList<>();
    private boolean inFlight;

    private record Pending<S, R>(S submission, CompletableFuture<R> result) {
    }

    /**
     * @param statement runs one statement for the submissions given (never empty) and answers one
     *                  result per submission, in their order
     * @param maxWait   longest a statement may take to answer before its submissions fail
     */
    public AckCoalescer(Function<List<S>, Uni<List<R>>> statement, Duration maxWait) {
        this.statement = statement;
        this.maxWait = maxWait;
    }

    /**
     * Submits one item: it goes into a statement at once when none is in flight, else into the
     * next one.
     *
     * @param submission the item
     * @return completes with the item's result, or fails with its statement's failure
     */
    public CompletableFuture<R> submit(S submission) {
        Pending<S, R> p = new Pending<>(submission, new CompletableFuture<>());
        List<Pending<S, R>> batch = null;
        synchronized (lock) {
            waiting.add(p);
            if (!inFlight) {
                inFlight = true;
                batch = waiting;
                waiting = new ArrayList<>();
            }
        }
        if (batch != null) {
            launch(batch);
        }
        return p.result();
    }

    /** Runs one statement for a batch; once it ended, starts the next one (if any waits) and completes the batch. */
    private void launch(List<Pending<S, R>> batch) {
        List<S> items = new ArrayList<>(batch.size());
        for (Pending<S, R> p : batch) {
            items.add(p.submission());
        }
        Uni<List<R>> run;
        try {
            run = RequestDeadline.within(RequestDeadline.NONE, () -> statement.apply(items))
                    .ifNoItem().after(maxWait).fail();
        } catch (RuntimeException e) {
            ended(batch, null, e);
            return;
        }
        RequestDeadline.within(RequestDeadline.NONE, () -> run.subscribe().with(
                results -> ended(batch, results, null),
                failure -> ended(batch, null, failure)));
    }

    /** A statement ended: the next one starts (or none is in flight any more), then its submissions complete. */
    private void ended(List<Pending<S, R>> batch, List<R> results, Throwable failure) {
        List<Pending<S, R>> next = null;
        synchronized (lock) {
            if (waiting.isEmpty()) {
                inFlight = false;
            } else {
                next = waiting;
                waiting = new ArrayList<>();
            }
        }
        if (next != null) {
            launch(next);
        }
        if (failure == null && (results == null || results.size() != batch.size())) {
            failure = new IllegalStateException("the statement answered " + (results == null ? "nothing" : results.size() + " results")
                    + " for " + batch.size() + " submissions");
        }
        for (int i = 0; i < batch.size(); i++) {
            if (failure != null) {
                batch.get(i).result().completeExceptionally(failure);
            } else {
                batch.get(i).result().complete(results.get(i));
            }
        }
    }
}
