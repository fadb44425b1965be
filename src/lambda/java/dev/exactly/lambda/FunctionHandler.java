package dev.exactly.lambda;

import com.amazonaws.services.lambda.runtime.Context;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.exactly.deadline.RequestConfig;
import dev.exactly.destination.Dispatcher;
import dev.exactly.duplicate.DuplicateFlusher;
import dev.exactly.http.LogContext;
import dev.exactly.lambda.delivery.DeliverEvent;
import dev.exactly.lambda.delivery.SelfInvoke;
import dev.exactly.retention.MaintenanceReport;
import dev.exactly.retention.MaintenanceService;
import io.quarkus.amazon.lambda.runtime.QuarkusStreamHandler;
import io.quarkus.arc.Arc;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;

/**
 * The function's handler (infra/terraform names {@code dev.exactly.lambda.FunctionHandler::handleRequest}):
 * Quarkus' stream handler, with a start-up failure reported by its real cause. Quarkus wraps
 * every initialisation failure as "Quarkus manual initialization failed", and the Lambda runtime
 * sends only the outermost message to {@code /runtime/init/error}; this handler rethrows it with
 * the messages of the whole cause chain (e.g. the config key at fault, or the secret that could
 * not be read), so the init error in the Lambda console and logs names what to fix.
 *
 * <p>Each invocation carries its AWS request id in the logging context ({@link LogContext#AWS_REQUEST_ID};
 * {@link InvocationLogContext} puts it on the request's own context), and writes the duplicate
 * counts of earlier invocations ({@link DuplicateFlusher#flushIfDue}, at most once a second) while
 * it runs: a frozen instance runs no timer, so this is how its counts reach the database.
 *
 * <p>EventBridge's own scheduled event (infra/terraform/maintenance.tf gives its target no input;
 * see {@link ScheduledEvent}) runs the maintenance job directly, without an API key: only a
 * principal allowed lambda:InvokeFunction on the function can send it (the schedule rule, by its
 * resource policy), and API Gateway turns every HTTP request into an event that never looks like
 * it. So no key travels in the rule's target, where events:ListTargetsByRule would show it.
 *
 * <p>The event {@code {"exactly":"deliver","queue"?}} ({@link DeliverEvent}) runs a delivery drain
 * ({@link Dispatcher#drain}) until shortly before the invocation's deadline, without an API key for
 * the same reason: the function sends it to itself after a store, and a schedule sends it every
 * minute (infra/terraform/delivery.tf).
 *
 * <p>Deliberately not a {@code RequestStreamHandler} implementation: the Lambda runtime loads a
 * handler by method name and signature (InputStream, OutputStream, Context), and Quarkus' Lambda
 * extension accepts no second implementation next to its own.
 */
public final class FunctionHandler {

    /** Longest wait, at the end of an invocation, for the duplicate counts it started writing. */
    static final long FLUSH_WAIT_MILLIS = 2000;

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Kept free of the invocation's deadline, so a slow run ends as an error, not a timeout. */
    private static final long DEADLINE_MARGIN_MILLIS = 1_000;
    /**
     * Longest wait for an API Gateway request to reach the application ({@link AnswerGuard}): it
     * takes well under a millisecond, and never came in the two hangs seen.
     */
    static final long ARRIVAL_WAIT_MILLIS = 5_000;
    /** Added to the request deadline for the longest wait for an answer ({@link AnswerGuard}). */
    static final long ANSWER_GRACE_MILLIS = 1_000;
    /** Kept free of a drain's deadline for its last acks and figures. */
    private static final long DRAIN_MARGIN_MILLIS = 3_000;

    private final QuarkusStreamHandler quarkus;
    private volatile DuplicateFlusher duplicates;
    private volatile Dispatcher dispatcher;
    private volatile AnswerGuard guard;

    /**
     * Starts the application (Quarkus' initialisation, before any invocation and before a
     * SnapStart snapshot).
     *
     * @throws IllegalStateException when it cannot start, with the messages of every cause
     */
    public FunctionHandler() {
        try {
            quarkus = new QuarkusStreamHandler();
        } catch (RuntimeException | Error e) {
            throw new IllegalStateException(describe(e), e);
        }
    }

    /**
     * One invocation: an API Gateway HTTP API (payload format 2.0) event in, its response out; or
     * EventBridge's scheduled event in, the maintenance run's {@link MaintenanceReport} JSON out
     * (what POST /api/v1/admin/maintenance answers). An HTTP event whose request Quarkus' HTTP layer
     * loses is dispatched again once, and one left without an answer is answered 503
     * {@link AnswerGuard#NO_ANSWER} before the function's timeout ({@link AnswerGuard}). The duplicate counts of earlier invocations are written alongside, when due (one statement
     * on its own pooled connection, unlogged, so it does not wait for a WAL flush); the invocation
     * waits at most {@link #FLUSH_WAIT_MILLIS} for it at the end, and a write still running then,
     * or failed, keeps its counts for a later one.
     *
     * @param input   the event JSON
     * @param output  where the response JSON goes
     * @param context the invocation's context
     * @throws IOException           when the event cannot be read or the response written
     * @throws IllegalStateException when a scheduled maintenance run fails (the database is
     *                               away, or the run outlasts the invocation's deadline): the
     *                               runtime reports it as the invocation's error
     */
    public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
        String requestId = context == null ? null : context.getAwsRequestId();
        if (requestId != null) {
            MDC.put(LogContext.AWS_REQUEST_ID, requestId);
        }
        CompletableFuture<Integer> flush = duplicates().flushIfDue().subscribeAsCompletionStage();
        try {
            byte[] event = input.readAllBytes();
            SelfInvoke.invokedAs(context == null ? null : context.getInvokedFunctionArn());
            DeliverEvent.Drain drain;
            if (ScheduledEvent.matches(event)) {
                JSON.writeValue(output, maintenance(context));
            } else if ((drain = DeliverEvent.parse(event)) != null) {
                JSON.writeValue(output, deliver(drain.queue(), context));
            } else {
                dispatcher().startConfigured();
                guard().handle(event, output, context);
            }
        } finally {
            try {
                flush.get(FLUSH_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // flushIfDue never fails; a write still running finishes (or fails and keeps its counts) later
            }
            MDC.remove(LogContext.AWS_REQUEST_ID);
        }
    }

    /** Runs the maintenance job once, waiting at most until shortly before the invocation's deadline. */
    private static MaintenanceReport maintenance(Context context) {
        long budget = context == null ? 30_000 : context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MILLIS;
        try {
            MaintenanceReport r = Arc.container().instance(MaintenanceService.class).get().run()
                    .await().atMost(Duration.ofMillis(Math.max(budget, 1)));
            // looked up here, not in a static field: a logger made when the runtime loads this class,
            // before Quarkus has installed its log manager, would bind JBoss Logging to plain JDK
            // logging and every line would lose the JSON format
            Logger.getLogger(FunctionHandler.class).infof("scheduled maintenance (EventBridge): %d partitions, %d steps, purged %d messages, %d hashes, %d tasks%s",
                    r.partitions(), r.steps(), r.purgedMessages(), r.purgedHashes(), r.purgedTasks(), r.more() ? ", more to do" : "");
            return r;
        } catch (RuntimeException e) {
            throw new IllegalStateException("scheduled maintenance run failed: " + describe(e), e);
        }
    }

    /**
     * Delivers to destinations (of {@code queue}, or of every queue) until nothing is due or
     * shortly before the invocation's deadline; a drain that reports more (stopped by its deadline,
     * or before it, with work left, or with a parked retry due within the next drain's reach) asks
     * for the next one at once.
     */
    private static Dispatcher.DrainReport deliver(String queue, Context context) {
        long budget = context == null ? 30_000 : context.getRemainingTimeInMillis() - DRAIN_MARGIN_MILLIS;
        try {
            Dispatcher.DrainReport r = Arc.container().instance(Dispatcher.class).get()
                    .drain(queue, System.currentTimeMillis() + Math.max(budget, 1));
            if (r.more()) {
                Arc.container().instance(SelfInvoke.class).get().requestDrain(queue);
            }
            Logger.getLogger(FunctionHandler.class).debugf("delivery drain of %s: %d batches%s",
                    queue == null ? "every queue" : "queue " + queue, r.batches(), r.more() ? ", more to do: asked for another" : "");
            return r;
        } catch (RuntimeException e) {
            throw new IllegalStateException("delivery drain failed: " + describe(e), e);
        }
    }

    /** The guard around Quarkus' HTTP dispatch, made once Quarkus runs (it reads the request deadline). */
    private AnswerGuard guard() {
        AnswerGuard g = guard;
        if (g == null) {
            long deadlineMs = Arc.container().instance(RequestConfig.class).get().deadlineMs();
            g = new AnswerGuard(quarkus::handleRequest, ARRIVAL_WAIT_MILLIS, deadlineMs + ANSWER_GRACE_MILLIS);
            guard = g;
        }
        return g;
    }

    /** The application's dispatcher, looked up once Quarkus runs. */
    private Dispatcher dispatcher() {
        Dispatcher d = dispatcher;
        if (d == null) {
            d = Arc.container().instance(Dispatcher.class).get();
            dispatcher = d;
        }
        return d;
    }

    /** The application's flusher, looked up once Quarkus runs (the constructor started it). */
    private DuplicateFlusher duplicates() {
        DuplicateFlusher d = duplicates;
        if (d == null) {
            d = Arc.container().instance(DuplicateFlusher.class).get();
            duplicates = d;
        }
        return d;
    }

    /** @return the distinct messages of a throwable and its causes, outermost first, joined by ": " */
    static String describe(Throwable t) {
        List<String> parts = new ArrayList<>();
        Set<Throwable> seen = new HashSet<>();
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
            String m = c.getMessage() == null ? c.getClass().getName() : c.getMessage();
            if (parts.isEmpty() || !parts.get(parts.size() - 1).contains(m)) {
                parts.add(m);
            }
        }
        return String.join(": ", parts);
    }
}
