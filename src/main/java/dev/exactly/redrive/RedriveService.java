package dev.exactly.redrive;

import dev.exactly.consume.DeadLetters;
import dev.exactly.engine.PushCommand;
import dev.exactly.engine.PushEngine;
import dev.exactly.engine.PushStatus;
import dev.exactly.engine.PushVerdict;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Redrives dead letters: pushes copies of a queue's dead-letter queue back to the queue and
 * partition named in their "x-exactly-dead-letter" header, through the push engine, then records
 * them in exactly.redrives so that a "redrive all" call moves on past them.
 *
 * <p>The redriven message's idempotency key (transactionId) is {@code "redrive:" + <the copy's
 * message id>}, never the original transactionId: that one is likely still inside the origin
 * partition's deduplication window, and probing it would swallow the redrive as a duplicate of
 * the very message that failed. The original transactionId travels in the header
 * "x-exactly-redrive". A redrive retried after a lost answer pushes the same key again and is
 * answered duplicate by the engine, even when the record of the first one was never written;
 * once recorded, a redrive by id answers duplicate without pushing at all.
 */
@ApplicationScoped
public class RedriveService {

    /** Prefix of a redriven message's idempotency key; the dead-letter copy's message id follows. */
    public static final String KEY_PREFIX = "redrive:";

    private final RedriveRepository store;
    private final PushEngine engine;

    /** Constructor injection. */
    public RedriveService(RedriveRepository store, PushEngine engine) {
        this.store = store;
        this.engine = engine;
    }

    /**
     * @param queue   the origin queue (a valid name); its dead-letter queue is {@link DeadLetters#queueOf}
     * @param request which copies
     * @return per copy what happened, and the copies left to redrive
     */
    public Uni<RedriveResponse> redrive(String queue, RedriveRequest request) {
        String dlq = DeadLetters.queueOf(queue);
        return store.candidates(dlq, request.messageIds(), request.take())
                .flatMap(found -> redrive(dlq, request, found));
    }

    private Uni<RedriveResponse> redrive(String dlq, RedriveRequest request, List<DeadLetterCopy> found) {
        // the copies to answer, in answer order: the requested ids (null = not found), or all found
        List<DeadLetterCopy> order = new ArrayList<>();
        if (request.messageIds() == null) {
            order.addAll(found);
        } else {
            Map<UUID, DeadLetterCopy> byId = new HashMap<>();
            for (DeadLetterCopy c : found) {
                byId.put(c.deadLetterId(), c);
            }
            for (UUID id : request.messageIds()) {
                DeadLetterCopy c = byId.get(id);
                order.add(c != null && c.hasOrigin() ? c : null);
            }
        }
        List<PushCommand> commands = new ArrayList<>();
        List<DeadLetterCopy> pushed = new ArrayList<>();
        for (DeadLetterCopy c : order) {
            if (c != null && c.redrivenTo() == null) {
                // the origin partition, unless the queue spreads by key: then the redrive key decides
                commands.add(new PushCommand(c.originQueue(), c.originPartition(), KEY_PREFIX + c.deadLetterId(),
                        c.payload(), c.contentType(), c.headersJson(), c.traceId(), false));
                pushed.add(c);
            }
        }
        Uni<List<PushVerdict>> verdicts = commands.isEmpty()
                ? Uni.createFrom().item(List.of()) : engine.push(commands);
        return verdicts.flatMap(v -> {
            List<UUID> stored = new ArrayList<>(v.size());
            for (PushVerdict p : v) {
                stored.add(p.messageId());
            }
            return store.record(dlq, pushed, stored).map(remaining -> answer(request, order, v, remaining));
        });
    }

    private static RedriveResponse answer(RedriveRequest request, List<DeadLetterCopy> order, List<PushVerdict> v,
                                          long remaining) {
        List<RedriveResult> results = new ArrayList<>(order.size());
        int next = 0;
        for (int i = 0; i < order.size(); i++) {
            DeadLetterCopy c = order.get(i);
            if (c == null) {
                results.add(RedriveResult.notFound(request.messageIds().get(i)));
            } else if (c.redrivenTo() != null) {
                results.add(new RedriveResult(c.deadLetterId(), RedriveResult.DUPLICATE, c.redrivenTo(),
                        c.originQueue(), c.originPartition()));
            } else {
                PushVerdict p = v.get(next++);
                results.add(new RedriveResult(c.deadLetterId(),
                        p.status() == PushStatus.QUEUED ? RedriveResult.REDRIVEN : RedriveResult.DUPLICATE,
                        p.messageId(), p.queue(), p.partition()));
            }
        }
        return new RedriveResponse(results, remaining);
    }
}
