package dev.exactly.consume;

import com.fasterxml.jackson.databind.JsonNode;
import dev.exactly.problem.FieldError;
import dev.exactly.push.Names;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Validates pop and ack request bodies (JSON trees). Problems are collected as {@link FieldError}s
 * naming the field (and the item's index in a batch); nothing is written when there is any.
 */
public final class ConsumeRequests {

    /** Longest error text an ack may carry, in UTF-8 bytes. */
    public static final int MAX_ERROR_BYTES = 4096;

    private static final Set<String> POP_FIELDS =
            Set.of("queue", "partition", "consumerGroup", "batch", "leaseSeconds", "waitMillis");
    private static final Set<String> ACK_FIELDS =
            Set.of("queue", "partition", "consumerGroup", "leaseId", "transactionId", "messageId", "status", "error");

    private ConsumeRequests() {
    }

    /**
     * Reads {@code {"queue","partition"?,"consumerGroup"?,"batch"?,"leaseSeconds"?,"waitMillis"?}}.
     *
     * @return the pop, or null when errors were added
     */
    public static PopRequest pop(JsonNode root, List<FieldError> errors) {
        int before = errors.size();
        unknownFields(root, POP_FIELDS, null, "", errors);
        String queue = name(root, "queue", true, null, "", errors);
        String partition = name(root, "partition", false, null, "", errors);
        String group = name(root, "consumerGroup", false, null, "", errors);
        Integer batch = integer(root, "batch", 1, PopRequest.MAX_BATCH, errors);
        Integer lease = integer(root, "leaseSeconds", 1, PopRequest.MAX_LEASE_SECONDS, errors);
        Integer wait = integer(root, "waitMillis", 0, PopRequest.MAX_WAIT_MILLIS, errors);
        if (errors.size() > before) {
            return null;
        }
        return new PopRequest(queue, partition, group == null ? PopRequest.DEFAULT_GROUP : group,
                batch == null ? 1 : batch, lease, wait == null ? 0 : wait);
    }

    /**
     * Reads one ack: {@code {"queue"?,"partition"?,"consumerGroup"?,"leaseId","transactionId"|"messageId",
     * "status","error"?}}. With a transactionId the queue is required and the partition defaults to
     * "Default"; with a messageId both are optional and, when given, must match the message.
     *
     * @param node   the ack object
     * @param index  its index in a batch (reported in errors), or null
     * @param prefix prepended to field names in errors (e.g. "" or "items[2].")
     * @return the ack, or null when errors were added
     */
    public static AckCommand ack(JsonNode node, Integer index, String prefix, List<FieldError> errors) {
        if (node == null || !node.isObject()) {
            errors.add(new FieldError(index, prefix.isEmpty() ? null : prefix.substring(0, prefix.length() - 1),
                    "an ack must be a JSON object"));
            return null;
        }
        int before = errors.size();
        unknownFields(node, ACK_FIELDS, index, prefix, errors);
        String queue = name(node, "queue", false, index, prefix, errors);
        String partition = name(node, "partition", false, index, prefix, errors);
        String group = name(node, "consumerGroup", false, index, prefix, errors);
        UUID lease = uuid(node, "leaseId", true, index, prefix, errors);
        UUID messageId = uuid(node, "messageId", false, index, prefix, errors);
        String txn = text(node, "transactionId", index, prefix, errors);
        if (txn != null) {
            check(errors, index, prefix + "transactionId", Names.checkKey(txn, Names.MAX_TRANSACTION_ID_BYTES));
        }
        boolean hasTxn = node.has("transactionId") && !node.get("transactionId").isNull();
        boolean hasId = node.has("messageId") && !node.get("messageId").isNull();
        if (hasTxn == hasId) {
            errors.add(new FieldError(index, prefix + (hasTxn ? "messageId" : "transactionId"),
                    "give exactly one of transactionId and messageId"));
        }
        if (hasTxn && queue == null && !node.has("queue")) {
            errors.add(new FieldError(index, prefix + "queue", "is required to ack by transactionId"));
        }
        AckStatus status = null;
        String statusText = text(node, "status", index, prefix, errors);
        if (statusText == null) {
            if (!node.has("status") || node.get("status").isNull()) {
                errors.add(new FieldError(index, prefix + "status", "is required: completed, failed, retry or dlq"));
            }
        } else {
            status = AckStatus.byWire(statusText);
            if (status == null) {
                errors.add(new FieldError(index, prefix + "status", "must be completed, failed, retry or dlq"));
            }
        }
        String error = text(node, "error", index, prefix, errors);
        if (error != null) {
            check(errors, index, prefix + "error", Names.checkKey(error, MAX_ERROR_BYTES));
        }
        if (errors.size() > before) {
            return null;
        }
        if (txn != null && partition == null) {
            partition = Names.DEFAULT_PARTITION;
        }
        return new AckCommand(queue, partition, group == null ? PopRequest.DEFAULT_GROUP : group, lease, txn,
                messageId, status, error);
    }

    private static void unknownFields(JsonNode node, Set<String> known, Integer index, String prefix,
                                      List<FieldError> errors) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!known.contains(f)) {
                errors.add(new FieldError(index, prefix + f, "unknown field"));
            }
        }
    }

    private static String text(JsonNode node, String field, Integer index, String prefix, List<FieldError> errors) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            errors.add(new FieldError(index, prefix + field, "must be a string"));
            return null;
        }
        return v.textValue();
    }

    private static String name(JsonNode node, String field, boolean required, Integer index, String prefix,
                               List<FieldError> errors) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                errors.add(new FieldError(index, prefix + field, "is required"));
            }
            return null;
        }
        String s = text(node, field, index, prefix, errors);
        if (s != null) {
            String why = Names.checkName(s);
            if (why != null) {
                errors.add(new FieldError(index, prefix + field, why));
                return null;
            }
        }
        return s;
    }

    private static UUID uuid(JsonNode node, String field, boolean required, Integer index, String prefix,
                             List<FieldError> errors) {
        JsonNode v = node.get(field);
        if (v == null || v.isNull()) {
            if (required) {
                errors.add(new FieldError(index, prefix + field, "is required"));
            }
            return null;
        }
        String s = text(node, field, index, prefix, errors);
        if (s == null) {
            return null;
        }
        try {
            if (s.length() != 36) {
                throw new IllegalArgumentException();
            }
            return UUID.fromString(s);
        } catch (IllegalArgumentException e) {
            errors.add(new FieldError(index, prefix + field, "must be a UUID"));
            return null;
        }
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

    private static void check(List<FieldError> errors, Integer index, String field, String reason) {
        if (reason != null) {
            errors.add(new FieldError(index, field, reason));
        }
    }
}
