package dev.exactly.http;

import dev.exactly.engine.PushCommand;
import java.util.List;
import org.jboss.logging.MDC;

/**
 * What the adapters put in the logging context (the MDC, which the JSON log format writes under
 * {@code mdc}): the queue and partition a request pushes to, and, in the Lambda shape, the AWS
 * request id of the invocation. Inside a request, Quarkus keeps the MDC on the request's Vert.x
 * context, so every line logged for that request carries it, whichever thread writes it. The
 * engine never touches it.
 */
public final class LogContext {

    /** The AWS request id of the Lambda invocation (the key AWS's own JSON logs use). */
    public static final String AWS_REQUEST_ID = "AWSRequestId";
    /** The queue a request pushes to, when it pushes to one. */
    public static final String QUEUE = "queue";
    /** The partition a request pushes to, when the producer named one. */
    public static final String PARTITION = "partition";

    private LogContext() {
    }

    /**
     * Names the queue, and the partition, that validated push commands go to: each only when the
     * commands share it (a request spanning several leaves it out rather than naming one of them),
     * and the partition only when it was named ({@link PushCommand#partitionNamed()}): an item that
     * names none (and a webhook delivery, whatever its source's partition) goes to that partition or,
     * on a queue that spreads by key, to its key's, which only the engine knows.
     *
     * @param commands the request's commands (nothing is put for none)
     */
    public static void pushTo(List<PushCommand> commands) {
        if (commands.isEmpty()) {
            return;
        }
        PushCommand first = commands.get(0);
        boolean oneQueue = true;
        boolean onePartition = true;
        for (PushCommand c : commands) {
            oneQueue &= first.queue().equals(c.queue());
            onePartition &= c.partitionNamed() && first.partition().equals(c.partition());
        }
        if (oneQueue) {
            MDC.put(QUEUE, first.queue());
            if (onePartition) {
                MDC.put(PARTITION, first.partition());
            }
        }
    }
}
