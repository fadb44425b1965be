package dev.exactly.lambda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link AnswerGuard}: an invocation whose HTTP dispatch never answers is answered 503 problem+json
 * in time. The hung dispatch here does what Quarkus' {@code LambdaHttpHandler.nettyDispatch} does
 * when the virtual channel lost the request: waits on a future nobody completes, without a timeout,
 * and answers a 500 once interrupted. Called directly, as FunctionHandler did before the guard, such
 * a dispatch never returns.
 */
@Tag("lambda")
class AnswerGuardTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] EVENT = "{\"rawPath\":\"/api/v1/push\"}".getBytes(StandardCharsets.UTF_8);
    private static final byte[] OK = "{\"statusCode\":200,\"body\":\"{}\"}".getBytes(StandardCharsets.UTF_8);

    /** Stands for Quarkus' dispatch when the request is lost: blocks until interrupted, then answers 500. */
    static final class HungDispatch implements AnswerGuard.Dispatch {
        final boolean arrives;
        final CountDownLatch interrupted = new CountDownLatch(1);
        final AtomicInteger calls = new AtomicInteger();

        HungDispatch(boolean arrives) {
            this.arrives = arrives;
        }

        @Override
        public void handle(java.io.InputStream input, OutputStream output, Context context) throws IOException {
            calls.incrementAndGet();
            if (arrives) {
                AnswerGuard.arrived(context.getAwsRequestId());
            }
            try {
                new CompletableFuture<Void>().get();
            } catch (InterruptedException e) {
                interrupted.countDown();
                output.write("{\"statusCode\":500}".getBytes(StandardCharsets.UTF_8));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Runs one invocation through {@code guard}, asserts it was answered 503 no-answer, and returns how long it took in ms. */
    private static long timedNoAnswer(AnswerGuard guard, FakeContext context) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long start = System.nanoTime();
        guard.handle(EVENT, out, context);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertNoAnswer(out.toByteArray());
        return tookMs;
    }

    @Test
    void aRequestThatNeverReachesTheApplicationIsDispatchedOnceMoreThenAnswered503() throws Exception {
        HungDispatch hung = new HungDispatch(false);
        AnswerGuard guard = new AnswerGuard(hung, 300, 20_000);
        long tookMs = timedNoAnswer(guard, new FakeContext("req-1", 28_000));

        assertEquals(AnswerGuard.MAX_ATTEMPTS, hung.calls.get(), "dispatched again once");
        assertTrue(tookMs >= 600 && tookMs < 5_000, "answered after two arrival waits, took " + tookMs + " ms");
        assertTrue(hung.interrupted.await(5, TimeUnit.SECONDS), "the abandoned dispatch was interrupted");
    }

    @Test
    void aRequestLostOnceIsAnsweredByItsSecondDispatch() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        HungDispatch lost = new HungDispatch(false);
        AnswerGuard guard = new AnswerGuard((in, out, ctx) -> {
            if (calls.incrementAndGet() == 1) {
                lost.handle(in, out, ctx);
                return;
            }
            AnswerGuard.arrived(ctx.getAwsRequestId());
            out.write(OK);
        }, 300, 20_000);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        guard.handle(EVENT, out, new FakeContext("req-8", 28_000));

        assertEquals(new String(OK, StandardCharsets.UTF_8), out.toString(StandardCharsets.UTF_8));
        assertEquals(2, calls.get());
        assertTrue(lost.interrupted.await(5, TimeUnit.SECONDS), "the first dispatch was interrupted");
    }

    @Test
    void noSecondDispatchWithoutRoomForItsArrivalWait() throws Exception {
        HungDispatch hung = new HungDispatch(false);
        AnswerGuard guard = new AnswerGuard(hung, 300, 500);
        long tookMs = timedNoAnswer(guard, new FakeContext("req-9", 28_000));

        assertEquals(1, hung.calls.get());
        assertTrue(tookMs >= 300 && tookMs < 3_000, "took " + tookMs + " ms");
    }

    @Test
    void aRequestThatArrivedButIsNeverAnsweredIsAnswered503AtTheAnswerBound() throws Exception {
        HungDispatch hung = new HungDispatch(true);
        AnswerGuard guard = new AnswerGuard(hung, 100, 1_000);
        long tookMs = timedNoAnswer(guard, new FakeContext("req-2", 28_000));

        assertTrue(tookMs >= 1_000 && tookMs < 5_000, "waited for the answer bound, not the arrival wait: " + tookMs + " ms");
        assertTrue(hung.interrupted.await(5, TimeUnit.SECONDS));
    }

    @Test
    void theFunctionsTimeoutBoundsTheWait() throws Exception {
        HungDispatch hung = new HungDispatch(true);
        AnswerGuard guard = new AnswerGuard(hung, 100, 20_000);
        long tookMs = timedNoAnswer(guard, new FakeContext("req-3", AnswerGuard.FUNCTION_MARGIN_MILLIS + 500));

        assertTrue(tookMs >= 500 && tookMs < 3_000, "answered 1 s before the function's timeout: " + tookMs + " ms");
    }

    @Test
    void anAnswerPassesThroughUnchanged() throws Exception {
        AnswerGuard guard = new AnswerGuard((in, out, ctx) -> {
            AnswerGuard.arrived(ctx.getAwsRequestId());
            assertEquals(new String(EVENT, StandardCharsets.UTF_8), new String(in.readAllBytes(), StandardCharsets.UTF_8));
            out.write(OK);
        }, 300, 20_000);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        guard.handle(EVENT, out, new FakeContext("req-4", 28_000));
        assertEquals(new String(OK, StandardCharsets.UTF_8), out.toString(StandardCharsets.UTF_8));

        // an answer without the arrival signal (Vert.x refused the request before any route ran) is not held up
        guard = new AnswerGuard((in, o, ctx) -> o.write(OK), 5_000, 20_000);
        out.reset();
        long start = System.nanoTime();
        guard.handle(EVENT, out, new FakeContext("req-5", 28_000));
        assertEquals(new String(OK, StandardCharsets.UTF_8), out.toString(StandardCharsets.UTF_8));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 2_000);

        // no context (a local call): no arrival check
        guard = new AnswerGuard((in, o, ctx) -> o.write(OK), 1, 20_000);
        out.reset();
        guard.handle(EVENT, out, null);
        assertEquals(new String(OK, StandardCharsets.UTF_8), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void anArrivalSignalOfAnotherInvocationCountsForNothing() throws Exception {
        AnswerGuard guard = new AnswerGuard((in, out, ctx) -> {
            AnswerGuard.arrived("some-other-invocation");
            try {
                new CompletableFuture<Void>().get();
            } catch (InterruptedException e) {
                out.write("{\"statusCode\":500}".getBytes(StandardCharsets.UTF_8));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, 200, 20_000);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long start = System.nanoTime();
        guard.handle(EVENT, out, new FakeContext("req-6", 28_000));
        assertNoAnswer(out.toByteArray());
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) < 5_000);
    }

    @Test
    void theDispatchsFailureIsTheInvocationsFailure() {
        AnswerGuard guard = new AnswerGuard((in, out, ctx) -> {
            throw new IOException("response not written");
        }, 300, 20_000);
        IOException e = assertThrows(IOException.class,
                () -> guard.handle(EVENT, new ByteArrayOutputStream(), new FakeContext("req-7", 28_000)));
        assertEquals("response not written", e.getMessage());
    }

    private static void assertNoAnswer(byte[] response) throws IOException {
        JsonNode r = JSON.readTree(response);
        assertEquals(503, r.get("statusCode").asInt());
        assertEquals("application/problem+json", r.get("headers").get("Content-Type").asText());
        assertEquals("2", r.get("headers").get("Retry-After").asText());
        assertFalse(r.get("isBase64Encoded").asBoolean());
        JsonNode problem = JSON.readTree(r.get("body").asText());
        assertEquals("/problems/no-answer", problem.get("type").asText());
        assertEquals(503, problem.get("status").asInt());
        assertFalse(problem.has("errors"));
    }

    /** A Lambda context with a request id and a function deadline, counted from its making. */
    static final class FakeContext implements Context {
        private final String requestId;
        private final long deadlineNanos;

        FakeContext(String requestId, long remainingMillis) {
            this.requestId = requestId;
            this.deadlineNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(remainingMillis);
        }

        @Override public String getAwsRequestId() { return requestId; }
        @Override public String getLogGroupName() { return null; }
        @Override public String getLogStreamName() { return null; }
        @Override public String getFunctionName() { return "exactly"; }
        @Override public String getFunctionVersion() { return "1"; }
        @Override public String getInvokedFunctionArn() { return null; }
        @Override public CognitoIdentity getIdentity() { return null; }
        @Override public ClientContext getClientContext() { return null; }
        @Override public int getRemainingTimeInMillis() {
            return (int) TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        }
        @Override public int getMemoryLimitInMB() { return 1024; }
        @Override public LambdaLogger getLogger() { return null; }
    }
}
