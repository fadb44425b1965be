package dev.exactly.db;

import io.smallrye.common.vertx.VertxContext;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.util.function.Supplier;

/**
 * The instant by which the request being served must be answered, on the {@link System#nanoTime()}
 * scale, for the database work done for it ({@link BorrowedConnections} bounds each operation by
 * it). The HTTP layer sets it when a request arrives, on the request's Vert.x (duplicated)
 * context, where the request's work runs and finds it again, whichever thread runs it. Work that
 * runs for a request but away from its context (a retry after a back-off on another thread, the
 * fused flush of several requests) names its deadline with {@link #within}. Work that is no
 * request's (timers, start-up, the Lambda's scheduled maintenance) has none: {@link #NONE}.
 */
public final class RequestDeadline {

    /** No deadline: the work runs until it finishes (bounded only by the session limits). */
    public static final long NONE = Long.MAX_VALUE;

    /** The key of the deadline among the request context's locals. */
    private static final String KEY = "exactly.request.deadline";

    private static final ThreadLocal<Long> SCOPE = new ThreadLocal<>();

    private RequestDeadline() {
    }

    /**
     * @return the deadline of the work the caller does now: the one {@link #within} names on this
     *         thread, else the one of the request whose Vert.x context this is, else {@link #NONE}
     */
    public static long current() {
        Long scoped = SCOPE.get();
        if (scoped != null) {
            return scoped;
        }
        Context ctx = Vertx.currentContext();
        if (ctx != null && VertxContext.isDuplicatedContext(ctx)) {
            Object d = ctx.getLocal(KEY);
            if (d instanceof Long deadline) {
                return deadline;
            }
        }
        return NONE;
    }

    /**
     * Sets the deadline of the request whose Vert.x context is the current one.
     *
     * @param deadline the instant, {@link System#nanoTime()} scale
     * @return false when the caller is not on a request's (duplicated) context, so nothing was set
     */
    public static boolean begin(long deadline) {
        Context ctx = Vertx.currentContext();
        if (ctx == null || !VertxContext.isDuplicatedContext(ctx)) {
            return false;
        }
        ctx.putLocal(KEY, deadline);
        return true;
    }

    /**
     * Runs {@code work} with {@code deadline} as this thread's current deadline, e.g. the building
     * and subscription of a Uni whose database work is for requests with that deadline.
     *
     * @param deadline an instant, or {@link #NONE} for work that is no request's
     * @return what the work returned
     */
    public static <T> T within(long deadline, Supplier<T> work) {
        Long before = SCOPE.get();
        SCOPE.set(deadline);
        try {
            return work.get();
        } finally {
            if (before == null) {
                SCOPE.remove();
            } else {
                SCOPE.set(before);
            }
        }
    }

    /** @return nanoseconds from now to {@code deadline} (negative once it has passed); {@link #NONE} stays NONE */
    public static long remainingNanos(long deadline) {
        return deadline == NONE ? NONE : deadline - System.nanoTime();
    }
}
