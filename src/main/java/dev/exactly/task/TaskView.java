package dev.exactly.task;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonRawValue;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.HexFormat;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * A task on the wire. data and result are returned as JSON, byte for byte as sent.
 *
 * @param queue             queue name
 * @param id                task id
 * @param type              task type
 * @param data              the data, raw JSON
 * @param state             queued, scheduled, running, retrying (waiting to retry), completed or dead
 * @param attempts          deliveries so far
 * @param maxRetries        deliveries allowed after the first
 * @param retryDelaySeconds wait after a failure, seconds
 * @param priority          higher first
 * @param runAt             not claimable before
 * @param autoDedupe        whether the task carries an autoDedupe key
 * @param dedupeKey         the key, lowercase hex of the 32 SHA-256 bytes, or null
 * @param leaseId           (claim answers only) the lease to pass to complete, fail or delete
 * @param leaseExpiresAt    while running: when the lease ends
 * @param lastError         the last failure's error, or "lease expired"
 * @param result            the completion's result, raw JSON, or null
 * @param createdAt         enqueue time
 * @param updatedAt         last change
 * @param finishedAt        when it completed or died
 */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TaskView(String queue, String id, String type, @JsonRawValue @Schema(ref = "AnyJson") String data, String state, int attempts,
                       int maxRetries, int retryDelaySeconds, int priority, OffsetDateTime runAt, boolean autoDedupe,
                       String dedupeKey, UUID leaseId, OffsetDateTime leaseExpiresAt, String lastError,
                       @JsonRawValue @Schema(ref = "AnyJson") String result, OffsetDateTime createdAt, OffsetDateTime updatedAt,
                       OffsetDateTime finishedAt) {

    /**
     * @param t         the stored task
     * @param withLease true to include the lease id (answers to the worker that holds it)
     */
    public static TaskView of(StoredTask t, boolean withLease) {
        return new TaskView(t.queue(), t.taskId(), t.type(), utf8(t.data()), t.label(), t.attempts(),
                t.maxRetries(), t.retryDelaySeconds(), t.priority(), t.runAt(), t.dedupeKey() != null,
                t.dedupeKey() == null ? null : HexFormat.of().formatHex(t.dedupeKey()),
                withLease ? t.leaseId() : null, t.leaseExpiresAt(), t.lastError(), utf8(t.result()),
                t.createdAt(), t.updatedAt(), t.finishedAt());
    }

    private static String utf8(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }
}
