package dev.exactly.engine;

import java.util.UUID;

/**
 * A leader item on its way to the store: the first occurrence of its key in the request (or
 * flush), with its minted message id and its 16-byte transaction hash.
 *
 * @param index         position in the request (0-based)
 * @param command       what was pushed
 * @param messageId     the UUIDv7 minted on arrival
 * @param transactionId the idempotency key (the message id's text when none was given)
 * @param hash          XXH3-128 of transactionId, 16 bytes (see {@link TransactionHash})
 * @param probe         false when the key is the item's own fresh message id: it cannot be a duplicate
 * @param digest        XXH3-128 of the payload bytes, 16 bytes (see {@link PayloadDigest}), stored with the message
 */
public record PushItem(int index, PushCommand command, UUID messageId, String transactionId, byte[] hash,
                       boolean probe, byte[] digest) {

    /** An item whose digest is computed from its payload. */
    public PushItem(int index, PushCommand command, UUID messageId, String transactionId, byte[] hash, boolean probe) {
        this(index, command, messageId, transactionId, hash, probe, PayloadDigest.of(command.payload()));
    }
}
