package dev.exactly.consume;

import com.fasterxml.jackson.databind.JsonNode;
import dev.exactly.http.ArrayEnvelope;
import dev.exactly.http.ErrorPath;
import dev.exactly.http.JsonRequest;
import dev.exactly.http.JsonTree;
import dev.exactly.problem.ApiProblem;
import dev.exactly.problem.FieldError;
import dev.exactly.naming.Names;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Reads pop and ack request bodies with the request-reading toolkit: pop and ack bodies are small
 * and keep no value byte for byte, so they are read as trees ({@link JsonTree}, errors in the
 * order of the checks); an ack batch is an {@link ArrayEnvelope} of such acks. Problems are
 * collected as {@link FieldError}s naming the field (and the item's index in a batch); nothing is
 * written when there is any.
 */
public final class ConsumeRequests {

    /** Longest error text an ack may carry, in UTF-8 bytes. */
    public static final int MAX_ERROR_BYTES = 4096;
    /** Most acks in one batch. */
    public static final int MAX_ACKS = 1000;

    private static final Set<String> POP_FIELDS =
            Set.of("queue", "partition", "consumerGroup", "batch", "leaseSeconds", "waitMillis");
    private static final Set<String> ACK_FIELDS =
            Set.of("queue", "partition", "consumerGroup", "leaseId", "transactionId", "messageId", "status", "error");
    private static final Set<String> EXTEND_FIELDS = Set.of("leaseId", "leaseSeconds");
    private static final ArrayEnvelope ACKS = ArrayEnvelope.of("items", MAX_ACKS, "acks per request");

    private ConsumeRequests() {
    }

    /**
     * Reads a pop body, {@code {"queue","partition"?,"consumerGroup"?,"batch"?,"leaseSeconds"?,"waitMillis"?}}.
     *
     * @param body UTF-8 JSON
     * @return the pop
     * @throws ApiProblem 400 naming every bad field
     */
    public static PopRequest pop(byte[] body) {
        return JsonTree.read(body, ConsumeRequests::pop);
    }

    /**
     * Reads an ack body ({@link #ack(JsonNode, ErrorPath, List)}).
     *
     * @param body UTF-8 JSON
     * @return the ack
     * @throws ApiProblem 400 naming every bad field
     */
    public static AckCommand ack(byte[] body) {
        return JsonTree.read(body, (root, errors) -> ack(root, ErrorPath.ROOT, errors));
    }

    /**
     * Reads an ack batch body, {@code {"items":[ack, …]}}, at most {@link #MAX_ACKS} acks.
     *
     * @param body UTF-8 JSON
     * @return the acks, in request order (possibly empty)
     * @throws ApiProblem 400 naming the item index and field
     */
    public static List<AckCommand> ackBatch(byte[] body) {
        return ACKS.read(body, (p, at, errors) -> ack(p.readValueAsTree(), at, errors));
    }

    /**
     * A pop lease extension: the lease and its new length counted from now.
     *
     * @param leaseId      the lease a pop handed out
     * @param leaseSeconds seconds from now, 1 to {@link PopRequest#MAX_LEASE_SECONDS}, or null for the queue's leaseTime
     */
    public record LeaseExtension(UUID leaseId, Integer leaseSeconds) {
    }

    /**
     * Reads an extend body, {@code {"leaseId","leaseSeconds"?}} (the body a task extension takes).
     * A leaseSeconds over {@link PopRequest#MAX_LEASE_SECONDS} is refused, as a pop asking for it is,
     * never shortened: a consumer must not believe it holds a lease longer than it does.
     *
     * @param body UTF-8 JSON
     * @return the extension
     * @throws ApiProblem 400 naming every bad field (an unknown one included)
     */
    public static LeaseExtension extension(byte[] body) {
        return JsonTree.read(body, (root, errors) -> {
            JsonTree.unknownFields(root, EXTEND_FIELDS, ErrorPath.ROOT, errors);
            UUID lease = JsonTree.uuid(root, "leaseId", true, ErrorPath.ROOT, errors);
            Integer seconds = integer(root, "leaseSeconds", 1, PopRequest.MAX_LEASE_SECONDS, errors);
            return errors.isEmpty() ? new LeaseExtension(lease, seconds) : null;
        });
    }

    private static PopRequest pop(JsonNode root, List<FieldError> errors) {
        ErrorPath at = ErrorPath.ROOT;
        JsonTree.unknownFields(root, POP_FIELDS, at, errors);
        String queue = JsonTree.name(root, "queue", true, Names::checkName, at, errors);
        String partition = JsonTree.name(root, "partition", false, Names::checkName, at, errors);
        String group = JsonTree.name(root, "consumerGroup", false, Names::checkName, at, errors);
        Integer batch = integer(root, "batch", 1, PopRequest.MAX_BATCH, errors);
        Integer lease = integer(root, "leaseSeconds", 1, PopRequest.MAX_LEASE_SECONDS, errors);
        Integer wait = integer(root, "waitMillis", 0, PopRequest.MAX_WAIT_MILLIS, errors);
        if (!errors.isEmpty()) {
            return null;
        }
        return new PopRequest(queue, partition, group == null ? PopRequest.DEFAULT_GROUP : group,
                batch == null ? 1 : batch, lease, wait == null ? 0 : wait);
    }

    /**
     * Reads one ack: {@code {"queue"?,"partition"?,"consumerGroup"?,"leaseId","transactionId"|"messageId",
     * "status","error"?}}. With a transactionId the queue is required and a partition that is not
     * given is found by the database (the key's partition on a queue that spreads by key, else
     * the lease's partition, else "Default"); with a messageId both are optional and, when given,
     * must match the message.
     *
     * @param node   the ack object (anything else is refused)
     * @param at     where it is: the root, a batch item, or a transaction's operation
     * @param errors where problems are added
     * @return the ack, or null when errors were added
     */
    public static AckCommand ack(JsonNode node, ErrorPath at, List<FieldError> errors) {
        if (node == null || !node.isObject()) {
            errors.add(at.whole("an ack must be a JSON object"));
            return null;
        }
        int before = errors.size();
        JsonTree.unknownFields(node, ACK_FIELDS, at, errors);
        String queue = JsonTree.name(node, "queue", false, Names::checkName, at, errors);
        String partition = JsonTree.name(node, "partition", false, Names::checkName, at, errors);
        String group = JsonTree.name(node, "consumerGroup", false, Names::checkName, at, errors);
        UUID lease = JsonTree.uuid(node, "leaseId", true, at, errors);
        UUID messageId = JsonTree.uuid(node, "messageId", false, at, errors);
        String txn = JsonTree.text(node, "transactionId", at, errors);
        if (txn != null) {
            JsonRequest.check(errors, at, "transactionId", Names.checkKey(txn, Names.MAX_TRANSACTION_ID_BYTES));
        }
        boolean hasTxn = JsonTree.present(node, "transactionId");
        boolean hasId = JsonTree.present(node, "messageId");
        if (hasTxn == hasId) {
            errors.add(at.error(hasTxn ? "messageId" : "transactionId",
                    "give exactly one of transactionId and messageId"));
        }
        if (hasTxn && queue == null && !node.has("queue")) {
            errors.add(at.error("queue", "is required to ack by transactionId"));
        }
        AckStatus status = null;
        String statusText = JsonTree.text(node, "status", at, errors);
        if (statusText == null) {
            if (!JsonTree.present(node, "status")) {
                errors.add(at.error("status", "is required: completed, failed, retry or dlq"));
            }
        } else {
            status = AckStatus.byWire(statusText);
            if (status == null) {
                errors.add(at.error("status", "must be completed, failed, retry or dlq"));
            }
        }
        String error = JsonTree.text(node, "error", at, errors);
        if (error != null) {
            JsonRequest.check(errors, at, "error", Names.checkKey(error, MAX_ERROR_BYTES));
        }
        if (errors.size() > before) {
            return null;
        }
        return new AckCommand(queue, partition, group == null ? PopRequest.DEFAULT_GROUP : group, lease, txn,
                messageId, status, error);
    }

    private static Integer integer(JsonNode node, String field, int min, int max, List<FieldError> errors) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isIntegralNumber() || !v.canConvertToInt()) {
            errors.add(new FieldError(null, field, "must be an integer"));
            return null;
        }
        int i = v.intValue();
        if (i < min || i > max) {
            errors.add(new FieldError(null, field, "must be between " + min + " and " + max));
            return null;
        }
        return i;
    }
}
