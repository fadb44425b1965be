package dev.exactly.redrive;

import com.fasterxml.jackson.databind.JsonNode;
import dev.exactly.http.ErrorPath;
import dev.exactly.problem.FieldError;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;

/**
 * A redrive request: {@code {"messageIds"?: [uuid, …], "limit"?: n}}. With messageIds (1 to
 * {@link #MAX_IDS}), those dead-letter copies; without, the next {@code limit} (1 to
 * {@link #MAX_IDS}, default {@link #DEFAULT_LIMIT}) copies not redriven yet. The two exclude
 * each other.
 *
 * @param messageIds the copies to redrive, or null for "the next limit of them"
 * @param limit      how many copies a "redrive all" call takes at most
 */
public record RedriveRequest(List<UUID> messageIds, int limit) {

    /** Most copies one call redrives. */
    public static final int MAX_IDS = 1000;

    /** Copies a "redrive all" call takes when no limit is given. */
    public static final int DEFAULT_LIMIT = 100;

    /**
     * Reads a request body; every problem found is added to {@code errors}.
     *
     * @param root   the body, a JSON object
     * @param errors where field errors go
     * @return the request, or null when {@code errors} got any
     */
    public static RedriveRequest read(JsonNode root, List<FieldError> errors) {
        int before = errors.size();
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!f.equals("messageIds") && !f.equals("limit")) {
                errors.add(new FieldError(null, f, "unknown field"));
            }
        }
        List<UUID> ids = null;
        JsonNode idsNode = root.get("messageIds");
        if (idsNode != null) {
            if (!idsNode.isArray() || idsNode.isEmpty() || idsNode.size() > MAX_IDS) {
                errors.add(new FieldError(null, "messageIds", "must be an array of 1 to " + MAX_IDS + " message ids"));
            } else {
                ids = new ArrayList<>(idsNode.size());
                for (int i = 0; i < idsNode.size(); i++) {
                    UUID id = uuid(idsNode.get(i));
                    if (id == null) {
                        errors.add(ErrorPath.ROOT.element("messageIds", i).whole("must be a UUID"));
                    }
                    ids.add(id);
                }
            }
        }
        int limit = DEFAULT_LIMIT;
        JsonNode limitNode = root.get("limit");
        if (limitNode != null) {
            if (!limitNode.isIntegralNumber() || !limitNode.canConvertToInt()
                    || limitNode.intValue() < 1 || limitNode.intValue() > MAX_IDS) {
                errors.add(new FieldError(null, "limit", "must be an integer from 1 to " + MAX_IDS));
            } else {
                limit = limitNode.intValue();
            }
            if (idsNode != null) {
                errors.add(new FieldError(null, "limit", "cannot be given with messageIds"));
            }
        }
        return errors.size() > before ? null : new RedriveRequest(ids, limit);
    }

    private static UUID uuid(JsonNode n) {
        if (n == null || !n.isTextual() || n.textValue().length() != 36) {
            return null;
        }
        try {
            return UUID.fromString(n.textValue());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
