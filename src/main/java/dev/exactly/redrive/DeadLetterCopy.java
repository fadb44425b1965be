package dev.exactly.redrive;

import java.util.UUID;

/**
 * A message stored in a dead-letter queue, as a redrive reads it.
 *
 * @param deadLetterId     the copy's message id
 * @param dlqPartitionId   its partition's id
 * @param dlqPartition     its partition's name (the origin partition's name)
 * @param dlqOffset        its offset in that partition
 * @param originQueue      the queue it was dead-lettered from, or null when it carries no dead-letter header
 * @param originPartition  the partition it was dead-lettered from, or null likewise
 * @param redrivenTo       the message id an earlier redrive stored, or null when never redriven
 * @param payload          the exact stored bytes
 * @param contentType      the stored media type, or null for JSON
 * @param headersJson      the copy's headers plus "x-exactly-redrive", a JSON object
 * @param traceId          the stored trace id, or null
 */
public record DeadLetterCopy(UUID deadLetterId, long dlqPartitionId, String dlqPartition, long dlqOffset,
                             String originQueue, String originPartition, UUID redrivenTo, byte[] payload,
                             String contentType, String headersJson, String traceId) {

    /** @return true when the copy names the queue and partition it came from */
    public boolean hasOrigin() {
        return originQueue != null && originPartition != null;
    }
}
