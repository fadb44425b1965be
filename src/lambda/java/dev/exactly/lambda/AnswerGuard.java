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
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

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
 * <p>So the dispatch runs on a thread of its own (one of a pool, reused from one invocation to the
 * next), and the invocation's thread waits for its answer: when none came within
 * {@code arrivalWaitMillis}, it looks whether the request reached the application ({@link #arrived},
 * called by {@link InvocationLogContext}, the first route), and gives the dispatch up if it did not;
 * otherwise it waits at most until the answer deadline
 * ({@code answerWithinMillis} after the start, and no later than {@link #FUNCTION_MARGIN_MILLIS}
 * before the function's timeout) for the answer. A dispatch given up is interrupted (Quarkus then
 * closes the virtual connection, which releases what it held, and answers a 500 nobody reads). A
 * request that never reached the first route is dispatched again, once, when the answer deadline
 * leaves room for another arrival wait: nothing of the application ran for it (a request that
 * reached it late, on an event loop stalled past the arrival wait, would have run twice, as a
 * client's own retry does). Otherwise the invocation answers 503 {@link #NO_ANSWER} with
 * {@code Retry-After}. A request that did reach the application is answered by the request
 * deadline's own filter before the answer deadline, so the second bound is a backstop only. The
 * arrival signal is keyed by the AWS request id, the same for both dispatches of an event: a first
 * one arriving late counts for the second, which then waits for an answer until the answer deadline.
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
    /** Longest wait for a dispatch thread that was interrupted to return, in milliseconds. */
    private static final long INTERRUPT_WAIT_MILLIS = 1_000;

    private static final Logger LOG = Logger.getLogger(AnswerGuard.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** The invocation being dispatched: at most one at a time in a Lambda execution environment. */
    private static volatile Invocation current;

    private final Dispatch dispatch;
    private final long arrivalWaitMillis;
    private final long answerWithinMillis;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "exactly-invocation-" + THREADS.incrementAndGet());
        t.setDaemon(true);
        return t;
    });

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
     * Dispatches one API Gateway event and writes its answer, or the 503 {@link #NO_ANSWER} when
     * none came in time (see the class comment).
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
        Map<String, Object> logContext = MDC.getMap();
        Map<String, Object> mdc = logContext == null ? Map.of() : new HashMap<>(logContext);
        try {
            for (int attempt = 1; ; attempt++) {
                Invocation invocation = new Invocation(requestId);
                Future<byte[]> run = dispatch(invocation, event, context, mdc);
                try {
                    long left = within - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    // the answer first: a request that arrived is answered without this thread waking
                    // at its arrival; whether it arrived is looked at only when the arrival wait ran out
                    long first = requestId == null ? left : Math.min(arrivalWaitMillis, left);
                    try {
                        output.write(run.get(Math.max(first, 0), TimeUnit.MILLISECONDS));
                        return;
                    } catch (TimeoutException e) {
                        if (requestId != null && !invocation.arrived) {
                            abandon(run, invocation);
                            long spent = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                            // the request never reached the first route, so nothing of the application ran
                            // for it: dispatching it again is safe, when the answer deadline leaves room
                            if (attempt < MAX_ATTEMPTS && within - spent > arrivalWaitMillis) {
                                LOG.warnf("The request did not reach the application within %d ms (lost in Quarkus' hand-over); dispatched again",
                                        arrivalWaitMillis);
                                continue;
                            }
                            answerNoAnswer(output, start, "the request to reach the application");
                            return;
                        }
                    }
                    left = within - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    try {
                        output.write(run.get(Math.max(left, 0), TimeUnit.MILLISECONDS));
                        return;
                    } catch (TimeoutException e) {
                        abandon(run, invocation);
                        answerNoAnswer(output, start, "an answer");
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    run.cancel(true);
                    throw new IOException("interrupted while waiting for the answer", e);
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof IOException io) {
                        throw io;
                    }
                    if (cause instanceof RuntimeException r) {
                        throw r;
                    }
                    if (cause instanceof Error err) {
                        throw err;
                    }
                    throw new IOException(cause);
                }
            }
        } finally {
            current = null;
        }
    }

    /** Starts one dispatch of the event on a thread of its own, as the current invocation. */
    private Future<byte[]> dispatch(Invocation invocation, byte[] event, Context context, Map<String, Object> mdc) {
        current = invocation;
        return threads.submit(() -> {
            mdc.forEach(MDC::put);
            try {
                ByteArrayOutputStream answer = new ByteArrayOutputStream(8192);
                dispatch.handle(new ByteArrayInputStream(event), answer, context);
                return answer.toByteArray();
            } finally {
                invocation.arrived = true;
                invocation.finished.countDown();
                MDC.clear();
            }
        });
    }

    /** Writes the 503 {@link #NO_ANSWER}, logged with what was waited for. */
    private static void answerNoAnswer(OutputStream output, long start, String missing) throws IOException {
        LOG.errorf("No answer from the HTTP layer after %d ms: waited for %s; answered 503 %s",
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), missing, NO_ANSWER.type());
        output.write(noAnswer());
    }

    /** Interrupts the dispatch (Quarkus' wait ends, its virtual connection closes) and waits a moment for it. */
    private static void abandon(Future<byte[]> run, Invocation invocation) throws InterruptedException {
        run.cancel(true);
        if (!invocation.finished.await(INTERRUPT_WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
            LOG.warn("The abandoned dispatch did not return when interrupted; its thread stays blocked");
        }
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

    /** One dispatched invocation: its request id, whether its request reached the application, whether its dispatch returned. */
    private static final class Invocation {
        final String requestId;
        volatile boolean arrived;
        final CountDownLatch finished = new CountDownLatch(1);

        Invocation(String requestId) {
            this.requestId = requestId;
        }
    }
}
