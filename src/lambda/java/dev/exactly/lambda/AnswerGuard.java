package dev.exactly.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.exactly.problem.Problem;
import dev.exactly.problem.ProblemMappers;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;

/**
 * Makes sure an API Gateway invocation is answered before its deadline even when Quarkus' Lambda
 * HTTP layer never answers it.
 *
 * <p>Quarkus' {@code LambdaHttpHandler.nettyDispatch} (quarkus-amazon-lambda-http) hands the
 * request to Vert.x over an in-JVM virtual channel and then waits on the answer with
 * {@code CompletableFuture.get()}, without a timeout. The hand-over can lose the request: the
 * invoking thread queues it and reads the channel's {@code readInProgress} flag
 * ({@code VirtualClientConnection.sendMessage}, quarkus-netty), while the event loop, in
 * {@code VirtualChannel.doBeginRead}, found the queue empty a moment earlier and sets that flag a
 * moment later; neither then reads the queue, the request never reaches Vert.x, no filter of the
 * application runs (so neither does the request deadline), and the invocation waits until Lambda's
 * timeout. Seen twice in about 32,000 pushes of the Lambda-shape benchmark, and once more (the
 * request never arrived) in about 26,000; a standalone loop over the same two classes, with a random
 * delay of up to 100 µs before the hand-over, loses a few requests in 100,000.
 *
 * <p>So the dispatch, on the invocation's own thread, is watched by a thread shared by all
 * invocations: when the dispatch has not returned {@code arrivalWaitMillis} after its start, the
 * watcher looks whether the request reached the application ({@link #arrived}, called by
 * {@link InvocationLogContext}, the first route), and gives the dispatch up if it did not; otherwise
 * it gives it up at the answer deadline ({@code answerWithinMillis} after the start, and no later
 * than {@link #FUNCTION_MARGIN_MILLIS} before the function's timeout). Giving up interrupts the
 * invocation's thread: Quarkus' wait ends, it closes the virtual connection, which releases what it
 * held, and answers a 500, which is dropped (the dispatch writes into a buffer, copied out only when
 * it returned on its own). A request that never reached the first route is dispatched again, once,
 * when the answer deadline leaves room for another arrival wait: nothing of the application ran for
 * it (a request that reached it late, on an event loop stalled past the arrival wait, would have run
 * twice, as a client's own retry does). Otherwise the invocation answers 503 {@link #NO_ANSWER} with
 * {@code Retry-After}. A request that did reach the application is answered by the request
 * deadline's own filter before the answer deadline, so the second bound is a backstop only. The
 * arrival signal is keyed by the AWS request id, the same for both dispatches of an event: a first
 * one arriving late counts for the second, which then waits for an answer until the answer deadline.
 *
 * <p>The dispatch runs on the invocation's thread, not handed to another, because a warm invocation
 * paid for that hand-over and its way back (bench/lambda-warm/run); the watcher is woken once per
 * invocation, off the invocation's path. A dispatch that does not return when interrupted (Quarkus'
 * does) would keep the invocation until the function's timeout.
 */
final class AnswerGuard {

    /** What an invocation does when nothing went wrong: Quarkus' stream handler. */
    @FunctionalInterface
    interface Dispatch {
        /**
         * Handles one event.
         *
         * @param input   the event JSON
         * @param output  where the response JSON goes
         * @param context the invocation's context (may be null)
         * @throws IOException when the event cannot be read or the response written
         */
        void handle(InputStream input, OutputStream output, Context context) throws IOException;
    }

    /** The answer to an invocation the HTTP layer left without an answer. */
    static final Problem NO_ANSWER = new Problem("/problems/no-answer", "No answer", 503,
            "The function's HTTP layer did not answer this request in time; whether it reached the application and "
                    + "took effect is unknown. Retrying the same request is safe: its answer is exact either way.", null);

    /** Kept free of the function's timeout (context's remaining time) for writing the 503, in milliseconds. */
    static final long FUNCTION_MARGIN_MILLIS = 1_000;
    /** Dispatches of one event at most: a second one only for a request that never reached the application. */
    static final int MAX_ATTEMPTS = 2;

    private static final Logger LOG = Logger.getLogger(AnswerGuard.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Watches the dispatches: one daemon thread, started with the first invocation. */
    private static final ScheduledThreadPoolExecutor WATCHER = watcher();

    /** The invocation being dispatched: at most one at a time in a Lambda execution environment. */
    private static volatile Invocation current;

    private final Dispatch dispatch;
    private final long arrivalWaitMillis;
    private final long answerWithinMillis;

    /**
     * @param dispatch           what handles the event (Quarkus' stream handler)
     * @param arrivalWaitMillis  longest wait for the request to reach the application, in milliseconds
     * @param answerWithinMillis longest wait for the answer, in milliseconds (the request deadline and a
     *                           little: the deadline's filter answers first when the request arrived)
     */
    AnswerGuard(Dispatch dispatch, long arrivalWaitMillis, long answerWithinMillis) {
        this.dispatch = dispatch;
        this.arrivalWaitMillis = arrivalWaitMillis;
        this.answerWithinMillis = answerWithinMillis;
    }

    private static ScheduledThreadPoolExecutor watcher() {
        ScheduledThreadPoolExecutor w = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "exactly-answer-guard");
            t.setDaemon(true);
            return t;
        });
        w.setRemoveOnCancelPolicy(true);
        return w;
    }

    /**
     * Records that the HTTP request of the invocation {@code awsRequestId} reached the application
     * (its first route ran). Unknown or earlier invocations are ignored.
     *
     * @param awsRequestId the invocation's AWS request id
     */
    static void arrived(String awsRequestId) {
        Invocation i = current;
        if (i != null && awsRequestId != null && awsRequestId.equals(i.requestId)) {
            i.arrived = true;
        }
    }

    /**
     * Dispatches one API Gateway event on the calling thread and writes its answer, or the 503
     * {@link #NO_ANSWER} when none came in time (see the class comment).
     *
     * @param event   the event JSON
     * @param output  where the response JSON goes
     * @param context the invocation's context (may be null: then no arrival check and no function timeout)
     * @throws IOException when the dispatch failed so, or the answer cannot be written
     */
    void handle(byte[] event, OutputStream output, Context context) throws IOException {
        long start = System.nanoTime();
        String requestId = context == null ? null : context.getAwsRequestId();
        long within = answerWithinMillis;
        if (context != null) {
            within = Math.max(1, Math.min(within, context.getRemainingTimeInMillis() - FUNCTION_MARGIN_MILLIS));
        }
        long deadline = start + TimeUnit.MILLISECONDS.toNanos(within);
        try {
            for (int attempt = 1; ; attempt++) {
                Invocation invocation = new Invocation(requestId, Thread.currentThread(), deadline);
                current = invocation;
                long left = Math.max(0, deadline - System.nanoTime());
                invocation.watch(requestId == null ? left : Math.min(TimeUnit.MILLISECONDS.toNanos(arrivalWaitMillis), left));
                ByteArrayOutputStream answer = new ByteArrayOutputStream(8192);
                boolean returned;
                try {
                    dispatch.handle(new ByteArrayInputStream(event), answer, context);
                    returned = invocation.returned();
                } catch (IOException | RuntimeException | Error e) {
                    if (invocation.returned()) {
                        throw e;
                    }
                    returned = false;
                }
                if (returned) {
                    answer.writeTo(output);
                    return;
                }
                boolean lost = invocation.givenUp();
                long spent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                // the request never reached the first route, so nothing of the application ran
                // for it: dispatching it again is safe, when the answer deadline leaves room
                if (lost && attempt < MAX_ATTEMPTS && within - spent > arrivalWaitMillis) {
                    LOG.warnf("The request did not reach the application within %d ms (lost in Quarkus' hand-over); dispatched again",
                            arrivalWaitMillis);
                    continue;
                }
                answerNoAnswer(output, start, lost ? "the request to reach the application" : "an answer");
                return;
            }
        } finally {
            current = null;
        }
    }

    /** Writes the 503 {@link #NO_ANSWER}, logged with what was waited for. */
    private static void answerNoAnswer(OutputStream output, long start, String missing) throws IOException {
        LOG.errorf("No answer from the HTTP layer after %d ms: waited for %s; answered 503 %s",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), missing, NO_ANSWER.type());
        output.write(noAnswer());
    }

    /** @return the API Gateway (payload 2.0) response JSON of the 503 {@link #NO_ANSWER} */
    static byte[] noAnswer() {
        try {
            ObjectNode r = JSON.createObjectNode();
            r.put("statusCode", NO_ANSWER.status());
            ObjectNode headers = r.putObject("headers");
            headers.put("Content-Type", Problem.MEDIA_TYPE);
            headers.put("Retry-After", Integer.toString(ProblemMappers.RETRY_AFTER_SECONDS));
            r.put("body", JSON.writeValueAsString(NO_ANSWER));
            r.put("isBase64Encoded", false);
            return JSON.writeValueAsBytes(r);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * One dispatch, watched: its request id, whether its request reached the application, and its
     * state, which either the dispatching thread (returned) or the watcher (given up) sets first.
     */
    private static final class Invocation implements Runnable {
        private static final int RUNNING = 0;
        private static final int RETURNED = 1;
        private static final int GIVEN_UP_LOST = 2;
        private static final int GIVEN_UP_LATE = 3;

        final String requestId;
        private final Thread thread;
        private final long deadlineNanos;
        private final AtomicInteger state = new AtomicInteger(RUNNING);
        volatile boolean arrived;
        /** Set by the watcher once it has interrupted the thread of a dispatch it gave up. */
        private volatile boolean interrupted;
        /** Whether the watcher has looked at the arrival already (it then waits for the deadline only). */
        private boolean arrivalLookedAt;
        private volatile ScheduledFuture<?> watch;

        Invocation(String requestId, Thread thread, long deadlineNanos) {
            this.requestId = requestId;
            this.thread = thread;
            this.deadlineNanos = deadlineNanos;
        }

        /** Has the watcher look at this dispatch in {@code nanos}. */
        void watch(long nanos) {
            watch = WATCHER.schedule(this, nanos, TimeUnit.NANOSECONDS);
        }

        /** The watcher's look: gives up a request that has not arrived, else waits for the deadline. */
        @Override
        public void run() {
            if (state.get() != RUNNING) {
                return;
            }
            if (!arrivalLookedAt && requestId != null && !arrived) {
                giveUp(GIVEN_UP_LOST);
                return;
            }
            arrivalLookedAt = true;
            long left = deadlineNanos - System.nanoTime();
            if (left > 0) {
                watch(left);
            } else {
                giveUp(GIVEN_UP_LATE);
            }
        }

        private void giveUp(int why) {
            if (state.compareAndSet(RUNNING, why)) {
                thread.interrupt();
                interrupted = true;
            }
        }

        /**
         * Called by the dispatching thread when the dispatch returned.
         *
         * @return true when it returned on its own, false when the watcher had given it up first
         */
        boolean returned() {
            if (state.compareAndSet(RUNNING, RETURNED)) {
                ScheduledFuture<?> w = watch;
                if (w != null) {
                    w.cancel(false);
                }
                return true;
            }
            return state.get() == RETURNED;
        }

        /**
         * Called by the dispatching thread for a dispatch the watcher gave up: waits until the
         * watcher's interrupt was delivered, then clears it, so that it reaches nothing after.
         *
         * @return true when given up because the request never reached the application
         */
        boolean givenUp() {
            while (!interrupted) {
                Thread.onSpinWait();
            }
            Thread.interrupted();
            return state.get() == GIVEN_UP_LOST;
        }
    }
}
