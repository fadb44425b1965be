package dev.exactly.consume;

import dev.exactly.db.RequestDeadline;
import dev.exactly.engine.KeySpread;
import dev.exactly.problem.ApiProblem;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * Pop with long-poll. When nothing is available and the caller allows a wait, it tries again
 * after a Vert.x timer (25 ms, doubling up to 500 ms) until a message arrives or the wait is
 * over. No thread is blocked while waiting: the event loop is free between attempts. The wait
 * ends {@link #LAST_ATTEMPT_MARGIN_MS} before the request's deadline ({@link RequestDeadline}) at
 * the latest, so the last attempt is answered in time (exactly.request.deadline-ms leaves room for
 * the longest wait, {@link PopRequest#MAX_WAIT_MILLIS}, and this margin: checked at start-up).
 */
@ApplicationScoped
public class PopService {

    static final long FIRST_DELAY_MS = 25;
    static final long MAX_DELAY_MS = 500;

    /** How long before the request's deadline a long poll stops waiting, in milliseconds: room for its last attempt. */
    public static final long LAST_ATTEMPT_MARGIN_MS = 2_000;

    private final ConsumeRepository repository;
    private final Vertx vertx;

    /** Constructor injection. */
    public PopService(ConsumeRepository repository, Vertx vertx) {
        this.repository = repository;
        this.vertx = vertx;
    }

    /**
     * @param request a validated pop
     * @return messages of one leased partition in offset order; empty when none became
     *         available within {@code request.waitMillis()}
     * @throws ApiProblem (as the Uni's failure, 400) when the pop names a partition that the
     *         queue, which spreads by key, never stores to (checked when the first attempt finds
     *         nothing, before any wait: a partition outside the spread holds nothing to deliver)
     */
    public Uni<List<PoppedMessage>> pop(PopRequest request) {
        long requestDeadline = RequestDeadline.current();
        long deadline = System.nanoTime() + request.waitMillis() * 1_000_000L;
        if (requestDeadline != RequestDeadline.NONE) {
            deadline = Math.min(deadline, requestDeadline - LAST_ATTEMPT_MARGIN_MS * 1_000_000L);
        }
        long waitEnd = deadline;
        return repository.pop(request).flatMap(messages -> {
            if (!messages.isEmpty() || request.partition() == null) {
                return answerOrWait(request, waitEnd, requestDeadline, FIRST_DELAY_MS, messages);
            }
            return RequestDeadline.within(requestDeadline, () -> repository.spreadPartitions(request.queue())).flatMap(n -> {
                if (n > 0 && !KeySpread.isPartitionOf(request.partition(), n)) {
                    throw ApiProblem.invalid(null, "partition", "queue '" + request.queue() + "' spreads its "
                            + "messages over " + n + " partitions by key (spreadPartitions), " + KeySpread.partitionName(0)
                            + " to " + KeySpread.partitionName(n - 1) + ", so '" + request.partition()
                            + "' never holds a message: name one of those, or leave partition out to pop any of them");
                }
                return answerOrWait(request, waitEnd, requestDeadline, FIRST_DELAY_MS, messages);
            });
        });
    }

    private Uni<List<PoppedMessage>> attempt(PopRequest request, long waitEnd, long requestDeadline, long delay) {
        // after a timer: the request's deadline is named, whichever thread runs this
        return RequestDeadline.within(requestDeadline, () -> repository.pop(request))
                .flatMap(messages -> answerOrWait(request, waitEnd, requestDeadline, delay, messages));
    }

    private Uni<List<PoppedMessage>> answerOrWait(PopRequest request, long waitEnd, long requestDeadline, long delay,
                                                  List<PoppedMessage> messages) {
        long leftMs = (waitEnd - System.nanoTime()) / 1_000_000L;
        if (!messages.isEmpty() || leftMs <= 0) {
            return Uni.createFrom().item(messages);
        }
        return sleep(Math.min(delay, leftMs))
                .flatMap(ignored -> attempt(request, waitEnd, requestDeadline, Math.min(delay * 2, MAX_DELAY_MS)));
    }

    private Uni<Void> sleep(long millis) {
        return Uni.createFrom().emitter(e -> vertx.setTimer(millis, id -> e.complete(null)));
    }
}
