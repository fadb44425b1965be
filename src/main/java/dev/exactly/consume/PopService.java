package dev.exactly.consume;

import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * Pop with long-poll. When nothing is available and the caller allows a wait, it tries again
 * after a Vert.x timer (25 ms, doubling up to 500 ms) until a message arrives or the wait is
 * over. No thread is blocked while waiting: the event loop is free between attempts.
 */
@ApplicationScoped
public class PopService {

    static final long FIRST_DELAY_MS = 25;
    static final long MAX_DELAY_MS = 500;

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
     */
    public Uni<List<PoppedMessage>> pop(PopRequest request) {
        long deadline = System.nanoTime() + request.waitMillis() * 1_000_000L;
        return attempt(request, deadline, FIRST_DELAY_MS);
    }

    private Uni<List<PoppedMessage>> attempt(PopRequest request, long deadline, long delay) {
        return repository.pop(request).flatMap(messages -> {
            long leftMs = (deadline - System.nanoTime()) / 1_000_000L;
            if (!messages.isEmpty() || leftMs <= 0) {
                return Uni.createFrom().item(messages);
            }
            return sleep(Math.min(delay, leftMs))
                    .flatMap(ignored -> attempt(request, deadline, Math.min(delay * 2, MAX_DELAY_MS)));
        });
    }

    private Uni<Void> sleep(long millis) {
        return Uni.createFrom().emitter(e -> vertx.setTimer(millis, id -> e.complete(null)));
    }
}
