package dev.exactly.transaction;

import dev.exactly.consume.AckCommand;
import dev.exactly.engine.PushCommand;
import java.util.List;

/** One operation of a transaction: a push of items, or an ack. */
public sealed interface TransactionOperation {

    /**
     * Pushes items (the push API's item rules).
     *
     * @param items the validated items, in request order
     */
    record Push(List<PushCommand> items) implements TransactionOperation {
    }

    /**
     * Acks one delivered message (the ack API's rules).
     *
     * @param ack the validated ack
     */
    record Ack(AckCommand ack) implements TransactionOperation {
    }
}
